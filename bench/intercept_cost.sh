#!/usr/bin/env bash
# The library's cost per MPI_Bcast when its table sends the call to MPI_Bcast
# (small messages): instructions counted by callgrind on the root of a 2-rank
# loop of 8-byte broadcasts on a duplicated communicator, in the library's
# MPI_Bcast (preloaded alone) and in its PMPI_Bcast below a PMPI tool
# (test/tool/ptool.c preloaded first), and, on real MPICH with 2 ranks,
# median time per call with and without the library over interleaved runs
# (quiet machine: no more ranks than cores).
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

TOOL=$PWD/$BUILD/test/tool/libtb_ptool.so

n=10000
# callgrind PRELOAD: the loop's root under callgrind, annotated into $D/cg.txt
callgrind() {
    local run=(env LD_PRELOAD="$1" TOPOBCAST_CONFIG="$D/t.yaml")
    timeout 600 mpiexec -n 1 "${run[@]}" valgrind --tool=callgrind --callgrind-out-file="$D/cg.out" \
        --toggle-collect=bcast_loop "$P" --loop 8 $n : -n 1 "${run[@]}" "$P" --loop 8 $n >/dev/null 2>&1
    callgrind_annotate --inclusive=yes "$D/cg.out" 2>/dev/null >"$D/cg.txt"
}
# largest inclusive count of the lines naming the function (callgrind may
# name it after an inlined header too), in the objects matching $2 (the
# library's) or not ("!": MPI's)
incl() {
    grep -E "$1" "$D/cg.txt" | awk -v lib="$2" '{ ours = index($0, "libtopobcast") > 0
        if ((lib == "!") == ours) next; gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }'
}
echo "callgrind, root of 2 ranks, $n x 8 B on a dup'ed communicator, table says default:"
callgrind "$LIB"
lib=$(incl ':MPI_Bcast( \[|$)' lib)
mpi=$(incl ':PMPI_Bcast( \[|$)' '!')
echo "  instructions per call in the library before MPI's PMPI_Bcast: $(( (lib - mpi) / n ))" \
    "(MPI_Bcast inclusive $lib, MPI's PMPI_Bcast inclusive $mpi)"
callgrind "$TOOL:$LIB"
lib=$(incl ':PMPI_Bcast( \[|$)' lib)
mpi=$(incl ':PMPI_Bcast( \[|$)' '!')
echo "  below a PMPI tool, in the library's PMPI_Bcast before MPI's: $(( (lib - mpi) / n ))" \
    "(the library's PMPI_Bcast inclusive $lib, MPI's inclusive $mpi)"

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
