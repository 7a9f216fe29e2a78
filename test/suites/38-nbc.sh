#!/usr/bin/env bash
# MPI_Ibcast and MPI_Bcast_init / MPI_Start / MPI_Startall under LD_PRELOAD:
# test/mpi/ibcast (roots 0/mid/last, counts 0/1/odd/~1M, a derived type,
# outstanding broadcasts mixed with point-to-point requests in one
# MPI_Waitall, MPI_Testany and MPI_Test polling, completion in start order,
# MPI_Request_free of active requests, persistent requests started
# repeatedly) with every algorithm forced, on 2-4 ranks.  Each run also
# checks that the library ran every broadcast itself: TOPOBCAST_STATS counts
# the forced algorithm exactly as often as the program broadcast, and
# nothing else.
# Runs where MPI handles some broadcasts (plain MPI, the built-in table,
# TOPOBCAST_DISABLE) check only what MPI promises (ibcast --mpi-rules).
# Knobs: TB_NBC_SPECS="spec ...", TB_NBC_SIZES="2 3 4", TB_NBC_TIMEOUT (120 s).
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
PROG=$T/ibcast
TIMEOUT=${TB_NBC_TIMEOUT:-120}
SIZES=${TB_NBC_SIZES:-2 3 4}
if [ -n "${TB_NBC_SPECS:-}" ]; then
    read -ra SPECS <<<"$TB_NBC_SPECS"
else
    # shellcheck disable=SC2054 # commas separate spec parameters
    SPECS=(binomial pipeline:segment=16K scatter_allgather scatter_allgather:allgather=recursive_doubling
        knomial:radix=3 magpie interpipe split_binary flat:send=nonblocking,outstanding=2 chain:chains=2
        binary:segment=3001,send=blocking distance_tree)
fi
for f in "$LIB" "$PROG"; do
    if [ ! -e "$f" ]; then
        echo "not ok nbc: $f is missing (make tests)"
        exit 1
    fi
done

# summary NAME: the program's verdicts and exit status
summary() {
    local name=$1 n_ok n_bad
    n_ok=$(grep -c '^ok ' <<<"$OUT")
    n_bad=$(grep -c '^not ok ' <<<"$OUT")
    grep '^not ok ' <<<"$OUT" | head -5 | sed "s/^not ok /not ok $name: /"
    check "$name: $n_ok cases ok, exit $RC" [ "$RC" -eq 0 ] && [ "$n_ok" -gt 0 ] && [ "$n_bad" -eq 0 ]
}

# The program itself, on MPI alone.
OUT=$(timeout "$TIMEOUT" mpiexec -n 3 "$PROG" --mpi-rules 2>&1)
RC=$?
summary "plain MPI np=3"

for spec in "${SPECS[@]}"; do
    name=${spec%%:*}
    for p in $SIZES; do
        run_mpi "$p" "$TIMEOUT" TOPOBCAST_ALGORITHM="$spec" TOPOBCAST_STATS=1 -- "$PROG"
        summary "alg=$spec np=$p"
        want=$(sed -n 's/^# ibcast broadcasts: \([0-9][0-9]*\)$/\1/p' <<<"$OUT")
        calls=$(sed -n "s/^topobcast: stats: algorithm=$name calls=\([0-9][0-9]*\) .*/\1/p" <<<"$OUT" | head -1)
        others=$(grep -E '^topobcast: stats: (algorithm=|fallback)' <<<"$OUT" | grep -v "algorithm=$name " | tr '\n' ' ')
        check "alg=$spec np=$p: stats count $name calls=${calls:-0} = broadcasts made (${want:-?})${others:+; also: $others}" \
            [ -n "$want" ] && [ "${calls:-0}" = "$want" ] && [ -z "$others" ]
    done
done

# The built-in selection table: small broadcasts go to MPI_Ibcast, the rest
# to the library; data correct either way (completion order is promised
# among the library's broadcasts only).
run_mpi 4 "$TIMEOUT" TOPOBCAST_STATS=1 -- "$PROG" --mpi-rules
summary "built-in table np=4"
check "built-in table np=4: the library ran some broadcasts" \
    grep -qE '^topobcast: stats: algorithm=[a-z_0-9]+ calls=[1-9]' <<<"$OUT"
run_mpi 3 "$TIMEOUT" TOPOBCAST_DISABLE=1 -- "$PROG" --mpi-rules
summary "TOPOBCAST_DISABLE=1 np=3"
