#!/usr/bin/env python3
"""Writes the topology of a simulated job (schema: config/README.md, format 2)
without measuring it: what topobcast-probe would find on a SimGrid platform
of test/platforms/ when it finds every level.

  platform_topo.py P --truth T --hostfile H [-o FILE]

Rank r runs on line r of the hostfile H (as smpirun places it); the levels
and each host's group per level come from the platform's truth file T
(test/platforms/*-truth.txt, coarsest level first).  Ranks are unbound
(pu -1), as under SMPI.  Distances (4-level platforms only): the one-way 0-byte
times per level of test/platforms/betzy-nps4 (betzy-nps4-levels.txt), us.  No selection table:
the library's built-in one applies.  For synthetic topologies of real-size
hosts, see scale_gen.c.
"""
import argparse
import sys

# other group, other node, other socket, other NUMA domain; same NUMA domain
LATENCY_US = [1.801, 1.301, 0.902, 0.702]
WITHIN_US = 0.502


def read_truth(path):
    levels, where = None, {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            host, *kv = line.split()
            where[host] = [v.split("=", 1)[1] for v in kv]
            levels = [v.split("=", 1)[0] for v in kv]
    return levels, where


def ranges(ranks):
    """'A-B' items for the runs of consecutive ranks."""
    out, start = [], ranks[0]
    for prev, r in zip(ranks, ranks[1:] + [None]):
        if r != prev + 1:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = r
    return ", ".join(out)


def write(out, p, levels, where, hosts):
    order = list(dict.fromkeys(hosts))
    index = {h: i for i, h in enumerate(order)}
    out.write("topobcast: 2\n")
    out.write("meta: {written-by: bench/scale/platform_topo.py}\n")
    out.write("topology:\n")
    out.write("  fingerprint: {nprocs: %d, hosts: [%s]}\n" % (p, ", ".join(order)))
    out.write("  levels: [%s]\n" % ", ".join(levels))
    out.write("  leaves:\n")
    for h in hosts:
        out.write("    - [%d, -1]\n" % index[h])
    out.write("  groups:\n")
    for l, name in enumerate(levels):
        groups = {}
        for r, h in enumerate(hosts):
            groups.setdefault(where[h][l], []).append(r)
        out.write("    %s: [%s]\n" % (name, ", ".join("[%s]" % ranges(g) for g in groups.values())))
    if len(levels) == len(LATENCY_US):  # betzy-nps4's levels; other platforms: no distances
        out.write("  distance: {unit: us, levels: [%s], within: %g}\n"
                  % (", ".join("%g" % v for v in LATENCY_US), WITHIN_US))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("p", type=int)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--hostfile", required=True)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    levels, where = read_truth(a.truth)
    with open(a.hostfile) as f:
        hosts = [h.strip() for h in f if h.strip()][:a.p]
    if len(hosts) < a.p:
        sys.exit("platform_topo.py: %s has fewer than %d lines" % (a.hostfile, a.p))
    missing = sorted(set(hosts) - set(where))
    if missing:
        sys.exit("platform_topo.py: %s not in %s" % (missing[0], a.truth))
    with (open(a.output, "w") if a.output else sys.stdout) as out:
        write(out, a.p, levels, where, hosts)


if __name__ == "__main__":
    main()
