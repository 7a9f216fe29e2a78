#!/usr/bin/env bash
# call_cycles.sh DIR...: call cycles between object files.
#
# Every *.o under the given directories (searched recursively, e.g.
# build/obj/probe build/obj/topology) is a vertex; A -> B when A uses a
# symbol B defines (`nm -u` of A against `nm --defined-only` of B).  Each
# strongly connected component of more than one object is a cycle: printed
# as one line naming a closed path through all of it, then one line per
# edge inside it with the symbols that make it.  Exit status 1 if any cycle
# was found, 0 if none, 2 on bad usage.
#
#   test/layout/call_cycles.sh build/obj/probe build/obj/topology
#   cycle: build/obj/probe/a.o -> build/obj/probe/b.o -> build/obj/probe/a.o
#     build/obj/probe/a.o -> build/obj/probe/b.o: b_fn
#     build/obj/probe/b.o -> build/obj/probe/a.o: a_fn
#   1 cycle(s) among 2 objects
set -u
if [ $# -eq 0 ]; then
    echo "usage: $0 DIR..." >&2
    exit 2
fi
for d in "$@"; do
    if [ ! -d "$d" ]; then
        echo "$0: $d: not a directory" >&2
        exit 2
    fi
done

# One line per fact: "D OBJ SYM" (OBJ defines SYM), "U OBJ SYM" (OBJ uses it).
facts() {
    find "$@" -name '*.o' -type f | LC_ALL=C sort | while read -r o; do
        nm --defined-only "$o" 2>/dev/null | awk -v o="$o" '$2 ~ /^[A-TV-Z]$/ { print "D", o, $3 }'
        nm -u "$o" 2>/dev/null | awk -v o="$o" '{ print "U", o, $NF }'
    done
}

facts "$@" | awk '
$1 == "D" { if (!(($3, $2) in defd)) { defd[$3, $2] = 1; ndef[$3]++; def[$3, ndef[$3]] = $2 }
            if (!($2 in isobj)) { isobj[$2] = 1; obj[++nobj] = $2 } next }
$1 == "U" { nuse++; use_o[nuse] = $2; use_s[nuse] = $3
            if (!($2 in isobj)) { isobj[$2] = 1; obj[++nobj] = $2 } }
END {
    for (k = 1; k <= nuse; k++) {
        a = use_o[k]; s = use_s[k]
        for (d = 1; d <= ndef[s]; d++) {
            b = def[s, d]
            if (b == a) continue
            if (!((a, b) in edge)) { edge[a, b] = s; nout[a]++; out[a, nout[a]] = b }
            else edge[a, b] = edge[a, b] " " s
        }
    }
    # Tarjan, recursively over the objects in sorted order (deterministic).
    idx = 0; sp = 0; ncyc = 0; ninvolved = 0
    for (i = 1; i <= nobj; i++)
        if (!(obj[i] in num)) strong(obj[i])
    printf "%d cycle(s) among %d objects\n", ncyc, ninvolved
    exit ncyc > 0
}
function strong(v,    k, w, n, m) {
    num[v] = low[v] = ++idx
    stack[++sp] = v; onstack[v] = 1
    for (k = 1; k <= nout[v]; k++) {
        w = out[v, k]
        if (!(w in num)) { strong(w); if (low[w] < low[v]) low[v] = low[w] }
        else if ((w in onstack) && num[w] < low[v]) low[v] = num[w]
    }
    if (low[v] != num[v]) return
    n = 0
    do { w = stack[sp--]; delete onstack[w]; comp[w] = v; list[++n] = w } while (w != v)
    if (n < 2) return
    ncyc++; ninvolved += n
    sort_list(n)
    for (m = 1; m <= n; m++) member[m] = list[m]
    printf "cycle: %s\n", closed_path(n, v)
    for (m = 1; m <= n; m++)
        for (k = 1; k <= nout[member[m]]; k++) {
            w = out[member[m], k]
            if (comp[w] == v) printf "  %s -> %s: %s\n", member[m], w, edge[member[m], w]
        }
}
# A closed walk through every member of component c (member[1..n], sorted):
# from member[1], a shortest path inside c to each member not yet on the
# walk, then back to member[1].
function closed_path(n, c,    walk, on, cur, i, t) {
    walk = member[1]; cur = member[1]; on[cur] = 1
    for (i = 2; i <= n + 1; i++) {
        t = (i <= n) ? member[i] : member[1]
        if (i <= n && (t in on)) continue
        walk = walk path_to(cur, t, c, on)
        cur = t
    }
    return walk
}
# " -> x -> ... -> target", breadth-first inside component c; marks the
# objects passed in on[].
function path_to(from, target, c, on,    q, head, tail, prev, u, k, w, s, p) {
    head = 1; tail = 0; q[++tail] = from; prev[from] = from
    while (head <= tail && !(target in prev)) {
        u = q[head++]
        for (k = 1; k <= nout[u]; k++) {
            w = out[u, k]
            if (comp[w] != c || (w in prev)) continue
            prev[w] = u; q[++tail] = w
        }
    }
    s = ""; p = target
    do { s = " -> " p s; on[p] = 1; p = prev[p] } while (p != from)
    return s
}
# Sorts list[1..n] (insertion sort: components are small).
function sort_list(n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = list[i]; for (j = i - 1; j >= 1 && list[j] > t; j--) list[j + 1] = list[j]; list[j + 1] = t }
}
'
