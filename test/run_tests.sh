#!/usr/bin/env bash
# Runs every unit test binary and every suite; counts "ok"/"not ok" lines.
# A program that crashes, times out or exits non-zero without reporting a
# failure counts as one failure.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
LOG_DIR=${TB_TEST_LOG:-$BUILD/test/logs}
mkdir -p "$LOG_DIR"
passed=0
failed=0
only=${TB_TEST_ONLY:-}

run_one() { # name, command...
    local name=$1; shift
    local log="$LOG_DIR/$name.log"
    local start=$SECONDS
    "$@" >"$log" 2>&1
    local rc=$?
    local p f
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "not ok $name exited with status $rc" >>"$log"
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "not ok $name reported no result" >>"$log"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    printf '%-40s %5d passed %3d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - start))
    if [ "$f" -ne 0 ]; then
        grep -B2 -A3 '^not ok' "$log" | head -40 | sed 's/^/    /'
    fi
}

for t in "$BUILD"/test/unit/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    [ -n "$only" ] && [[ "$n" != *$only* ]] && continue
    run_one "$n" timeout 300 "$t"
done
for s in test/suites/[0-9][0-9]-*.sh; do
    [ -f "$s" ] || continue
    n=$(basename "$s" .sh)
    [ -n "$only" ] && [[ "$n" != *$only* ]] && continue
    run_one "$n" bash "$s"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
