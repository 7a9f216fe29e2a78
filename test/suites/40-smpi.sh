#!/usr/bin/env bash
# SimGrid SMPI testbed: builds everything with smpicc (make smpi), checks the
# committed platforms are what test/platforms/mkplatforms.py writes, checks
# each platform's levels with a ping-pong (distinct, increasing latencies;
# the simulated figures follow the documented link model), and runs the
# library's correctness matrix under SMPI at P=64 on the FRAM-like platform
# with a few algorithms, in both placements.  Skips when smpicc is missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
export BUILD

if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "ok smpi skipped (smpicc missing)"
    exit 0
fi
# shellcheck source=test/smpi/smpi-opts.sh
. test/smpi/smpi-opts.sh
echo "# SimGrid: $SMPI_SIMGRID (TB_SIMGRID=${TB_SIMGRID:-auto})"
logdir=$BUILD/test/logs/smpi
mkdir -p "$logdir"

# -- build ----------------------------------------------------------------
if make -s smpi BUILD="$BUILD" >"$logdir/build.log" 2>&1; then
    echo "ok smpi build (make smpi)"
else
    echo "not ok smpi build (make smpi): see $logdir/build.log"
    tail -20 "$logdir/build.log"
    exit 1
fi

# -- platforms --------------------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
    echo "ok smpi platforms up to date # skip: no python3"
elif out=$(python3 test/platforms/mkplatforms.py --check 2>&1); then
    echo "ok smpi platforms up to date with mkplatforms.py"
else
    echo "not ok smpi platforms up to date with mkplatforms.py: $out"
fi

# -- levels -----------------------------------------------------------------
# Per level: strictly increasing 0-byte latency; latency minus the path
# latency of the link model is the same per-message CPU cost at every level
# (so SimGrid routes what the platform file documents); 1 MiB bandwidth
# between 90% and 100% of the path bottleneck.
check_levels() { # platform
    local p=$1 out
    if ! out=$(test/smpi/levels.sh "$p" 2>&1); then
        echo "not ok smpi levels $p: levels.sh failed"
        echo "$out" | head -20 | sed 's/^/# /'
        return
    fi
    # shellcheck disable=SC2001  # a per-line prefix, not a substitution
    echo "$out" | sed 's/^#*/# /'
    echo "$out" | awk -v p="$p" '
        $1 == p {
            n++; lat = $4; bw = $5; plat = $6; pbw = $7
            if (n > 1 && !(lat > prev)) bad = bad sprintf(" %s (%.3f us) not above the level before (%.3f us);", $2, lat, prev)
            over = lat - plat
            if (n == 1) over1 = over
            else if (over - over1 > 0.005 || over1 - over > 0.005)
                bad = bad sprintf(" %s: latency %.3f us - path %.3f us differs from the other levels (%.3f);", $2, lat, plat, over1)
            if (bw > pbw * 1.0001 || bw < 0.9 * pbw)
                bad = bad sprintf(" %s: 1 MiB at %.3f GB/s, path bottleneck %.3f GB/s;", $2, bw, pbw)
            prev = lat; names = names " " $2
        }
        END {
            if (n < 3) bad = bad " only " n " levels;"
            if (bad != "") print "not ok smpi levels " p ":" bad
            else printf "ok smpi levels %s:%s strictly increasing, model figures\n", p, names
        }'
}
# (the SimGrid runs below are single-threaded: TB_TEST_JOBS of them at once)
. test/suites/lib.sh
for p in fram betzy arm1; do
    par_run check_levels "$p"
done
par_wait

# -- correctness of the library under SMPI ------------------------------------
# P=64 on the FRAM-like platform: contiguous = 4 sockets x 16 ranks (SMPI
# "nodes" of 16), round-robin = one rank on each of the 64 sockets; the newer
# builders at P=16 and 12 (below).  The interposition is checked too:
# TOPOBCAST_STATS must report the algorithm.
bin=$BUILD/smpi/bin/bcast_matrix
matrix_args=('--counts=0,1,4097,20011' '--types=byte,vector,intmix' '--comms=world,split,reversed')
run_matrix() { # algorithm hostfile [platform np counts]
    local alg=$1 hf=$2 plat=${3:-fram} np=${4:-64} counts=${5:-}
    local log="$logdir/matrix-${alg//[:=,\/]/_}-$hf-$np.log" name="smpi bcast_matrix alg=$alg np=$np $hf"
    local args=("${matrix_args[@]}")
    [ -n "$counts" ] && args[0]="--counts=$counts"
    TOPOBCAST_ALGORITHM=$alg TOPOBCAST_STATS=1 timeout 300 "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" \
        -platform "test/platforms/$plat.xml" -hostfile "test/platforms/$hf.txt" -np "$np" \
        "$bin" "${args[@]}" >"$log" 2>&1
    local rc=$? cases failed
    cases=$(grep -c '^ok ' "$log")
    failed=$(grep -c '^not ok ' "$log")
    if grep -q 'Not yet implemented: PMPI_Intercomm_create' "$log"; then
        # SMPI 3.32 has no intercommunicators: bcast_matrix must not create
        # one unless --comms asks for it.
        echo "not ok $name: bcast_matrix called MPI_Intercomm_create, which SMPI lacks (--comms has no inter)"
        return 1
    elif [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$cases" -eq 0 ] || grep -q 'Deadlock detected' "$log"; then
        # (smpirun exits 0 after SimGrid reports a deadlock)
        echo "not ok $name: exit $rc, $cases passed, $failed failed (log $log)"
        grep -m5 -E '^not ok |CRITICAL|Aborted|Segmentation|Not yet implemented' "$log" | cut -c1-200 | sed 's/^/# /'
    elif ! grep -qE "^topobcast: stats: algorithm=${alg%%:*} calls=[1-9]" "$log"; then
        echo "not ok $name: $cases cases passed but the library did not run $alg (no stats line)"
    else
        echo "ok $name: $cases cases"
    fi
}
if [ -x "$bin" ]; then
    # a topology for the P=16 runs, written before any of them starts
    topo=$logdir/fram16-topology.yaml
    {
        echo "topobcast: 2"
        # hosts fram-n00-s0, fram-n00-s1, ... fram-n07-s1; leaf r on host r
        topology_yaml "$(echo fram-n0{0..7}-s{0,1})" "$(printf '%d,-1 ' {0..15})" \
            "half: [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]" \
            "node: [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15]]"
        echo "selection:"
        echo "  - {algorithm: default}"
    } >"$topo"
    for alg in binomial pipeline scatter_allgather magpie; do
        for hf in fram-contiguous fram-rr; do
            par_run run_matrix "$alg" "$hf"
        done
    done
    # P=12 is no power of two: recursive doubling runs dissemination steps
    # whose wrapped block ranges are two messages of different sizes to one
    # peer; with 256 KiB some are eager and some rendezvous, which deadlocked
    # SMPI while both used one tag
    par_run run_matrix scatter_allgather:allgather=recursive_doubling arm1-rr arm1 12 0,1,4097,262144,262147
    # The 2026 builders, with counts on both sides of SMPI's eager /
    # rendezvous switch at 64 KiB: P=16 round-robin on FRAM (one rank on
    # each socket of nodes 0-7) and P=12 on ARM1 (4 NUMA domains).  Without
    # a topology every rank is a host of its own and no level is left, so a
    # two-level one is given ($topo above): halves of 4 nodes over the nodes,
    # for a circulant among the halves' leaders, dbt trees among the node
    # leaders.
    # feeds=2: each node's second rank fed by the leader of the next node of
    # its half (levels=node: by the leaders' chains in rail order too);
    # leaders=2: dbt's second tree enters each half and node at its last
    # rank (under a circulant, each node: the halves' leaders are its members)
    for alg in dbt bine circulant:segment=16K interpipe:segment=64K/8K,base=circulant/dbt/binomial \
        interpipe:segment=64K/8K,levels=node,base=chain/flat,chains=2,feeds=2 magpie2:base=dbt/binomial,feeds=2 \
        interpipe:segment=16K,base=dbt,leaders=2 interpipe:segment=64K/8K,base=circulant/dbt,leaders=2; do
        TOPOBCAST_CONFIG=$topo par_run run_matrix "$alg" fram-rr fram 16 0,65535,262147
    done
    for alg in circulant:segment=8K magpie2:base=bine/dbt; do
        par_run run_matrix "$alg" arm1-rr arm1 12 0,65535,262147
    done
    par_wait
else
    echo "not ok smpi bcast_matrix: $bin not built"
fi
