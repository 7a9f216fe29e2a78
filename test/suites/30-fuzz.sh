#!/usr/bin/env bash
# Fuzzes the YAML configuration loader for TB_FUZZ_SECONDS (default 60)
# from the seed corpus; any crash, sanitizer report or broken invariant
# fails, and the input is kept in $BUILD/fuzz/ (crash-*).
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
    ok "fuzz_config skipped (no clang)"
    exit 0
fi
secs=${TB_FUZZ_SECONDS:-60}
log=$BUILD/fuzz/fuzz-run.log
if ! make -s BUILD="$BUILD" fuzz >"$BUILD/fuzz-build.log" 2>&1; then
    notok "fuzz_config does not build (see $BUILD/fuzz-build.log)"
    sed 's/^/# /' "$BUILD/fuzz-build.log" | tail -20
    exit 0
fi
# a generous timeout: libFuzzer stops itself after $secs
timeout $((secs + 120)) make -s BUILD="$BUILD" fuzz-run FUZZ_SECONDS="$secs" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if [ "$rc" -eq 0 ] && [ -n "$execs" ] && [ "$execs" -gt 0 ]; then
    ok "fuzz_config $execs execs in ${secs}s, no findings"
else
    artifact=$(sed -n "s/.*Test unit written to //p" "$log" | tail -1)
    notok "fuzz_config exit status $rc after ${execs:-0} execs${artifact:+, input kept in $artifact}"
    grep -E 'ERROR|invariant failed|SUMMARY' "$log" | head -5 | sed 's/^/# /'
fi
