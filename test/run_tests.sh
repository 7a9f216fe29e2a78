#!/usr/bin/env bash
# Runs every unit test binary and every suite; counts "ok"/"not ok" lines.
# A program that crashes, times out or exits non-zero without reporting a
# failure counts as one failure.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
# The SMPI suites simulate with Debian's SimGrid, the one CI has, even in a
# tree where `make simgrid` built the patched one (test/smpi/smpi-opts.sh);
# TB_SIMGRID=fixed or auto in the environment runs them on that build.
export TB_SIMGRID=${TB_SIMGRID:-debian}
LOG_DIR=${TB_TEST_LOG:-$BUILD/test/logs}
mkdir -p "$LOG_DIR"
passed=0
failed=0
only=${TB_TEST_ONLY:-}

# tally NAME LOG RC SECONDS: counts a finished program's lines
tally() {
    local name=$1 log=$2 rc=$3 secs=$4 p f
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
    printf '%-40s %5d passed %3d failed  (%ds)\n' "$name" "$p" "$f" "$secs"
    if [ "$f" -ne 0 ]; then
        grep -B2 -A3 '^not ok' "$log" | head -40 | sed 's/^/    /'
    fi
}
run_one() { # name, command...
    local name=$1; shift
    local log="$LOG_DIR/${name//\//-}.log"
    local start=$SECONDS
    "$@" >"$log" 2>&1
    tally "$name" "$log" $? $((SECONDS - start))
}

# The suites call plain `mpiexec`: MPICH's, by name, through a shim first in
# PATH (the machine's mpiexec alternative may point to another MPI; the
# Open MPI pass below puts its own shim first).
if command -v mpiexec.mpich >/dev/null; then
    mpich_shim=$BUILD/shim-mpich
    mkdir -p "$mpich_shim"
    printf '#!/bin/sh\nexec mpiexec.mpich "$@"\n' >"$mpich_shim/mpiexec"
    chmod +x "$mpich_shim/mpiexec"
    PATH="$PWD/$mpich_shim:$PATH"
    export PATH
fi

# Suites that keep one core busy for a fixed time whatever the machine (the
# fuzzer: 60 s) start first, in the background, beside the single-threaded
# unit tests; their lines are counted where they come in the order.
# TB_TEST_BACKGROUND="" runs them in turn like the others.
declare -A bg_pid
for n in ${TB_TEST_BACKGROUND-30-fuzz}; do
    [ -f "test/suites/$n.sh" ] || continue
    [ -n "$only" ] && [[ "$n" != *$only* ]] && continue
    (
        start=$SECONDS
        bash "test/suites/$n.sh" >"$LOG_DIR/$n.log" 2>&1
        echo "$? $((SECONDS - start))" >"$LOG_DIR/$n.bg"
    ) &
    bg_pid[$n]=$!
done

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
    if [ -n "${bg_pid[$n]:-}" ]; then
        wait "${bg_pid[$n]}"
        read -r rc secs <"$LOG_DIR/$n.bg" || { rc=1 secs=0; }
        rm -f "$LOG_DIR/$n.bg"
        tally "$n" "$LOG_DIR/$n.log" "$rc" "$secs"
        continue
    fi
    run_one "$n" bash "$s"
done
# The correctness suites again under Open MPI (build/openmpi, `make
# openmpi`): mpiexec is Open MPI's for them, through a shim first in PATH
# (the suites call plain `mpiexec`, and the machine's default stays MPICH).
OMPI_BUILD=${TB_OPENMPI_BUILD:-$BUILD/openmpi}
ompi_suites=()
for n in ${TB_OPENMPI_SUITES-10-matrix 15-knobs 20-fortran 35-config-fallback 36-pmpi-tools 38-nbc}; do
    [ -n "$only" ] && [[ "openmpi/$n" != *$only* ]] && continue
    ompi_suites+=("$n")
done
if [ ${#ompi_suites[@]} -gt 0 ]; then
    if ! command -v mpiexec.openmpi >/dev/null || [ ! -e "$OMPI_BUILD/lib/libtopobcast.so" ]; then
        run_one openmpi sh -c "echo 'not ok openmpi: mpiexec.openmpi or $OMPI_BUILD is missing (./setup.sh --deps-only; make openmpi)'; exit 1"
    else
        shim=$OMPI_BUILD/shim
        mkdir -p "$shim"
        printf '#!/bin/sh\nexec mpiexec.openmpi --allow-run-as-root --oversubscribe "$@"\n' >"$shim/mpiexec"
        chmod +x "$shim/mpiexec"
        for n in "${ompi_suites[@]}"; do
            # the matrix at 1-4 ranks: every algorithm again, not every size
            run_one "openmpi/$n" env BUILD="$OMPI_BUILD" PATH="$PWD/$shim:$PATH" TB_MATRIX_SIZES="1 2 3 4" \
                TB_MATRIX_SEQ_SIZES="2 4" TB_MPICC=mpicc.openmpi TB_PC_NAME=topobcast-openmpi TB_MPI_FLAVOR=openmpi bash "test/suites/$n.sh"
        done
    fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
