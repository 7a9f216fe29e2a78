#!/usr/bin/env bash
# valgrind memcheck: a 2-rank subset of the MPI matrix under LD_PRELOAD for
# specs that exercise every engine path (blocking segmented sends, segments
# that cut elements, scatter + recursive doubling, pair exchange, bounded
# non-blocking sends, hierarchy detection, the shared-memory stage; the self
# and intercommunicator cases pass through), then the unit test binaries that run quickly enough.
# Invalid accesses, uses of uninitialised values and definite leaks fail a
# run.  test/valgrind.supp holds suppressions for reports from outside
# libtopobcast only.
# The runs are independent: TB_TEST_JOBS of them at once (lib.sh), each
# memcheck run costs ~40 s of CPU whatever the machine.
# Knobs: TB_VALGRIND_SPECS="spec ...", TB_VALGRIND_TIMEOUT (per run, 600 s),
# TB_VALGRIND_UNIT_SKIP (unit tests left out, by name: the same list on every
# machine, so the count of checks does not depend on the load; default
# test_cluster, whose parameter searches take ~2 s natively and minutes
# under memcheck, which runs 20-50x slower).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
LIB=$PWD/$BUILD/lib/libtopobcast.so
PROG=$BUILD/test/mpi/bcast_matrix
SUPP=$PWD/test/valgrind.supp
TIMEOUT=${TB_VALGRIND_TIMEOUT:-600}
UNIT_SKIP=" ${TB_VALGRIND_UNIT_SKIP-test_cluster} "
if [ -n "${TB_VALGRIND_SPECS+set}" ]; then # set but empty: unit tests only
    read -ra SPECS <<<"$TB_VALGRIND_SPECS"
else
    # shellcheck disable=SC2054 # commas separate spec parameters
    # (at 2 ranks every tree is one edge: the engine paths are what differ)
    SPECS=(binomial:segment=8192,send=blocking pipeline:segment=1000,send=nonblocking,outstanding=2
        scatter_allgather:allgather=recursive_doubling split_binary magpie dbt:segment=1000,outstanding=2
        interpipe:levels=node,base=binomial/shm)
fi
# 2 ranks: every communicator kind, derived datatypes with gaps, counts that
# leave partial segments/blocks, plus the back-to-back sequences.
MATRIX_ARGS="--comms=world,split,reversed,dup,self,inter --counts=0,7,4097 --types=byte,int,vector,struct,vecmix
    --then --comms=world --counts=65539 --types=byte,intmix,vecmix --sequences=1"

if ! command -v valgrind >/dev/null; then
    echo "not ok valgrind: valgrind is not installed"
    exit 1
fi
for f in "$LIB" "$PROG" "$SUPP"; do
    if [ ! -e "$f" ]; then
        echo "not ok valgrind: $f is missing"
        exit 1
    fi
done

VG=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite --track-origins=yes --num-callers=30 --suppressions="$SUPP")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# verdict NAME RC LOGS...: ok when every log has "ERROR SUMMARY: 0 errors"
# and the run exited 0.
verdict() {
    local name=$1 rc=$2 errors=0 logs=0 l n
    shift 2
    for l in "$@"; do
        [ -f "$l" ] || continue
        logs=$((logs + 1))
        n=$(sed -n 's/.*ERROR SUMMARY: \([0-9][0-9]*\) errors.*/\1/p' "$l" | tail -1)
        errors=$((errors + ${n:-1}))
    done
    if [ "$rc" -eq 0 ] && [ "$logs" -gt 0 ] && [ "$errors" -eq 0 ]; then
        echo "ok valgrind $name"
    else
        local why="exit status $rc"
        [ "$rc" -eq 99 ] && why="memcheck errors"
        [ "$rc" -eq 124 ] && why="timed out after ${TIMEOUT}s"
        echo "not ok valgrind $name: $why, $errors error(s) in $logs log(s)"
        for l in "$@"; do
            [ -f "$l" ] && grep -m1 -A12 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|Source and|[0-9,]+ bytes in [0-9,]+ blocks are definitely)' "$l" | sed 's/^/#   /'
        done
    fi
}

# One memcheck run per spec and per unit test, TB_TEST_JOBS at once (lib.sh's
# par_run: each in a directory of its own; ranks that wait sleep through
# the idle shim when the runs share the cores).
# shellcheck source=test/suites/lib.sh
. test/suites/lib.sh
vg_matrix() { # SPEC
    local spec=$1 d t0 rc bad name
    d=$(mktemp -d -p "$tmp")
    t0=$SECONDS
    # shellcheck disable=SC2086 # word list by construction
    timeout "$TIMEOUT" mpiexec -n 2 env LD_PRELOAD="$(preload 2)" TOPOBCAST_ALGORITHM="$spec" TOPOBCAST_STATS=1 \
        "${VG[@]}" --log-file="$d/vg.%p.log" "$PROG" $MATRIX_ARGS >"$d/out" 2>"$d/err"
    rc=$?
    bad=$(grep -c '^not ok' "$d/out")
    echo "# valgrind matrix alg=$spec np=2: $(grep -c '^ok' "$d/out") cases ok, $bad not ok, $((SECONDS - t0)) s"
    grep '^not ok' "$d/out" | head -5
    name=${spec%%:*}
    if ! grep -q "^topobcast: stats: algorithm=$name calls=[1-9]" "$d/err"; then
        echo "not ok valgrind matrix alg=$spec: the library did not run $name under valgrind"
    fi
    verdict "matrix alg=$spec np=2" "$rc" "$d"/vg.*.log
}
vg_unit() { # TEST-BINARY
    local t=$1 n d t0 rc
    n=$(basename "$t")
    d=$(mktemp -d -p "$tmp")
    t0=$SECONDS
    timeout "$TIMEOUT" "${VG[@]}" --log-file="$d/vg.unit.log" "$t" >"$d/out" 2>&1
    rc=$?
    echo "# valgrind unit $n: $((SECONDS - t0)) s under valgrind"
    # a failing unit test is reported by the unit test run itself; here
    # only memcheck's verdict counts
    [ "$rc" -ne 99 ] && [ "$rc" -ne 124 ] && rc=0
    verdict "unit $n" "$rc" "$d/vg.unit.log"
}

start=$SECONDS
for spec in ${SPECS[@]+"${SPECS[@]}"}; do
    par_run vg_matrix "$spec"
done
for t in "$BUILD"/test/unit/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    if [[ $UNIT_SKIP == *" $n "* ]]; then
        echo "# valgrind: skipped $n (TB_VALGRIND_UNIT_SKIP)"
        continue
    fi
    par_run vg_unit "$t"
done
par_wait
echo "# valgrind: $((SECONDS - start)) s"
