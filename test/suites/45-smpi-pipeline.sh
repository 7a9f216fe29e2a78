#!/usr/bin/env bash
# The simulated pipeline at CI size: test/smpi/pipeline.sh on the
# FRAM-like platform, P=64 round-robin (one rank per socket, both islands),
# sizes up to PIPE_MAX_SIZE, two communicator shapes (the whole job and a
# grid row of 8 ranks: PIPE_SHAPES, to keep the run short).  Asserts
# outcomes, never exact timings: every file is written and loads, every CSV
# row holds numbers, each shape has its rows, the probe finds the platform's
# nodes exactly, the tuned library is nowhere slower than 0.98x the
# selector it was tuned under on any shape (default is always a candidate),
# no measured time is below the platform's lower bound, and the HTML report
# renders.  Skips when smpicc is missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
export BUILD
T=suite-45-smpi-pipeline

if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "ok $T # skip smpicc missing"
    exit 0
fi
out=$BUILD/test/logs/smpi-pipeline
rm -rf "$out"
mkdir -p "$out"
if make -s smpi BUILD="$BUILD" >"$out/build.log" 2>&1 && [ -x "$BUILD/bin/topobcast-report" ]; then
    echo "ok $T build (make smpi; native topobcast-report present)"
else
    echo "not ok $T build: see $out/build.log"
    exit 1
fi

# ---- the run ----------------------------------------------------------------
export PIPE_MAX_SIZE=${PIPE_MAX_SIZE:-256K}
# Simulated times do not depend on the machine's load, wall times do: the
# limits only catch a hang, and are far above a quiet run (~70 s for the
# whole pipeline), so a loaded machine (CI may share its cores) still passes
# (a built-in's limit is CPU time, with 10x as much wall time as a last resort).
export PIPE_BUILTIN_TIMEOUT=${PIPE_BUILTIN_TIMEOUT:-300}
export PIPE_PROBE_OPTS=${PIPE_PROBE_OPTS:--M 256K -R 4 --fast auto --batch-time 0 --max-insert 0 --progress plain}
export PIPE_TUNE_SELECTOR=${PIPE_TUNE_SELECTOR:-ompi}
export PIPE_JOBS=${PIPE_JOBS:-2}
export PIPE_SHAPES=${PIPE_SHAPES:-job,rows}
start=$(date +%s)
timeout 1500 test/smpi/pipeline.sh test/platforms/fram.xml test/platforms/fram-rr.txt 64 "$out" >"$out/pipeline.out" 2>&1
rc=$?
wall=$(($(date +%s) - start))
if [ $rc -eq 0 ]; then
    echo "ok $T pipeline fram rr P=64 exit 0 ($wall s wall, load $(uptime | sed 's/.*load average: //'))"
else
    echo "not ok $T pipeline fram rr P=64 exit $rc ($wall s wall): see $out/pipeline.out"
    tail -5 "$out/pipeline.out" | sed 's/^/# /'
fi
grep -m1 '^# SimGrid: ' "$out/stages.txt" 2>/dev/null # which one simulated (TB_SIMGRID)

nonempty() { [ -s "$out/$1" ]; }
for f in measurements.txt topology.yaml table.yaml compare.csv summary.txt validate.txt report.html; do
    if nonempty "$f"; then echo "ok $T wrote $f"; else echo "not ok $T wrote $f"; fi
done

# ---- files load -------------------------------------------------------------
for f in topology.yaml table.yaml; do
    if nonempty "$f" && "$BUILD/bin/topobcast-probe" --check "$out/$f" >"$out/check-$f.log" 2>&1; then
        echo "ok $T $f loads (topobcast-probe --check)"
    else
        echo "not ok $T $f loads (topobcast-probe --check): see $out/check-$f.log"
    fi
done
if nonempty measurements.txt && head -1 "$out/measurements.txt" | grep -q '^topobcast-probe-measurements 1$' &&
    [ "$(grep -c '^rank ' "$out/measurements.txt")" -eq 64 ] && tail -1 "$out/measurements.txt" | grep -q '^end$'; then
    echo "ok $T measurements.txt: header, 64 rank lines, end"
else
    echo "not ok $T measurements.txt: header, 64 rank lines, end"
fi

# ---- compare.csv ---------------------------------------------------------------
# Per shape (job 64 ranks, rows 8), one row per power of two 1 B..PIPE_MAX_SIZE,
# numbers > 0 in every time column, the table's algorithm; a built-in's name
# and figures and MPICH's rules for the job only (the built-ins run on
# MPI_COMM_WORLD), "-" for the row.
msg=""
maxb=$PIPE_MAX_SIZE
case $maxb in *K) maxb=$((${maxb%K} * 1024)) ;; *M) maxb=$((${maxb%M} * 1048576)) ;; esac
nsizes=0
for ((s = 1; s <= maxb; s *= 2)); do nsizes=$((nsizes + 1)); done
if nonempty compare.csv && msg=$(awk -F, -v n="$nsizes" '
    function num(x) { return x ~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ && x + 0 > 0 }
    NR == 1 { if ($0 != "shape,nprocs,size,mpich_us,ompi_us,best_builtin_us,best_builtin,topobcast_us,algorithm,mpich_rules_us,bound_us,efficiency") { print "header: " $0; bad = 1 }; next }
    {
        sh = $1; rows[sh]++
        line = $0; gsub(/"[^"]*"/, "A", line)
        if (split(line, f, ",") != 12) { print sh " row " rows[sh] ": " split(line, f, ",") " fields, the algorithm quoted as one"; bad = 1 }
        if (sh == "job" && $2 != 64 || sh == "rows" && $2 != 8 || sh != "job" && sh != "rows") { print "shape " sh " of " $2 " ranks"; bad = 1 }
        if ($3 != 2 ^ (rows[sh] - 1)) { print sh " row " rows[sh] ": size " $3; bad = 1 }
        # the algorithm (column 9) is quoted and holds commas: mpich_rules_us,
        # bound_us and efficiency are the last three
        for (i = 4; i <= 8; i++) if (i != 7 && (sh == "job" || i != 6) && !num($i)) { print sh " row " rows[sh] ": column " i " = " $i; bad = 1 }
        if (sh == "job" && (!num($(NF - 2)) || $7 == "")) { print "job row " rows[sh] ": mpich_rules_us " $(NF - 2) ", best built-in " $7; bad = 1 }
        for (i = NF - 1; i <= NF; i++) if (!num($i)) { print sh " row " rows[sh] ": column " i " from the end = " $i; bad = 1 }
        if ($NF > 1) { print sh " row " rows[sh] ": efficiency " $NF " > 1"; bad = 1 }
        if (sh != "job" && ($6 != "-" || $7 != "-" || $(NF - 2) != "-")) { print sh " row " rows[sh] ": built-in figures on a sub-communicator"; bad = 1 }
        if ($9 == "") { print sh " row " rows[sh] ": no algorithm"; bad = 1 }
    }
    END { for (sh in rows) if (rows[sh] != n) { print sh ": " rows[sh] " rows, expected " n; bad = 1 }
          if (length(rows) != 2) { print length(rows) " shapes, expected job and rows"; bad = 1 }
          exit bad }' "$out/compare.csv"); then
    echo "ok $T compare.csv: shapes job (64) and rows (8), $nsizes rows of numbers each"
else
    echo "not ok $T compare.csv well-formed: $msg"
fi
# topobcast within 0.98x of the selector its table was tuned under (its
# default candidate), on every shape at every size the tuner measured
col=4
[ "$PIPE_TUNE_SELECTOR" = ompi ] && col=5
if nonempty compare.csv && msg=$(awk -F, -v c=$col -v sel="$PIPE_TUNE_SELECTOR" 'NR > 1 && $c / $8 < 0.98 {
        printf " %s %s B: %s %s us, topobcast %s us (%s);", $1, $3, sel, $c, $8, $9; bad = 1 }
    END { exit bad }' "$out/compare.csv"); then
    echo "ok $T topobcast >= 0.98x the $PIPE_TUNE_SELECTOR selector it was tuned under, on every shape at every size"
else
    echo "not ok $T topobcast >= 0.98x the $PIPE_TUNE_SELECTOR selector it was tuned under, on every shape at every size:$msg"
fi
# the best built-in is a real minimum: no slower than either selector by
# more than the noise of separate runs (mpich and ompi are built-ins too)
if nonempty compare.csv && msg=$(awk -F, '$1 == "job" && ($6 > 1.02 * $4 || $6 > 1.02 * $5) { printf " %s B: best %s us, mpich %s, ompi %s;", $3, $6, $4, $5; bad = 1 }
    END { exit bad }' "$out/compare.csv"); then
    echo "ok $T best built-in no slower than the mpich and ompi selectors"
else
    echo "not ok $T best built-in no slower than the mpich and ompi selectors:$msg"
fi
# the table keys on the shapes: a block per kind, and the row's shape
# selects the row's winners (the tuner checked it loads and selects them)
if nonempty table.yaml && grep -qE '^  - \{comm: [0-9]+-(inf|[0-9]+), ppn: 1, bytes:' "$out/table.yaml" &&
    grep -q "^# tuner: rows  *8 processes: *[0-9][0-9]* timed" "$out/summary.txt" &&
    grep -q "^# tuner: job  *64 processes: *[0-9][0-9]* timed" "$out/summary.txt"; then
    echo "ok $T table.yaml keys on the shape (ppn: 1 block); summary gives the timed runs per shape"
else
    echo "not ok $T table.yaml keys on the shape (ppn: 1 block); summary gives the timed runs per shape"
fi

# the platform's lower bound (topology/README.md): no measured time of any
# column or built-in below it, and the summary's efficiency table
if nonempty summary.txt && grep -q '^# measured times below the bound: 0$' "$out/summary.txt" &&
    ! grep -q 'BELOW THE BOUND' "$out/summary.txt" &&
    [ "$(grep -cE '^#   +[a-z-]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[01]\.[0-9]+ ' "$out/summary.txt")" -eq $((2 * nsizes)) ]; then
    echo "ok $T no time below the platform's bound; efficiency per shape and size in the summary"
else
    echo "not ok $T no time below the platform's bound; efficiency per shape and size in the summary"
    grep -E 'BELOW|below the bound|efficiency' "$out/summary.txt" 2>/dev/null | head -5 | sed 's/^/# /'
fi

# ---- summary and validation ---------------------------------------------------------
if nonempty summary.txt && [ "$(grep -cE '^job +64 (mpich|ompi|best_builtin|mpich_rules) +[0-9.]+ +[0-9.]+ +[0-9.-]+ +[0-9.]+ \([0-9]+\)' "$out/summary.txt")" -eq 4 ] &&
    [ "$(grep -cE '^rows +8 (mpich|ompi) +[0-9.]+ +[0-9.]+ +[0-9.-]+ +[0-9.]+ \([0-9]+\)' "$out/summary.txt")" -eq 2 ] &&
    grep -q '^# built-in algorithms timed: [1-9]' "$out/summary.txt" && grep -q '^#   probe ' "$out/summary.txt"; then
    echo "ok $T summary: geometric means for 4 baselines on the job, 2 on the row, built-ins timed, stage times"
else
    echo "not ok $T summary: geometric means for 4 baselines on the job, 2 on the row, built-ins timed, stage times"
fi
# the probe must find FRAM's 32 nodes exactly from measurements alone
# (truth lines: name groups best-level clusters accuracy ARI)
if nonempty validate.txt && awk '$1 == "node" || $1 == "socket" { n++; if ($(NF - 1) != "1.000") bad = 1 }
    END { exit !(n > 0 && !bad) }' "$out/validate.txt"; then
    echo "ok $T probe --validate: node accuracy 1.000 ($(awk '$1 == "node" || $1 == "socket" { printf "%s %s ", $1, $(NF - 1) }' "$out/validate.txt"))"
else
    echo "not ok $T probe --validate: node/socket accuracy 1.000"
    sed 's/^/# /' "$out/validate.txt" 2>/dev/null
fi

# ---- report --------------------------------------------------------------------------
if nonempty report.html && grep -q '<svg' "$out/report.html" && grep -q '</html>' "$out/report.html" &&
    grep -q "^report: .*/report.html$" "$out/pipeline.out" 2>/dev/null &&
    grep -q '<figure id="fig-speedup-1">' "$out/report.html" && grep -q 'Shape rows (8 processes' "$out/report.html"; then
    echo "ok $T report.html renders ($(wc -c <"$out/report.html") bytes, SVG figures, a speedup panel per shape)"
else
    echo "not ok $T report.html renders, a speedup panel per shape"
fi

# ---- a selector that cannot run on the layout ------------------------------------------
# ARM1-like, P=12 round-robin: 3 ranks per NUMA host, where SMPI 3.32's mpich
# selector fails: it deadlocks (smpirun still exits 0) or, as soon as a
# program broadcasts on a duplicate of MPI_COMM_WORLD (the library's
# MPI_Init did, until it used MPI_COMM_WORLD itself), aborts with
# MPI_ERR_TRUNCATE -- a plain MPI program with
# MPI_Comm_dup and MPI_Bcast of 3 MPI_INT64_T aborts the same way, without
# the library.  The pipeline must go on under
# ompi, name the mpich failure, and compare against MPICH's generic rules
# timed with the built-ins instead.
out12=$BUILD/test/logs/smpi-pipeline-arm1
rm -rf "$out12"
timeout 600 env PIPE_MAX_SIZE=128K PIPE_PROBE_OPTS="-M 128K -R 4 --fast auto --batch-time 0 --max-insert 0" PIPE_SHAPES=job \
    test/smpi/pipeline.sh test/platforms/arm1.xml test/platforms/arm1-rr.txt 12 "$out12" >"$out12.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qE '^# compare left out, the selector failed on this layout: mpich\((rc=[1-9]|.*deadlock)' "$out12/summary.txt" &&
    grep -qE '^job +12 mpich +- +- +- +-$' "$out12/summary.txt" &&
    grep -qE '^job +12 (ompi|mpich_rules) +[0-9.]+ +[0-9.]+ +- +[0-9.]+ \([0-9]+\)' "$out12/summary.txt" &&
    [ "$(grep -cE '^job +12 (ompi|mpich_rules) +[0-9.]+ ' "$out12/summary.txt")" -eq 2 ] &&
    awk -F, 'NR > 1 { n++; if ($1 != "job" || $4 != "-" || !($5 + 0 > 0) || !($(NF - 2) + 0 > 0)) bad = 1 } END { exit !(n == 18 && !bad) }' "$out12/compare.csv"; then
    echo "ok $T arm1 rr P=12: mpich selector fails, left out and named; ompi and MPICH's rules compared at 18 sizes"
else
    echo "not ok $T arm1 rr P=12: pipeline exit $rc, mpich left out and named, ompi and MPICH's rules compared: see $out12.out"
    sed 's/^/# /' "$out12/summary.txt" 2>/dev/null | head -12
fi
# MPICH's rules pick binomial below 12 KiB and, P=12 not being a power of
# two, scatter + ring allgather from there on: each row's figure is that
# built-in's median at that size
if awk -F, 'FILENAME ~ /binomial_tree/ && FNR > 1 { b[$2] = $6; next }
        FILENAME ~ /scatter_LR/ && FNR > 1 { r[$2] = $6; next }
        FILENAME ~ /compare.csv/ && FNR > 1 { n++; want = ($3 < 12288 ? b[$3] : r[$3]); if (want == "" || $(NF - 2) != want) bad = 1 }
        END { exit !(n == 18 && !bad) }' "$out12/builtin-binomial_tree.csv" "$out12/builtin-scatter_LR_allgather.csv" \
        "$out12/compare.csv" 2>/dev/null; then
    echo "ok $T arm1 rr P=12: mpich_rules_us is binomial_tree below 12 KiB, scatter_LR_allgather above"
else
    echo "not ok $T arm1 rr P=12: mpich_rules_us is binomial_tree below 12 KiB, scatter_LR_allgather above"
fi

# ---- built-ins at fewer sizes, beside the probe and the tuner ------------------------
# The built-ins need no topology: with PIPE_JOBS=2 one worker times them
# while the probe runs, so the FRAM run's first built-in ends before its
# tuner.  PIPE_BUILTIN_SIZES (the default above 1024 ranks): the same ARM1
# run, its probe and table kept, the built-ins at 3 of the 18 sizes; the best
# built-in has figures at those 3 and "-" at the others, and the summary
# names them.
if awk '/^builtin-/ && !t { b = 1 } /^tuner / { t = 1 } END { exit !(b && t) }' "$out/stages.txt" 2>/dev/null; then
    echo "ok $T fram P=64: a built-in finished before the tuner (the built-ins run beside the probe and the tuner)"
else
    echo "not ok $T fram P=64: a built-in finished before the tuner (the built-ins run beside the probe and the tuner)"
fi
timeout 600 env PIPE_MAX_SIZE=128K PIPE_SHAPES=job PIPE_REUSE=1 PIPE_BUILTIN_SIZES=1,4K,64K \
    test/smpi/pipeline.sh test/platforms/arm1.xml test/platforms/arm1-rr.txt 12 "$out12" >"$out12-sizes.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^# the built-ins timed at 3 of the 18 sizes: 1,4096,65536 B' "$out12/summary.txt" &&
    grep -qE '^job +12 best_builtin +[0-9.]+ ' "$out12/summary.txt" &&
    awk -F, 'NR > 1 { n++; want = ($3 == 1 || $3 == 4096 || $3 == 65536)
        if (want ? !($6 + 0 > 0 && $7 != "-") : ($6 != "-" || $7 != "-")) bad = 1; m += want }
        END { exit !(n == 18 && m == 3 && !bad) }' "$out12/compare.csv"; then
    echo "ok $T arm1 rr P=12, PIPE_BUILTIN_SIZES=1,4K,64K: the best built-in at those 3 sizes, \"-\" at the other 15"
else
    echo "not ok $T arm1 rr P=12, PIPE_BUILTIN_SIZES=1,4K,64K: exit $rc, the best built-in at those 3 sizes only: see $out12-sizes.out"
fi
# a stage that fails ends the run at once, with the simulations it started
# beside it: none is left running
outf=$BUILD/test/logs/smpi-pipeline-fail
rm -rf "$outf"
timeout 300 env PIPE_PROBE_OPTS=--no-such-option PIPE_JOBS=2 \
    test/smpi/pipeline.sh test/platforms/fram.xml test/platforms/fram-rr.txt 64 "$outf" >"$outf.out" 2>&1
rc=$?
sleep 2
left=$(pgrep -f -- "$outf/" | wc -l)
if [ $rc -eq 1 ] && grep -q '^pipeline: probe failed' "$outf.out" && [ "$left" -eq 0 ] && [ ! -e "$outf/builtin-claims" ]; then
    echo "ok $T a failed probe ends the pipeline (exit 1) and the built-ins started beside it"
else
    echo "not ok $T a failed probe ends the pipeline (exit 1, was $rc) and the built-ins beside it ($left left running)"
    pkill -f -- "$outf/" 2>/dev/null
fi
