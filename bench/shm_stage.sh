#!/usr/bin/env bash
# The shared-memory node stage (shm) against MPI_Bcast and the
# point-to-point node stage, on real MPICH, 2 ranks of one node (no more
# ranks than this machine's cores; run it on a quiet machine):
#   1. this machine as it is (MPICH's own intra-node path: shared memory);
#   2. one node of the emulated cluster (test/vcluster, root only: ranks in a
#      network namespace talk TCP, UCX_TLS=tcp,self, while the library's
#      window is still shared memory) -- what an MPI without a fast
#      intra-node path leaves to gain.
# Each is RUNS runs of topobcast-bench (default, binomial, shm; REPS timed
# repetitions after 10 warm-ups, medians), interleaved; printed: the median
# over the runs of each median, in us, and its spread (min-max).
#   bench/shm_stage.sh            (BUILD=build, RUNS=3, REPS=200, SIZES=64K,...,8M)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
REPS=${REPS:-200}
SIZES=${SIZES:-64K,256K,1M,2M,4M,8M}
BENCH=$PWD/$BUILD/bin/topobcast-bench
ALGS=binomial,shm
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
[ -x "$BENCH" ] || { echo "shm_stage: $BENCH missing (make)" >&2; exit 1; }

summary() { # CSV files -> per size and algorithm: median of the runs' medians, min - max
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["status"] == "ok" { a = $c["algorithm"]; gsub(/"/, "", a); print $c["size_bytes"], a, $c["median_us"] }' "$@" |
        sort -k1,1n -k2,2 -k3,3g |
        awk 'function out() { if (n) printf "%10s %-10s %12.2f %10.2f - %-10.2f\n", k1, k2, v[int((n + 1) / 2)], v[1], v[n] }
            BEGIN { printf "%10s %-10s %12s %23s\n", "bytes", "algorithm", "median_us", "runs (min - max)" }
            $1 != k1 || $2 != k2 { out(); n = 0; k1 = $1; k2 = $2 }
            { v[++n] = $3 } END { out() }'
}

echo "# 1. this machine, MPICH $(mpichversion 2>/dev/null | sed -n 's/MPICH Version:[[:space:]]*//p'), 2 ranks, $RUNS runs x $REPS reps"
for ((r = 0; r < RUNS; r++)); do
    timeout 600 mpiexec.mpich -n 2 "$BENCH" -a "$ALGS" -s "$SIZES" -r "$REPS" -w 10 --csv "$D/local-$r.csv" >/dev/null 2>&1
done
summary "$D"/local-*.csv

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
    echo "# 2. emulated cluster: skipped (needs root and iproute2)"
    exit 0
fi
echo "# 2. one node of the emulated cluster (test/vcluster: TCP between the ranks, shared window), 2 ranks"
for ((r = 0; r < RUNS; r++)); do
    BUILD=$BUILD timeout 900 test/vcluster/run.sh -n 1 -p 2 -t 600 "$BENCH" -a "$ALGS" -s "$SIZES" -r "$REPS" -w 10 \
        --csv "$D/vc-$r.csv" >/dev/null 2>"$D/vc-$r.err" || { echo "# run $r failed:"; tail -3 "$D/vc-$r.err"; }
done
summary "$D"/vc-*.csv
