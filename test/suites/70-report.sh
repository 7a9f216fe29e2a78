#!/usr/bin/env bash
# topobcast-report end to end: a FRAM-like page from the fixtures (measurements
# expanded from a SimGrid run, topology made by topobcast-probe --analyze, the
# tuner's table and --compare CSV) and a page from a real 2-rank probe run on
# this machine; both rendered in headless Chromium, which must log no console
# message and whose DOM must hold every figure; screenshots of the FRAM page
# and of a synthetic sampled P=4096 page (at most 5 MB) are kept in
# $BUILD/test/report/ for a human to look at.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh

REPORT=$BUILD/bin/topobcast-report
PROBE=$BUILD/bin/topobcast-probe
FIX=test/fixtures/report
D=$BUILD/test/report
rm -rf "$D"
mkdir -p "$D"

if [ ! -x "$REPORT" ] || [ ! -x "$PROBE" ]; then
    notok "report and probe built ($REPORT, $PROBE)"
    exit 0
fi

check "--help lists the inputs" bash -c "'$REPORT' --help | grep -q -- '--compare FILE'"
"$REPORT" --measurements x 2>/dev/null
check "missing --topology is a usage error (status 2)" [ $? -eq 2 ]

# ---- FRAM-like inputs ---------------------------------------------------------
# The per-class fixture back into the probe's measurement file: rank r on
# host r % 4; a pair's class is the deepest level both hosts share.
hosts=(fram-n00-s0 fram-n00-s1 fram-n01-s0 fram-n16-s0)
awk -v hosts="${hosts[*]}" '
    BEGIN { n = split(hosts, H, " ") }
    /^#/ { next }
    /^options / || /^run / { head[++nh] = $0; next }
    /^class / { c = $2; L[c] = substr($3, 3); ns[c] = 0; next }
    /^s / { s[c, ++ns[c]] = $0; next }
    function node(h) { split(h, p, "-"); return p[2] }
    function island(h) { return int(substr(node(h), 2) / 16) }
    function cls(a, b) {
        if (a == b) return "same-socket"
        if (node(a) == node(b)) return "same-node"
        if (island(a) == island(b)) return "same-island"
        return "other-island"
    }
    END {
        P = 8
        print "topobcast-probe-measurements 1"; print "mode plogp"; print "nprocs " P
        for (k = 1; k <= nh; k++) print head[k]
        for (r = 0; r < P; r++)
            printf "rank %d host=%s pu=-1 core=-1 package=-1 numa=-1 world=%d group=%d measured=1\n", r, H[r % n + 1], r, r % n
        for (i = 0; i < P; i++) for (j = i + 1; j < P; j++) {
            c = cls(H[i % n + 1], H[j % n + 1])
            printf "pair %d %d L=%s sizes=%d\n", i, j, L[c], ns[c]
            for (k = 1; k <= ns[c]; k++) print s[c, k] " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
        }
        print "end"
    }' "$FIX/fram8-classes.txt" >"$D/fram8.txt"
printf '%s\n' "${hosts[@]}" | awk '{ split($1, p, "-"); n = substr(p[2], 2) + 0;
    print $1, "island=" int(n / 16), "node=" p[2], "socket=" $1 }' >"$D/truth8.txt"
OUT=$("$PROBE" --analyze "$D/fram8.txt" --truth "$D/truth8.txt" -o "$D/fram8.yaml" 2>&1)
check "fixture measurements analysed by the probe" grep -q "levels: island(2) node(3) socket(4)" \
    <("$PROBE" --check "$D/fram8.yaml" 2>&1)
[ -s "$D/fram8.yaml" ] || printf '%s\n' "$OUT" | sed 's/^/# /'

OUT=$("$REPORT" --measurements "$D/fram8.txt" --topology "$D/fram8.yaml" --truth "$D/truth8.txt" \
      --table "$FIX/fram8-table.yaml" --compare "$FIX/fram8-compare.csv" -o "$D/fram8.html" 2>&1)
RC=$?
printf '%s\n' "$OUT" | sed 's/^/# /'
check "FRAM report written" bash -c "[ $RC -eq 0 ] && [ -s '$D/fram8.html' ]"
has() { grep -Eq -- "$1" <<<"$OUT"; }
check "summary: hierarchy line" has "^hierarchy \(3 levels, coarsest first\): island\(2\) > node\(3\) > socket\(4\)"
check "summary: indented tree with ranks and hosts" has "^        socket [0-9]: 2 ranks \[2, 6\] on fram-n01-s0$"
for t in island node socket; do
    check "summary: $t truth matched exactly" has "^  $t +[0-9]+  $t +1\.000 +1\.000$"
done
check "summary: geometric mean and lowest lead the speedups" \
    bash -c 'sed -n "/^speedup against default/{n;p;}" <<<"$1" | grep -qE "geometric mean 1\.7[0-9]+x over 10 sizes .*; lowest [0-9.]+x at "' _ "$OUT"
check "summary: then every size, in size order (256K among them)" has "^ +256K +2\.497x"
check "summary: report path" has "^report: $D/fram8.html$"
# Every size is listed, those where the table keeps MPI's own broadcast
# too (the comparison times them once: 1.000x), after the geometric mean.
printf '%s\n' 'size,default_us,topobcast_us,speedup,algorithm' '1,3.0,3.0,1.0000,"default"' \
    '1024,4.0,3.6,1.1111,"binomial:segment=0"' '65536,10.0,10.0,1.0000,"default"' >"$D/mixed.csv"
printf '%s\n' 'size,default_us,topobcast_us,speedup,algorithm,bound_us,efficiency,speedup_lo,speedup_hi' \
    '1,3.0,2.0,1.5000,"binomial",,,1.2000,1.6000' >"$D/spread.csv"
for f in mixed spread; do
    OUT=$("$REPORT" --measurements "$D/fram8.txt" --topology "$D/fram8.yaml" --compare "$D/$f.csv" \
        -o "$D/$f.html" 2>&1)
    sp=$(sed -n '/^speedup against default/,/^report:/p' <<<"$OUT")
    if [ $f = mixed ]; then
        check "summary: sizes kept default listed as such, in size order, after the geometric mean" \
            bash -c 'grep -qE "geometric mean 1\.036x over 3 sizes.*lowest 1\.000x at 1" <<<"$1" &&
                     [ "$(grep -E "^ +[0-9]+[KM]? +[0-9.]+x" <<<"$1" | awk "{print \$1}" | tr "\n" " ")" = "1 1K 64K " ] &&
                     grep -qE "^ +1K +1\.111x .*binomial" <<<"$1"' _ "$sp"
    else
        check "summary: the rounds' spread beside the speedup" grep -qE "^ +1 +1\.500x \(1\.20-1\.60\)" <<<"$sp"
    fi
done

H=$D/fram8.html
FIGS_ALL="fig-heatmap-small-rank fig-heatmap-small-hier fig-heatmap-large-rank fig-heatmap-large-hier
          fig-dendrogram fig-topology fig-accuracy fig-selection fig-speedup fig-plogp"
check "page is self-contained (no script, link, external URL)" \
    bash -c "! grep -Eiq '<script|<link|<img|<iframe|@import|url\(|https?://' <(sed 's|http://www.w3.org/2000/svg||g' '$H')"
check "page says outliers are clipped at the 95th percentile" grep -q "clipped.*95th percentile" "$H"
check "heatmap 8x8: 64 cells in each of the 4 heatmaps" \
    bash -c "[ \$(grep -c 'class=\"cell' <(sed -n '/id=\"svg-heatmap/,/<\/svg>/p' '$H')) -eq 256 ]"
check "dendrogram: 7 links and 3 level cuts" \
    bash -c "[ \$(grep -c 'class=\"link\"' '$H') -eq 7 ] && [ \$(grep -c 'class=\"cut\"' '$H') -eq 3 ]"

# ---- the same allocation, tuned and compared per communicator shape ----------------
# (fram8-shapes-*: the tuner's default shapes; job, one-per-node, half-nodes)
OUT=$("$REPORT" --measurements "$D/fram8.txt" --topology "$D/fram8.yaml" --truth "$D/truth8.txt" \
      --table "$FIX/fram8-shapes-table.yaml" --compare "$FIX/fram8-shapes-compare.csv" -o "$D/shapes.html" 2>&1)
RC=$?
printf '%s\n' "$OUT" | sed 's/^/# /'
check "shapes report written" bash -c "[ $RC -eq 0 ] && [ -s '$D/shapes.html' ]"
check "shapes report: inputs of one run, no warning" bash -c '! grep -q "not the same run" <<<"$1"' _ "$OUT"
cp "$D/fram8.yaml" "$D/fram8-copy.yaml"
OUT=$("$REPORT" --measurements "$D/fram8.txt" --topology "$D/fram8-copy.yaml" -o "$D/fram8-copy.yaml" 2>&1)
check "-o naming an input: status 2, the input untouched" \
    bash -c '[ "$1" -eq 2 ] && grep -q "is one of the inputs" <<<"$2" && cmp -s "$3/fram8.yaml" "$3/fram8-copy.yaml"' \
    _ $? "$OUT" "$D"
# a comparison of another job (its job row of 16 processes) beside 8-rank measurements: said, page still made
sed 's/^job,8,/job,16,/' "$FIX/fram8-shapes-compare.csv" >"$D/other-job.csv"
OUT=$("$REPORT" --measurements "$D/fram8.txt" --topology "$D/fram8.yaml" --compare "$D/other-job.csv" \
      -o "$D/other-job.html" 2>&1)
check "a comparison of a 16-process job beside 8-rank measurements: one warning, status 0" \
    bash -c '[ "$1" -eq 0 ] && [ "$(grep -c "compared a job of 16 processes, .* measured 8: not the same run" <<<"$2")" -eq 1 ]' \
    _ $? "$OUT"
HS=$D/shapes.html
check "shapes: a speedup panel per shape (3)" \
    bash -c "grep -q '<figure id=\"fig-speedup\">' '$HS' && grep -q '<figure id=\"fig-speedup-1\">' '$HS' &&
             grep -q '<figure id=\"fig-speedup-2\">' '$HS' && ! grep -q 'fig-speedup-3' '$HS'"
check "shapes: each panel captioned with its shape" \
    bash -c "grep -q 'Shape job (8 processes: size=8 nodes=4 ppn=2' '$HS' && grep -q 'Shape one-per-node (4 processes' '$HS' &&
             grep -q 'Shape half-nodes (4 processes' '$HS'"
check "shapes: a geomean row per shape" bash -c "[ \$(grep -c '<tr class=\"shape\">' '$HS') -eq 3 ]"
check "shapes: the selection map has a row per shape (3 x 25 sizes, 1 B-16 MiB, labelled by shape)" \
    bash -c "sel=\$(sed -n '/id=\"svg-selection\"/,/<\/svg>/p' '$HS'); [ \$(grep -o 'class=\"cell\"' <<<\"\$sel\" | wc -l) -eq 75 ] &&
             [ \$(grep -o 'half-nodes (4), [0-9]' <<<\"\$sel\" | wc -l) -eq 25 ]"
check "shapes summary: a line per shape, its geometric mean and lowest" \
    bash -c '[ "$(grep -cE "^  [a-z-]+, [0-9]+ processes: geometric mean [0-9.]+x over [0-9]+ sizes .*; lowest [0-9.]+x at " <<<"$1")" -eq 3 ]' _ "$OUT"

# ---- a real 2-rank run on this machine ----------------------------------------
OUT=$(timeout 120 mpiexec -n 2 "$PROBE" -M 16K -R 2 --max-insert 2 --batch-time 2 -q \
      --save "$D/local.txt" -o "$D/local.yaml" 2>&1)
check "2-rank probe run here" [ $? -eq 0 ]
OUT=$("$REPORT" --measurements "$D/local.txt" --topology "$D/local.yaml" -o "$D/local.html" 2>&1)
RC=$?
printf '%s\n' "$OUT" | sed 's/^/# /'
check "2-rank report written" bash -c "[ $RC -eq 0 ] && [ -s '$D/local.html' ]"
check "2-rank report says what is missing" \
    bash -c "grep -q 'No selection table given' '$D/local.html' && grep -q 'No comparison given' '$D/local.html'"
check "2-rank summary: one level, one group" has "^hierarchy \(1 level, coarsest first\): [a-z0-9-]+\(1\)$"
check "mismatched inputs are refused" bash -c "! '$REPORT' --measurements '$D/local.txt' --topology '$D/fram8.yaml' \
    -o '$D/x.html' 2>/dev/null"

# ---- the main job (README's quick start: setup.sh runs make demo, which runs
# report/demo-report.sh), started from another directory as make does not
ROOT=$(pwd)
DEMO=$(cd "$D" && pwd)/demo
OUT=$(cd / && timeout 900 "$ROOT/report/demo-report.sh" 2 "$DEMO" 2>&1)
RC=$?
printf '%s\n' "$OUT" | tail -n 12 | sed 's/^/# /'
check "main job (report/demo-report.sh 2) finishes, started outside the tree (status $RC)" [ "$RC" -eq 0 ]
check "main job wrote topology, table, comparison and page" \
    bash -c "for f in topology.yaml table.yaml compare.csv report.html; do [ -s '$DEMO/'\$f ] || exit 1; done"
check "main job's summary names the page it wrote" has "^report: .*demo/report.html$"

# ---- a sampled P=4096 run (synthetic): figures aggregated, page <= 5 MB -----------
# bench/scale/report_gen.py: 64 hosts of 64 ranks (8 islands, 2 sockets x 2
# NUMA domains a host), ~6300 pairs as sample mode measures them
S=$D/p4096
python3 bench/scale/report_gen.py 4096 "$S"
check "P=4096 inputs generated" [ -s "$S/meas.txt" ]
"$PROBE" --analyze "$S/meas.txt" --truth "$S/truth.txt" -o "$S/topo.yaml" >/dev/null 2>&1
check "P=4096 measurements analysed: island(8) node(64) socket(128) numa(256)" \
    grep -q "levels: island(8) node(64) socket(128) numa(256)" <("$PROBE" --check "$S/topo.yaml" 2>&1)
OUT=$("$REPORT" --measurements "$S/meas.txt" --topology "$S/topo.yaml" --truth "$S/truth.txt" \
      --table "$S/table.yaml" --compare "$S/compare.csv" -o "$S/p4096.html" 2>&1)
RC=$?
check "P=4096 report written" bash -c "[ $RC -eq 0 ] && [ -s '$S/p4096.html' ]"
SZ=$(stat -c %s "$S/p4096.html" 2>/dev/null || echo 0)
echo "# P=4096 page: $SZ bytes"
check "P=4096 page is at most 5 MB ($SZ bytes)" [ "$SZ" -le 5000000 ]
H4=$S/p4096.html
check "P=4096 rank-order heatmaps: blocks of 64 ranks, 64 x 64 cells" \
    bash -c "[ \$(grep -c 'class=\"cell' <(sed -n '/id=\"svg-heatmap-small-rank/,/<\/svg>/p' '$H4')) -eq 4096 ]"
check "P=4096 hierarchy heatmaps: one cell per pair of nodes (64 x 64), tips name the nodes" \
    bash -c "hm=\$(sed -n '/id=\"svg-heatmap-large-hier/,/<\/svg>/p' '$H4'); [ \$(grep -c 'class=\"cell' <<<\"\$hm\") -eq 4096 ] &&
             grep -q '<title>node [0-9]* (64 ranks, c00[0-9]*\.isl[0-9]*\.example\.org) .* mean, ' <<<\"\$hm\""
check "P=4096 dendrogram: the top 63 merges, 64 subtrees with their rank counts" \
    bash -c "[ \$(grep -c 'class=\"link\"' '$H4') -eq 63 ] && [ \$(grep -c 'class=\"sub\"' '$H4') -eq 64 ] &&
             grep -q '>(64) [0-9]* c00' '$H4'"

# ---- headless Chromium ----------------------------------------------------------
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    notok "chromium installed (Debian package chromium; setup.sh installs it)"
    exit 0
fi
# render PAGE DOM [SCREENSHOT]: DOM to DOM, browser log to DOM.log
render() {
    local prof shot=()
    prof=$(mktemp -d)
    [ -n "${3:-}" ] && shot=(--screenshot="$3" --window-size=1400,5000 --hide-scrollbars)
    timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$prof" --enable-logging=stderr --v=0 \
        --dump-dom "${shot[@]}" "file://$(realpath "$1")" >"$2" 2>"$2.log"
    local rc=$?
    rm -rf "$prof"
    return $rc
}
# console_clean LOG: the page logged nothing to the console (it has no
# scripts, so any message -- an error, a failed load -- is a fault)
console_clean() { ! grep -q ':CONSOLE' "$1"; }
# figures DOM IDS...: every id is a <figure> holding content in the DOM
figures() {
    local dom=$1 id
    shift
    for id in "$@"; do
        grep -q "<figure id=\"$id\">" "$dom" || return 1
        sed -n "/<figure id=\"$id\">/,/<\/figure>/p" "$dom" | grep -Eq '<(svg|table)' || return 1
    done
}

# the checks must be able to fail: a page with a console error, a missing figure
printf '<!DOCTYPE html><html><body><figure id="fig-a"><svg></svg></figure><script>console.error("x")</script></body></html>\n' >"$D/bad.html"
render "$D/bad.html" "$D/bad.dom"
check "console check catches a console error" grep -q ':CONSOLE.*"x"' "$D/bad.dom.log"
check "figure check catches a missing figure" bash -c "$(declare -f figures); figures '$D/bad.dom' fig-a && ! figures '$D/bad.dom' fig-a fig-b"

render "$H" "$D/fram8.dom" "$D/fram8.png"
check "Chromium renders the FRAM page" [ $? -eq 0 ]
check "FRAM page: no console messages" console_clean "$D/fram8.dom.log"
# shellcheck disable=SC2086
check "FRAM page: all 10 figures in the DOM" figures "$D/fram8.dom" $FIGS_ALL
check "FRAM page: screenshot saved" bash -c "[ \$(stat -c %s '$D/fram8.png' 2>/dev/null || echo 0) -gt 50000 ]"
grep ':CONSOLE' "$D/fram8.dom.log" | head -5 | sed 's/^/# /'

render "$HS" "$D/shapes.dom"
check "Chromium renders the shapes page: no console messages, a panel per shape" \
    bash -c "$(declare -f console_clean figures); console_clean '$D/shapes.dom.log' &&
             figures '$D/shapes.dom' fig-selection fig-speedup fig-speedup-1 fig-speedup-2"

render "$D/local.html" "$D/local.dom"
check "Chromium renders the 2-rank page" [ $? -eq 0 ]
check "2-rank page: no console messages" console_clean "$D/local.dom.log"
check "2-rank page: its 8 figures in the DOM" figures "$D/local.dom" fig-heatmap-small-rank fig-heatmap-small-hier \
    fig-heatmap-large-rank fig-heatmap-large-hier fig-dendrogram fig-topology fig-accuracy fig-plogp
render "$H4" "$D/p4096.dom" "$D/p4096.png"
check "Chromium renders the P=4096 page" [ $? -eq 0 ]
check "P=4096 page: no console messages" console_clean "$D/p4096.dom.log"
# shellcheck disable=SC2086
check "P=4096 page: all 10 figures in the DOM" figures "$D/p4096.dom" $FIGS_ALL
grep ':CONSOLE' "$D/p4096.dom.log" | head -5 | sed 's/^/# /'
echo "# screenshot: $D/fram8.png, $D/p4096.png"

# --version: the library's version and the MPI the tool was built for, status 0
OUT=$("$REPORT" --version 2>&1)
RC=$?
check "topobcast-report --version: status $RC, 'topobcast-report VERSION (built for ...)'" \
    bash -c '[ "$1" -eq 0 ] && grep -qE "^topobcast-report [0-9]+\.[0-9]+\.[0-9]+ \(built for (MPICH|Open MPI), MPI [0-9]\.[0-9]\)$" <<<"$2"' _ "$RC" "$OUT"
