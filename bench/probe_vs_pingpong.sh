#!/usr/bin/env bash
# usage: bench/probe_vs_pingpong.sh [RUNS]     (`make bench-probe`; default 5 runs)
#
# A benchmark, not a test: the probe's figures on this machine next to a
# plain ping-pong.  Each run measures 2 ranks with topobcast-probe (-M 64K
# and PROBE_OPTS) and with test/vcluster/vc_pingpong (median of 7 rounds of
# round trips), one after the other, so both see the same load.  Prints per
# run and then the medians over the runs, in microseconds:
#
#   size          the message size m (0 B, 1 KiB, 64 KiB)
#   pingpong      one-way time of the plain ping-pong (RTT/2), median of
#                 its 7 rounds; best: its fastest round
#   probe RTT/2   the probe's RTT(m)/2 -- the same quantity; at m = 0 it is
#                 L + g(0) (seed thesis eq. 3.2)
#   o_s o_r g     the probe's PLogP parameters at m
#   t(m)          L + (o_s+o_r)/2 + g(m), the distance D(m) of the topology
#                 (at m = 0 the YAML's distance class of ranks 0 and 1: with 2
#                 ranks every class is that one pair's).  It is
#                 not a one-way time: t(m) = RTT(m)/2 + (o_s+o_r)/2 at m = 0,
#                 and o_s is the time of MPI_Ssend, which waits for the
#                 receiver's acknowledgement (about a round trip in MPICH), so
#                 t(0) is about twice the one-way time.
#
# Environment: BUILD (build), NP (2), PROBE (the probe binary, e.g. an older
# build to compare with), PROBE_OPTS (extra probe options), OUT (directory
# for the raw files; default a temporary one, removed).  Timings on a shared
# machine move with its load, printed before and after.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
RUNS=${1:-5}
NP=${NP:-2}
PROBE=${PROBE:-$BUILD/bin/topobcast-probe}
PINGPONG=$BUILD/test/vcluster/vc_pingpong
PROBE_OPTS=${PROBE_OPTS:-}
SIZES="0 1024 65536"
for b in "$PROBE" "$PINGPONG"; do
    [ -x "$b" ] || { echo "probe_vs_pingpong: $b missing (make bench-probe builds it)" >&2; exit 1; }
done
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
else
    OUT=$(mktemp -d)
    trap 'rm -rf "$OUT"' EXIT
fi

load() { sed 's/.*load average: //' </proc/loadavg 2>/dev/null || uptime | sed 's/.*load average: //'; }
echo "# probe vs plain ping-pong: $NP ranks, $RUNS runs, probe $PROBE -M 64K $PROBE_OPTS"
echo "# load before: $(load)"

# probe_figures FILE: "m rtt/2 o_s o_r g t" per size of SIZES, microseconds
probe_figures() {
    awk -v sizes="$SIZES" '
        BEGIN { n = split(sizes, want, " "); for (k = 1; k <= n; k++) w[want[k]] = 1 }
        /^pair 0 1 / { on = 1; split($4, a, "="); L = a[2]; next }
        /^pair / { on = 0 }
        on && /^s / && ($2 in w) {
            printf "%s %.4f %.4f %.4f %.4f %.4f\n", $2, $3 / 2 * 1e6, $4 * 1e6, $5 * 1e6, $6 * 1e6,
                   (L + ($4 + $5) / 2 + $6) * 1e6 }' "$1"
}

ok=0
for r in $(seq 1 "$RUNS"); do
    start=$(date +%s.%N)
    if ! timeout 300 mpiexec -n "$NP" "$PROBE" -M 64K $PROBE_OPTS -q --save "$OUT/probe-$r.txt" \
        -o "$OUT/probe-$r.yaml" >"$OUT/probe-$r.log" 2>&1; then
        echo "# run $r: probe failed (see $OUT/probe-$r.log)"
        continue
    fi
    wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    if ! timeout 120 mpiexec -n 2 "$PINGPONG" $SIZES >"$OUT/pingpong-$r.txt" 2>&1; then
        echo "# run $r: ping-pong failed (see $OUT/pingpong-$r.txt)"
        continue
    fi
    # the topology's D(0) between ranks 0 and 1: with 2 ranks every class
    # holds that one pair's median
    d0=$(awk '/^    within:/ { print $2; exit }' "$OUT/probe-$r.yaml")
    elapsed=$(awk '/^run / { split($4, a, "="); printf "%.2f", a[2] }' "$OUT/probe-$r.txt")
    probe_figures "$OUT/probe-$r.txt" | while read -r m half os or g t; do
        pp=$(awk -v m="$m" '$1 == "pingpong" && $2 == m { print $3, $4 }' "$OUT/pingpong-$r.txt")
        echo "run $r $m ${pp:-nan nan} $half $os $or $g $t"
    done >>"$OUT/rows.txt"
    echo "run $r D0 $d0 elapsed $elapsed wall $wall" >>"$OUT/runs.txt"
    ok=$((ok + 1))
done
echo "# load after: $(load)"
[ "$ok" -gt 0 ] || { echo "probe_vs_pingpong: no run succeeded" >&2; exit 1; }

printf '\n%-4s %8s %9s %9s %12s %9s %9s %9s %9s\n' run size pingpong best "probe RTT/2" o_s o_r g "t(m)"
awk '{ printf "%-4s %8s %9s %9s %12.3f %9.3f %9.3f %9.3f %9.3f\n", $2, $3, $4, $5, $6, $7, $8, $9, $10 }' \
    "$OUT/rows.txt"
awk '{ printf "run %s: D(0) in the topology %s us; probe measured for %s s (%s s with start-up)\n", $2, $4, $6, $8 }' \
    "$OUT/runs.txt"

# medians over the runs
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
                                                else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '\nmedians over %d runs (us)\n%8s %9s %9s %12s %9s %9s %9s %9s\n' "$ok" size pingpong best "probe RTT/2" o_s o_r \
    g "t(m)"
for m in $SIZES; do
    line=$(printf '%8s' "$m")
    for c in 4 5 6 7 8 9 10; do
        v=$(awk -v m="$m" -v c="$c" '$3 == m { print $c }' "$OUT/rows.txt" | median)
        line+=$(printf ' %*.3f' $([ "$c" -eq 6 ] && echo 12 || echo 9) "$v")
    done
    echo "$line"
done
printf 'D(0) in the topology: %.3f us (median); probe measurement %.2f s (median)\n' \
    "$(awk '{ print $4 }' "$OUT/runs.txt" | median)" "$(awk '{ print $6 }' "$OUT/runs.txt" | median)"
