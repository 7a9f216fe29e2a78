#!/usr/bin/env bash
# A simulated site calibrated once, then jobs that use its table
# (`make bench-site`; bench/site/README.md):
#
#   1. the site's calibration on test/platforms/site64.xml (64 nodes of two
#      types, 4 islands; a SimGrid host is a socket): a network pass (one
#      rank on every host), one node pass per node type (every core of one
#      host of it), --compose, then topobcast-tuner --site in one
#      allocation of every core, under SMPI's ompi selector;
#   2. SITE_JOBS jobs drawn from SITE_SEED (bench/site/jobs.py) that
#      calibrate nothing: node subsets, ranks per node, compact, round-robin
#      or random placement; each job's hierarchy checked against the
#      platform's truth (site_hier: ARI 1 on its ranks), then its data and
#      its time against MPI's broadcast (topobcast-tuner --compare with the
#      site table, --shapes job) at SITE_SIZES;
#   3. for SITE_PERJOB of them, a table tuned for that job alone (the
#      per-allocation path: topobcast-tuner --shapes job on its ranks with
#      the site's topology) and compared the same way.
# Prints one line per job, the comparisons and the calibration's cost;
# everything lands in SITE_OUT.  Simulated time is deterministic: one
# repetition per size is a measurement.  One simulation at a time, niced.
#
# usage: bench/site/run.sh            (needs `make && make smpi`, and
#                                      build/smpi/bin/site_hier)
# Environment:
#   SITE_OUT      output directory (BUILD/smpi/bench/site)
#   SITE_SEED     the jobs' seed (2); SITE_JOBS (20), SITE_PERJOB (6)
#   SITE_MAX      the calibration's largest message (8M: 640 ranks x 8 MiB
#                 fit in a few GB; 16 MiB at 1024 ranks took 18 GB)
#   SITE_SIZES    the jobs' compared sizes (1K,4K,16K,64K,128K,256K,512K,
#                 1M,2M,4M,8M: the calibrated ones and those between)
#   SITE_TUNER_OPTS  more options of topobcast-tuner --site
#   SITE_REUSE    1 (default): keep what an earlier run in SITE_OUT made
#                 with the same inputs (the probe passes, the per-job
#                 tables and their comparisons), resume the site's tuner
#                 from its partial file, and compare a job with the site
#                 table again only when the table changed; 0: start over
#   SITE_STEPS    which steps run: calibrate,jobs,perjob (all)
# Exit status: 0 when every job's data and hierarchy are right, every size
# is at least 0.98x MPI's broadcast and every per-job comparison within
# 1.10x; 1 otherwise or when a step fails; 2 on bad usage.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BUILD=$(abspath "${BUILD:-$ROOT/build}")
OUT=$(abspath "${SITE_OUT:-$BUILD/smpi/bench/site}")
SEED=${SITE_SEED:-2}
NJOBS=${SITE_JOBS:-20}
NPERJOB=${SITE_PERJOB:-6}
MAX=${SITE_MAX:-8M}
SIZES=${SITE_SIZES:-1K,4K,16K,64K,128K,256K,512K,1M,2M,4M,8M}
REUSE=${SITE_REUSE:-1}
STEPS=${SITE_STEPS:-calibrate,jobs,perjob}
PLAT=$ROOT/test/platforms/site64.xml
TRUTH=$ROOT/test/platforms/site64-truth.txt
ALL_HOSTS=$ROOT/test/platforms/site64-contiguous.txt
SBIN=$BUILD/smpi/bin
NBIN=$BUILD/bin
fail() { echo "bench-site: $*" >&2; exit 1; }
for b in "$SBIN/topobcast-probe" "$SBIN/topobcast-tuner" "$SBIN/site_hier" "$NBIN/topobcast-probe"; do
    [ -x "$b" ] || fail "$b missing: make && make smpi && make $SBIN/site_hier (or make bench-site)"
done
# shellcheck source=test/smpi/smpi-opts.sh
. "$ROOT/test/smpi/smpi-opts.sh"
mkdir -p "$OUT/cal" "$OUT/jobs" || fail "cannot create $OUT"
cd "$OUT" || exit 1 # smpirun may leave temporary files in the current directory
[ "$REUSE" = 1 ] || rm -rf "${OUT:?}/cal/"* "${OUT:?}/jobs/"*
step_on() { [[ ,$STEPS, == *,$1,* ]]; }

# sim LOG NP HOSTFILE PROGRAM ARGS...: one niced simulation on site64, its
# wall time, CPU time and peak memory appended to LOG as a last line
# "# sim: W s wall, C s CPU, M MB peak"; status the program's.
sim() {
    local log=$1 np=$2 hosts=$3 rc
    shift 3
    /usr/bin/time -f '# sim: %e s wall, %U s CPU, %M KB peak' -o "$log.time" nice -n 10 \
        "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" "${SMPI_COLL_OMPI[@]}" -platform "$PLAT" -hostfile "$hosts" \
        -np "$np" "$@" >"$log" 2>&1
    rc=$?
    awk '/^# sim:/ { printf "# sim: %s s wall, %s s CPU, %.0f MB peak\n", $3, $6, $9 / 1024 }' "$log.time" >>"$log"
    rm -f "$log.time"
    return $rc
}
# fields of a log's "# sim:" line: wall CPU MB
sim_cost() { awk '/^# sim:/ { w = $3; c = $6; m = $9 } END { print w + 0, c + 0, m + 0 }' "$1"; }
# a file's checksum, to tell whether an output was made from it
sum_of() { md5sum "$1" 2>/dev/null | cut -c1-12; }

TIME=(--reps 1 --warmup 1 --roots 0)
SEL="ompi (--cfg=smpi/coll-selector:ompi): default is SMPI's ompi broadcast"
{
    echo "# bench-site: platform test/platforms/site64.xml (64 nodes: 32 of 2 sockets x 4 cores, 32 of 2 x 6;"
    echo "#   4 islands of 16; a SimGrid host is a socket, MPI's node under SMPI)"
    echo "# selector: $SEL; SimGrid: $SMPI_SIMGRID"
    echo "# timing: ${TIME[*]}; compared sizes $SIZES"
} >"$OUT/header.txt"
cat "$OUT/header.txt"

# ---- 1. the site's calibration -------------------------------------------------------
CAL=$OUT/cal
grep -v '^#' "$ALL_HOSTS" >"$CAL/cores.txt"
NCORES=$(wc -l <"$CAL/cores.txt")
if step_on calibrate; then
    # the network pass: one rank on every host (a socket), the levels between hosts
    grep -v '^#' "$TRUTH" | awk '{ print $1 }' >"$CAL/net-hosts.txt"
    NHOSTS=$(wc -l <"$CAL/net-hosts.txt")
    NET_OPTS=(-M 2M -R 8 --fast auto --batch-time 0 --max-insert 0 --progress none --truth "$TRUTH" --validate)
    if [ "$REUSE" = 1 ] && [ -s "$CAL/network.yaml" ] && grep -q '^# sim:' "$CAL/network.log"; then
        echo "== network pass: kept ($CAL/network.yaml)"
    else
        echo "== network pass: $NHOSTS ranks, one per host: ${NET_OPTS[*]}"
        sim "$CAL/network.log" "$NHOSTS" "$CAL/net-hosts.txt" "$SBIN/topobcast-probe" "${NET_OPTS[@]}" \
            --save "$CAL/network.txt" -o "$CAL/network.yaml" || fail "network pass failed: $CAL/network.log"
    fi
    # one node pass per type: every core of one host of it (flat under SimGrid)
    types=$(sort "$CAL/cores.txt" | uniq -c | awk '{ print $1 }' | sort -un)
    PASSES=() NAMED=()
    for c in $types; do
        host=$(sort "$CAL/cores.txt" | uniq -c | awk -v c="$c" '$1 == c { print $2; exit }')
        list=$(sort "$CAL/cores.txt" | uniq -c | awk -v c="$c" '$1 == c { printf "%s%s", s, $2; s = "," }')
        name=socket$c
        yes "$host" | head -n "$c" >"$CAL/node-$name-hosts.txt"
        if [ "$REUSE" = 1 ] && [ -s "$CAL/node-$name.yaml" ] && grep -q '^# sim:' "$CAL/node-$name.log"; then
            echo "== node pass $name: kept"
        else
            echo "== node pass $name: $c ranks on $host"
            sim "$CAL/node-$name.log" "$c" "$CAL/node-$name-hosts.txt" "$SBIN/topobcast-probe" -M 2M -R 8 \
                --batch-time 0 --max-insert 0 --progress none --save "$CAL/node-$name.txt" -o "$CAL/node-$name.yaml" ||
                fail "node pass $name failed: $CAL/node-$name.log"
        fi
        PASSES+=(--node-pass "$name=$CAL/node-$name.yaml")
        NAMED+=(--node-type "$name=$list")
    done
    "$NBIN/topobcast-probe" --compose "$CAL/network.yaml" "${PASSES[@]}" "${NAMED[@]}" \
        -o "$CAL/site-topology.yaml" >"$CAL/compose.log" 2>&1 || fail "compose failed: $CAL/compose.log"
    head -1 "$CAL/compose.log"
    # the site's table: one allocation of every core (rank 0 on the first
    # host of the contiguous hostfile), the model on the platform's links
    # shellcheck disable=SC2206
    TUNER_OPTS=(--site --topology "$CAL/site-topology.yaml" --platform "$PLAT" --hostfile "$CAL/cores.txt"
        --max-size "$MAX" "${TIME[@]}" --send nonblocking --max-segments 64 --site-shapes 28 ${SITE_TUNER_OPTS:-})
    echo "${TUNER_OPTS[*]}" | sed "s|$OUT/||g" >"$CAL/tuner.opts.new"
    resume=()
    if [ "$REUSE" = 1 ] && [ -s "$CAL/site.yaml.partial" ] && cmp -s "$CAL/tuner.opts" "$CAL/tuner.opts.new"; then
        resume=(--resume)
    fi
    mv "$CAL/tuner.opts.new" "$CAL/tuner.opts"
    echo "== topobcast-tuner ${TUNER_OPTS[*]} ${resume[*]}" | sed "s|$OUT/||g"
    sim "$CAL/tuner.log" "$NCORES" "$CAL/cores.txt" "$SBIN/topobcast-tuner" "${TUNER_OPTS[@]}" "${resume[@]}" \
        -o "$CAL/site.yaml" || fail "site tuner failed: $CAL/tuner.log"
    # the wall time of a resumed run is not the calibration's: keep the first
    if [ ${#resume[@]} -eq 0 ] || [ ! -s "$CAL/tuner.first.log" ]; then
        grep -E '^(# sim:|site calibration cost:)' "$CAL/tuner.log" >"$CAL/tuner.first.log"
    fi
    grep -E '^(table:|site calibration cost)' "$CAL/tuner.log"
fi
SITE=$CAL/site.yaml
if step_on jobs; then
    [ -s "$SITE" ] || fail "no site table $SITE (SITE_STEPS=calibrate first)"
fi
SITE_SUM=$(sum_of "$SITE")

# ---- 2. the jobs -------------------------------------------------------------------------
J=$OUT/jobs
cp "$CAL/cores.txt" "$J/cores.txt"
python3 "$ROOT/bench/site/jobs.py" "$SEED" "$NJOBS" "$NPERJOB" "$TRUTH" "$J" >"$J/jobs.txt" ||
    fail "jobs.py failed"
# compare LOG CSV TABLE HOSTS NP: the library with TABLE against MPI's own
# broadcast on the whole job, data checked at every size
compare() {
    sim "$1" "$5" "$4" "$SBIN/topobcast-tuner" --compare "$3" --shapes job --sizes "$SIZES" "${TIME[@]}" \
        --csv "$2" --platform "$PLAT" --hostfile "$4"
}
if step_on jobs; then
    while read -r id nodes k place pool ranks perjob types; do
        hosts=$J/job$id.hosts
        if ! { [ "$REUSE" = 1 ] && [ -s "$J/job$id.hier.log" ] && grep -q "^# site: $SITE_SUM" "$J/job$id.hier.log"; }; then
            sim "$J/job$id.hier.log" "$ranks" "$hosts" "$SBIN/site_hier" "$TRUTH" "$SITE"
            echo "# site: $SITE_SUM" >>"$J/job$id.hier.log"
        fi
        if ! { [ "$REUSE" = 1 ] && [ -s "$J/job$id.site.csv" ] && grep -q "^# site: $SITE_SUM" "$J/job$id.site.log"; }; then
            compare "$J/job$id.site.log" "$J/job$id.site.csv" "$SITE" "$hosts" "$ranks"
            echo "# status $?" >>"$J/job$id.site.log"
            echo "# site: $SITE_SUM" >>"$J/job$id.site.log"
        fi
        echo "$id done: $(grep -h '^hierarchy:' "$J/job$id.hier.log") $(tail -1 "$J/job$id.site.log")" >&2
    done <"$J/jobs.txt"
fi

# ---- 3. tables tuned for one job alone ---------------------------------------------------
if step_on perjob; then
    while read -r id nodes k place pool ranks perjob types; do
        [ "$perjob" = 1 ] || continue
        hosts=$J/job$id.hosts
        TOPO=$CAL/site-topology.yaml
        TS=$(sum_of "$TOPO")
        if ! { [ "$REUSE" = 1 ] && [ -s "$J/job$id.own.yaml" ] && grep -q "^# topology: $TS" "$J/job$id.tune.log"; }; then
            resume=()
            [ "$REUSE" = 1 ] && [ -s "$J/job$id.own.yaml.partial" ] && resume=(--resume)
            sim "$J/job$id.tune.log" "$ranks" "$hosts" "$SBIN/topobcast-tuner" --topology "$TOPO" --shapes job \
                --max-timed 3 --sizes "$SIZES" "${TIME[@]}" --send nonblocking --max-segments 64 \
                --platform "$PLAT" --hostfile "$hosts" -o "$J/job$id.own.yaml" "${resume[@]}" ||
                fail "tuner of job $id failed: $J/job$id.tune.log"
            echo "# topology: $TS" >>"$J/job$id.tune.log"
        fi
        OS=$(sum_of "$J/job$id.own.yaml")
        if ! { [ "$REUSE" = 1 ] && [ -s "$J/job$id.own.csv" ] && grep -q "^# own: $OS" "$J/job$id.own.log"; }; then
            compare "$J/job$id.own.log" "$J/job$id.own.csv" "$J/job$id.own.yaml" "$hosts" "$ranks"
            echo "# status $?" >>"$J/job$id.own.log"
            echo "# own: $OS" >>"$J/job$id.own.log"
        fi
    done <"$J/jobs.txt"
fi

# ---- 4. the results ------------------------------------------------------------------------
python3 "$ROOT/bench/site/report.py" "$OUT" "$SIZES" | tee "$OUT/results.txt"
exit "${PIPESTATUS[0]}"
