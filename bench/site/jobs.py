#!/usr/bin/env python3
"""The jobs of bench/site/run.sh, drawn from a seed: the same seed, the same
jobs (Python's random.Random is stable across versions for these calls).

usage: jobs.py SEED COUNT PERJOB TRUTH.txt OUTDIR

TRUTH.txt is the platform's truth (test/platforms/site64-truth.txt: every
SimGrid host, a socket, with its island and node).  Each job draws:

- a pool, in turn: every node, the nodes of the type of fewest cores,
  every node, the nodes of the type of most cores (a node's type is its
  count of cores, read from the hostfile of every core, OUTDIR/cores.txt);
- its node count, log-uniform over 2 .. the pool's size (small and large
  jobs alike), and that many nodes of the pool at random;
- k ranks per node, uniform over 1 .. the most cores a node of the pool
  has; a node with fewer cores is full with all of them;
- a placement: compact (each node's ranks consecutive), round-robin
  (rank r on the (r mod nodes)-th node with ranks left) or random (a
  random permutation of the compact order).
A node's ranks are split over its sockets in blocks, as evenly as can be,
the first half (rounded up) on its first socket: one rank of a node is on
socket 0, and two ranks of a node share a socket only from k = 3 on.

Writes OUTDIR/jobNN.hosts (one SimGrid host per rank, the hostfile of the
job) and prints one line per job: "NN nodes k placement pool ranks
perjob types", perjob 1 for the PERJOB jobs tuned alone: chosen so that
they cover small and large node counts and both node types (the jobs
sorted by nodes, the two with the fewest, two in the middle and the two
with the most; a pool of one type, when none of them has it, replaces
the middle one nearest to it).
"""
import math
import os
import random
import sys


def main():
    seed, count, perjob, truth, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    sockets = {}  # node -> [socket hosts] in order
    for line in open(truth):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        kv = dict(x.split("=", 1) for x in f[1:])
        sockets.setdefault(kv["node"], []).append(f[0])
    cores = {}  # SimGrid host -> cores (lines of the full hostfile)
    for line in open(os.path.join(out, "cores.txt")):
        h = line.strip()
        if h:
            cores[h] = cores.get(h, 0) + 1
    nodes = sorted(sockets)
    ncores = {n: sum(cores[s] for s in sockets[n]) for n in nodes}
    types = sorted(set(ncores.values()))
    rng = random.Random(seed)
    jobs = []
    for j in range(count):
        u = j % 4  # every node, one type, every node, the other type
        if u % 2 == 0 or len(types) < 2:
            pool, pname = nodes, "mixed"
        else:
            t = types[0] if u == 1 else types[-1]
            pool, pname = [n for n in nodes if ncores[n] == t], "%d-core" % t
        m = int(round(math.exp(rng.uniform(math.log(2), math.log(len(pool))))))
        m = max(2, min(len(pool), m))
        chosen = sorted(rng.sample(pool, m))
        kmax = max(ncores[n] for n in chosen)
        k = rng.randint(1, kmax)
        place = rng.choice(["compact", "round-robin", "random"])
        per_node = []  # per node, its ranks' hosts in slot order
        for n in chosen:
            c = min(k, ncores[n])
            s = sockets[n]
            slots = []
            for i, h in enumerate(s):  # as evenly as can be, the first sockets one more
                slots += [h] * min(c // len(s) + (i < c % len(s)), cores[h])
            per_node.append(slots)
        if place == "round-robin":
            order, depth = [], max(len(x) for x in per_node)
            for d in range(depth):
                order += [x[d] for x in per_node if d < len(x)]
        else:
            order = [h for x in per_node for h in x]
            if place == "random":
                rng.shuffle(order)
        with open(os.path.join(out, "job%02d.hosts" % (j + 1)), "w") as f:
            f.write("".join(h + "\n" for h in order))
        kinds = sorted(set(ncores[n] for n in chosen))
        jobs.append({"id": j + 1, "nodes": m, "k": k, "place": place, "pool": pname, "ranks": len(order),
                     "types": "+".join("%d-core" % t for t in kinds)})
    # the jobs tuned alone
    by_nodes = sorted(jobs, key=lambda x: (x["nodes"], x["id"]))
    n = len(by_nodes)
    pick = []
    for i in [0, 1, n // 2 - 1, n // 2, n - 2, n - 1]:
        if 0 <= i < n and by_nodes[i] not in pick:
            pick.append(by_nodes[i])
    pick = pick[:perjob]
    for t in types:
        name = "%d-core" % t
        if len(types) > 1 and not any(x["pool"] == name for x in pick):
            cand = [x for x in by_nodes if x["pool"] == name and x not in pick]
            if cand and len(pick) >= 4:
                mid = pick[2] if pick[2]["pool"] == "mixed" else pick[3]
                best = min(cand, key=lambda x: abs(math.log(x["nodes"] / mid["nodes"])))
                pick[pick.index(mid)] = best
    for x in jobs:
        x["perjob"] = int(x in pick)
        print("%02d %d %d %s %s %d %d %s" % (x["id"], x["nodes"], x["k"], x["place"], x["pool"], x["ranks"],
                                              x["perjob"], x["types"]))


if __name__ == "__main__":
    main()
