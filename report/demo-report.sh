#!/usr/bin/env bash
# The whole pipeline on this machine, ending with the report:
#   probe (measurements + topology) -> tuner (selection table) ->
#   tuner --compare (speedup CSV) -> topobcast-report (HTML + summary).
# Usage: report/demo-report.sh [NP] [OUTDIR]   (defaults: 2, build/demo)
# Sizes and repetitions are small so it finishes in about a minute; on a real
# allocation run the tools by hand with their defaults (see tuner/README.md).
# The comparison interleaves the two sides in 5 rounds of 10 repetitions per
# size (tuner/README.md, --compare), so that the machine's ups and downs
# weigh on both; the summary gives the geometric mean and lowest speedup
# first, then every size with its rounds' spread.
# (A relative OUTDIR is taken from where the script is called.)  The
# launcher is $MPIEXEC, else MPICH's by name (mpiexec.mpich, as the tools
# here are MPICH's), else mpiexec.
set -eu
NP=${1:-2}
MPIEXEC=${MPIEXEC:-$(command -v mpiexec.mpich || echo mpiexec)}
if [ -n "${2:-}" ]; then
    mkdir -p "$2"
    OUT=$(cd "$2" && pwd)
fi
cd "$(dirname "$0")/.."
OUT=${OUT:-${BUILD:-build}/demo}
BIN=${BUILD:-build}/bin
mkdir -p "$OUT"
exec 3>&2
run() { echo "+ $*" >&3; "$@"; }

run timeout 300 $MPIEXEC -n "$NP" "$BIN/topobcast-probe" -M 1M -R 4 -q --save "$OUT/measurements.txt" \
    -o "$OUT/topology.yaml"
run timeout 600 $MPIEXEC -n "$NP" "$BIN/topobcast-tuner" --topology "$OUT/topology.yaml" \
    --measurements "$OUT/measurements.txt" --sizes 1,64,1K,16K,64K,256K,1M --reps 10 --warmup 2 \
    --max-timed 4 -o "$OUT/table.yaml" >"$OUT/tuner.log" 2>&1 || { tail -20 "$OUT/tuner.log" >&2; exit 1; }
run timeout 300 $MPIEXEC -n "$NP" "$BIN/topobcast-tuner" --compare "$OUT/table.yaml" --csv "$OUT/compare.csv" \
    --sizes 1,64,1K,16K,64K,256K,1M --reps 50 --warmup 5 >"$OUT/compare.log" 2>&1 ||
    { tail -20 "$OUT/compare.log" >&2; exit 1; }
run "$BIN/topobcast-report" --measurements "$OUT/measurements.txt" --topology "$OUT/topology.yaml" \
    --table "$OUT/table.yaml" --compare "$OUT/compare.csv" -o "$OUT/report.html"
echo "report written: $(realpath "$OUT/report.html")"
