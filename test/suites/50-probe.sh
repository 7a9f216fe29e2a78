#!/usr/bin/env bash
# topobcast-probe end to end: measure with 2 ranks here, write measurements
# and topology, load the topology with the library's loader, re-analyse the
# saved run offline (same topology), validate against the ground truth,
# the LogGP mode and the graph view; then, when the SMPI build exists, a
# small FRAM-like simulation whose levels must match the platform, and a
# site's calibration there (network pass, node pass, --compose, --check
# --hosts, a host merged in); a node pass here composed into a site a job
# runs on.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh

# has PATTERN: $OUT matches (extended regex); rc_has RC PATTERN: and RC is 0.
has() { grep -Eq -- "$1" <<<"$OUT"; }
rc_has() { [ "$1" -eq 0 ] && has "$2"; }

PROBE=$BUILD/bin/topobcast-probe
D=$BUILD/test/probe
rm -rf "$D"
mkdir -p "$D"

if [ ! -x "$PROBE" ]; then
    notok "probe built ($PROBE missing)"
    exit 0
fi

# --help and --analyze must not need MPI (no launcher here).
check "help without MPI" bash -c "'$PROBE' --help | grep -q -- '--analyze FILE'"
OUT=$("$PROBE" --bogus 2>&1 </dev/null)
RC=$?
check "unknown option rejected" bash -c "[ $RC -eq 2 ]"
check "unknown option named" has "unknown option '--bogus'"

# Measurement with 2 ranks, small M and R.
OUT=$(timeout 120 mpiexec -n 2 "$PROBE" -M 4K -R 2 --save "$D/run.txt" -o "$D/topo.yaml" --validate \
      --graph "$D/g.dot" 2>&1)
RC=$?
printf '%s\n' "$OUT" | sed 's/^/# /'
check "2-rank measurement succeeds" [ "$RC" -eq 0 ]
check "schedule reported against P(P-1)/2" has "schedule: 1 pairs \(of P\(P-1\)/2 = 1\) in 1 rounds"
check "measurements saved" grep -q "^pair 0 1 L=" "$D/run.txt"
check "sizes 0..4K measured" bash -c "grep -q '^s 0 ' '$D/run.txt' && grep -q '^s 4096 ' '$D/run.txt'"
check "five-number summaries kept" bash -c "awk '/^s /{ if (NF != 22) bad=1 } END { exit bad }' '$D/run.txt'"
check "validate: node accuracy 1.0" has "^node +1 +[^ ]+ +[0-9]+ +1\.000"
check "graph view written (DOT and TGF)" bash -c "grep -q '^graph topology' '$D/g.dot' && grep -q '^#' '$D/g.tgf'"

OUT=$("$PROBE" --check "$D/topo.yaml" 2>&1)
check "topology loads with tb_config_load" rc_has $? "topology of 2 leaves on 1 host, levels: node\\(1\\)"
check "--check of a topology-only file names the built-in table it keeps" has "1 selection rule \\(the built-in table\\)\$"
OUT=$(timeout 60 mpiexec -n 2 env LD_PRELOAD="$LIB" TOPOBCAST_CONFIG="$D/topo.yaml" TOPOBCAST_STATS=1 \
    "$BUILD/bin/bcast_app" 2>&1)
check "stats with a topology-only file: its rules are the built-in table's" \
    bash -c 'grep -q "^topobcast: stats: rule=1 line=0 source=<built-in> calls=" <<<"$1" && ! grep -q "source=$2" <<<"$1"' \
    _ "$OUT" "$D/topo.yaml"
printf '# %s\n' "$OUT"
check "bad topology rejected by the loader" bash -c "! '$PROBE' --check '$D/run.txt' 2>/dev/null"

# Offline re-analysis: no MPI, identical topology.
OUT=$("$PROBE" --analyze "$D/run.txt" -o "$D/topo2.yaml" --validate 2>&1)
check "--analyze runs without MPI" [ $? -eq 0 ]
check "--analyze reproduces the topology" cmp -s "$D/topo.yaml" "$D/topo2.yaml"
check "--analyze validates too" has "^node +1 +[^ ]+ +[0-9]+ +1\.000"

# 4 ranks (oversubscribed: correctness only), concurrent pairs: the
# harness's rounds and subset barriers.
OUT=$(timeout 120 mpiexec -n 4 "$PROBE" -M 256 -R 1 --max-insert 0 --concurrency ranks --progress tty \
      --save "$D/run4.txt" -o "$D/topo4.yaml" 2>&1)
check "4 ranks, concurrency ranks: 6 pairs in 3 rounds" rc_has $? "6 pairs \(of P\(P-1\)/2 = 6\) in 3 rounds"
check "4 ranks: progress redrawn in place" has $'\rprobe: 6/6 pairs \(100%\)'
check "4 ranks: every pair measured once" bash -c "[ \$(grep -c '^pair' '$D/run4.txt') -eq 6 ]"
check "4 ranks: topology loads" bash -c "'$PROBE' --check '$D/topo4.yaml' | grep -q 'topology of 4 leaves'"

# Independence groups from the topology just written; serial; LogGP.
OUT=$(timeout 120 mpiexec -n 2 "$PROBE" -M 1K -R 2 --groups "$D/topo.yaml" --serial -o "$D/topo3.yaml" 2>&1)
check "--groups FILE and --serial" rc_has $? "concurrency serial"
OUT=$(timeout 120 mpiexec -n 2 "$PROBE" --mode loggp -M 64K -R 2 --save "$D/loggp.txt" -o "$D/loggp.yaml" 2>&1)
check "LogGP mode runs" bash -c "[ $? -eq 0 ] && grep -q '^mode loggp' '$D/loggp.txt' && grep -q 'loggp=' '$D/loggp.txt'"
check "LogGP topology loads" bash -c "'$PROBE' --check '$D/loggp.yaml' >/dev/null"

# The simulated FRAM-like cluster: 2 ranks on each of 4 sockets (two of one
# node, one of another node, one on the other island).  The platform's
# host is a socket; the truth file gives the physical node and the island
# from the documented naming (for validation only).
# Files it cannot write are said before anything is measured (status 1),
# and an existing output it could write is left whole.
printf 'keep\n' >"$D/keep.txt"
OUT=$(timeout 60 mpiexec -n 2 "$PROBE" -M 4K -R 2 --save "$D/keep.txt" -o "$D/no-such-dir/topo.yaml" -q 2>&1)
RC=$?
check "unwritable -o: status 1 before measuring, says which file (status $RC)" \
    bash -c '[ "$1" -eq 1 ] && grep -q "no-such-dir/topo.yaml: cannot write it (No such file or directory); nothing measured" <<<"$2"' \
    _ "$RC" "$OUT"
check "unwritable -o: the --save file tried first is left as it was" [ "$(cat "$D/keep.txt")" = keep ]

SMPI_PROBE=$BUILD/smpi/bin/topobcast-probe
if [ -x "$SMPI_PROBE" ] && command -v smpirun >/dev/null; then
    . test/smpi/smpi-opts.sh
    # sim_probe PLATFORM HOSTFILE NP ARGS...: the probe under SMPI; output
    # in $OUT (also into the log as comments), exit status in $RC
    sim_probe() {
        local plat=$1 hosts=$2 np=$3
        shift 3
        OUT=$(timeout -k 10 300 "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" -platform "test/platforms/$plat.xml" -hostfile "$hosts" \
              -np "$np" "$SMPI_PROBE" "$@" 2>&1)
        RC=$?
        printf '%s\n' "$OUT" | sed 's/^/# /'
    }
    for h in fram-n00-s0 fram-n00-s1 fram-n01-s0 fram-n16-s0; do echo "$h"; echo "$h"; done >"$D/hosts8.txt"
    # the platform's ground truth, written by test/platforms/mkplatforms.py
    cp test/platforms/fram-truth.txt "$D/truth8.txt"
    sim_probe fram "$D/hosts8.txt" 8 -M 256K -R 2 --batch-time 0 --truth "$D/truth8.txt" --validate \
          -o "$D/fram8.yaml" --save "$D/fram8.txt"
    check "SMPI FRAM 8 ranks: measurement succeeds" [ "$RC" -eq 0 ]
    for lvl in island node socket; do
        check "SMPI FRAM: $lvl level found, accuracy 1.0" has "^$lvl +[0-9]+ +$lvl +[0-9]+ +1\.000 +1\.000"
    done
    check "SMPI FRAM: elapsed simulated time reported" has "^probe: measured 28 pairs in [0-9]+ rounds in [0-9.]+ s"
    check "SMPI FRAM: topology loads" bash -c "'$PROBE' --check '$D/fram8.yaml' | grep -q 'levels: island(2) node(3) socket(4)'"
    OUT=$("$PROBE" --analyze "$D/fram8.txt" --truth "$D/truth8.txt" -o "$D/fram8b.yaml" 2>&1)
    check "SMPI FRAM: --analyze reproduces the topology" cmp -s "$D/fram8.yaml" "$D/fram8b.yaml"
    # g(m) above the saturation limit comes from the round trip, whose
    # answer carries m bytes too: ranks 0 and 1 share a socket (8 GB/s
    # copies), so g(256K) is ~32.8 us, not twice that
    check "SMPI FRAM: g(256K) from the round trip = 256 KiB at 8 GB/s (+-10%)" awk '
        /^pair / { p = ($2 == 0 && $3 == 1) } p && /^s 262144 / { g = $6; found = 1 }
        END { w = 262144 / 8e9; exit !(found && g > 0.9 * w && g < 1.1 * w) }' "$D/fram8.txt"
    # LogGP between two nodes: the platform's eager/rendezvous switch (64 KiB
    # in test/smpi/smpi-opts.sh), the 0.2 us per-message CPU cost as o, and
    # the 0.7 us path latency as L.
    printf 'fram-n00-s0\nfram-n01-s0\n' >"$D/hosts2.txt"
    sim_probe fram "$D/hosts2.txt" 2 --mode loggp -M 2M -R 2 -q --save "$D/loggp2.txt"
    check "SMPI LogGP runs" [ "$RC" -eq 0 ]
    check "SMPI LogGP: S = 64 KiB, o = 0.2 us, L = 0.7 us" awk '/^pair 0 1 /{ split($0, a, "loggp="); split(a[2], v, ",");
        ok = v[5] == 65536 && v[2] > 0.19e-6 && v[2] < 0.21e-6 && v[1] > 0.65e-6 && v[1] < 0.75e-6 } END { exit !ok }' \
        "$D/loggp2.txt"

    # --agree: the simulator is deterministic, so the batches agree and the
    # measurement stops after 3 of R=8; the values must be the ones all 8
    # batches give (--agree 0), in less simulated time.
    sim_probe fram "$D/hosts2.txt" 2 -M 64K -R 8 --max-insert 0 --agree 0 --save "$D/agree0.txt"
    check "SMPI --agree 0 runs" [ "$RC" -eq 0 ]
    sim_probe fram "$D/hosts2.txt" 2 -M 64K -R 8 --max-insert 0 --save "$D/agree.txt"
    check "SMPI --agree (default) runs" [ "$RC" -eq 0 ]
    check "--agree: same RTT, o_s, o_r, g at every size (within 1e-9)" awk '
        FNR == 1 { f++ } /^s / { k = $2; for (c = 3; c <= 6; c++) v[f, k, c] = $c; n[f]++ }
        /^run / { split($4, e, "="); el[f] = e[2] }
        END { bad = n[1] != n[2] || n[1] == 0
              for (key in v) { split(key, p, SUBSEP); if (p[1] != 1) continue
                  a = v[1, p[2], p[3]]; b = v[2, p[2], p[3]]
                  if ((a - b) > 1e-9 * (a > 0 ? a : -a) + 1e-18 || (b - a) > 1e-9 * (a > 0 ? a : -a) + 1e-18) bad = 1 }
              if (!(el[2] < 0.6 * el[1])) bad = 1
              exit bad }' "$D/agree0.txt" "$D/agree.txt"

    # Fast mode chosen automatically: 4 ranks on each of 4 sockets (two of
    # one node, another node, the other island); one rank per socket is
    # measured between sockets, the others follow their socket.  Levels
    # must still match the platform exactly.
    for h in fram-n00-s0 fram-n00-s1 fram-n01-s0 fram-n16-s0; do for k in 1 2 3 4; do echo "$h"; done; done \
        >"$D/hosts16.txt"
    sim_probe fram "$D/hosts16.txt" 16 -M 64K -R 2 --batch-time 0 --max-insert 0 --fast auto \
          --truth test/platforms/fram-truth.txt --validate --save "$D/fast16.txt"
    check "SMPI fast auto: 16 ranks measured" [ "$RC" -eq 0 ]
    check "SMPI fast auto: 24 intra + 6 inter pairs, F = 0.25" \
        has "schedule: 30 pairs \(of P\(P-1\)/2 = 120\) in [0-9]+ rounds, concurrency intra, fast auto = 0.25"
    for lvl in island node socket; do
        check "SMPI fast auto: $lvl accuracy 1.0" has "^$lvl +[0-9]+ +$lvl +[0-9]+ +1\.000 +1\.000"
    done

    # Sample mode (--fast auto picks it here: fast mode would measure 136
    # pairs > 4 per rank): 2 ranks on each of 16 sockets, 4 nodes of each
    # island.  Between hosts the hierarchy is 2 islands x 4 nodes x 2
    # sockets; the cost formula of probe/README.md ("Sample mode") gives
    # C(2 islands of 8 hosts) = 15 + 7 + 2 x C(3 nodes of 2) = 22 + 2 x 9 =
    # 40 pairs between hosts and 16 x 1 inside them: 56 of the 496 all
    # pairs would take; rounds 22 + 9 + 1 = 32 (all pairs: 480).
    for k in 1 2; do for n in 00 01 02 03 16 17 18 19; do for s in 0 1; do echo "fram-n$n-s$s"; done; done; done \
        >"$D/hosts32.txt"
    sim_probe fram "$D/hosts32.txt" 32 -M 256K -R 2 --batch-time 0 --max-insert 0 --fast auto \
          --truth test/platforms/fram-truth.txt --validate -o "$D/sample32.yaml" --save "$D/sample32.txt"
    check "SMPI sample: 32 ranks measured" [ "$RC" -eq 0 ]
    check "SMPI sample: --fast auto chose sample mode" has "schedule: sample mode \(fast auto\)"
    check "SMPI sample: 56 pairs of 496 in 32 rounds, as the cost formula says" \
        has "sample: 56 pairs \(of P\(P-1\)/2 = 496\) in 32 rounds over [0-9]+ phases"
    for lvl in island node socket; do
        check "SMPI sample: $lvl accuracy 1.0, ARI 1.0" has "^$lvl +[0-9]+ +$lvl +[0-9]+ +1\.000 +1\.000"
    done
    check "SMPI sample: the file says sample=1 and holds 56 pairs" \
        bash -c "grep -q ' sample=1\$' '$D/sample32.txt' && [ \$(grep -c '^pair ' '$D/sample32.txt') -eq 56 ]"
    check "SMPI sample: topology loads" bash -c "'$PROBE' --check '$D/sample32.yaml' | grep -q 'levels: island(2) node(8) socket(16)'"
    OUT=$("$PROBE" --analyze "$D/sample32.txt" --truth test/platforms/fram-truth.txt -o "$D/sample32b.yaml" 2>&1)
    check "SMPI sample: --analyze reproduces the topology" cmp -s "$D/sample32.yaml" "$D/sample32b.yaml"
    # the exhaustive run on the same ranks (--fast 1: all 496 pairs) finds
    # the same levels and groups, and distance classes within 1 % (sample
    # mode: medians of its measured pairs; exhaustive: of all pairs)
    sim_probe fram "$D/hosts32.txt" 32 -M 256K -R 2 --batch-time 0 --max-insert 0 --fast 1 \
          --truth test/platforms/fram-truth.txt -o "$D/full32.yaml" --save "$D/full32.txt"
    check "SMPI exhaustive 32: all 496 pairs measured" has "^probe: measured 496 pairs in "
    check "SMPI sample = exhaustive: the same levels, leaves and groups" \
        cmp -s <(sed -n '/^  levels:/,/^  distance:/p' "$D/sample32.yaml") <(sed -n '/^  levels:/,/^  distance:/p' "$D/full32.yaml")
    check "SMPI sample = exhaustive: distance classes within 1 %" awk '
        /^    (levels|within):/ { gsub(/[][,]/, " "); for (k = 2; k <= NF; k++) v[FILENAME == ARGV[1], ++n[FILENAME == ARGV[1]]] = $k }
        END { if (n[0] != n[1] || n[0] < 4) exit 1
              for (k = 1; k <= n[0]; k++) { d = v[0, k] - v[1, k]; if (d < 0) d = -d; if (d > 0.01 * v[1, k]) exit 1 } }' \
        "$D/sample32.yaml" "$D/full32.yaml"
    # concurrency that does not disturb: one pair at a time measures the
    # same pairs with the same values.  The simulator's solver precision
    # (1e-3) leaves up to ~0.2 % on small messages and ~2e-5 on large ones
    # (as between LGate's intra and serial schedules); a shared link would
    # take tens of percent off the bandwidth-bound sizes (64 KiB and up).
    sim_probe fram "$D/hosts32.txt" 32 -M 256K -R 2 --batch-time 0 --max-insert 0 --sample --concurrency serial \
          --save "$D/sample32s.txt"
    check "SMPI sample serial: 56 pairs in 56 rounds" has "sample: 56 pairs \(of P\(P-1\)/2 = 496\) in 56 rounds"
    check "SMPI sample: concurrent values = serial ones (1% below 64 KiB, 0.1% from 64 KiB)" awk '
        FNR == NR { if ($1 == "pair" || $1 == "s") A[++na] = $0; next }
        $1 == "pair" || $1 == "s" { split(A[++nb], a, " ")
            if ($1 != a[1] || $2 != a[2] || ($1 == "pair" && $3 != a[3])) bad = 1
            if ($1 != "s") next
            for (k = 3; k <= 6; k++) { d = a[k] - $k; if (d < 0) d = -d
                if (d > ($2 < 65536 ? 0.01 : 1e-3) * a[k]) bad = 1 } }
        END { exit bad || na != nb || na == 0 }' "$D/sample32.txt" "$D/sample32s.txt"

    # ARM1-like node (the SimGrid host is a NUMA domain): 2 ranks per NUMA
    # domain, round robin.  One physical node: the job; sockets and NUMA
    # domains found by measuring.
    sim_probe arm1 test/platforms/arm1-rr.txt 8 -M 64K -R 2 --batch-time 0 --max-insert 0 \
          --truth test/platforms/arm1-truth.txt --validate
    check "SMPI ARM1 8 ranks: measurement succeeds" [ "$RC" -eq 0 ]
    check "SMPI ARM1: node = the job, accuracy 1.0" has "^node +1 +\(job\) +1 +1\.000 +1\.000"
    for lvl in socket numa; do
        check "SMPI ARM1: $lvl accuracy 1.0" has "^$lvl +[0-9]+ +[^ ]+ +[0-9]+ +1\.000 +1\.000"
    done

    # BETZY-like: 2 ranks on each of 4 sockets (two of one node, another
    # node of the group, a node of another dragonfly group).
    for h in betzy-n00-s0 betzy-n00-s1 betzy-n01-s0 betzy-n08-s0; do echo "$h"; echo "$h"; done >"$D/hostsb8.txt"
    sim_probe betzy "$D/hostsb8.txt" 8 -M 64K -R 2 --batch-time 0 --max-insert 0 \
          --truth test/platforms/betzy-truth.txt --validate
    check "SMPI BETZY 8 ranks: measurement succeeds" [ "$RC" -eq 0 ]
    for lvl in group node socket; do
        check "SMPI BETZY: $lvl accuracy 1.0" has "^$lvl +[0-9]+ +[^ ]+ +[0-9]+ +1\.000 +1\.000"
    done

    # A site's calibration on the simulated FRAM (a SimGrid host is a
    # socket, MPI's node): a network pass of one rank per host over 8 hosts
    # of 4 nodes on both islands, a "node pass" of 4 ranks on one host
    # (flat under SimGrid, no hwloc: its type is named), composed; then a
    # job on a few hosts checked against it, and a host added later merged.
    for n in 00 01 16 17; do for k in 0 1; do echo "fram-n$n-s$k"; done; done >"$D/site-net-hosts.txt"
    sim_probe fram "$D/site-net-hosts.txt" 8 -M 64K -R 2 --batch-time 0 --max-insert 0 -q \
          --truth test/platforms/fram-truth.txt -o "$D/site-net.yaml"
    check "site: network pass, one rank on each of 8 FRAM hosts (status $RC)" \
        bash -c '[ "$1" -eq 0 ] && grep -q "^  levels: \[island, node\]" "$2"' _ "$RC" "$D/site-net.yaml"
    printf 'fram-n01-s0\n%.0s' 1 2 3 4 >"$D/site-node-hosts.txt"
    sim_probe fram "$D/site-node-hosts.txt" 4 -M 64K -R 2 --batch-time 0 --max-insert 0 -q -o "$D/site-node.yaml"
    check "site: node pass, 4 ranks on one host (status $RC)" [ "$RC" -eq 0 ]
    OUT=$("$PROBE" --compose "$D/site-net.yaml" --node-pass socket16="$D/site-node.yaml" \
          --node-type 'socket16=fram-n[00-01,16-17]-s[0-1]' -o "$D/site-topo.yaml" 2>&1)
    RC=$?
    printf '%s\n' "$OUT" | sed 's/^/# /'
    check "site: --compose with a named type: island(2) node(4) host(8), 1 type (status $RC)" \
        bash -c '[ "$1" -eq 0 ] && grep -q "levels: island(2) node(4) host(8); 1 node type" <<<"$2"' _ "$RC" "$OUT"
    check "site: --compose says the unbound flat pass's PUs only count ranks" \
        has "site-node.yaml: its 4 ranks were not bound to cores and it found no level inside host fram-n01-s0"
    OUT=$("$PROBE" --check "$D/site-topo.yaml" 2>&1)
    check "site: the composed file loads (--check)" \
        rc_has $? "loads; a site's topology of 8 hosts, 1 node type, levels: island\(2\) node\(4\) host\(8\)"
    OUT=$("$PROBE" --check "$D/site-topo.yaml" --hosts 'fram-n00-s[0-1],fram-n01-s0,fram-n16-s0' --ppn 2 2>&1)
    RC=$?
    printf '%s\n' "$OUT" | sed 's/^/# /'
    check "site: --check --hosts: a job of 8 ranks keeps island, node and host levels (status $RC)" \
        bash -c '[ "$1" -eq 0 ] && grep -q "^  shape: size=8 nodes=4 ppn=2 consecutive=yes levels=island/node/host groups=2/3/4$" <<<"$2"' \
        _ "$RC" "$OUT"
    check "site: --check --hosts: the groups of each level" \
        bash -c 'grep -q "^  island (2 groups): \[0-5\] \[6, 7\]$" <<<"$1" && grep -q "^  node (3 groups): \[0-3\] \[4, 5\] \[6, 7\]$" <<<"$1" &&
                 grep -q "^  host (4 groups): \[0, 1\] \[2, 3\] \[4, 5\] \[6, 7\]$" <<<"$1"' \
        _ "$OUT"
    check "site: --check --hosts: the table per message size" has "^    1 B - 8 MiB: default$"
    OUT=$("$PROBE" --check "$D/site-topo.yaml" --hosts 'fram-n00-s0,fram-n02-s0' 2>&1)
    RC=$?
    check "site: --check --hosts with a host the site lacks: the library's warning, status 1 (got $RC)" \
        bash -c '[ "$1" -eq 1 ] && grep -q "^topobcast: host fram-n02-s0 (world rank 1) is not in the topology of .*site-topo.yaml (8 hosts: fram-n00-s0 ... fram-n17-s1): recalibrate, or probe it and merge (topobcast-probe --merge); using MPI_Bcast$" <<<"$2"' \
        _ "$RC" "$OUT"
    # that host added later: a network pass over it and known hosts of
    # both islands, merged into the site without measuring the rest again
    printf 'fram-n00-s0\nfram-n01-s1\nfram-n02-s0\nfram-n16-s0\n' >"$D/site-add-hosts.txt"
    sim_probe fram "$D/site-add-hosts.txt" 4 -M 64K -R 2 --batch-time 0 --max-insert 0 -q \
          --truth test/platforms/fram-truth.txt -o "$D/site-add.yaml"
    check "site: network pass over a new host and three known ones (status $RC)" [ "$RC" -eq 0 ]
    OUT=$("$PROBE" --merge "$D/site-topo.yaml" "$D/site-add.yaml" --node-type socket16=fram-n02-s0 \
          -o "$D/site-topo2.yaml" 2>&1)
    RC=$?
    printf '%s\n' "$OUT" | sed 's/^/# /'
    check "site: --merge adds fram-n02-s0: 9 hosts, its own node, island 0 (status $RC)" \
        bash -c '[ "$1" -eq 0 ] && grep -q "a site.s topology of 9 hosts, levels: island(2) node(5) host(9); 1 node type" <<<"$2" &&
                 grep -q "^    island: \[\[0-3, 8\], \[4-7\]\]$" "$3"' _ "$RC" "$OUT" "$D/site-topo2.yaml"
    OUT=$("$PROBE" --check "$D/site-topo2.yaml" --hosts 'fram-n00-s0,fram-n02-s0,fram-n16-s0' 2>&1)
    check "site: a job with the added host now maps (island 0 holds it)" \
        rc_has $? "^  island \(2 groups\): \[0, 1\] \[2\]$"
else
    ok "SMPI FRAM probe # skip: no SMPI build (make smpi)"
fi

# A node pass on this machine: 2 ranks bound to cores record their PUs and
# hwloc's summary of the host; composed with a network pass that names
# this host and two others (one reported with the same summary, so of the
# same type, one with another), it makes a site that a job here runs on.
HOST=$(hostname)
OUT=$(timeout 120 mpiexec -n 2 -bind-to core "$PROBE" -M 1K -R 2 -q --save "$D/node-run.txt" -o "$D/node.yaml" 2>&1)
RC=$?
SUMMARY=$(sed -n 's/^ *hwloc: \["\(.*\)"\]}$/\1/p' "$D/node.yaml")
check "node pass, 2 ranks bound to cores: PUs and the host's hwloc summary recorded (status $RC, '$SUMMARY')" \
    bash -c '[ "$1" -eq 0 ] && [ "$(grep -c "^    - \[0, [0-9]" "$2")" -eq 2 ] && grep -Eq "^[0-9]+ packages?, [0-9]+ NUMA nodes?, [0-9]+ cores?, [0-9]+ PUs?$" <<<"$3"' \
    _ "$RC" "$D/node.yaml" "$SUMMARY"
check "node pass: its measurement file keeps the summary, --analyze writes the same topology" \
    bash -c 'grep -q "^hwloc 0 $1$" "$2" && "$3" --analyze "$2" -q -o "$4.again" && cmp -s "$4" "$4.again"' \
    _ "$SUMMARY" "$D/node-run.txt" "$PROBE" "$D/node.yaml"
cat >"$D/net-here.yaml" <<YAML
topobcast: 2
topology:
  fingerprint: {nprocs: 3, hosts: [$HOST, twin-1, other-1], hwloc: ["$SUMMARY", "$SUMMARY", "1 package, 1 NUMA node, 64 cores, 64 PUs"]}
  levels: [island]
  leaves: [[0, -1], [1, -1], [2, -1]]
  groups: {island: [[0, 1], [2]]}
  distance: {unit: us, levels: [5], within: 2}
YAML
OUT=$("$PROBE" --compose "$D/net-here.yaml" --node-pass here="$D/node.yaml" -o "$D/site-here.yaml" 2>&1)
RC=$?
printf '%s\n' "$OUT" | sed 's/^/# /'
check "compose: this host and its twin (same hwloc summary) of type here, other-1 of none, said (status $RC)" \
    bash -c '[ "$1" -eq 0 ] && grep -q "^      hosts: \[0, 1\]$" "$2" && grep -q "1 host of no node type (their ranks are placed by host only): other-1" <<<"$3"' \
    _ "$RC" "$D/site-here.yaml" "$OUT"
OUT=$("$PROBE" --check "$D/site-here.yaml" --hosts "$HOST" --ppn 2 --bound 2>&1)
check "check --hosts here --ppn 2 --bound: one host, no level splits it" rc_has $? "^  shape: size=2 nodes=1 ppn=2 consecutive=yes levels=none$"
OUT=$("$PROBE" --check "$D/site-here.yaml" --hosts "$HOST" --ppn 3 --bound 2>&1)
RC=$?
check "check --hosts --ppn 3 --bound on a type of 2 PUs: status 2, said (got $RC)" \
    bash -c '[ "$1" -eq 2 ] && grep -q "has 2 PUs to bind ranks to (node type here): expected --ppn 2 or fewer" <<<"$2"' _ "$RC" "$OUT"
OUT=$(timeout 60 mpiexec -n 2 -bind-to core env LD_PRELOAD="$LIB" TOPOBCAST_CONFIG="$D/site-here.yaml" \
      TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 "$BUILD/bin/bcast_app" 2>&1)
check "a job here with the composed site file: data right, binomial ran, no warning" \
    bash -c 'grep -q "all data correct" <<<"$1" && grep -q "^topobcast: stats: algorithm=binomial" <<<"$1" &&
             [ "$(grep "^topobcast: " <<<"$1" | grep -vc "^topobcast: stats: ")" -eq 0 ]' _ "$OUT"
printf '%s\n' "$OUT" | sed 's/^/# /'
# their command lines and inputs, refused with one line
OUT=$("$PROBE" --compose "$D/net-here.yaml" 2>&1)
check "compose without -o: status 2" bash -c '[ "$1" -eq 2 ] && grep -q "expected -o SITE.yaml" <<<"$2"' _ $? "$OUT"
OUT=$("$PROBE" --merge "$D/site-here.yaml" -o "$D/m.yaml" 2>&1)
check "merge of one file: status 2" bash -c '[ "$1" -eq 2 ] && grep -q "expected at least two files to merge, got 1" <<<"$2"' _ $? "$OUT"
OUT=$("$PROBE" --compose "$D/node.yaml" -o "$D/m.yaml" 2>&1)
check "compose of a node pass as the network pass: status 1, names the file" \
    bash -c '[ "$1" -eq 1 ] && grep -q "node.yaml: expected a network pass, one rank per host (srun --ntasks-per-node=1): host .* has ranks 0 and 1" <<<"$2"' _ $? "$OUT"
OUT=$("$PROBE" --compose "$D/none.yaml" -o "$D/m.yaml" 2>&1)
check "compose of a missing file: status 1" bash -c '[ "$1" -eq 1 ] && grep -q "none.yaml" <<<"$2"' _ $? "$OUT"
OUT=$("$PROBE" --compose "$D/net-here.yaml" -o "$D/net-here.yaml" 2>&1)
check "compose over its input: status 2" bash -c '[ "$1" -eq 2 ] && grep -q "is also an input" <<<"$2"' _ $? "$OUT"
OUT=$("$PROBE" --hosts n1 2>&1)
check "--hosts without --check: status 2" bash -c '[ "$1" -eq 2 ] && grep -q "needs --check FILE" <<<"$2"' _ $? "$OUT"
OUT=$("$PROBE" --check "$D/site-here.yaml" --hosts 'n[1-' 2>&1)
check "--check --hosts with a bad host list: status 2" \
    bash -c '[ "$1" -eq 2 ] && grep -q "opens a .\[. it does not close" <<<"$2"' _ $? "$OUT"

# under a launcher, one rank speaks: --help once, a bad --groups file once
OUT=$(timeout 60 mpiexec -n 2 "$PROBE" --help 2>&1)
check "--help under mpiexec -n 2: the usage once" [ "$(grep -c -- "--help" <<<"$OUT")" -eq 1 ]
OUT=$(timeout 60 mpiexec -n 2 "$PROBE" -M 1K -R 2 --groups "$D/none.yaml" -o "$D/none-topo.yaml" 2>&1)
RC=$?
check "--groups of a missing file: status 2, said once" \
    bash -c '[ "$1" -eq 2 ] && [ "$(grep -c "^topobcast-probe: --groups" <<<"$2")" -eq 1 ]' _ "$RC" "$OUT"

# an output over one of the run's own files is refused before anything is done
cp "$D/run.txt" "$D/run-copy.txt"
OUT=$("$PROBE" --analyze "$D/run-copy.txt" -o "$D/run-copy.txt" 2>&1)
RC=$?
check "-o naming the file --analyze reads: status 2, the file untouched" \
    bash -c '[ "$1" -eq 2 ] && grep -q "is also the file --analyze reads" <<<"$2" && cmp -s "$3/run.txt" "$3/run-copy.txt"' \
    _ "$RC" "$OUT" "$D"

# --version: the library's version and the MPI the tool was built for, status 0
OUT=$("$PROBE" --version 2>&1)
RC=$?
check "topobcast-probe --version: status $RC, 'topobcast-probe VERSION (built for ...)'" \
    bash -c '[ "$1" -eq 0 ] && grep -qE "^topobcast-probe [0-9]+\.[0-9]+\.[0-9]+ \(built for (MPICH|Open MPI), MPI [0-9]\.[0-9]\)$" <<<"$2"' _ "$RC" "$OUT"
