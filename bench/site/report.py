#!/usr/bin/env python3
"""The results of bench/site/run.sh: one line per job, the jobs tuned alone,
the calibration's cost, a summary.

usage: report.py OUT SIZES

Reads OUT/jobs/jobs.txt (jobs.py), each job's site_hier log, its
--compare CSV with the site table (jobNN.site.csv) and, for the jobs tuned
alone, with their own table (jobNN.own.csv); OUT/cal/*.log for the cost.
Exit status 0 when every criterion holds: hierarchy matched and data right
on every job, no size below 0.98x MPI's broadcast, the site table's
geometric-mean time over 64 KiB-8 MiB within 1.10x of each job's own.
"""
import csv
import math
import os
import re
import sys

FLOOR, WITHIN, LO, HI = 0.98, 1.10, 65536, 8 << 20


def human(b):
    b = int(b)
    for unit, v in (("M", 1 << 20), ("K", 1024)):
        if b >= v and b % v == 0:
            return "%d%s" % (b // v, unit)
    return str(b)


def rows(path):
    if not os.path.exists(path):
        return None
    out = []
    for r in csv.DictReader(open(path)):
        if r.get("shape") == "job":
            out.append(r)
    return out or None


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def text(path):
    return open(path).read() if os.path.exists(path) else ""


def sim_cost(log):
    m = re.findall(r"^# sim: ([0-9.]+) s wall, ([0-9.]+) s CPU, ([0-9]+) MB peak", text(log), re.M)
    return tuple(float(x) for x in m[-1]) if m else None


def wall(s):
    s = int(round(s))
    return "%d min %02d s" % (s // 60, s % 60) if s >= 60 else "%d s" % s


def main():
    out, _ = sys.argv[1], sys.argv[2]
    J, C = os.path.join(out, "jobs"), os.path.join(out, "cal")
    ok = True
    print(text(os.path.join(out, "header.txt")).rstrip())
    print("# job: nodes x k ranks per node (a node of fewer cores: all of them), placement, pool; ranks; the job as")
    print("#   MPI sees it (SimGrid hosts = sockets); hierarchy against the truth; data; the site table against")
    print("#   MPI's broadcast: lowest ratio default/site over the sizes (and where), geometric mean over 64K-8M")
    print("%-3s %-6s %-11s %-7s %5s  %-28s %-9s %-5s %-16s %7s" % ("job", "shape", "placement", "pool", "ranks",
                                                                   "MPI shape", "hierarchy", "data", "lowest",
                                                                   "64K-8M"))
    jobs = [l.split() for l in open(os.path.join(J, "jobs.txt")) if l.strip()]
    lowest_all, gains, perjob = [], [], []
    for jid, nodes, k, place, pool, ranks, pj, types in jobs:
        hier = text(os.path.join(J, "job%s.hier.log" % jid))
        hm = re.search(r"^hierarchy: (\S+)", hier, re.M)
        shape = re.search(r"shape size=\d+ (nodes=\d+ ppn=[0-9-]+)", hier)
        site = rows(os.path.join(J, "job%s.site.csv" % jid))
        slog = text(os.path.join(J, "job%s.site.log" % jid))
        st = re.findall(r"^# status (\d+)", slog, re.M)
        data = "right" if site and st and st[-1] == "0" and "WRONG DATA" not in slog else "WRONG"
        h = hm.group(1) if hm else "missing"
        ok &= h == "match" and data == "right"
        low, g = "-", "-"
        if site:
            sp = [(float(r["speedup"]), int(r["size"])) for r in site]
            m = min(sp)
            lowest_all.append((m[0], jid, m[1]))
            ok &= m[0] >= FLOOR
            low = "%.3f at %s" % (m[0], human(m[1]))
            gv = gmean([float(r["speedup"]) for r in site if LO <= int(r["size"]) <= HI])
            gains.append(gv)
            g = "%.2fx" % gv
        else:
            ok = False
        print("%-3s %-6s %-11s %-7s %5s  %-28s %-9s %-5s %-16s %7s%s" % (
            jid, "%sx%s" % (nodes, k), place, pool.replace("-core", "c"), ranks,
            shape.group(1) if shape else "?", h, data, low, g, "  (tuned alone too)" if pj == "1" else ""))
        if pj == "1":
            own = rows(os.path.join(J, "job%s.own.csv" % jid))
            perjob.append((jid, nodes, k, place, pool, ranks, site, own))
    print()
    print("# the jobs tuned alone: topobcast-tuner --shapes job --max-timed 3 on the job's own ranks, the site's")
    print("#   topology, the compared sizes; time of the site table / time of the job's own table")
    print("%-3s %-6s %-11s %-7s %5s  %12s %12s %10s   %s" % ("job", "shape", "placement", "pool", "ranks",
                                                              "site/default", "own/default", "site/own",
                                                              "per size, 64K-8M: site/own"))
    for jid, nodes, k, place, pool, ranks, site, own in perjob:
        if not site or not own:
            print("%-3s %-6s missing comparison" % (jid, "%sx%s" % (nodes, k)))
            ok = False
            continue
        s = {int(r["size"]): float(r["topobcast_us"]) for r in site if LO <= int(r["size"]) <= HI}
        o = {int(r["size"]): float(r["topobcast_us"]) for r in own if LO <= int(r["size"]) <= HI}
        d = {int(r["size"]): float(r["default_us"]) for r in site if LO <= int(r["size"]) <= HI}
        common = sorted(set(s) & set(o))
        ratio = gmean([s[b] / o[b] for b in common])
        ok &= ratio <= WITHIN
        print("%-3s %-6s %-11s %-7s %5s  %11.2fx %11.2fx %9.3fx   %s" % (
            jid, "%sx%s" % (nodes, k), place, pool.replace("-core", "c"), ranks,
            gmean([d[b] / s[b] for b in common]), gmean([d[b] / o[b] for b in common]), ratio,
            " ".join("%s %.2f" % (human(b), s[b] / o[b]) for b in common)))
    print()
    # the calibration's cost
    print("# the site's calibration")
    tot_wall = 0
    for name in sorted(os.listdir(C)):
        if not (name.startswith("network") or name.startswith("node-")) or not name.endswith(".log"):
            continue
        t = text(os.path.join(C, name))
        m = re.search(r"measured (\d+) pairs in (\d+) rounds in ([0-9.]+) s of simulated time", t)
        c = sim_cost(os.path.join(C, name))
        hosts = re.search(r"probe: (\d+) ranks on (\d+) hosts", t)
        if m and c:
            tot_wall += c[0]
            print("  %-22s %4s ranks: %5s pairs in %4s rounds, %7.3f s simulated, %s wall, %.0f MB" % (
                name[:-4], hosts.group(1) if hosts else "?", m.group(1), m.group(2), float(m.group(3)),
                wall(c[0]), c[2]))
    first = text(os.path.join(C, "tuner.first.log"))
    cost = re.search(r"^site calibration cost: (.*)$", first, re.M)
    c = sim_cost(os.path.join(C, "tuner.first.log"))
    if cost:
        print("  tuner --site: %s" % cost.group(1))
    if c:
        tot_wall += c[0]
        print("  tuner --site: %s wall (its first run), %.0f s CPU, %.0f MB peak" % (wall(c[0]), c[1], c[2]))
    last = text(os.path.join(C, "tuner.log"))
    cost2 = re.search(r"^site calibration cost: (.*)$", last, re.M)
    if cost2 and cost and cost2.group(1) != cost.group(1):
        print("  tuner --site, last run (resumed): %s" % cost2.group(1))
    print("  calibration wall in all: %s" % wall(tot_wall))
    print()
    n = len(jobs)
    low = min(lowest_all) if lowest_all else (float("nan"), "-", 0)
    print("summary: %d jobs; hierarchy matched on %d, data right on %d; lowest default/site %.3f (job %s at %s; "
          "floor %.2f); 64K-8M gain over default: median %.2fx, range %.2f-%.2fx; site/own over 64K-8M: %s "
          "(within %.2f: %s)" % (
              n, sum(1 for j in jobs if re.search(r"^hierarchy: match", text(os.path.join(J, "job%s.hier.log" % j[0])), re.M)),
              sum(1 for j in jobs if re.findall(r"^# status 0", text(os.path.join(J, "job%s.site.log" % j[0])), re.M)),
              low[0], low[1], human(low[2]) if low[2] else "-", FLOOR,
              sorted(gains)[len(gains) // 2] if gains else float("nan"), min(gains) if gains else float("nan"),
              max(gains) if gains else float("nan"),
              ", ".join("%.3f" % gmean([float(a["topobcast_us"]) / float(b["topobcast_us"]) for a, b in zip(
                  [r for r in s if LO <= int(r["size"]) <= HI], [r for r in o if LO <= int(r["size"]) <= HI])])
                  for _, _, _, _, _, _, s, o in perjob if s and o),
              WITHIN, "yes" if ok else "NO"))
    print("verdict: %s" % ("every criterion holds" if ok else "NOT every criterion holds"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
