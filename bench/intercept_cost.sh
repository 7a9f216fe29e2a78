#!/usr/bin/env bash
# The library's cost per MPI_Bcast when its table sends the call to MPI_Bcast
# (small messages): instructions counted by callgrind on the root of a 2-rank
# loop of 8-byte broadcasts on a duplicated communicator, and, on real MPICH
# with 2 ranks, median time per call with and without the library over
# interleaved runs (quiet machine: no more ranks than cores).
#   bench/intercept_cost.sh            (BUILD=build, RUNS=7, ITERS=20000)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-7}
ITERS=${ITERS:-20000}
LIB=$PWD/$BUILD/lib/libtopobcast.so
P=$PWD/$BUILD/bench/intercept_cost
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
printf 'topobcast: 1\nselection:\n  - {bytes: 0-1K, algorithm: default}\n  - {algorithm: binomial}\n' >"$D/t.yaml"
RUN=(env LD_PRELOAD="$LIB" TOPOBCAST_CONFIG="$D/t.yaml")

n=10000
timeout 600 mpiexec -n 1 "${RUN[@]}" valgrind --tool=callgrind --callgrind-out-file="$D/cg.out" \
    --toggle-collect=bcast_loop "$P" --loop 8 $n : -n 1 "${RUN[@]}" "$P" --loop 8 $n >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$D/cg.out" 2>/dev/null >"$D/cg.txt"
# largest inclusive count of the lines naming the function (callgrind may
# name it after an inlined header too)
incl() { grep -E "$1" "$D/cg.txt" | awk '{ gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 } END { print m }'; }
lib=$(incl ':MPI_Bcast( \[|$)')
mpi=$(incl ':PMPI_Bcast( \[|$)')
echo "callgrind, root of 2 ranks, $n x 8 B on a dup'ed communicator, table says default:"
echo "  instructions per call in the library before PMPI_Bcast: $(( (lib - mpi) / n ))" \
    "(MPI_Bcast inclusive $lib, PMPI_Bcast inclusive $mpi)"

echo "real MPICH, 2 ranks, median us per call (median of $RUNS interleaved runs of 15 batches x $ITERS calls):"
printf '%8s %10s %10s %8s\n' bytes plain library ratio
for b in 1 8 64 512 1024; do
    : >"$D/plain" ; : >"$D/lib"
    for ((r = 0; r < RUNS; r++)); do
        timeout 120 mpiexec -n 2 "$P" $b $ITERS | awk '{print $2}' >>"$D/plain"
        timeout 120 mpiexec -n 2 "${RUN[@]}" "$P" $b $ITERS | awk '{print $2}' >>"$D/lib"
    done
    med() { sort -g "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    p=$(med "$D/plain") l=$(med "$D/lib")
    printf '%8s %10s %10s %8s\n' $b $p $l "$(awk -v p=$p -v l=$l 'BEGIN {printf "%.3f", p / l}')"
done
echo "(ratio = plain / library: >= 1 means the library costs nothing measurable)"
