#!/usr/bin/env bash
# The shared-memory node stage (base shm) under MPICH, 2-4 ranks:
#   1. the MPI matrix (10-matrix.sh: every root, counts 0/1/odd/1 MiB + 3,
#      derived datatypes, sub-communicators, sequences) with shm alone and
#      as the node level's base, on one node and on two: MPICH's
#      MPIR_CVAR_NUM_CLIQUES=2 makes MPI_COMM_TYPE_SHARED see two nodes
#      (ranks 0,2 and 1,3 at 4 ranks), so the hierarchy has a node level,
#      binomial runs between the nodes' leaders and shm inside each;
#   2. MPI_Ibcast / MPI_Bcast_init (test/mpi/ibcast: outstanding broadcasts,
#      MPI_Bcast while Ibcasts from the same root are outstanding, threads,
#      persistent requests) with shm, on one node and on two;
#   3. the fallbacks, said once with TOPOBCAST_VERBOSE=1 and still correct:
#      one rank per node (MPIR_CVAR_NOLOCAL=1) and a plain shm whose edges
#      would cross the two cliques -- binomial runs in shm's place;
#   4. under SimGrid SMPI (when `make smpi` has built the matrix) the same
#      (said per communicator state; SMPI makes several for one run).
# Knobs: TB_SHM_SIZES ("2 3 4"), TB_SHM_TIMEOUT (per run, 120 s).
set -u
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
SIZES=${TB_SHM_SIZES:-2 3 4}
TIMEOUT=${TB_SHM_TIMEOUT:-120}
for f in "$LIB" "$T/bcast_matrix" "$T/ibcast"; do
    if [ ! -e "$f" ]; then
        echo "not ok shm: $f is missing (make tests)"
        exit 1
    fi
done

# 1. the matrix, one node then two (its "ok"/"not ok" lines pass through)
SPECS1="shm interpipe:levels=node,base=binomial/shm magpie2:base=binomial/shm"
[ -n "${TB_SHM_SKIP_MATRIX:-}" ] || TB_MATRIX_SPECS=$SPECS1 TB_MATRIX_SIZES=$SIZES TB_MATRIX_SEQ_SIZES=2 TB_MATRIX_TIMEOUT=$TIMEOUT \
    bash test/suites/10-matrix.sh | sed 's/^\(ok\|not ok\) /\1 one node: /'
# (plain shm would cross the cliques: part 3 checks that fallback)
[ -n "${TB_SHM_SKIP_MATRIX:-}" ] || MPIR_CVAR_NUM_CLIQUES=2 TB_MATRIX_SPECS="interpipe:levels=node,base=binomial/shm magpie2:base=binomial/shm" \
    TB_MATRIX_SIZES="$(for p in $SIZES; do [ "$p" -ge 3 ] && printf '%s ' "$p"; done)" TB_MATRIX_SEQ_SIZES=4 \
    TB_MATRIX_TIMEOUT=$TIMEOUT bash test/suites/10-matrix.sh | sed 's/^\(ok\|not ok\) /\1 two nodes: /'

# 2. non-blocking and persistent
for cliques in 0 2; do
    for spec in shm interpipe:levels=node,base=binomial/shm; do
        [ "$cliques" = 2 ] && [ "$spec" = shm ] && continue
        name=${spec%%:*}
        for p in $SIZES; do
            run_mpi "$p" "$TIMEOUT" MPIR_CVAR_NUM_CLIQUES=$cliques TOPOBCAST_ALGORITHM="$spec" TOPOBCAST_STATS=1 \
                -- "$T/ibcast"
            n_ok=$(grep -c '^ok ' <<<"$OUT")
            n_bad=$(grep -c '^not ok ' <<<"$OUT")
            grep '^not ok ' <<<"$OUT" | head -5 | sed "s|^not ok |not ok ibcast alg=$spec cliques=$cliques np=$p: |"
            want=$(sed -n 's/^# ibcast broadcasts: \([0-9][0-9]*\)$/\1/p' <<<"$OUT")
            calls=$(stats_calls "$name" <<<"$OUT")
            good=0
            [ "$RC" -eq 0 ] && [ "$n_ok" -gt 0 ] && [ "$n_bad" -eq 0 ] && [ -n "$want" ] && [ "${calls:-0}" = "$want" ] &&
                good=1
            check "ibcast alg=$spec cliques=$cliques np=$p: $n_ok cases ok, exit $RC, $name calls=${calls:-0} of ${want:-?}" \
                [ "$good" = 1 ]
        done
    done
done

# 3. fallbacks: correct, and said once per communicator by its rank 0
fallback() { # NAME WANT-REGEX ENV...
    local name=$1 want=$2
    shift 2
    run_mpi 4 "$TIMEOUT" "$@" TOPOBCAST_VERBOSE=1 -- "$T/bcast_matrix" --comms=world --counts=1,4097,1048579 \
        --types=byte,vecmix --sequences=0
    local n_bad said
    n_bad=$(grep -c '^not ok ' <<<"$OUT")
    said=$(grep -cE "$want" <<<"$OUT")
    local good=0
    [ "$RC" -eq 0 ] && [ "$n_bad" -eq 0 ] && [ "$said" -eq 1 ] && good=1
    check "fallback $name: exit $RC, $n_bad cases wrong, said $said time(s)" [ "$good" = 1 ]
}
fallback "one rank per node (MPIR_CVAR_NOLOCAL=1)" \
    'no shared-memory stage \(every node holds one rank.*binomial runs in place of shm' \
    MPIR_CVAR_NOLOCAL=1 TOPOBCAST_ALGORITHM=shm
fallback "shm across two nodes (MPIR_CVAR_NUM_CLIQUES=2)" \
    'joins rank [0-9]+ to a rank of another node through shared memory; binomial runs in place of shm' \
    MPIR_CVAR_NUM_CLIQUES=2 TOPOBCAST_ALGORITHM=shm
# and on one node the stage runs: nothing said about it
fallback "none on one node (the stage runs)" '^topobcast: communicator of 4 processes: topobcast active' \
    TOPOBCAST_ALGORITHM=interpipe:levels=node,base=binomial/shm
if grep -q 'in place of shm' <<<"$OUT"; then notok "shm on one node fell back"; else ok "shm on one node: no fallback"; fi

# 4. SimGrid SMPI (when `make smpi` has built the matrix): no shared memory
#    to simulate, so binomial runs in shm's place, said once per communicator
SMPI_BIN=$BUILD/smpi/bin/bcast_matrix
smpi_build 39-shm
if [ -x "$SMPI_BIN" ] && command -v smpirun >/dev/null 2>&1; then
    OUT=$(TOPOBCAST_ALGORITHM=interpipe:levels=node,base=binomial/shm TOPOBCAST_VERBOSE=1 TOPOBCAST_STATS=1 \
        timeout "$TIMEOUT" smpirun -platform test/platforms/fram.xml -hostfile test/platforms/fram-contiguous.txt \
        -np 16 "$SMPI_BIN" --counts=1,4097,20011 --types=byte,vector --comms=world 2>&1)
    RC=$?
    n_ok=$(grep -c '^ok ' <<<"$OUT")
    n_bad=$(grep -c '^not ok ' <<<"$OUT")
    said=$(grep -c 'not simulated under SMPI); binomial runs in place of shm' <<<"$OUT")
    good=0
    [ "$RC" -eq 0 ] && [ "$n_ok" -gt 0 ] && [ "$n_bad" -eq 0 ] && [ "$said" -ge 1 ] && good=1
    check "smpi fallback np=16: exit $RC, $n_ok cases ok, $n_bad wrong, said $said time(s)" [ "$good" = 1 ]
else
    echo "# smpi fallback skipped: $SMPI_BIN not built (make smpi)"
fi
