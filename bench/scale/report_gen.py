#!/usr/bin/env python3
"""Synthetic inputs of topobcast-report at P ranks, as a sample-mode probe
run would leave them (probe/README.md, "Sample mode"): a measurement file
with a sparse set of pairs, a truth file, a selection table and a
tuner --compare CSV.  The topology is made from the measurements by
`topobcast-probe --analyze`, as a user would.

    report_gen.py P OUTDIR      # P a multiple of 64

The machine: 64 ranks per host (2 sockets x 2 NUMA domains x 16 cores),
8 hosts per island, ranks placed in blocks (rank r on host r // 64).  A
pair's time is its class's (the deepest level both ranks share) times a
deterministic jitter of at most 1 %; the classes are 25 % or more apart,
so the analysis finds island > node > socket > numa (island only from 16
hosts on).  Pairs: in each NUMA domain its first rank against the others,
the domains' first ranks against their socket's, the sockets' against
their host's, each host's
first rank against its island's first host, the islands' first hosts
against the first island, plus P/2 pairs chosen at random inside hosts and
4 per host between hosts (seeded): about 1.5 P pairs in all, so the
analysis completes the matrix by minimax paths.  Used by
test/suites/70-report.sh (P=4096) and for the report's figures at scale
(report/README.md)."""
import os
import random
import sys

PER_HOST, PER_SOCKET, PER_NUMA, HOSTS_PER_ISLAND = 64, 32, 16, 8
SIZES = [0, 1024, 65536, 1048576]
# per class (0 same NUMA, 1 same socket, 2 same node, 3 same island, 4 other):
# latency L (s) and bandwidth (B/s)
CLASS_L = [0.30e-6, 0.42e-6, 0.58e-6, 1.4e-6, 3.1e-6]
CLASS_BW = [12e9, 9e9, 6e9, 3e9, 2e9]


def host_of(r):
    return r // PER_HOST


def cls(a, b):
    """Distance class of ranks a, b: the deepest level both share."""
    if a // PER_NUMA == b // PER_NUMA:
        return 0
    if a // PER_SOCKET == b // PER_SOCKET:
        return 1
    if host_of(a) == host_of(b):
        return 2
    if host_of(a) // HOSTS_PER_ISLAND == host_of(b) // HOSTS_PER_ISLAND:
        return 3
    return 4


def jitter(a, b):
    """Deterministic factor in [1, 1.01) for the pair."""
    h = (a * 2654435761 + b * 40503 + 12345) & 0xFFFFFFFF
    return 1 + (h % 1000) / 100000.0


def pair_lines(a, b):
    c, f = cls(a, b), jitter(a, b)
    L = CLASS_L[c] * f
    out = ["pair %d %d L=%.17g sizes=%d" % (a, b, L, len(SIZES))]
    for m in SIZES:
        o = (0.05e-6 + m / (4 * CLASS_BW[c])) * f
        g = (0.02e-6 + m / CLASS_BW[c]) * f
        rtt = 2 * (L + o + g)
        q = " ".join(["%.9g" % v for v in [rtt] * 5 + [o] * 5 + [o] * 5])
        out.append("s %.17g %.17g %.17g %.17g %.17g 0 %s" % (m, rtt, o, o, g, q))
    return out


def hostname(h):
    return "c%04d.isl%02d.example.org" % (h, h // HOSTS_PER_ISLAND)


def pairs(P):
    H = P // PER_HOST
    s = set()

    def add(a, b):
        if a != b:
            s.add((min(a, b), max(a, b)))

    for d in range(0, P, PER_NUMA):  # each NUMA domain from its first rank
        for r in range(d + 1, d + PER_NUMA):
            add(d, r)
    for h in range(H):  # domains and sockets from the host's first rank
        base = h * PER_HOST
        for k in range(base, base + PER_HOST, PER_SOCKET):
            add(base, k)
            for d in range(k + PER_NUMA, k + PER_SOCKET, PER_NUMA):
                add(k, d)
    for h in range(H):  # hosts from their island's first host, islands from the first
        add((h // HOSTS_PER_ISLAND) * HOSTS_PER_ISLAND * PER_HOST, h * PER_HOST)
    for i in range(0, H, HOSTS_PER_ISLAND):
        add(0, i * PER_HOST)
    rng = random.Random(4096)
    for _ in range(P // 2):
        h = rng.randrange(H)
        add(h * PER_HOST + rng.randrange(PER_HOST), h * PER_HOST + rng.randrange(PER_HOST))
    for _ in range(4 * H if H > 1 else 0):
        a, b = rng.sample(range(H), 2)
        add(a * PER_HOST + rng.randrange(PER_HOST), b * PER_HOST + rng.randrange(PER_HOST))
    return sorted(s)


def write_meas(P, path):
    pl = pairs(P)
    with open(path, "w") as f:
        w = f.write
        w("topobcast-probe-measurements 1\nmode plogp\nnprocs %d\n" % P)
        w("options reps=8 max-size=1048576 eps=0.050000000000000003 max-insert=0 min-spacing=32 k-wait=1 "
          "gsat-max=65536 gsat-cap=64 batch-time=0 stat=min prtt-n=16 concurrency=intra fast=1 seed=1 "
          "agree=0 max-reps=8 rep-budget=0 sample=1\n")
        w("run pairs=%d rounds=%d elapsed=1 wtime-overhead=0\n" % (len(pl), len(pl)))
        for r in range(P):
            pu = r % PER_HOST
            w("rank %d host=%s pu=%d core=%d package=%d numa=%d world=%d group=%d measured=1\n"
              % (r, hostname(host_of(r)), pu, pu, pu // PER_SOCKET, pu // PER_NUMA, r, host_of(r)))
        for a, b in pl:
            w("\n".join(pair_lines(a, b)) + "\n")
        w("end\n")


def write_truth(P, path):
    with open(path, "w") as f:
        for h in range(P // PER_HOST):
            f.write("%s island=%d node=%d\n" % (hostname(h), h // HOSTS_PER_ISLAND, h))


def write_table(P, path):
    H = P // PER_HOST
    algs = ['"knomial:segment=0,radix=4,send=nonblocking,outstanding=8"',
            '"split_binary:segment=8192,send=nonblocking,outstanding=8"',
            '"interpipe:segment=131072,base=chain/flat,send=nonblocking,outstanding=8"']
    with open(path, "w") as f:
        f.write("topobcast: 1\nselection:\n")
        f.write("  - {comm: 2-%d, ppn: 1, bytes: 0-64K, algorithm: %s}\n" % (max(H, 2), algs[0]))
        f.write("  - {comm: 2-%d, ppn: 1, bytes: 65537-inf, algorithm: %s}\n" % (max(H, 2), algs[1]))
        f.write("  - {comm: 2-inf, bytes: 0-4K, algorithm: %s}\n" % algs[0])
        f.write("  - {comm: 2-inf, bytes: 4097-1M, algorithm: %s}\n" % algs[1])
        f.write("  - {bytes: 1048577-inf, algorithm: %s}\n" % algs[2])
        f.write("  - {algorithm: default}\n")


def write_compare(P, path):
    H = P // PER_HOST
    shapes = [("job", P, "size=%d nodes=%d ppn=%d consecutive=yes levels=node groups=%d" % (P, H, PER_HOST, H)),
              ("one-per-node", H, "size=%d nodes=%d ppn=1 consecutive=yes levels=none" % (H, H))]
    with open(path, "w") as f:
        f.write("shape,nprocs,shape_keys,size,default_us,topobcast_us,speedup,algorithm\n")
        for name, n, keys in shapes:
            for e in range(0, 23, 2):
                m = 1 << e
                d = 2.0 + m * 1e-3 * (1 + e / 10.0)
                t = d / (1 + 0.05 * e)
                f.write('%s,%d,%s,%d,%.3f,%.3f,%.4f,"knomial:segment=0,radix=4"\n' % (name, n, keys, m, d, t, d / t))


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) % PER_HOST:
        sys.stderr.write("usage: report_gen.py P OUTDIR   (P a multiple of %d)\n" % PER_HOST)
        return 2
    P, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    write_meas(P, os.path.join(out, "meas.txt"))
    write_truth(P, os.path.join(out, "truth.txt"))
    write_table(P, os.path.join(out, "table.yaml"))
    write_compare(P, os.path.join(out, "compare.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
