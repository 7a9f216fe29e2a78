#!/usr/bin/env python3
"""Writes the topology YAML that topobcast-probe writes (probe/topo_write.c,
schema config/README.md) for a synthetic machine, without measuring.

Two machines:
  mktopo.py P                      P ranks on 128-core nodes (2 sockets x 4
                                   NUMA domains x 16 cores), 8 nodes per
                                   dragonfly group; host per node, every rank
                                   bound to one PU (as on a real cluster)
  mktopo.py P --truth T --hostfile H
                                   a simulated platform: rank r on line r of
                                   the hostfile, levels from the platform's
                                   truth file (test/platforms/*-truth.txt);
                                   ranks unbound (pu -1), as under SMPI
Options: --distance (add the P x P matrix), -o FILE (default stdout).
Distances are the one-way 0-byte times of test/platforms/betzy-nps4 per
level (us), with a small deterministic jitter so that every entry has the
6 significant digits of a measured one.  When the probe's format changes,
change write() below.
"""
import argparse
import sys

LEVELS = ["group", "node", "socket", "numa"]
LATENCY_US = [1.801, 1.301, 0.902, 0.702, 0.502]  # other group ... same numa


def synthetic(p):
    """(host, pu, core, package, numa, [group ids per level]) per rank."""
    ranks = []
    for r in range(p):
        node, pu = divmod(r, 128)
        ranks.append(("node%05d" % node, pu, pu, pu // 64, pu // 16,
                      [node // 8, node, node * 2 + pu // 64, node * 8 + pu // 16]))
    return ranks


def platform(p, truth, hostfile):
    levels, where = None, {}
    for line in open(truth):
        if line.startswith("#") or not line.strip():
            continue
        host, *kv = line.split()
        where[host] = [v.split("=", 1)[1] for v in kv]
        levels = [v.split("=", 1)[0] for v in kv]
    hosts = [h.strip() for h in open(hostfile)][:p]
    if len(hosts) < p:
        sys.exit("mktopo.py: %s has fewer than %d lines" % (hostfile, p))
    return levels, [(h, -1, -1, -1, -1, where[h]) for h in hosts]


def distance(ranks, a, b):
    if a == b:
        return 0.0
    ga, gb = ranks[a][5], ranks[b][5]
    level = next((l for l in range(len(ga)) if ga[l] != gb[l]), len(ga))
    return LATENCY_US[level] * (1 + ((a * 7919 + b * 104729) % 1000) * 1e-6)


def write(out, levels, ranks, with_distance):
    p = len(ranks)
    out.write("# Topology measured by topobcast-probe (schema: config/README.md).\n")
    out.write("topobcast: 1\n")
    out.write("meta: {written-by: topobcast-probe, mode: plogp, nprocs: %d, pairs-measured: %d, "
              "pairs-extended: 0, rounds: %d, measure-seconds: 1, distance-unit: microseconds, "
              "analysis: \"synthetic (bench/scale/mktopo.py)\"}\n" % (p, p * (p - 1) // 2, p - 1))
    out.write("topology:\n")
    hosts = list(dict.fromkeys(r[0] for r in ranks))
    out.write("  fingerprint: {nprocs: %d, hosts: [%s]}\n" % (p, ", ".join(hosts)))
    out.write("  levels: [%s]\n" % ", ".join(levels))
    out.write("  leaves:\n")
    for i, (host, pu, core, pkg, numa, _) in enumerate(ranks):
        out.write("    - {rank: %d, host: %s, pu: %d, core: %d, package: %d, numa: %d}\n"
                  % (i, host, pu, core, pkg, numa))
    out.write("  groups:\n")
    for l, name in enumerate(levels):
        groups = {}
        for i, r in enumerate(ranks):
            groups.setdefault(r[5][l], []).append(str(i))
        out.write("    %s: [%s]\n" % (name, ", ".join("[%s]" % ", ".join(g) for g in groups.values())))
    if with_distance:
        out.write("  distance:\n")
        for a in range(p):
            out.write("    - [%s]\n" % ", ".join("%.6g" % distance(ranks, a, b) for b in range(p)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("p", type=int)
    ap.add_argument("--distance", action="store_true")
    ap.add_argument("--truth")
    ap.add_argument("--hostfile")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.truth or a.hostfile:
        levels, ranks = platform(a.p, a.truth, a.hostfile)
    else:
        if a.p % 128:
            sys.exit("mktopo.py: P must be a multiple of 128")
        levels, ranks = LEVELS, synthetic(a.p)
    with (open(a.output, "w") if a.output else sys.stdout) as out:
        write(out, levels, ranks, a.distance)


if __name__ == "__main__":
    main()
