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
# run_mpi NP TIMEOUT ENV... -- PROGRAM ARGS: output (stdout+stderr) in $OUT, status in $RC
run_mpi() {
    local np=$1 to=$2; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    OUT=$(timeout "$to" mpiexec -n "$np" env LD_PRELOAD="$LIB" "${envs[@]}" "$@" 2>&1)
    RC=$?
}
