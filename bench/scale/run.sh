#!/usr/bin/env bash
# usage: bench/scale/run.sh            (`make bench-scale`)
#
# A benchmark, not a test: what the library's start-up costs one process of
# a large job, at P = 4096, 16384 and 65536 (SCALE_SIZES), 128 processes
# per host, 4 levels (island of 16 hosts, node, socket, NUMA), host names
# of 36 characters (bench/scale/scale_gen.c writes the file):
#
#   file      bytes of the configuration file (topology + a 2-rule table)
#   load      tb_config_load in one process (bench/scale/scale_load.c) under
#             /usr/bin/time: elapsed and user+sys seconds, peak RSS (median
#             of SCALE_RUNS runs, 3)
#   derive    what the first MPI_Bcast on MPI_COMM_WORLD adds, without MPI
#             (bench/scale/scale_derive.c): the identity records the
#             allgather delivers, the derived hierarchy, rank 0's schedule
#             of distance_tree (the table's algorithm): seconds and the peak
#             RSS added over the RSS after loading
#   roots     a broadcast from a new root once the communicator keeps 16
#             schedules (bench/scale/scale_roots.c, P <= 16384): the
#             schedule built for it, or renumbered from the plan for root 0
#             (microseconds per call, median of 5 batches)
#
# SCALE_BASE=REV also measures the library at git revision REV (e.g. the
# commit before format 2) on files in its own format (format 1: one mapping
# per leaf, no distance matrix -- with the matrix, P = 4096 alone is 84 MB),
# built from `git archive REV` in $BUILD/bench/scale-base.  Timings on a
# shared machine move with its load, printed before and after; user+sys
# seconds move less than elapsed ones.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
SIZES=${SCALE_SIZES:-4096 16384 65536}
RUNS=${SCALE_RUNS:-3}
BASE=${SCALE_BASE:-}
BIN=$BUILD/bench
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
load() { awk '{ print $1 }' /proc/loadavg; }
for p in scale_gen scale_load scale_derive scale_roots; do
    [ -x "$BIN/$p" ] || { echo "run.sh: $BIN/$p missing (make bench-scale builds it)" >&2; exit 1; }
done
if [ -n "$BASE" ]; then
    B=$BUILD/bench/scale-base
    rm -rf "$B" && mkdir -p "$B/src"
    git archive "$BASE" | tar -x -C "$B/src" || exit 1
    make -s -C "$B/src" BUILD=build build/lib/libtopobcast.a >"$B/build.log" 2>&1 || { echo "run.sh: $BASE does not build" >&2; exit 1; }
    for p in scale_load scale_derive; do
        ${MPICC:-mpicc.mpich} -std=gnu11 -O2 -DSCALE_OLD_API -I"$B/src/libtopobcast/include" \
            -I"$B/src/libtopobcast/private" -I"$B/src/libtopobcast/src" "bench/scale/$p.c" -o "$B/$p" \
            "$B/src/build/lib/libtopobcast.a" -lyaml -lhwloc -lm -pthread || exit 1
    done
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "nan" }'; }
# measure LABEL LOADER DERIVER FILE
measure() {
    local label=$1 loader=$2 deriver=$3 file=$4 i
    for ((i = 0; i < RUNS; i++)); do
        /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$loader" "$file" >/dev/null 2>"$TMP/err" ||
            { echo "$label: load failed: $(head -c 300 "$TMP/err")"; return; }
        cat "$TMP/time"
    done >"$TMP/times"
    local el us rss der
    el=$(awk '{ print $1 }' "$TMP/times" | median)
    us=$(awk '{ print $2 + $3 }' "$TMP/times" | median)
    rss=$(awk '{ print $4 / 1024 }' "$TMP/times" | median)
    der=$(timeout 600 "$deriver" "$file" 2>&1 | sed -n 's/.*derive \([0-9.]*\) s, schedule([^)]*) \([0-9.]*\) s; added peak RSS \([0-9.]*\) MB.*/\1 \2 \3/p')
    [ -n "$der" ] || der="- - -"
    read -r d s m <<<"$der"
    printf '%-8s %6s %9.2f %8.2f %8.2f %8.1f %8s %8s %8s\n' "$label" "$P" \
        "$(awk -v b="$(stat -c %s "$file")" 'BEGIN { print b / 1048576 }')" "$el" "$us" "$rss" "$d" "$s" "$m"
}

echo "# load before: $(load); $(nproc) cores"
printf '%-8s %6s %9s %8s %8s %8s %8s %8s %8s\n' "" P "file MB" "load s" "cpu s" "RSS MB" "derive s" "sched s" "+RSS MB"
for P in $SIZES; do
    "$BIN/scale_gen" "$P" 2 >"$TMP/t2.yaml"
    measure "format2" "$BIN/scale_load" "$BIN/scale_derive" "$TMP/t2.yaml"
    if [ -n "$BASE" ]; then
        "$BIN/scale_gen" "$P" 1 >"$TMP/t1.yaml"
        measure "$BASE" "$B/scale_load" "$B/scale_derive" "$TMP/t1.yaml"
        rm -f "$TMP/t1.yaml"
    fi
    rm -f "$TMP/t2.yaml"
done
echo
echo "# a new root's schedule once the communicator's 16 are kept (bench/scale/scale_roots.c): us per call"
printf '%6s  %-66s %10s %10s\n' P algorithm built rotated
for P in $SIZES; do
    [ "$P" -le 16384 ] && "$BIN/scale_roots" "$P"
done
echo "# load after: $(load)"
