#!/usr/bin/env bash
# The whole topobcast pipeline on a simulated machine:
#
#   probe -> topology.yaml -> tuner -> table.yaml -> compare the tuned
#   library against SMPI's mpich and ompi selectors and against every SMPI
#   built-in bcast algorithm -> compare.csv, summary.txt, report.html
#
# usage: test/smpi/pipeline.sh PLATFORM.xml HOSTFILE NP OUTDIR
#
# Needs `make && make smpi`.  Simulated time is deterministic, so the same
# inputs give the same CSV.  Exit status: 0 on success, 1 when a stage fails
# (its log is named in the message), 2 on bad usage (or a TB_SIMGRID that
# cannot be had).  A built-in algorithm
# that fails, deadlocks or times out is skipped with a note in the summary.
#
# Why the baselines are what they are: the tuner runs under one selector
# (PIPE_TUNE_SELECTOR, ompi by default), so its `default` candidate is that
# library's bcast and, at the sizes it measured, the table cannot lose to it
# (simulated time has no noise).  The same table is then compared under
# both selectors -- against mpich, `default` in the table means mpich's
# bcast.  Speedups in the summary are per selector (the library and the
# baseline under the same selector); compare.csv's topobcast_us is the
# library under the tuning selector.  `best_builtin` is the fastest of all of
# SMPI's bcast algorithms at each size, measured apart -- an oracle no
# single MPI library offers, the strongest baseline we have (above 1024
# ranks at 4 of the sizes: PIPE_BUILTIN_SIZES).  `mpich_rules`
# is MPICH's generic selection (binomial / scatter + allgather by size)
# timed with those built-ins: MPICH without its SMP-aware step, and the MPICH
# baseline where SMPI's mpich selector deadlocks (it is then left out).
#
# Shapes: the tuner times, and the comparisons compare, each communicator
# shape of PIPE_SHAPES (tuner/README.md: the whole job, one rank per node,
# the ranks of one node, the first row of a 2D grid in rank order, half of
# the nodes -- where the job has them; a "node" is what MPI_COMM_TYPE_SHARED
# groups, under SMPI a SimGrid host).  compare.csv and summary.txt hold one
# block per shape; the built-ins and MPICH's rules are timed on the whole job
# only (topobcast-bench runs on MPI_COMM_WORLD), so other shapes are
# compared with the two selectors.
set -u

# ---- stage options: override from the environment -------------------------
# Every column uses the same sizes (powers of two from 1 B to PIPE_MAX_SIZE)
# and the same timing (PIPE_TIME_OPTS: repetitions, warm-up, roots).
# Default 8M, and from 1024 ranks on what keeps a rank's buffer times the
# ranks at 4 GiB (4M at 1024, 1M at 4096): a simulated rank holds its buffer
# (no shared malloc: the data are checked), 6.7 GB peak at 4096 x 1 MiB.
PIPE_MAX_SIZE=${PIPE_MAX_SIZE:-}
# Or an explicit list (bytes, K/M suffixes), e.g. 1,64,4K,64K,1M,8M; the
# tuner may use a shorter one (PIPE_TUNE_SIZES, default: the same), whose
# winners then cover the sizes between as ranges.
PIPE_SIZES=${PIPE_SIZES:-}
PIPE_TUNE_SIZES=${PIPE_TUNE_SIZES:-}
PIPE_TIME_OPTS=${PIPE_TIME_OPTS:---reps 3 --warmup 1 --roots 0}
# The probe: the issue's PLogP method (-M 2M -R 8), cheap at scale
# (probe/README.md, "Cost under SMPI"): --fast auto measures between hosts
# only as many ranks per host as keeps the rounds at the intra-host count;
# no inserted sizes; simulated time is exact, so no minimum batch time.
# g(m) by saturation up to 64 KiB (the default) although the topology only
# needs m = 0: the tuner's model prices segments with it, and g from a round
# trip (--gsat-max 0) overstates back-to-back segments (tuner/README.md).
PIPE_PROBE_OPTS=${PIPE_PROBE_OPTS:--M 2M -R 8 --fast auto --batch-time 0 --max-insert 0 --progress plain}
# The tuner: the shapes of PIPE_SHAPES, non-blocking sends, and the 8 best
# predicted candidates per size besides default (and the best predicted of
# every other algorithm within the factor).  The word NP stands for the number of
# ranks.  Above 64 ranks, when PIPE_TUNER_OPTS is not set: the 3 best; from
# 256 on also no scatter_allgather: the model picks its ring allgather at 2-8 MiB,
# where it loses, and it then takes one of the slots; its P^2 messages
# also make each simulated repetition minutes long (tuner/README.md).  Above
# 1024 ranks the best alone (with default and the previous size's best): a
# simulated run of 4096 ranks takes about a minute of wall per candidate at
# 1 MiB.
PIPE_TUNER_OPTS=${PIPE_TUNER_OPTS:-}
# The communicator shapes tuned and compared (topobcast-tuner --shapes):
# all, and above 1024 ranks the job alone (half of the nodes would double
# the cost of the simulated timing there).
PIPE_SHAPES=${PIPE_SHAPES:-}
# Adds --max-segments N to the tuner: on the ARM1-like node at P=96 a large
# message in many segments takes SMPI's solver minutes per repetition
# (tuner/README.md); 64 keeps its tuner at about a minute.  Unset, from 256
# ranks on: segments x ranks at most 32768 (64 at 512 ranks, 8 at 4096):
# SimGrid's cost of a candidate grows with the pieces in flight times the
# ranks (its max-min sharing solver re-solves every flow's share; at 512
# ranks, dbt at 1 MiB in 16, 64 and 256 pieces took 5.5, 18 and 363 s of
# CPU).
PIPE_MAX_SEGMENTS=${PIPE_MAX_SEGMENTS:-}
PIPE_TUNE_SELECTOR=${PIPE_TUNE_SELECTOR:-ompi}
# Built-in algorithms not timed: `automatic` times every algorithm inside
# each call (not a broadcast algorithm of its own).
PIPE_BUILTIN_SKIP=${PIPE_BUILTIN_SKIP:-automatic}
# Seconds per stage (whole smpirun, wall time) and per built-in algorithm:
# CPU time (ulimit -t), so that which built-ins are baselines does not
# depend on what else the machine runs (a wall-clock limit lost 11 of 22 on
# ARM1 at P=96 under a load of 4); 10x that in wall time as a last resort.
# The built-ins' default: 60 s, and above 1024 ranks 50 ms per rank (204 s
# at 4096: there, at 4 sizes, the built-ins that finish take 46-148 s of
# CPU, user and system; the slowest, scatter_rdb_allgather, is the best at
# 64 KiB; the next, ompi_split_bintree, took 236 s).
PIPE_STAGE_TIMEOUT=${PIPE_STAGE_TIMEOUT:-3600}
PIPE_BUILTIN_TIMEOUT=${PIPE_BUILTIN_TIMEOUT:-}
# The sizes the built-ins are timed at: every compared size, and above 1024
# ranks those of 1 B, 4 KiB, 64 KiB and 1 MiB that are compared (all the
# compared sizes if none is).  At 4096
# ranks a built-in at 4 sizes costs about a minute of CPU when it is cheap
# to simulate, and the 11 compared sizes put 24 of them past an hour of
# wall; the best built-in is then "-" at the other sizes.
PIPE_BUILTIN_SIZES=${PIPE_BUILTIN_SIZES:-}
# Simulations at once (each is single-threaded; 1 on a busy box).  The
# built-ins need neither topology nor table: PIPE_JOBS - 1 of them run
# beside the probe and the tuner, and after the tuner the compares and the
# built-ins left share all PIPE_JOBS.  At 8 MiB x 512 ranks a run holds
# ~4.5 GB; at 4096 ranks the probe holds 12 GB and a built-in at 1 MiB 5.6.
PIPE_JOBS=${PIPE_JOBS:-2}
# The SimGrid that simulates: TB_SIMGRID (test/smpi/smpi-opts.sh; auto: the
# patched build of `make simgrid` when present), named in stages.txt and
# summary.txt.
# PIPE_REUSE=1: keep OUTDIR's measurements, topology and table from an
# earlier run, and each built-in's CSV from one with the same sizes and
# repetitions; redo the rest (when iterating on the comparisons).
PIPE_REUSE=${PIPE_REUSE:-0}

usage() { echo "usage: $0 PLATFORM.xml HOSTFILE NP OUTDIR" >&2; exit 2; }
[ $# -eq 4 ] || usage
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
PLATFORM=$(abspath "$1"); HOSTFILE=$(abspath "$2"); NP=$3; OUT=$(abspath "$4")
case $NP in '' | *[!0-9]*) usage ;; esac
if [ -z "$PIPE_SHAPES" ]; then
    PIPE_SHAPES=all
    [ "$NP" -gt 1024 ] && PIPE_SHAPES=job
fi
if [ -z "$PIPE_MAX_SIZE" ]; then
    PIPE_MAX_SIZE=8M
    [ "$NP" -ge 1024 ] && PIPE_MAX_SIZE=$(((4096 * 1024 / NP)))K
fi
if [ -z "$PIPE_BUILTIN_TIMEOUT" ]; then
    PIPE_BUILTIN_TIMEOUT=60
    [ "$NP" -gt 1024 ] && PIPE_BUILTIN_TIMEOUT=$((NP * 50 / 1000))
fi
if [ -z "$PIPE_MAX_SEGMENTS" ] && [ "$NP" -ge 256 ]; then
    PIPE_MAX_SEGMENTS=4
    while [ $((PIPE_MAX_SEGMENTS * 2 * NP)) -le 32768 ]; do PIPE_MAX_SEGMENTS=$((PIPE_MAX_SEGMENTS * 2)); done
fi
ROOT=${PIPE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=$(abspath "${BUILD:-$ROOT/build}")
SBIN=$BUILD/smpi/bin
NBIN=$BUILD/bin
fail() { echo "pipeline: $*" >&2; exit 1; }
[ -r "$PLATFORM" ] || fail "no platform file $PLATFORM"
[ -r "$HOSTFILE" ] || fail "no hostfile $HOSTFILE"
[ "$(wc -l <"$HOSTFILE")" -ge "$NP" ] || fail "$HOSTFILE has fewer than $NP lines"
command -v smpirun >/dev/null || fail "smpirun not found (SimGrid SMPI)"
for b in "$SBIN/topobcast-probe" "$SBIN/topobcast-tuner" "$SBIN/topobcast-bench" "$NBIN/topobcast-report" \
    "$NBIN/topobcast-probe"; do
    [ -x "$b" ] || fail "$b missing: run make && make smpi"
done
# shellcheck source=test/smpi/smpi-opts.sh
. "$ROOT/test/smpi/smpi-opts.sh"
smpi_maps_check "$NP" || true # a warning; a run that fails for it says so (stage)
mkdir -p "$OUT" || fail "cannot create $OUT"
cd "$OUT" || exit 1 # smpirun may leave temporary files in the current directory
rm -f compare.csv speedups.txt summary.txt validate.txt builtin-*.rc builtin-bad.txt compare-*.csv
[ "$PIPE_REUSE" = 1 ] || rm -f builtin-*.csv
# PIPE_REUSE keeps the wall times of the stages it does not redo
earlier=""
[ "$PIPE_REUSE" = 1 ] && [ -s stages.txt ] &&
    earlier=$(grep -E '^(probe|tuner|tuner-resume) ' stages.txt | sed '/(earlier run)/! s/ s wall / s wall (earlier run) /')
rm -f stages.txt
name=$(basename "$PLATFORM" .xml)

# ---- helpers -----------------------------------------------------------------
# stage NAME TIMEOUT CMD...: run CMD (output in NAME.log) and record its wall
# time and the load of this shared box in stages.txt.
stage() {
    local st=$1 to=$2 t0 rc
    shift 2
    t0=$(date +%s.%N)
    timeout "$to" "$@" >"$st.log" 2>&1
    rc=$?
    printf '%-38s %8.1f s wall  rc=%-3s load %s\n' "$st" "$(echo "$(date +%s.%N) - $t0" | bc)" "$rc" \
        "$(uptime | sed 's/.*load average: //')" >>stages.txt
    # a simulation short of address-space mappings says so (smpi-opts.sh)
    [ $rc -eq 0 ] || smpi_maps_explain "$st.log" "$NP" || true
    return $rc
}
# smpirun with the shared options on this platform; more --cfg may follow
# before the program.
SMPIRUN=("${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" -platform "$PLATFORM" -hostfile "$HOSTFILE" -np "$NP")
to_bytes() { # 64K -> 65536
    local v=$1 m=1
    case $v in *K) m=1024 ;; *M) m=$((1024 * 1024)) ;; *G) m=$((1024 * 1024 * 1024)) ;; esac
    echo $((${v%[KMG]} * m))
}
maxb=$(to_bytes "$PIPE_MAX_SIZE")
SIZES=1
for ((s = 2; s <= maxb; s *= 2)); do SIZES="$SIZES,$s"; done
list_bytes() { # 1,4K,1M -> 1,4096,1048576
    local v out=""
    for v in ${1//,/ }; do out="$out${out:+,}$(to_bytes "$v")"; done
    echo "$out"
}
upto() { # the sizes of a list up to PIPE_MAX_SIZE
    local v out=""
    for v in ${1//,/ }; do [ "$v" -le "$maxb" ] && out="$out${out:+,}$v"; done
    echo "$out"
}
TUNE_SIZES=$SIZES
# From 256 ranks on, fewer sizes (every simulated broadcast costs seconds):
# 14, the same for the tuner and the comparisons (with fewer tuned sizes, a
# compared size between two tuned ones ran the neighbour's winner: 128 KiB
# lost to a built-in that way at P=512).
if [ "$NP" -ge 256 ]; then
    SIZES=$(upto "$(list_bytes 1,8,64,512,4K,32K,64K,128K,256K,512K,1M,2M,4M,8M)")
    TUNE_SIZES=$SIZES
fi
[ -n "$PIPE_SIZES" ] && SIZES=$(list_bytes "$PIPE_SIZES") && TUNE_SIZES=$SIZES
[ -n "$PIPE_TUNE_SIZES" ] && TUNE_SIZES=$(list_bytes "$PIPE_TUNE_SIZES")
compared() { # the sizes of a list that SIZES holds
    local v out=""
    for v in ${1//,/ }; do case ",$SIZES," in *",$v,"*) out="$out${out:+,}$v" ;; esac; done
    echo "$out"
}
BUILTIN_SIZES=$SIZES
if [ -n "$PIPE_BUILTIN_SIZES" ]; then
    BUILTIN_SIZES=$(list_bytes "$PIPE_BUILTIN_SIZES")
elif [ "$NP" -gt 1024 ]; then
    few=$(compared "$(list_bytes 1,4K,64K,1M)")
    [ -n "$few" ] && BUILTIN_SIZES=$few
fi
case $PIPE_TUNE_SELECTOR in
    mpich) TUNE_SEL=("${SMPI_COLL_MPICH[@]}") ;;
    ompi) TUNE_SEL=("${SMPI_COLL_OMPI[@]}") ;;
    *) fail "PIPE_TUNE_SELECTOR must be mpich or ompi" ;;
esac
# shellcheck disable=SC2206  # word splitting of option strings is wanted
TIME_OPTS=($PIPE_TIME_OPTS)
# shellcheck disable=SC2206
PROBE_OPTS=($PIPE_PROBE_OPTS)
# shellcheck disable=SC2206
TUNER_OPTS=(${PIPE_TUNER_OPTS//NP/$NP})
if [ -z "$PIPE_TUNER_OPTS" ]; then
    base=(--shapes "$PIPE_SHAPES" --send nonblocking)
    TUNER_OPTS=("${base[@]}" --max-timed 8)
    # above 64 ranks, the 3 best: with the dbt, bine and circulant bases
    # and per-level segments, the 8 best of every size make a simulated
    # run of hours from P=96 on
    [ "$NP" -gt 64 ] && TUNER_OPTS=("${base[@]}" --max-timed 3)
    # shellcheck disable=SC2054 # the commas separate --algorithms' names
    budget=(--max-timed 3)
    [ "$NP" -gt 1024 ] && budget=(--top 1)
    [ "$NP" -ge 256 ] && TUNER_OPTS=("${base[@]}" "${budget[@]}" --algorithms
        binomial,knomial,binary,split_binary,flat,chain,pipeline,dbt,bine,circulant,magpie,magpie2,interpipe,distance_tree)
fi
[ -n "$PIPE_MAX_SEGMENTS" ] && TUNER_OPTS+=(--max-segments "$PIPE_MAX_SEGMENTS")
{
    echo "# pipeline $name $(basename "$HOSTFILE") P=$NP, sizes $SIZES B; $(date -u '+%F %T UTC')"
    echo "# probe: $PIPE_PROBE_OPTS"
    echo "# tuner (under the $PIPE_TUNE_SELECTOR selector, sizes $TUNE_SIZES): ${TUNER_OPTS[*]}; timing of every column: $PIPE_TIME_OPTS"
    echo "# shapes tuned and compared: $PIPE_SHAPES"
    echo "# built-ins: sizes $BUILTIN_SIZES B, at most $PIPE_BUILTIN_TIMEOUT s of CPU each; $PIPE_JOBS simulations at a time"
    echo "# SimGrid: $SMPI_SIMGRID"
} >stages.txt

# ---- ground truth ----------------------------------------------------------------
# The platform's structure, written by test/platforms/mkplatforms.py beside
# it (for validation only: the probe never reads names).  A platform without
# one is validated against the identities the probe records (host = socket).
truth=$ROOT/test/platforms/$name-truth.txt
TRUTH_OPT=(--truth "$truth")
[ -r "$truth" ] || { truth=""; TRUTH_OPT=(); }

# ---- 1. every SMPI built-in bcast algorithm, beside steps 2-3 ---------------------
# PMPI_Bcast under --cfg=smpi/bcast:ALGO, timed by topobcast-bench with the
# tuner's timing code (same reps, warm-up, root).  No shared malloc: the
# bench checks every algorithm's data, which shared blocks would garble, and
# a built-in that delivers wrong data is skipped.  The list is SMPI's own
# (it names them when asked for an unknown one).  They need neither the
# topology nor the table: PIPE_JOBS - 1 workers take them one at a time
# while the probe and the tuner run, and after the tuner the compares and
# the built-ins left share the PIPE_JOBS slots (a built-in is claimed by
# creating its directory under builtin-claims, so none runs twice).
t_start=$(date +%s.%N)
algs=$(cd "$OUT" && timeout 60 "${SMPIRUN_CMD[@]}" -platform "$PLATFORM" -hostfile "$HOSTFILE" -np 2 \
    --cfg=smpi/bcast:list-please "$SBIN/topobcast-bench" 2>&1 |
    sed -n 's/.*Valid algorithms: //p' | tr -d ' .' | tr ',' ' ')
[ -n "$algs" ] || fail "could not get SMPI's list of bcast algorithms"
bench_root=0
for ((i = 0; i < ${#TIME_OPTS[@]}; i++)); do
    [ "${TIME_OPTS[i]}" = --roots ] && bench_root=${TIME_OPTS[i + 1]}
done
case $bench_root in 0 | rotate) ;; *) fail "PIPE_TIME_OPTS: the built-ins are timed with --roots 0 or rotate only" ;; esac
get_opt() { # get_opt NAME DEFAULT: the value of --NAME in PIPE_TIME_OPTS
    local i
    for ((i = 0; i < ${#TIME_OPTS[@]}; i++)); do
        [ "${TIME_OPTS[i]}" = "--$1" ] && { echo "${TIME_OPTS[i + 1]}"; return; }
    done
    echo "$2"
}
reps=$(get_opt reps 20); warm=$(get_opt warmup 3)
skipped=""
nbuiltin=0
timed=()
for a in $algs; do
    case " $PIPE_BUILTIN_SKIP " in *" $a "*) skipped="$skipped $a(not timed: PIPE_BUILTIN_SKIP)"; continue ;; esac
    timed+=("$a")
done
rm -rf builtin-claims
mkdir builtin-claims || fail "cannot create $OUT/builtin-claims"
time_builtin() { # time_builtin ALG: time ALG unless another worker has claimed it
    local a=$1
    mkdir "builtin-claims/$a" 2>/dev/null || return 0
    if [ "$PIPE_REUSE" = 1 ] && [ -s "builtin-$a.csv" ] &&
        [ "$(awk -F, 'NR > 1 { s = s (s == "" ? "" : ",") $2; r = $5 } END { print s " " r }' "builtin-$a.csv")" = "$BUILTIN_SIZES $reps" ]; then
        echo "builtin-$a: CSV of an earlier run kept" >>stages.txt
        echo 0 >"builtin-$a.rc"
        return 0
    fi
    stage "builtin-$a" "$((PIPE_BUILTIN_TIMEOUT * 10))" bash -c 'ulimit -S -t "$1" && shift && exec "$@"' _ \
        "$PIPE_BUILTIN_TIMEOUT" "${SMPIRUN[@]}" "--cfg=smpi/bcast:$a" \
        "$SBIN/topobcast-bench" -a default -s "$BUILTIN_SIZES" -r "$reps" -w "$warm" --root "$bench_root" \
        --csv "$OUT/builtin-$a.csv"
    echo $? >"builtin-$a.rc"
}
builtin_worker() { local a; for a in "${timed[@]}"; do time_builtin "$a"; done; }
# a failing stage ends the script: its background simulations end with it
kill_tree() { local c; for c in $(pgrep -P "$1"); do kill_tree "$c"; done; kill "$1" 2>/dev/null; }
stop_beside() { local j; for j in $(jobs -p); do kill_tree "$j"; done; rm -rf builtin-claims; }
trap stop_beside EXIT
for ((w = 1; w < PIPE_JOBS; w++)); do builtin_worker & done

# ---- 2. probe ----------------------------------------------------------------------
reuse() { [ "$PIPE_REUSE" = 1 ] && for f in "$@"; do [ -s "$f" ] || return 1; done; }
[ "$PIPE_REUSE" = 1 ] && { echo "# PIPE_REUSE=1"; [ -z "$earlier" ] || echo "$earlier"; } >>stages.txt
if reuse measurements.txt topology.yaml probe.log; then
    echo "# probe: measurements and topology of an earlier run kept" >>stages.txt
else
    rm -f table.yaml table.yaml.partial # a new topology makes the table stale
    stage probe "$PIPE_STAGE_TIMEOUT" "${SMPIRUN[@]}" "$SBIN/topobcast-probe" "${PROBE_OPTS[@]}" \
        --save "$OUT/measurements.txt" -o "$OUT/topology.yaml" "${TRUTH_OPT[@]}" --validate ||
        fail "probe failed: $OUT/probe.log"
fi
stage probe-check 60 "$NBIN/topobcast-probe" --check "$OUT/topology.yaml" ||
    fail "topology.yaml does not load: $OUT/probe-check.log"

# ---- 3. tuner (under PIPE_TUNE_SELECTOR: its default candidate is that bcast) -----
if reuse table.yaml; then
    echo "# tuner: table of an earlier run kept" >>stages.txt
else
    # an interrupted tuner run (e.g. its stage timeout) continues where it stopped
    resume=()
    reuse table.yaml.partial && resume=(--resume)
    # the platform is the machine of the model's shared links and memories
    # (tuner/README.md); on a real machine they come from the measurements
    stage "tuner${resume[*]:+-resume}" "$PIPE_STAGE_TIMEOUT" "${SMPIRUN[@]}" "${TUNE_SEL[@]}" \
        "$SBIN/topobcast-tuner" --topology "$OUT/topology.yaml" --measurements "$OUT/measurements.txt" \
        --platform "$PLATFORM" --hostfile "$HOSTFILE" \
        -o "$OUT/table.yaml" --sizes "$TUNE_SIZES" "${TIME_OPTS[@]}" "${TUNER_OPTS[@]}" "${resume[@]}" ||
        fail "tuner failed: $OUT/tuner${resume[*]:+-resume}.log (PIPE_REUSE=1 resumes it)"
fi
stage table-check 60 "$NBIN/topobcast-probe" --check "$OUT/table.yaml" ||
    fail "table.yaml does not load: $OUT/table-check.log"
# the table after "validation against ...": truth groups best-level clusters accuracy ARI
awk '/^validation against/ { on = 1; print; next } on && NF >= 6 { print; next } { on = 0 }' probe.log >validate.txt
grep -qE '^[a-z]+ +[0-9]+ .* [01]\.[0-9]+ +-?[0-9.]+$' validate.txt || fail "probe --validate printed no accuracy lines: $OUT/probe.log"

# ---- 4. tuned library against the selectors (data validated, no shared malloc) ----
# The compares first, then the built-ins no worker has claimed yet, all in
# one pool of PIPE_JOBS runs (the workers of step 1 count).
pool_wait() { while [ "$(jobs -rp | wc -l)" -ge "$PIPE_JOBS" ]; do wait -n; done; }
rm -f compare-*.rc
for sel in mpich ompi; do
    if [ $sel = mpich ]; then selopt=("${SMPI_COLL_MPICH[@]}"); else selopt=("${SMPI_COLL_OMPI[@]}"); fi
    pool_wait
    {
        stage "compare-$sel" "$PIPE_STAGE_TIMEOUT" "${SMPIRUN[@]}" "${selopt[@]}" "$SBIN/topobcast-tuner" \
            --compare "$OUT/table.yaml" --csv "$OUT/compare-$sel.csv" --sizes "$SIZES" --shapes "$PIPE_SHAPES" \
            "${TIME_OPTS[@]}" --platform "$PLATFORM" --hostfile "$HOSTFILE"
        echo $? >"compare-$sel.rc"
    } &
done
for a in "${timed[@]}"; do
    [ -d "builtin-claims/$a" ] && continue
    pool_wait
    time_builtin "$a" &
done
wait
trap - EXIT
rm -rf builtin-claims
printf '%-38s %8.1f s wall  (%s at a time, the built-ins from the start)  load %s\n' "all simulations" \
    "$(echo "$(date +%s.%N) - $t_start" | bc)" "$PIPE_JOBS" "$(uptime | sed 's/.*load average: //')" >>stages.txt
# A selector whose own collectives break on this layout is left out, unless
# the table was tuned under it: SMPI 3.32's mpich selector aborts or
# deadlocks with a rank count per host that is not a power of two (24 per
# NUMA domain on ARM1 at P=96), and smpirun then exits 0 with a "Deadlock
# detected" report -- hence the count of rows.
nsizes=$(echo "$SIZES" | tr ',' '\n' | wc -l)
nbsizes=$(echo "$BUILTIN_SIZES" | tr ',' '\n' | wc -l)
# the shapes the tuning selector's comparison timed: every selector must
# give a row for each of them at each size
shapes=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s%s", n++ ? " " : "", $1 }' "compare-$PIPE_TUNE_SELECTOR.csv" 2>/dev/null)
nshapes=$(echo "$shapes" | wc -w)
selfailed=""
for sel in mpich ompi; do
    rc=$(cat "compare-$sel.rc" 2>/dev/null || echo missing)
    rm -f "compare-$sel.rc"
    # shape,nprocs,shape_keys,size,default_us,topobcast_us,...
    rows=$(awk -F, 'NR > 1 && $5 + 0 > 0 && $6 + 0 > 0' "compare-$sel.csv" 2>/dev/null | wc -l)
    [ "$rc" = 0 ] && [ "$nshapes" -ge 1 ] && [ "$rows" -eq $((nsizes * nshapes)) ] && continue
    [ "$sel" = "$PIPE_TUNE_SELECTOR" ] && fail "compare under the $sel selector failed: $OUT/compare-$sel.log"
    why="rc=$rc, $rows of $((nsizes * nshapes)) shape x size rows"
    grep -q "Deadlock detected" "compare-$sel.log" && why="$why, SMPI reports a deadlock"
    selfailed="$selfailed $sel($why; compare-$sel.log)"
    rm -f "compare-$sel.csv"
done
for a in "${timed[@]}"; do
    rc=$(cat "builtin-$a.rc" 2>/dev/null || echo missing)
    rm -f "builtin-$a.rc"
    rows=$(awk 'NR > 1' "builtin-$a.csv" 2>/dev/null | wc -l)
    if [ "$rc" = 0 ] && [ "$rows" -eq "$nbsizes" ]; then
        nbuiltin=$((nbuiltin + 1))
    else
        why="failed, rc=$rc, $rows of $nbsizes sizes"
        # topobcast-bench exits 1 when a rank's data are wrong
        wrong=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["status"] != "ok" { n++ } END { print n + 0 }' \
            "builtin-$a.csv" 2>/dev/null)
        [ "${wrong:-0}" -gt 0 ] && why="wrong data at $wrong of $rows sizes"
        # SIGXCPU (128 + 24) at the soft CPU limit; the hard one is left as it was
        [ "$rc" = 152 ] && why="over ${PIPE_BUILTIN_TIMEOUT} s of CPU"
        [ "$rc" = 124 ] && why="timed out after $((PIPE_BUILTIN_TIMEOUT * 10)) s of wall time"
        # (smpirun exits 0 after a deadlock: mvapich2_inter_node at P=512)
        grep -q "Deadlock detected" "builtin-$a.log" 2>/dev/null && why="SMPI reports a deadlock, $rows of $nbsizes sizes"
        skipped="$skipped $a($why)"
        rm -f "builtin-$a.csv"
    fi
done
# none may have run (each has PIPE_BUILTIN_TIMEOUT of CPU time, and a
# large P can exceed it): the summary then says so, with "-" for the best
# built-in

# ---- 5. compare.csv and summary ------------------------------------------------------
# bench CSV: find the columns by name.  A built-in that delivers wrong data
# or fails at any size is broken on this layout and no baseline at all (e.g.
# SMP_linear with one rank per host: "ok" at 1 B in 0.6 us, less than one
# network hop, wrong data from 2 B on).
: >best-builtin.txt
for f in builtin-*.csv; do
    [ -e "$f" ] || continue # none ran
    head -1 "$f" | grep -q median || fail "unexpected topobcast-bench CSV header in $f"
    a=${f#builtin-}; a=${a%.csv}
    awk -F, -v a="$a" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["algorithm"] == "default" || $c["algorithm"] == "\"default\"" {
            if ($c["status"] == "ok") row[++n] = $c["size_bytes"] " " $c["median_us"] " " a
            else bad++
        }
        END {
            if (bad) print a "(wrong data or error at " bad " sizes)" >> "builtin-bad.txt"
            else for (i = 1; i <= n; i++) print row[i]
        }' "$f"
done | sort -k1,1n -k2,2g -k3,3 | awk '!seen[$1]++' >best-builtin.txt
# mpich-rules.txt: MPICH's generic selection (MPIR_Bcast_intra_auto, CVAR
# defaults of MPICH 4.0.2 as `mpivars` prints them) timed with SMPI's
# built-ins: binomial below MPIR_CVAR_BCAST_SHORT_MSG_SIZE (12288 B) or below
# MPIR_CVAR_BCAST_MIN_PROCS (8) ranks; scatter + recursive-doubling allgather
# below MPIR_CVAR_BCAST_LONG_MSG_SIZE (524288 B) when P is a power of two;
# scatter + ring allgather otherwise.  It is MPICH without its SMP-aware step
# (which needs several nodes): the baseline where SMPI's mpich selector
# cannot run.  A size whose built-in did not run is left out.
for f in binomial_tree scatter_rdb_allgather scatter_LR_allgather; do
    [ -s "builtin-$f.csv" ] || continue
    awk -F, -v a="$f" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["status"] == "ok" { print a, $c["size_bytes"], $c["median_us"] }' "builtin-$f.csv"
done | awk -v np="$NP" '{ t[$1 " " $2] = $3 }
    END {
        pof2 = 1; while (pof2 < np) pof2 *= 2
        for (k in t) {
            split(k, w, " "); z = w[2]
            want = (z < 12288 || np < 8) ? "binomial_tree" : (z < 524288 && pof2 == np) ? "scatter_rdb_allgather" : "scatter_LR_allgather"
            if (w[1] == want) print z, t[k]
        }
    }' | sort -n >mpich-rules.txt
cmp_files=()
for sel in mpich ompi; do
    if [ -s "compare-$sel.csv" ]; then cmp_files+=("compare-$sel.csv"); else cmp_files+=(/dev/null); fi
done
# speedups.txt: shape, size, then (baseline, topobcast) per baseline --
# each selector with the library run under that selector, the best
# built-in with the library under the tuning selector, MPICH's rules with
# the library under the tuning selector where its table picks an algorithm
# of its own and MPICH's rules where it picks default (PMPI_Bcast would run
# them); the last two for the whole job only.  "-" where a baseline has no
# figure; the platform's lower bound last (topology/README.md).
# compare-SEL.csv: shape,nprocs,shape_keys,size,default_us,topobcast_us,
# speedup,algorithm,bound_us,efficiency,speedup_lo,speedup_hi (the algorithm
# quoted, holding commas: the fields after it are counted from the end).
awk -F, -v sizes="$SIZES" -v shapes="$shapes" -v tsel="$PIPE_TUNE_SELECTOR" '
    function alg(line,  k) { for (k = 0; k < 7; k++) line = substr(line, index(line, ",") + 1); for (k = 0; k < 4; k++) sub(/,[^,]*$/, "", line); return line }
    function v(a, z) { return (z in a) ? a[z] : "-" }
    FILENAME == ARGV[1] { if (FNR > 1) { k = $1 SUBSEP $4; mp[k] = $5; tm[k] = $6; am[k] = alg($0); np[$1] = $2; if ($(NF - 3) != "") bd[k] = $(NF - 3) }; next }
    FILENAME == ARGV[2] { if (FNR > 1) { k = $1 SUBSEP $4; om[k] = $5; to[k] = $6; ao[k] = alg($0); np[$1] = $2; if ($(NF - 3) != "") bd[k] = $(NF - 3) }; next }
    FILENAME == ARGV[3] { split($0, w, " "); bb["job" SUBSEP w[1]] = w[2]; bn["job" SUBSEP w[1]] = w[3]; next }
    { split($0, w, " "); mr["job" SUBSEP w[1]] = w[2] }
    END {
        print "shape,nprocs,size,mpich_us,ompi_us,best_builtin_us,best_builtin,topobcast_us,algorithm,mpich_rules_us,bound_us,efficiency"
        n = split(sizes, s, ",")
        m = split(shapes, sh, " ")
        for (j = 1; j <= m; j++)
            for (i = 1; i <= n; i++) {
                z = sh[j] SUBSEP s[i]
                t = tsel == "mpich" ? v(tm, z) : v(to, z)
                a = tsel == "mpich" ? v(am, z) : v(ao, z)
                if (t == "-") { print "pipeline: no data for " sh[j] " at size " s[i] > "/dev/stderr"; bad = 1; continue }
                if (!(z in bb)) { bb[z] = "-"; bn[z] = "-" } # another shape, or no built-in ran at every size
                tr = "-"
                if (z in mr) tr = a ~ /^"?default/ ? mr[z] : t
                eff = (z in bd) && t + 0 > 0 ? sprintf("%.4f", bd[z] / t) : "-"
                printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", sh[j], np[sh[j]], s[i], v(mp, z), v(om, z), bb[z], bn[z], t, a, v(mr, z), v(bd, z), eff
                printf "%s %s %s %s %s %s %s %s %s %s %s %s\n", sh[j], np[sh[j]], s[i], v(mp, z), v(tm, z), v(om, z), v(to, z), bb[z], t, v(mr, z), tr, v(bd, z) > "speedups.txt"
            }
        exit bad
    }' "${cmp_files[@]}" best-builtin.txt mpich-rules.txt >compare.csv ||
    fail "compare.csv incomplete (see the sizes above)"

{
    echo "# $name P=$NP ($(basename "$HOSTFILE")): topobcast (table.yaml, tuned under $PIPE_TUNE_SELECTOR) vs baselines,"
    echo "# per communicator shape (rows: shape, baseline); speedup = baseline / topobcast, the library run under"
    echo "# the same selector as the baseline (best_builtin: the library under $PIPE_TUNE_SELECTOR; mpich_rules: MPICH's"
    echo "# generic selection timed with SMPI's built-ins, against the library under $PIPE_TUNE_SELECTOR, or those rules"
    echo "# where its table picks default; at $(wc -l <mpich-rules.txt) of $nsizes sizes; both on the whole job only)"
    echo "# the built-ins timed at $nbsizes of the $nsizes sizes: $BUILTIN_SIZES B (PIPE_BUILTIN_SIZES)"
    echo "# SimGrid: $SMPI_SIMGRID"
    [ -z "$selfailed" ] || echo "# compare left out, the selector failed on this layout:$selfailed"
    awk '{
        sh = $1
        if (!(sh in seen)) { seen[sh] = 1; order[++ns] = sh; nproc[sh] = $2 }
        z = $3
        for (k = 0; k < 4; k++) {
            if ($(4 + 2 * k) == "-" || $(5 + 2 * k) == "-") continue
            sp = $(4 + 2 * k) / $(5 + 2 * k)
            key = sh SUBSEP k
            la[key] += log(sp); na[key]++
            if (z >= 65536 && z <= 8388608) { lm[key] += log(sp); nm[key]++ }
            if (z >= 1048576 && z <= 2097152) { l2[key] += log(sp); n2[key]++ }
            if (!(key in mn) || sp < mn[key]) { mn[key] = sp; mz[key] = z }
        }
    }
    END {
        split("mpich,ompi,best_builtin,mpich_rules", bl, ",")
        printf "%-13s %6s %-13s %12s %18s %16s %14s\n", "shape", "procs", "baseline", "geomean_all", "geomean_64K-8M", "geomean_1M-2M", "min (size)"
        for (j = 1; j <= ns; j++)
            for (k = 0; k < 4; k++) {
                sh = order[j]; key = sh SUBSEP k
                if (sh != "job" && k >= 2) continue
                if (!na[key]) printf "%-13s %6d %-13s %12s %18s %16s %14s\n", sh, nproc[sh], bl[k + 1], "-", "-", "-", "-"
                else printf "%-13s %6d %-13s %12.3f %18s %16s %8.3f (%d)\n", sh, nproc[sh], bl[k + 1], exp(la[key] / na[key]),
                    nm[key] ? sprintf("%.3f", exp(lm[key] / nm[key])) : "-", n2[key] ? sprintf("%.3f", exp(l2[key] / n2[key])) : "-",
                    mn[key], mz[key]
            }
    }' speedups.txt
    # efficiency = the platform's lower bound / the time (topology/README.md,
    # "Lower bound"), per shape; no measured time may be below it (that
    # would be a bug in the bound): every column of every size is checked,
    # and every built-in's own CSV.  speedups.txt: shape nprocs size mpich
    # topobcast ompi topobcast best topobcast rules topobcast bound
    awk '$12 != "-" {
        sh = $1; b = $12
        if (!(sh in seen)) { seen[sh] = 1; order[++ns] = sh }
        n[sh]++
        for (k = 4; k <= 11; k++) if ($k != "-" && $k + 0 < b) { printf "# BELOW THE BOUND: %s %s B, column %d: %s us < bound %s us\n", sh, $3, k, $k, b; bad++ }
        if ($3 >= 1048576) {
            e = b / $9; le[sh] += log(e)
            if (!ne[sh]++ || e < lo[sh]) { lo[sh] = e; lz[sh] = $3 }
            if ($8 != "-") { lb[sh] += log(b / $8); nb[sh]++ }
        }
        row[sh, n[sh]] = sprintf("#   %-13s %10s %12.2f %14.2f %10.3f %16s %10s", sh, $3, b, $9, b / $9, $8, $8 == "-" ? "-" : sprintf("%.3f", b / $8))
    }
    END {
        if (!ns) { print "# efficiency: no bound (compare ran without --platform)"; exit }
        print "# efficiency = bound / time; bound: the least broadcast time the platform allows (topology/README.md)"
        printf "#   %-13s %10s %12s %14s %10s %16s %10s\n", "shape", "size", "bound_us", "topobcast_us", "efficiency", "best_builtin_us", "its_eff"
        for (j = 1; j <= ns; j++) { sh = order[j]; for (i = 1; i <= n[sh]; i++) print row[sh, i] }
        for (j = 1; j <= ns; j++) {
            sh = order[j]
            if (ne[sh]) printf "# %s: efficiency >= 1 MiB: geometric mean %.3f (best built-in %s), lowest %.3f at %d B\n", sh, exp(le[sh] / ne[sh]), nb[sh] ? sprintf("%.3f", exp(lb[sh] / nb[sh])) : "-", lo[sh], lz[sh]
        }
        printf "# measured times below the bound: %d\n", bad + 0
    }' speedups.txt
    for f in builtin-*.csv; do
        [ -e "$f" ] || continue
        awk -F, -v a="${f#builtin-}" 'FILENAME == ARGV[1] { if (FNR > 1 && $1 == "job" && $(NF - 1) != "-") bd[$3] = $(NF - 1); next }
            FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            ($c["size_bytes"] in bd) && $c["status"] == "ok" && $c["median_us"] + 0 < bd[$c["size_bytes"]] + 0 {
                printf "# BELOW THE BOUND: built-in %s at %s B: %s us < bound %s us\n", a, $c["size_bytes"], $c["median_us"], bd[$c["size_bytes"]] }' compare.csv "$f"
    done
    awk -F, 'NR > 1 { print $1 ": " $2 " processes, " $3 }' "compare-$PIPE_TUNE_SELECTOR.csv" | awk '!seen[$0]++' |
        sed 's/^/# shape /'
    nbad=0
    [ -s builtin-bad.txt ] && nbad=$(wc -l <builtin-bad.txt)
    echo "# built-in algorithms timed: $nbuiltin, $((nbuiltin - nbad)) of them baselines; not timed or failed:${skipped:- none}"
    [ -s builtin-bad.txt ] && echo "# built-ins excluded: $(tr '\n' ' ' <builtin-bad.txt)"
    for sh in $shapes; do
        echo "# $sh: the table chose default (the $PIPE_TUNE_SELECTOR selector's bcast) at $(awk -F, -v s="$sh" 'NR > 1 && $1 == s && $9 ~ /^"?default/' compare.csv | wc -l) of $nsizes sizes"
    done
    # the tuner's timed runs per shape
    sed -n '/^timed runs per communicator/,/^$/p' tuner*.log 2>/dev/null | grep '^  ' | sed 's/^  /# tuner: /'
    echo "# probe --validate (truth: ${truth:-the identities the probe recorded}):"
    sed 's/^/#   /' validate.txt
} >summary.txt

# ---- 6. report -------------------------------------------------------------------
stage report 300 "$NBIN/topobcast-report" --measurements measurements.txt --topology topology.yaml \
    --table table.yaml --compare "compare-$PIPE_TUNE_SELECTOR.csv" "${TRUTH_OPT[@]}" \
    --title "topobcast on $name, P=$NP ($(basename "$HOSTFILE"))" -o report.html ||
    fail "report failed: $OUT/report.log"
{
    echo "# stage wall times (load: 1/5/15-minute averages of this 2-core box)"
    grep -v '^#' stages.txt | sed 's/^/#   /'
} >>summary.txt
cat summary.txt
echo "compare: $OUT/compare.csv"
echo "report: $OUT/report.html"
