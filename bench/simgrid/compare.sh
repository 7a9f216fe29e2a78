#!/usr/bin/env bash
# usage: bench/simgrid/compare.sh [OUTDIR]   (`make simgrid-check`; needs
#        make smpi and make simgrid; OUTDIR default BUILD/simgrid/compare)
#
# The same small simulations under Debian's SimGrid and under the patched
# build of bench/simgrid/build.sh (TB_SIMGRID=debian, then fixed:
# test/smpi/smpi-opts.sh), with SMPI_OPTS, and every line of their output
# compared (simulated times as the programs print them: to 1 ns in
# topobcast-bench's CSV and the ping-pong's, 10 ns in the bench's table):
#   pingpong-PLAT       test/smpi/pingpong, rank 0 against one rank per
#                       level of PLAT (fram, betzy, arm1; PLAT-levels.txt),
#                       0 B, 1 KiB and 1 MiB: point to point only
#   bench-SEL-LAYOUT    topobcast-bench -a default,binomial,binary,pipeline
#                       -s 1,4K,64K,1M -r 5 -w 0 --csv at P=64 on betzy.xml,
#                       betzy-LAYOUT.txt (contiguous: 16 ranks per SimGrid
#                       host; rr: one rank per host), under the ompi and
#                       mpich selectors (SEL)
#   trivial-SEL         bench/scale/smpi_trivial.c without the library at
#                       P=64 (contiguous): MPI_Init, one MPI_Bcast of 8 B
# Each case runs twice under each build: with SMPI_OPTS as the benchmarks
# run ("opts"), and with --cfg=surf/precision:1e-13 added ("fine").  Every
# line of the outputs is compared, with SimGrid's "Simulated time" at the
# end of each run (smpi/display-timing).  What may differ, and why:
# - the end time of a run whose program makes an SMP-aware collective call
#   (every case but the ping-pongs): the patched build's only change to
#   simulated time is the set-up of the SMP leaders at the first such call
#   on a communicator (a barrier instead of a ring allgather:
#   bench/simgrid/patches/02-*), and the end time includes it.  That first
#   call is the library's broadcast of its settings inside MPI_Init in
#   topobcast-bench (untimed; under ompi too: Open MPI's decision table
#   picks the knomial bcast, which is SMPI's SMP-aware
#   mvapich2_knomial_intra_node), and the trivial program's MPI_Bcast;
# - in those runs, from then on the same events happen Delta earlier
#   (Delta: the set-up's difference), and smpirun's surf/precision of 1e-9
#   quantises event times on that shifted clock: in the "opts" pass a time
#   printed later may differ by a few ns (at most 5 ns plus one unit of its
#   last printed digit is accepted; each is listed).  The "fine" pass
#   (1e-13) must print every such time identical;
# - the trimmed mean of topobcast-bench's CSV (trimmed_mean_us, timing/):
#   it leaves out the samples above their 90th percentile by an exact
#   comparison, and samples tied with it to the last digit fall on either
#   side from one clock to the other.
# Everything else -- the ping-pongs' whole output, every median, min and
# percentile of every timed broadcast -- must be identical.
# Prints one line per case and pass, then the exempt and near lines; exit
# status 0 when nothing else differs, 1 on a difference or a failed run
# (its log named), 2 on bad usage, 3 when the patched build is missing or
# stale (nothing compared: make simgrid).
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
[ $# -le 1 ] || { echo "usage: $0 [OUTDIR]" >&2; exit 2; }
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export BUILD
OUT=${1:-$BUILD/simgrid/compare}
SBIN=$BUILD/smpi/bin
PLATS=$ROOT/test/platforms
for f in "$SBIN/pingpong" "$SBIN/topobcast-bench" "$SBIN/scale_trivial"; do
    [ -x "$f" ] || { echo "compare.sh: $f missing (make smpi $BUILD/smpi/bin/scale_trivial)" >&2; exit 1; }
done
# the two launchers, and what they are
if ! cmd_fixed=$(TB_SIMGRID=fixed bash -c '. test/smpi/smpi-opts.sh && echo "${SMPIRUN_CMD[0]}" && echo "$SMPI_SIMGRID"' 2>&1); then
    echo "compare.sh: nothing compared: $cmd_fixed" >&2
    exit 3
fi
cmd_debian=$(TB_SIMGRID=debian bash -c '. test/smpi/smpi-opts.sh && echo "${SMPIRUN_CMD[0]}" && echo "$SMPI_SIMGRID"') || exit 1
# shellcheck source=test/smpi/smpi-opts.sh
. test/smpi/smpi-opts.sh # SMPI_OPTS, SMPI_COLL_*
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
cd "$OUT" || exit 1 # smpirun may leave temporary files in the current directory
echo "# debian: $(sed -n 2p <<<"$cmd_debian")"
echo "# fixed:  $(sed -n 2p <<<"$cmd_fixed")"

# ping-pong hostfiles: rank 0 on the root host, one rank per level
for p in fram betzy arm1; do
    awk '!/^#/ && NF { print $2 }' "$PLATS/$p-levels.txt" >"hosts-$p.txt"
done
# case NAME SMP PLATFORM HOSTFILE NP [--cfg...] -- PROGRAM ARGS
# SMP: yes when the program makes an SMP-aware collective call.
cases=()
add() { cases+=("$*"); }
for p in fram betzy arm1; do
    add "pingpong-$p no $PLATS/$p.xml $OUT/hosts-$p.txt $(wc -l <"hosts-$p.txt") -- $SBIN/pingpong 0 1K 1M"
done
for sel in ompi mpich; do
    for lay in contiguous rr; do
        add "bench-$sel-$lay yes $PLATS/betzy.xml $PLATS/betzy-$lay.txt 64 --cfg=smpi/coll-selector:$sel --" \
            "$SBIN/topobcast-bench -a default,binomial,binary,pipeline -s 1,4K,64K,1M -r 5 -w 0 --csv CSV"
    done
    add "trivial-$sel yes $PLATS/betzy.xml $PLATS/betzy-contiguous.txt 64 --cfg=smpi/coll-selector:$sel -- $SBIN/scale_trivial"
done

# run KIND PASS CASE...: the output of one simulation, less SimGrid's
# wall-clock lines, in KIND-NAME-PASS.txt (its CSV appended)
run() {
    local kind=$1 pass=$2 name=$3 plat=$5 hosts=$6 np=$7 launcher
    shift 7
    local cfg=()
    [ "$pass" = fine ] && cfg=(--cfg=surf/precision:1e-13)
    while [ "$1" != -- ]; do cfg+=("$1"); shift; done
    shift
    local f=$kind-$name-$pass
    local prog=("${@//CSV/$OUT/$f.csv}")
    if [ "$kind" = debian ]; then launcher=$(sed -n 1p <<<"$cmd_debian"); else launcher=$(sed -n 1p <<<"$cmd_fixed"); fi
    rm -f "$f.csv"
    timeout 600 "$launcher" "${SMPI_OPTS[@]}" "${cfg[@]}" --cfg=smpi/display-timing:yes -platform "$plat" \
        -hostfile "$hosts" -np "$np" "${prog[@]}" >"$f.log" 2>&1
    local rc=$?
    grep -vE 'The simulation took|seconds were actual computation|More than 75% of the time|use sampling functions' \
        "$f.log" >"$f.txt"
    [ -e "$f.csv" ] && sed 's/^/csv: /' "$f.csv" >>"$f.txt"
    echo "exit status: $rc" >>"$f.txt"
    return $rc
}

# compare NAME PASS SMP: prints "lines identical exempt near differ" and,
# on stderr, the lines that are not identical.  A line is identical, or:
#   exempt  SimGrid's end time, in a run with an SMP-aware call (SMP=yes);
#           the trimmed mean of a CSV line (the rest of the line is then
#           compared as any other)
#   near    (pass opts, SMP=yes) the same text, each number within 5 ns
#           plus one unit of its last printed digit (times are in us)
compare() {
    awk -v name="$1" -v pass="$2" -v smp="$3" '
        function skeleton(l) { gsub(/-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/, "#", l); return l }
        function close_enough(x, y,  nx, ny, i, d, unit) {
            nx = split(x, px, /[^-+.e0-9]+/); ny = split(y, py, /[^-+.e0-9]+/)
            if (nx != ny) return 0
            for (i = 1; i <= nx; i++) {
                if (px[i] == py[i]) continue
                d = index(px[i], ".") ? length(px[i]) - index(px[i], ".") : 0
                unit = 10 ^ -d
                if ((px[i] - py[i]) ^ 2 > (0.005 + unit + 1e-9) ^ 2) return 0
            }
            return 1
        }
        function no_trimmed(l,  f, n, i, o) { n = split(l, f, ","); o = ""; for (i = 1; i <= n; i++) if (i != 13) o = o "," f[i]; return o }
        FNR == NR { a[FNR] = $0; na = FNR; next }
        { b[FNR] = $0; nb = FNR }
        END {
            n = na > nb ? na : nb
            for (i = 1; i <= n; i++) {
                x = a[i]; y = b[i]
                if (x == y) { same++; continue }
                if (smp == "yes" && x ~ /Simulated time: / && y ~ /Simulated time: /) {
                    ex++
                    sx = x; sub(/.*Simulated time: /, "", sx); sub(/ seconds.*/, "", sx)
                    sy = y; sub(/.*Simulated time: /, "", sy); sub(/ seconds.*/, "", sy)
                    printf "exempt %s (%s): end of the simulation %s s (debian), %s s (fixed), %+.3f us: the SMP set-up of the first SMP-aware call\n", name, pass, sx, sy, (sy - sx) * 1e6 > "/dev/stderr"
                    continue
                }
                x2 = x; y2 = y
                if (x ~ /^csv: / && y ~ /^csv: /) {
                    x2 = no_trimmed(x); y2 = no_trimmed(y)
                    split(x, fx, ","); split(y, fy, ",")
                    if (fx[13] != fy[13]) {
                        ex++
                        printf "exempt %s (%s): trimmed mean %s us (debian), %s us (fixed): %s B, %s (samples tied with their 90th percentile)\n", name, pass, fx[13], fy[13], fx[2], fx[3] > "/dev/stderr"
                        if (x2 == y2) continue
                    }
                }
                if (smp == "yes" && pass == "opts" && skeleton(x2) == skeleton(y2) && close_enough(x2, y2)) {
                    near++
                    printf "near   %s (%s) line %d (surf/precision 1e-9 on a shifted clock):\n  debian: %s\n  fixed:  %s\n", name, pass, i, x, y > "/dev/stderr"
                    continue
                }
                dif++
                if (dif <= 5) printf "DIFFER %s (%s) line %d:\n  debian: %s\n  fixed:  %s\n", name, pass, i, x, y > "/dev/stderr"
            }
            printf "%d %d %d %d %d\n", n, same, ex, near, dif
        }' "debian-$1-$2.txt" "fixed-$1-$2.txt"
}

status=0 total=0 nexempt=0 nnear=0
printf '# %-5s %-4s %-22s %6s %10s %7s %5s %7s\n' "" pass case lines identical exempt near differ
for pass in opts fine; do
    for c in "${cases[@]}"; do
        # shellcheck disable=SC2086 # a case is a list of words
        set -- $c
        name=$1 smp=$2
        if ! run debian "$pass" "$@"; then
            echo "not ok $pass $name: the run under Debian's SimGrid failed ($OUT/debian-$name-$pass.log)"
            status=1
            continue
        fi
        if ! run fixed "$pass" "$@"; then
            echo "not ok $pass $name: the run under the patched SimGrid failed ($OUT/fixed-$name-$pass.log)"
            smpi_maps_explain "fixed-$name-$pass.log" "$5" || true
            status=1
            continue
        fi
        read -r n same ex near dif < <(compare "$name" "$pass" "$smp" 2>"diff-$name-$pass.txt")
        total=$((total + n)) nexempt=$((nexempt + ex)) nnear=$((nnear + near))
        ok="ok    "
        [ "$dif" -eq 0 ] || { ok="not ok"; status=1; }
        printf '%s %-4s %-22s %6d %10d %7d %5d %7d\n' "$ok" "$pass" "$name" "$n" "$same" "$ex" "$near" "$dif"
    done
done
for pass in opts fine; do
    for c in "${cases[@]}"; do
        # shellcheck disable=SC2086 # a case is a list of words
        set -- $c
        sed 's/^/# /' "diff-$1-$pass.txt"
    done
done
if [ $status -eq 0 ]; then
    echo "compare: same simulation: $total lines in ${#cases[@]} cases x 2 passes, $nexempt exempt, $nnear within the 1 ns clock (all listed above)"
else
    echo "compare: DIFFERENT (the runs' logs and outputs are in $OUT)"
fi
exit $status
