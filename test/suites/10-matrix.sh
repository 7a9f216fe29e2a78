#!/usr/bin/env bash
# MPI_Bcast correctness matrix under LD_PRELOAD: every algorithm spec below
# forced with TOPOBCAST_ALGORITHM, on communicator sizes 1..8 (oversubscribed
# on small machines, every run under `timeout`).  Passes through
# test/mpi/bcast_matrix's "ok"/"not ok" lines and adds, per run, "ok stats"
# when the library's statistics count the forced algorithm for exactly the
# broadcasts it could run (none on size-1 communicators) and nothing else.
#
# Coverage per (spec, size P) in the default plan -- chosen to fit ~15 min
# on a 2-core machine, where each extra rank costs scheduler latency on every
# message.  bcast_matrix names each case; "# run" lines give the arguments.
#   A  every root x counts {0,1,7,4097} x all 7 datatypes (byte, int, double,
#      strided vector, struct with gaps, intmix, vecmix) on MPI_COMM_WORLD
#      (odd P) or the rank-reversed communicator (even P)
#   B  count 1 MiB + 3 on the same communicator: each root once, with one of
#      {byte, int, double} (the pairing rotates with P, so every (type, root)
#      pair is covered at least twice across P=2..8)
#   C  count 1 MiB + 3 x {vector, struct, intmix, vecmix} (24-40 MiB per
#      rank): every root at P=2; for P=3..8 two (type, root) pairs per size,
#      so that every pair is covered once per spec across 3..8
#   D  the other of world/reversed, split halves (two communicators at once)
#      and dup: count 4097, each of {byte, vector, vecmix} with one root
#      (rotating with P); MPI_COMM_SELF and the intercommunicator
#      (pass-through): count 7 x {int, vecmix}
#   S  back-to-back / interleaved / MPI_Bcast_c / communicator churn
#      sequences at P in SEQ_SIZES (2 5 8)
#   P=1: everything on world; counts {0,7,4097} on the other kinds
# TB_MATRIX_FULL=1 runs bcast_matrix's whole default product instead (all
# communicators x roots x counts x datatypes + sequences) at every size.
# Knobs: TB_MATRIX_SPECS="spec ...", TB_MATRIX_SIZES="1 2 ...",
# TB_MATRIX_SEQ_SIZES, TB_MATRIX_TIMEOUT (seconds per run; default 120, and
# 240 above 4 ranks, where a loaded 2-core machine needs it for the slowest
# spec, pipeline:segment=3001, with 24-28 MiB messages).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
# shellcheck source=test/suites/lib.sh
. test/suites/lib.sh
LIB=$PWD/$BUILD/lib/libtopobcast.so
PROG=$BUILD/test/mpi/bcast_matrix
SIZES=${TB_MATRIX_SIZES:-1 2 3 4 5 6 7 8}
SEQ_SIZES=${TB_MATRIX_SEQ_SIZES:-2 5 8}
TIMEOUT=${TB_MATRIX_TIMEOUT:-}
FULL=${TB_MATRIX_FULL:-0}
if [ -n "${TB_MATRIX_SPECS:-}" ]; then
    read -ra SPECS <<<"$TB_MATRIX_SPECS"
else
    # segment=3001 is odd, so segments cut elements of every datatype; 1000
    # did too but made ~8400 segments per 8 MiB message, the slowest spec
    # (25-valgrind keeps segment=1000 at 2 ranks).
    # shellcheck disable=SC2054 # commas separate spec parameters
    # The 2026 builders replaced specs whose engine paths others cover
    # (flat's small send ring: dbt:outstanding=2; chains=3 and radix=3:
    # shapes test_trees checks; pipeline:segment=4096: segment=3001).  A
    # hierarchical spec's last base is what a communicator without levels
    # (this machine) runs: magpie2's dbt makes two trees, interpipe's
    # per-level segment= its first; circulant as a coarsest level's base
    # runs under SMPI (40-smpi.sh), where levels exist; shm as the last base
    # is the shared-memory stage over the whole (one-node) communicator
    # (39-shm.sh adds two nodes and the fallbacks).  circulant:segment=1M:
    # a round per block, and 8 oversubscribed ranks take ~0.1 s a round.
    SPECS=(flat dbt:outstanding=2 chain circulant:segment=1M binary split_binary
        binomial binomial:segment=8192,send=blocking knomial bine
        pipeline dbt:segment=3001,send=blocking pipeline:segment=3001
        scatter_allgather scatter_allgather:allgather=recursive_doubling default
        magpie magpie2:base=binary/dbt interpipe:segment=64K/4K,base=circulant/bine distance_tree
        interpipe:levels=node,base=binomial/shm)
fi

for f in "$LIB" "$PROG"; do
    if [ ! -e "$f" ]; then
        echo "not ok matrix: $f is missing (make tests)"
        exit 1
    fi
done

BIG=1048579
CONTIG=(byte int double)
WIDE=(vector struct intmix vecmix)
DTYPES=(byte vector vecmix)
ROOTS=(0 mid last)

plan() { # P -> bcast_matrix arguments
    local p=$1
    if [ "$FULL" = 1 ]; then
        echo "--sequences=1"
        return
    fi
    if [ "$p" -eq 1 ]; then
        # every communicator has one rank: the library must return at once
        echo "--sequences=0 --comms=world --then --comms=split,reversed,dup,self --counts=0,7,4097"
        return
    fi
    local core=world other=reversed k t
    if [ $((p % 2)) -eq 0 ]; then core=reversed other=world; fi
    local args="--comms=$core --counts=0,1,7,4097"
    # B: each root with one contiguous type, the pairing rotating with P
    for k in 0 1 2; do
        t=${CONTIG[(p + k) % 3]}
        args+=" --then --comms=$core --counts=$BIG --types=$t --roots=${ROOTS[k]}"
    done
    # C
    if [ "$p" -eq 2 ]; then
        args+=" --then --comms=$core --counts=$BIG --types=vector,struct,intmix,vecmix"
    else
        for k in $(((p - 3) * 2)) $(((p - 3) * 2 + 1)); do
            args+=" --then --comms=$core --counts=$BIG --types=${WIDE[k % 4]} --roots=${ROOTS[k / 4]}"
        done
    fi
    # D: each type with one root, rotating with P
    for k in 0 1 2; do
        t=${DTYPES[(p + k) % 3]}
        args+=" --then --comms=$other,split,dup --counts=4097 --types=$t --roots=${ROOTS[k]}"
    done
    args+=" --then --comms=self,inter --counts=7 --types=int,vecmix"
    local seq=0 s
    for s in $SEQ_SIZES; do [ "$s" = "$p" ] && seq=1; done
    echo "$args --sequences=$seq"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one run of bcast_matrix: SPEC P (TB_TEST_JOBS runs at once, lib.sh's
# par_run; the log keeps the order of the loops below)
matrix_run() {
    local spec=$1 p=$2 name=${1%%:*} args to t0 rc n_ok n_bad why want inter calls others msg d
    d=$(mktemp -d -p "$tmp")
    args=$(plan "$p")
    to=${TIMEOUT:-$((p > 4 ? 240 : 120))}
    t0=$SECONDS
    # shellcheck disable=SC2086 # args is a word list by construction
    timeout "$to" mpiexec -n "$p" env LD_PRELOAD="$(preload "$p")" TOPOBCAST_ALGORITHM="$spec" \
        TOPOBCAST_STATS=1 "$PROG" $args >"$d/out" 2>"$d/err"
    rc=$?
    grep -E '^(ok|not ok) ' "$d/out"
    n_ok=$(grep -c '^ok ' "$d/out")
    n_bad=$(grep -c '^not ok ' "$d/out")
    echo "# run alg=$spec np=$p: $n_ok ok, $n_bad not ok, exit $rc, $((SECONDS - t0)) s; plan: $args"
    if [ "$rc" -ne 0 ]; then
        if [ "$n_bad" -eq 0 ]; then
            why="exit status $rc"
            [ "$rc" -eq 124 ] && why="timed out after ${to}s"
            echo "not ok run alg=$spec np=$p: $why after $n_ok ok cases" \
                "(last: $(grep '^ok ' "$d/out" | tail -1 | cut -c1-160))"
        fi
        tail -5 "$d/err" | sed 's/^/#   stderr: /'
    fi
    # The forced algorithm must be the one that ran, for every broadcast
    # it could run (bcast_matrix counts them: intracommunicators of 2+
    # ranks, non-empty messages), and nothing may fall back silently.
    # Intercommunicator broadcasts are MPI's own, counted so (as default
    # and as fallbacks for that reason), once each.
    want=$(sed -n 's/^# bcast_matrix eligible broadcasts: \([0-9][0-9]*\)$/\1/p' "$d/out")
    inter=$(sed -n 's/^# bcast_matrix intercommunicator broadcasts: \([0-9][0-9]*\)$/\1/p' "$d/out")
    # (forced "default" counts them in its own line)
    [ "$name" = default ] && [ -n "$want" ] && want=$((want + ${inter:-0}))
    calls=$(stats_calls "$name" <"$d/err")
    others=$(stats_others "$name" <"$d/err" |
        grep -v -e "^topobcast: stats: algorithm=default calls=${inter:-x} " \
            -e "^topobcast: stats: fallback calls=${inter:-x} (broadcasts on intercommunicators" | tr '\n' ' ')
    # without TOPOBCAST_VERBOSE the library speaks only about problems
    msg=$(grep -v '^topobcast: stats:' "$d/err" | grep -m1 'topobcast' | cut -c1-200)
    if [ -n "$want" ] && [ "${calls:-0}" = "$want" ] && [ -z "$others" ] && [ -z "$msg" ]; then
        echo "ok stats alg=$spec np=$p: $name calls=${calls:-0} = broadcasts made"
    else
        echo "not ok stats alg=$spec np=$p: $name calls=${calls:-0}, broadcasts made=${want:-?}" \
            "${others:+, also: $others}${msg:+; library said: $msg}"
    fi
    rm -rf "$d"
}
start=$SECONDS
for spec in "${SPECS[@]}"; do
    for p in $SIZES; do
        par_run matrix_run "$spec" "$p"
    done
done
par_wait >"$tmp/all" # (not in a pipe: wait needs the jobs' own shell)
cat "$tmp/all"
runs=$(grep -c '^# run alg=' "$tmp/all")
cases=$(grep -cE '^(ok|not ok) alg=' "$tmp/all")
failed_runs=$(grep '^# run alg=' "$tmp/all" | grep -vc ', exit 0, ')
echo "# matrix: ${#SPECS[@]} specs, sizes $SIZES, $runs runs, $cases cases, $failed_runs runs failed, $((SECONDS - start)) s"
