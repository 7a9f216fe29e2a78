#!/usr/bin/env bash
# Fortran programs calling MPI_BCAST through each binding (use mpi,
# use mpi_f08, include 'mpif.h') are intercepted, and the statistics are
# printed at the end even where the binding's MPI_FINALIZE calls
# PMPI_Finalize directly (MPICH's mpi_f08).  Proof: with binomial forced, the
# library's statistics count exactly as many binomial broadcasts as the
# program made, and the program's own value checks pass.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
# shellcheck source=test/suites/lib.sh
. test/suites/lib.sh
LIB=$PWD/$BUILD/lib/libtopobcast.so
NP=3

for binding in mpi f08 mpifh; do
    PROG=$BUILD/test/mpi/fortran_bcast_$binding
    for f in "$LIB" "$PROG"; do
        if [ ! -e "$f" ]; then
            echo "not ok fortran $binding: $f is missing (make tests)"
            continue 2
        fi
    done
    out=$(timeout 120 mpiexec -n $NP env LD_PRELOAD="$LIB" TOPOBCAST_ALGORITHM=binomial \
        TOPOBCAST_STATS=1 "$PROG" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed "s/^/# $binding: /" # the whole output, as comments
    # the program's own verdict on the received values
    echo "$out" | grep -E '^(ok|not ok) ' | sed "s/^\(ok\|not ok\) /\1 [$binding] /"
    if ! echo "$out" | grep -q '^ok fortran MPI_BCAST values'; then
        echo "not ok fortran $binding: the program did not confirm its values (exit status $rc)"
    fi
    made=$(echo "$out" | sed -n 's/^fortran_bcast: calls=\([0-9][0-9]*\)$/\1/p' | head -1)
    counted=$(stats_calls binomial <<<"$out")
    # other algorithms only: a fallback line is not counted here
    other=$(stats_others binomial <<<"$out" | grep -v '^topobcast: stats: fallback' | tr '\n' ';')
    if [ -n "$made" ] && [ "$made" -gt 0 ] && [ "${counted:-0}" = "$made" ] && [ -z "$other" ]; then
        echo "ok fortran $binding: MPI_BCAST intercepted, stats count $counted binomial broadcasts, program made $made"
    else
        echo "not ok fortran $binding: MPI_BCAST intercepted: program made ${made:-?} calls, stats binomial=${counted:-none}, other: ${other:-none}"
    fi
    [ "$rc" -eq 0 ] || echo "not ok fortran $binding: mpiexec exit status $rc"
done

# World rank 0's TOPOBCAST_DISABLE and TOPOBCAST_STATS hold for the whole
# job in Fortran too: Open MPI's MPI_INIT calls PMPI_Init directly, and
# before the library defined it too, ranks that differed in them hung
# (rc 124).  Rank 0 disabled: nothing runs and nothing is printed; rank 1
# disabled: every call falls back, one warning, counted.
for binding in mpi f08 mpifh; do
    PROG=$BUILD/test/mpi/fortran_bcast_$binding
    [ -e "$PROG" ] || continue
    out=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_DISABLE=1 TOPOBCAST_STATS=1 TOPOBCAST_ALGORITHM=binomial "$PROG" : \
        -n 2 env LD_PRELOAD="$LIB" TOPOBCAST_ALGORITHM=binomial "$PROG" 2>&1)
    rc=$?
    check "fortran $binding: TOPOBCAST_DISABLE and TOPOBCAST_STATS on world rank 0 only: ends (status $rc), values right, nothing printed" \
        bash -c '[ "$1" -eq 0 ] && grep -q "^ok fortran MPI_BCAST values" <<<"$2" && ! grep -q "^topobcast:" <<<"$2"' _ "$rc" "$out"
    out=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_STATS=1 TOPOBCAST_ALGORITHM=binomial "$PROG" : \
        -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_DISABLE=1 TOPOBCAST_ALGORITHM=binomial "$PROG" : \
        -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_ALGORITHM=binomial "$PROG" 2>&1)
    rc=$?
    made=$(sed -n 's/^fortran_bcast: calls=\([0-9][0-9]*\)$/\1/p' <<<"$out" | head -1)
    check "fortran $binding: TOPOBCAST_DISABLE on rank 1 only: ends (status $rc), values right, one warning, all ${made:-?} calls fell back" \
        bash -c '[ "$1" -eq 0 ] && grep -q "^ok fortran MPI_BCAST values" <<<"$2" &&
                 [ "$(grep -c "^topobcast: ranks have different settings" <<<"$2")" -eq 1 ] &&
                 grep -q "^topobcast: stats: fallback calls=$3 (ranks have different settings" <<<"$2"' _ "$rc" "$out" "${made:-x}"
done
