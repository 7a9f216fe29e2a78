#!/usr/bin/env bash
# topobcast-tuner on this machine with 2 ranks: a short tuning run whose
# table loads (with the topology copied in), resume from the partial file,
# the model's pruning reported, and --compare with its CSV.  Timings on a
# shared 2-core box mean nothing; only the mechanics are checked.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh

TUNER=$BUILD/bin/topobcast-tuner
if [ ! -x "$TUNER" ]; then
    notok "tuner built ($TUNER missing)"
    exit 0
fi
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"' EXIT
host=$(hostname)
SIZES=1,3K,64K

# Inputs as the probe writes them, for this host: a one-level topology and
# PLogP measurements (fixed numbers, so the model's plan is the same every
# run and resume can be checked exactly).
{
    echo "topobcast: 2"
    echo "meta: {written-by: 60-tuner.sh}"
    topology_yaml "$host" "0,-1 0,-1" "node: [[0, 1]]"
} >"$tmp/topo.yaml"
opts="options reps=8 max-size=1048576 eps=0.05 max-insert=8 min-spacing=32 k-wait=1.3 gsat-max=65536 gsat-cap=1000 batch-time=0.0001 stat=min prtt-n=8 concurrency=serial fast=1 seed=1"
zeros="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
cat >"$tmp/meas.txt" <<EOF
topobcast-probe-measurements 1
mode plogp
nprocs 2
$opts
run pairs=1 rounds=1 elapsed=0.1 wtime-overhead=1e-08
rank 0 host=$host pu=-1 core=-1 package=-1 numa=-1 world=0 group=0 measured=1
rank 1 host=$host pu=-1 core=-1 package=-1 numa=-1 world=1 group=0 measured=1
pair 0 1 L=3e-07 sizes=3
s 0 1e-06 2e-07 2e-07 2e-07 10 $zeros
s 65536 1e-05 2e-06 2e-06 9e-06 10 $zeros
s 1048576 1.1e-04 5e-06 5e-06 1.1e-04 0 $zeros
end
EOF
# A valid file of 4 processes (rank lines 2 and 3 copied from rank 1).
sed -e "s/^nprocs 2/nprocs 4/" \
    -e "/^rank 1 /{p;s/ 1 / 2 /;s/world=1/world=2/;p;s/ 2 / 3 /;s/world=2/world=3/}" \
    "$tmp/meas.txt" >"$tmp/meas4.txt"

# has REGEX: the last run's output matches (grep -E)
has() { grep -qE -- "$1" <<<"$OUT"; }
lacks() { ! grep -qE -- "$1" <<<"$OUT"; }
ok_and() { [ "$RC" -eq 0 ] && "$@"; }   # ok_and has REGEX: status 0 and a match
fail_and() { [ "$RC" -ne 0 ] && "$@"; }

run() { # run NAME ARGS...: output in $OUT (also in $tmp/NAME.log), status in $RC
    local name=$1
    shift
    OUT=$(timeout 120 mpiexec -n 2 "$TUNER" "$@" 2>&1)
    RC=$?
    printf '%s\n' "$OUT" >"$tmp/$name.log"
}

# 1. tune
run tune --topology "$tmp/topo.yaml" --measurements "$tmp/meas.txt" --sizes $SIZES --reps 5 --warmup 1 \
    -o "$tmp/t.yaml"
check "tuner exits 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || printf '%s\n' "$OUT" | tail -20 | sed 's/^/# /'
check "tuner uses the probe measurements" has "costs: $tmp/meas.txt \\(plogp, 2 ranks, 1 pairs measured"
# one node, no levels: one class, and one peer -- nothing to send to at
# once, so 1 (SMPI runs measure more: 62-tuner-smpi.sh)
check "fan-out with one peer is 1" has "^# communicator job of 2 processes \\(size=2 nodes=1 ppn=2 consecutive=yes levels=none\\): no levels; fan-out of rank 0's sends: all 1.00\$"
check "tuner reports timed runs vs exhaustive" has "^timed runs .*: [0-9]+ with pruning; exhaustive: [0-9]+ candidates"
check "tuner reports model error per family" has "^model error by algorithm family"
check "tuner verified its table loads" has "it loads and selects every measured winner"
check "table has the topology copied in" grep -qE "fingerprint: \{nprocs: 2, hosts: \[\"?$host\"?\]\}" "$tmp/t.yaml"
check "table ends with the default rule" bash -c "tail -1 '$tmp/t.yaml' | grep -q '{algorithm: default}'"
nrec=$(grep -vc '^#' "$tmp/t.yaml.partial")
check "partial file holds every measurement" has "timing done in .*: $nrec new measurements"

# the library itself accepts the table (no fallback warning) and uses it
OUT2=$(timeout 60 mpiexec -n 2 env LD_PRELOAD="$LIB" TOPOBCAST_CONFIG="$tmp/t.yaml" TOPOBCAST_VERBOSE=1 \
    "$BUILD/bin/bcast_app" 2>&1)
check "library loads the tuned table" bash -c 'grep -q "topobcast active" <<<"$1" && ! grep -q "using MPI_Bcast" <<<"$1"' _ "$OUT2"

# 2. resume: everything is there already; then with the last 2 records lost
run resume --topology "$tmp/topo.yaml" --measurements "$tmp/meas.txt" --sizes $SIZES --reps 5 --warmup 1 \
    -o "$tmp/t.yaml" --resume
check "resume: nothing to measure again" ok_and has "0 new measurements \\($nrec from the partial file\\)"
head -n -2 "$tmp/t.yaml.partial" >"$tmp/cut" && printf '2 65536 0 nan 1e-05' >>"$tmp/cut" # + a torn line
mv "$tmp/cut" "$tmp/t.yaml.partial"
run resume2 --topology "$tmp/topo.yaml" --measurements "$tmp/meas.txt" --sizes $SIZES --reps 5 --warmup 1 \
    -o "$tmp/t.yaml" --resume
check "resume after interruption measures only what was lost" \
    ok_and has "2 new measurements \\($((nrec - 2)) from the partial file\\)"
run resume3 --topology "$tmp/topo.yaml" --measurements "$tmp/meas.txt" --sizes $SIZES --reps 7 --warmup 1 \
    -o "$tmp/t.yaml" --resume
check "resume refuses other settings" fail_and has "written by a different run"

# 3. measurements of another job are not used
run other --measurements "$tmp/meas4.txt" --sizes 1K --reps 3 --warmup 1 -o "$tmp/o.yaml"
check "measurements of 4 processes refused on 2" \
    ok_and has "measured with 4 processes, this job has 2; calibrating instead"

# 4. exhaustive mode says what pruning would have chosen
run exhaustive --measurements "$tmp/meas.txt" --sizes 64K --reps 3 --warmup 1 --exhaustive -o "$tmp/e.yaml" \
    --model-csv "$tmp/m.csv"
check "exhaustive run compares pruning" \
    ok_and has "pruning at 1.20x would have timed [0-9]+ and chosen the same winner in [01] of 1 cases \\([01] more within the tie of 3%\\); its choices are [0-9.]+x"
# --model-csv: one row per timed candidate (all distinct schedules here),
# predictions for all but default, and the kept flag of exactly what pruning
# would have timed
ndist=$(sed -n 's/.*exhaustive: [0-9]* candidates ([0-9.]*x more), \([0-9]*\) distinct.*/\1/p' <<<"$OUT")
nprune=$(sed -n 's/^pruning at [0-9.]*x would have timed \([0-9]*\) .*/\1/p' <<<"$OUT")
check "model CSV: a row per distinct schedule, kept = the pruned set" python3 - "$tmp/m.csv" "$ndist" "$nprune" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = len(rows) == int(sys.argv[2]) and sum(int(r["kept"]) for r in rows) == int(sys.argv[3])
ok = ok and all(float(r["measured_us"]) > 0 and r["bytes"] == "65536" and r["comm"] == "2" for r in rows)
ok = ok and all(math.isnan(float(r["predicted_us"])) == (r["spec"] == "default") for r in rows)
sys.exit(0 if ok else 1)
EOF

# 5. compare
run compare --compare "$tmp/t.yaml" --csv "$tmp/c.csv" --sizes $SIZES --reps 5 --warmup 1
check "compare exits 0" [ "$RC" -eq 0 ]
check "compare uses the table" has "configuration $tmp/t.yaml, 1 communicator: job \\(2\\)\$"
check "compare prints a geometric mean" has "geometric-mean speedup"
check "compare CSV header" [ "$(head -1 "$tmp/c.csv")" = "shape,nprocs,shape_keys,size,default_us,topobcast_us,speedup,algorithm,bound_us,efficiency,speedup_lo,speedup_hi" ]
check "compare CSV: one row of 12 fields per size, the job's shape, no bound without a machine, the rounds' spread around the speedup" python3 - "$tmp/c.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
sizes = [1, 3072, 65536]
ok = len(rows) == len(sizes) and all(len(r) == 12 and r[8] == "" and r[9] == "" for r in rows)
ok = ok and all(0 < float(r[10]) <= float(r[11]) for r in rows)
ok = ok and all(r[0] == "job" and r[1] == "2" and r[2].startswith("size=2 nodes=1 ppn=2 ") for r in rows)
rows = [r[3:] for r in rows]
ok = ok and [int(r[0]) for r in rows] == sizes and all(float(r[1]) > 0 and float(r[2]) > 0 for r in rows)
ok = ok and all(abs(float(r[3]) - float(r[1]) / float(r[2])) < 0.01 * float(r[3]) + 1e-3 for r in rows)
sys.exit(0 if ok else 1)
EOF
# the algorithm column is what the table selects
want=$(grep -m1 'bytes: 0-' "$tmp/t.yaml" | sed 's/.*algorithm: "\(.*\)"}/\1/')
check "compare reports the table's algorithm" bash -c "grep -q '^job,2,[^,]*,1,.*,\"$want\"' '$tmp/c.csv'"
# a table tuned for other process counts: every size default, timed once
# (both columns the same figure, speedup 1), and the output says why
printf '%s\n' 'topobcast: 2' 'selection:' '  - {comm: 64, bytes: 64K-inf, algorithm: "pipeline:segment=64K"}' \
    '  - {comm: 32, algorithm: binomial}' '  - {algorithm: default}' >"$tmp/t64.yaml"
run other --compare "$tmp/t64.yaml" --csv "$tmp/c64.csv" --sizes 1,64K --reps 3 --warmup 1
check "compare with a table for 64 and 32 processes: status 0, says no rule is for 2 and names its rules" \
    ok_and has "^# job: WARNING: no rule of $tmp/t64.yaml that chooses an algorithm is for a communicator of 2 processes: line 3 \\(comm 64\\), line 4 \\(comm 32\\); tune for"
check "compare: default rows timed once (topobcast_us = default_us, speedup 1.0000)" \
    awk -F, 'NR > 1 { n++; if ($5 != $6 || $7 != "1.0000" || $8 != "\"default\"") bad = 1 } END { exit !(n == 2 && !bad) }' "$tmp/c64.csv"
run badcfg --compare "$tmp/nonexistent.yaml" --sizes 1K --reps 3 --warmup 1
check "compare with a missing config is an error (status $RC) that says why and times nothing" \
    bash -c '[ "$1" -eq 1 ] && grep -q "the configuration could not be loaded (see the warning above): nothing to compare" <<<"$2" &&
             ! grep -q "geometric-mean speedup" <<<"$2"' _ "$RC" "$OUT"

# 6. the command line: each bad argument named for what it is, once per job,
# status 2, nothing run
bad_arg() { # bad_arg NAME EXPECTED-MESSAGE ARGS...: status 2, that one line once
    local name=$1 msg=$2
    shift 2
    run "arg-$name" "$@"
    check "bad argument ($name): status 2 (got $RC), said once: $msg" \
        bash -c '[ "$1" -eq 2 ] && [ "$(grep -cF -- "$2" <<<"$3")" -eq 1 ] && ! grep -q "^#" <<<"$3"' _ "$RC" "$msg" "$OUT"
}
bad_arg unknown-last "topobcast-tuner: unknown option '--bogus' (--help lists the options)" --sizes 1K --bogus
bad_arg unknown-mid "topobcast-tuner: unknown option '--bogus' (--help lists the options)" --bogus 1K --dry-run
bad_arg stray "topobcast-tuner: unexpected argument 'table.yaml' (--help lists the options)" --dry-run table.yaml
bad_arg empty-size "topobcast-tuner: --sizes: invalid value '1K,,2K'" --sizes 1K,,2K --dry-run
bad_arg csv-alone "topobcast-tuner: --csv goes with --compare" --sizes 1K --csv "$tmp/x.csv" --dry-run
bad_arg compare-out "topobcast-tuner: --compare times the table it names" --compare "$tmp/t.yaml" -o "$tmp/y.yaml"
bad_arg no-value "topobcast-tuner: --reps needs a value" --sizes 1K --reps
bad_arg value-is-option "topobcast-tuner: --topology needs a value ('--dry-run' is an option)" --topology --dry-run
bad_arg bad-int "topobcast-tuner: --reps: invalid value 'x' (expected a whole number of repetitions, at least 1)" \
    --reps x
bad_arg bad-factor "topobcast-tuner: --factor: invalid value '0.5' (expected a factor of at least 1)" --factor 0.5
bad_arg bad-roots "topobcast-tuner: --roots: invalid value '7' (expected 0, rotate or both)" --roots 7
bad_arg bad-family "topobcast-tuner: --algorithms: invalid value 'binomial,binomal'" --algorithms binomial,binomal
check "a valid family list is accepted" bash -c "timeout 120 mpiexec -n 2 '$TUNER' --algorithms binomial,magpie2 \
    --sizes 1K --dry-run >/dev/null 2>&1"

# named input files that cannot be read: status 1, the option named, before
# any calibration or timing (tuner/README.md, "Exit status")
run notopo --topology "$tmp/none.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/n.yaml"
check "missing --topology: status 1 (got $RC), named under the option, not the library's TOPOBCAST_CONFIG" \
    bash -c '[ "$1" -eq 1 ] && [ "$(grep -c "^topobcast-tuner: --topology $2/none.yaml: expected a readable file" <<<"$3")" -eq 1 ] &&
             ! grep -q TOPOBCAST_CONFIG <<<"$3" && ! grep -q "^# costs" <<<"$3"' _ "$RC" "$tmp" "$OUT"
run noconfig --config "$tmp/none.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/n.yaml"
check "missing --config: status 1, named as --config" \
    fail_and has "^topobcast-tuner: --config $tmp/none.yaml: expected a readable file"
run nomeas --measurements "$tmp/none.txt" --sizes 1K --reps 3 --warmup 1 -o "$tmp/n.yaml"
check "missing --measurements: status 1 (got $RC), said once, no calibration, nothing timed, no table" \
    bash -c '[ "$1" -eq 1 ] && [ "$(grep -c "^topobcast-tuner: --measurements $2/none.txt: No such file or directory" <<<"$3")" -eq 1 ] &&
             ! grep -qE "calibrat(ion|ing instead)|timing done" <<<"$3" && [ ! -e "$2/n.yaml" ]' _ "$RC" "$tmp" "$OUT"
run badmeas --measurements "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/n.yaml"
check "malformed --measurements: status 1, the file named" \
    bash -c '[ "$1" -eq 1 ] && grep -q "^topobcast-tuner: --measurements $2/topo.yaml" <<<"$3" && [ ! -e "$2/n.yaml" ]' \
    _ "$RC" "$tmp" "$OUT"
run cmpmeas --compare "$tmp/t.yaml" --measurements "$tmp/none.txt" --sizes 1K --reps 3 --warmup 1
check "--compare with a missing --measurements: status 1, nothing compared" \
    bash -c '[ "$1" -eq 1 ] && grep -q "^topobcast-tuner: --measurements $2/none.txt" <<<"$3" &&
             ! grep -q "geometric-mean speedup" <<<"$3"' _ "$RC" "$tmp" "$OUT"

# files the run writes, checked before anything is measured: status 2, one
# line, no DIR.partial beside a directory given as -o
mkdir -p "$tmp/adir"
run outdir --topology "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/adir"
check "-o a directory: status 2 (got $RC), said before anything is timed, no $tmp/adir.partial" \
    bash -c '[ "$1" -eq 2 ] && grep -q "cannot write the table (-o) $2/adir: it is a directory; nothing measured" <<<"$3" &&
             ! grep -q "timing done" <<<"$3" && [ ! -e "$2/adir.partial" ]' _ "$RC" "$tmp" "$OUT"
run badmcsv --topology "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/n.yaml" --model-csv "$tmp/none/m.csv"
check "--model-csv in a missing directory: status 2, nothing timed, no table" \
    bash -c '[ "$1" -eq 2 ] && grep -q "cannot write --model-csv" <<<"$3" && ! grep -q "timing done" <<<"$3" &&
             [ ! -e "$2/n.yaml" ]' _ "$RC" "$tmp" "$OUT"
run samepartial --topology "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/t.yaml" --partial "$tmp/t.yaml"
check "--partial naming the table: status 2, the table untouched" \
    bash -c '[ "$1" -eq 2 ] && grep -q "is the table (-o) too" <<<"$3" && tail -1 "$2/t.yaml" | grep -q "{algorithm: default}"' \
    _ "$RC" "$tmp" "$OUT"
# a fresh run keeps the earlier run's partial file aside
cp "$tmp/t.yaml.partial" "$tmp/before.partial"
run fresh --topology "$tmp/topo.yaml" --measurements "$tmp/meas.txt" --sizes $SIZES --reps 5 --warmup 1 -o "$tmp/t.yaml"
check "a run without --resume keeps the earlier partial file as OUT.partial.old, and says so" \
    bash -c '[ "$1" -eq 0 ] && cmp -s "$2/before.partial" "$2/t.yaml.partial.old" &&
             grep -q "t.yaml.partial of an earlier run kept as $2/t.yaml.partial.old" <<<"$3"' _ "$RC" "$tmp" "$OUT"
# the library turned off: nothing to tune or compare, and the reason
OUT=$(timeout 60 mpiexec -n 2 env TOPOBCAST_DISABLE=1 "$TUNER" --topology "$tmp/topo.yaml" --sizes 1K -o "$tmp/n.yaml" 2>&1)
RC=$?
check "TOPOBCAST_DISABLE=1: status 2, named as the reason" \
    bash -c '[ "$1" -eq 2 ] && [ "$(grep -c "TOPOBCAST_DISABLE is set, which turns the library off: there is nothing to tune" <<<"$2")" -eq 1 ]' \
    _ "$RC" "$OUT"
# a --csv whose writes fail on the way (a full disk)
if [ -w /dev/full ]; then
    run fullcsv --compare "$tmp/t.yaml" --sizes 1K --reps 3 --warmup 1 --csv /dev/full
    check "--compare --csv on a full disk: status 1, said" \
        bash -c '[ "$1" -eq 1 ] && grep -q "cannot write /dev/full: No space left on device" <<<"$2"' _ "$RC" "$OUT"
    # the table, the model's CSV and the partial file on a full disk: each
    # said; the table's loss is status 2, the others' 1 with the table whole
    run fulltable --topology "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o /dev/full --partial "$tmp/f.partial"
    check "-o on a full disk: status 2 (got $RC), said, no 'table:' line" \
        bash -c '[ "$1" -eq 2 ] && grep -q "cannot write /dev/full: " <<<"$2" &&
                 ! grep -q "^table:" <<<"$2"' _ "$RC" "$OUT"
    run fullmcsv --topology "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/f.yaml" --model-csv /dev/full
    check "--model-csv on a full disk: status 1 (got $RC), said, the table written and loading" \
        bash -c '[ "$1" -eq 1 ] && grep -q "cannot write /dev/full: " <<<"$2" &&
                 grep -q "^table: .*it loads" <<<"$2"' _ "$RC" "$OUT"
    run fullpartial --topology "$tmp/topo.yaml" --sizes 1K --reps 3 --warmup 1 -o "$tmp/g.yaml" --partial /dev/full
    check "--partial on a full disk: status 1 (got $RC), said, the table written and loading" \
        bash -c '[ "$1" -eq 1 ] && grep -q "cannot write /dev/full: " <<<"$2" &&
                 grep -q "^table: .*it loads" <<<"$2"' _ "$RC" "$OUT"
fi

# --version: the library's version and the MPI the tool was built for, status 0
OUT=$("$TUNER" --version 2>&1)
RC=$?
check "topobcast-tuner --version: status $RC, 'topobcast-tuner VERSION (built for ...)'" \
    bash -c '[ "$1" -eq 0 ] && grep -qE "^topobcast-tuner [0-9]+\.[0-9]+\.[0-9]+ \(built for (MPICH|Open MPI), MPI [0-9]\.[0-9]\)$" <<<"$2"' _ "$RC" "$OUT"

# --site on this one host: the node's shapes only (2 ranks: the node), the
# table with the job's topology, rules for one node or none, and the
# options that do not go with it
run site --site --topology "$tmp/topo.yaml" --measurements "$tmp/meas.txt" --sizes 1,64K --reps 3 --warmup 1 \
    -o "$tmp/site.yaml"
check "--site on one host: status 0 (got $RC), the plan before timing: one shape, the node (1x2)" \
    bash -c '[ "$1" -eq 0 ] && grep -q "^# site plan: 1 shapes timed (--site-shapes 24, --site-small 64) of 1 nodes (2 ranks on node 0" <<<"$2" &&
             grep -qE "^#   1x2 +2 ranks, K = 3:" <<<"$2" && grep -q "^site calibration cost: 1 shapes timed, 2 sizes" <<<"$2"' \
    _ "$RC" "$OUT"
check "--site on one host: the table loads, with the topology; its rules (if any) for one node, never comm" \
    bash -c 'grep -q "^table: $2/site.yaml .*it loads and selects every decision" <<<"$1" &&
             grep -qE "fingerprint: \{nprocs: 2, hosts: \[\"?$3\"?\]\}" "$2/site.yaml" &&
             r=$(sed -n "/^selection:/,\$p" "$2/site.yaml" | grep "^  - {" | head -n -1) &&
             ! grep -vE "^  - \{nodes: 1, ppn_max: 2(-inf)?, bytes: " <<<"$r" | grep -q . &&
             tail -1 "$2/site.yaml" | grep -q "^  - {algorithm: default}$"' _ "$OUT" "$tmp" "$host"
bad_arg site-shapes-alone "topobcast-tuner: --site-shapes, --site-small, --site-top and --site-margin go with --site" \
    --site-shapes 4 --dry-run
bad_arg top-capped "topobcast-tuner: --top is a budget of its own: not with --site (its budget is --site-top), --max-timed or --exhaustive" \
    --top 1 --max-timed 2 --dry-run
bad_arg site-with-shapes "topobcast-tuner: --site chooses its own communicators" --site --shapes job --dry-run
bad_arg site-margin "topobcast-tuner: --site-margin: invalid value '0.5'" --site --site-margin 0.5 --dry-run
