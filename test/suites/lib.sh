# Helpers shared by the suites (sourced).
BUILD=${BUILD:-build}
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/$BUILD/lib/libtopobcast.so
T=$BUILD/test/mpi

ok() { echo "ok $*"; }
notok() { echo "not ok $*"; }
check() { # check NAME CONDITION-COMMAND...
    local name=$1; shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}
# Oversubscribed runs: MPICH's ranks busy-poll UCX and never yield, so with
# more ranks than cores (and more so on a loaded machine) every message waits
# for a scheduler tick.  preload NP prints what LD_PRELOAD gets for an NP-rank
# run: the library, plus test/shim/idle_sleep.c's shim (waiting ranks sleep
# ~20 us after 64 empty polls) when NP exceeds the cores.  Only timing
# changes; runs within the cores keep MPICH's own busy-polling.
# TB_TEST_IDLE_SHIM=0 turns the shim off.
IDLE_SHIM=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/$BUILD/test/shim/libtb_idle_sleep.so
NCORES=$(nproc 2>/dev/null || echo 1)
preload() { # NP [LIBRARY]
    local lib=${2-$LIB}
    if [ "${TB_TEST_IDLE_SHIM:-1}" != 0 ] && [ "$1" -gt "$NCORES" ] && [ -e "$IDLE_SHIM" ]; then
        echo "${lib:+$lib:}$IDLE_SHIM"
    else
        echo "$lib"
    fi
}
# run_mpi NP TIMEOUT ENV... -- PROGRAM ARGS: output (stdout+stderr) in $OUT, status in $RC
run_mpi() {
    local np=$1 to=$2; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    OUT=$(timeout "$to" mpiexec -n "$np" env LD_PRELOAD="$(preload "$np")" "${envs[@]}" "$@" 2>&1)
    RC=$?
}
