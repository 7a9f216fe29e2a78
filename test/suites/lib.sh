# Helpers shared by the suites (sourced).
BUILD=${BUILD:-build}
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/$BUILD/lib/libtopobcast.so
T=$BUILD/test/mpi

# shellcheck source=test/suites/text.sh
. "$(dirname "${BASH_SOURCE[0]}")/text.sh" # stats_calls, stats_others, topology_yaml

ok() { echo "ok $*"; }
require() { # require NAME FILE...: status 0 if every FILE exists, else a "not ok NAME" line for the first missing
    local name=$1 f
    shift
    for f; do
        [ -e "$f" ] || { echo "not ok $name: $f is missing (make tests)"; return 1; }
    done
}
notok() { echo "not ok $*"; }
check() { # check NAME CONDITION-COMMAND...
    local name=$1; shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}
# Oversubscribed runs: MPICH's ranks busy-poll UCX and never yield, so with
# more ranks than free cores every message waits for a scheduler tick (4 ms
# here): a 2-rank run on a 2-core machine that another job keeps one core of
# busy is oversubscribed too.  preload NP prints what LD_PRELOAD gets for an
# NP-rank run: the library, plus test/shim/idle_sleep.c's shim (waiting ranks
# sleep ~20 us after 64 empty polls) when NP exceeds the free cores.  Only
# timing changes; runs within the free cores keep MPICH's own busy-polling.
# TB_TEST_IDLE_SHIM=0 turns the shim off, =1 forces it on.
IDLE_SHIM=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/$BUILD/test/shim/libtb_idle_sleep.so
NCORES=$(nproc 2>/dev/null || echo 1)
# free_cores: the cores not kept busy by other work.  A CPU-bound process
# (a busy loop, a SimGrid job, busy-polling ranks) is runnable at every
# instant; /proc/stat's procs_running counts runnable tasks, the reader
# included.  The least of 4 samples 10 ms apart, minus the reader, is the
# load that stays.  Inside par (below) each of the J jobs counts NCORES/J.
free_cores() {
    if [ "${TB_PAR_JOBS:-1}" -gt 1 ]; then
        local share=$((NCORES / TB_PAR_JOBS))
        echo $((share > 0 ? share : 1))
        return
    fi
    local k v _ least=999 i n
    for i in 1 2 3 4; do
        n=0
        while read -r k v _; do
            [ "$k" = procs_running ] && n=$v && break
        done </proc/stat 2>/dev/null
        [ "$n" -lt "$least" ] && least=$n
        [ "$i" -lt 4 ] && sleep 0.01
    done
    local busy=$((least > 0 ? least - 1 : 0))
    local free=$((NCORES - busy))
    echo $((free > 0 ? free : 1))
}
preload() { # NP [LIBRARY]
    local lib=${2-$LIB} shim=${TB_TEST_IDLE_SHIM:-auto}
    if [ "$shim" != 0 ] && [ -e "$IDLE_SHIM" ] && { [ "$shim" = 1 ] || [ "$1" -gt "$(free_cores)" ]; }; then
        echo "${lib:+$lib:}$IDLE_SHIM"
    else
        echo "$lib"
    fi
}
# Concurrent jobs, for suites made of independent runs: par_run CMD... starts
# CMD in the background once fewer than TB_TEST_JOBS (default: the cores)
# run, its stdout and stderr kept; par_wait waits for all of them and prints
# their outputs in the order they were started, so a suite's log reads the
# same whatever the timing.  A job must not write to files another uses.
# par_wait must run in the shell that started the jobs (not in a pipe or
# $(...)).  TB_TEST_JOBS=1 runs everything in turn, as before.
PAR_JOBS=${TB_TEST_JOBS:-$NCORES}
[ "$PAR_JOBS" -ge 1 ] 2>/dev/null || PAR_JOBS=1
_par_dir= _par_n=0
par_run() {
    [ -n "$_par_dir" ] || _par_dir=$(mktemp -d)
    while [ "$(jobs -rp | wc -l)" -ge "$PAR_JOBS" ]; do wait -n; done
    TB_PAR_JOBS=$PAR_JOBS "$@" >"$_par_dir/$_par_n.out" 2>&1 &
    _par_n=$((_par_n + 1))
}
par_wait() {
    wait
    local i
    for ((i = 0; i < _par_n; i++)); do cat "$_par_dir/$i.out"; done
    rm -rf "$_par_dir"
    _par_dir= _par_n=0
}
# smpi_build NAME: brings the SimGrid build (make smpi, incremental) up to
# date for a suite whose SMPI part runs before 40-smpi's in make check (its
# log in $BUILD/test/logs/smpi-build-NAME.log); MPICH runs only, the one
# SMPI tree.  Status 0 when built.
smpi_build() {
    [ "${TB_MPI_FLAVOR:-mpich}" = mpich ] && command -v smpicc >/dev/null && command -v smpirun >/dev/null || return 1
    mkdir -p "$BUILD/test/logs"
    make -s smpi BUILD="$BUILD" >"$BUILD/test/logs/smpi-build-$1.log" 2>&1
}
# run_mpi NP TIMEOUT ENV... -- PROGRAM ARGS: output (stdout+stderr) in $OUT,
# status in $RC; LD_PRELOAD is $PRELOAD when set (the library and a tool),
# else the library, and the idle shim as preload gives it
run_mpi() {
    local np=$1 to=$2; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    OUT=$(timeout "$to" mpiexec -n "$np" env LD_PRELOAD="$(preload "$np" "${PRELOAD-$LIB}")" "${envs[@]}" "$@" 2>&1)
    RC=$?
}
