/* The communicators the tuner times; see shapes.h. */
#include "shapes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier.h" /* tb_sort_ranks_by_keys */

static const char *const names[TN_SHAPE_COUNT] = {"job", "one-per-node", "one-node", "rows", "half-nodes"};

const char *tn_shape_name(int kind)
{
    return kind >= 0 && kind < TN_SHAPE_COUNT ? names[kind] : "?";
}

int tn_shapes_parse(const char *text)
{
    if (strcmp(text, "all") == 0)
        return (1 << TN_SHAPE_COUNT) - 1;
    int set = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < TN_SHAPE_COUNT && (strlen(names[k]) != len || strncmp(p, names[k], len) != 0))
            k++;
        if (k == TN_SHAPE_COUNT)
            return -1;
        set |= 1 << k;
        p += len;
        if (*p == ',')
            p++;
    }
    return set ? set : -1;
}

void tn_shape_picks_free(tn_shape_pick *out, int n)
{
    for (int i = 0; i < n; i++) {
        free(out[i].members);
        free(out[i].node);
        out[i].members = out[i].node = NULL;
    }
}

/* Adds the ranks with in[r] set, unless too few or already there. */
static int add(tn_shape_pick *out, int *n, int cap, const char *label, const char *in, int P, int min_size)
{
    int size = 0;
    for (int r = 0; r < P; r++)
        size += in[r] != 0;
    if (size < min_size || *n >= cap)
        return 0;
    for (int i = 0; i < *n; i++) {
        int same = out[i].size == size;
        for (int k = 0; same && k < size; k++)
            same = in[out[i].members[k]] != 0;
        if (same)
            return 0;
    }
    int *m = malloc(sizeof *m * (size_t)size), *node = malloc(sizeof *node * (size_t)size);
    if (!m || !node) {
        free(m);
        free(node);
        return -1;
    }
    for (int r = 0, k = 0; r < P; r++)
        if (in[r])
            m[k++] = r;
    tn_shape_pick *p = &out[(*n)++];
    snprintf(p->label, sizeof p->label, "%s", label);
    p->size = size;
    p->members = m;
    p->node = node; /* filled by nodes_of */
    p->ppn_max = 0;
    return 0;
}

/* p's members' nodes (first[r]: the lowest rank of r's node) and the most
 * of them on one node; count[0..P) is zero before and after. */
static void nodes_of(tn_shape_pick *p, const int *first, int *count)
{
    for (int k = 0; k < p->size; k++) {
        p->node[k] = first[p->members[k]];
        if (++count[p->node[k]] > p->ppn_max)
            p->ppn_max = count[p->node[k]];
    }
    for (int k = 0; k < p->size; k++)
        count[p->node[k]] = 0;
}

/* first[r] = the lowest rank on r's node (order: scratch of P ints);
 * *nodes and *ppn_max: how many nodes, the most ranks on one.  0, or -1
 * out of memory. */
static int node_firsts(int P, const int *node_of, int *order, int *first, int *nodes, int *ppn_max)
{
    *nodes = *ppn_max = 0;
    if (P > 0 && tb_sort_ranks_by_keys(node_of, 1, P, order) != 0)
        return -1;
    /* ranks by node, ascending inside a node: a node's first is its lowest */
    for (int i = 0; i < P;) {
        int j = i;
        while (j + 1 < P && node_of[order[j + 1]] == node_of[order[i]])
            j++;
        for (int q = i; q <= j; q++)
            first[order[q]] = order[i];
        *ppn_max = j - i + 1 > *ppn_max ? j - i + 1 : *ppn_max;
        (*nodes)++;
        i = j + 1;
    }
    return 0;
}

int tn_shapes_choose(int P, const int *node_of, unsigned which, const int *comm_sizes, int ncomm_sizes,
                     tn_shape_pick *out, int cap)
{
    int n = 0, nodes = 0, ppn_max = 0;
    size_t cells = (size_t)(P > 0 ? P : 1);
    char *in = calloc(cells, 1);
    int *first = malloc(sizeof *first * cells); /* per rank: the lowest rank of its node */
    int *order = malloc(sizeof *order * cells);
    int *count = calloc(cells, sizeof *count); /* members per node, for nodes_of */
    if (!in || !first || !order || !count || node_firsts(P, node_of, order, first, &nodes, &ppn_max) != 0)
        goto oom;
    for (int k = 0; k < TN_SHAPE_COUNT; k++) {
        if (!(which & (1u << k)) && k != TN_SHAPE_JOB)
            continue;
        memset(in, 0, (size_t)P);
        int ok = 1;
        switch (k) {
        case TN_SHAPE_JOB:
            ok = which & (1u << k);
            memset(in, 1, (size_t)P);
            break;
        case TN_SHAPE_ONE_PER_NODE:
            ok = nodes >= 2 && ppn_max >= 2;
            for (int r = 0; r < P; r++)
                in[r] = first[r] == r;
            break;
        case TN_SHAPE_ONE_NODE:
            ok = nodes >= 2;
            for (int r = 0; r < P; r++)
                in[r] = first[r] == 0;
            break;
        case TN_SHAPE_ROWS: {
            int c = 1;
            for (int d = 2; (long)d * d <= P; d++)
                if (P % d == 0)
                    c = d;
            ok = c >= 2 && c < P;
            for (int r = 0; r < c; r++)
                in[r] = 1;
            break;
        }
        default: { /* half of the nodes, in the order of their lowest ranks */
            int want = nodes / 2, taken = 0;
            ok = want >= 1;
            for (int r = 0; r < P && taken < want; r++)
                if (first[r] == r) {
                    taken++;
                    for (int q = r; q < P; q++)
                        in[q] |= first[q] == r;
                }
            break;
        }
        }
        if (ok && add(out, &n, cap, names[k], in, P, k == TN_SHAPE_JOB ? 2 : TN_SHAPE_MIN_SIZE) != 0)
            goto oom;
    }
    for (int k = 0; k < ncomm_sizes; k++) {
        char label[TN_SHAPE_LABEL];
        int s = comm_sizes[k];
        if (s < 2 || s > P)
            continue;
        snprintf(label, sizeof label, s == P ? "job" : "first-%d", s);
        for (int r = 0; r < P; r++)
            in[r] = r < s;
        if (add(out, &n, cap, label, in, P, 2) != 0)
            goto oom;
    }
    for (int i = 0; i < n; i++)
        nodes_of(&out[i], first, count);
    free(in);
    free(first);
    free(order);
    free(count);
    return n;
oom:
    free(in);
    free(first);
    free(order);
    free(count);
    tn_shape_picks_free(out, n);
    return -1;
}

/* ---- the site's shapes ---------------------------------------------------- */

void tn_site_nodes_free(tn_site_nodes *sn)
{
    free(sn->start);
    free(sn->rank);
    free(sn->spread);
    free(sn->whole);
    memset(sn, 0, sizeof *sn);
}

/* Whether level l (group[l] by rank) keeps every node of sn whole. */
static int keeps_nodes(const tn_site_nodes *sn, const int *group)
{
    for (int i = 0; i < sn->n; i++)
        for (int q = sn->start[i] + 1; q < sn->start[i + 1]; q++)
            if (group[sn->rank[q]] != group[sn->rank[sn->start[i]]])
                return 0;
    return 1;
}

/* One digit of every node's place: digit[i] = the rank of child[i] among
 * the children of prefix[i] (ascending ids), and prefix[i] becomes the
 * dense id of (prefix, child).  key: scratch of 2n ints, order of n.
 * Children ids are numbered by first appearance in node order, so the
 * first node's digits are all 0. */
static void place_digit(int n, int *prefix, const int *child, int *digit, int *key, int *order)
{
    for (int i = 0; i < n; i++)
        key[2 * i] = prefix[i], key[2 * i + 1] = child[i];
    tb_sort_ranks_by_keys(key, 2, n, order);
    int id = -1, sib = 0;
    for (int k = 0; k < n; k++) {
        int i = order[k], j = k ? order[k - 1] : -1;
        int new_parent = k == 0 || key[2 * i] != key[2 * j];
        int new_child = new_parent || key[2 * i + 1] != key[2 * j + 1];
        sib = new_parent ? 0 : sib + new_child;
        id += new_child;
        digit[i] = sib;
        prefix[i] = id;
    }
}

/* ids[i] renumbered densely by first appearance over i = 0..n-1 (values in
 * 0..range-1; seen: scratch of range ints). */
static void renumber(int n, int *ids, int range, int *seen)
{
    for (int v = 0; v < range; v++)
        seen[v] = -1;
    int next = 0;
    for (int i = 0; i < n; i++) {
        if (seen[ids[i]] < 0)
            seen[ids[i]] = next++;
        ids[i] = seen[ids[i]];
    }
}

/* sn->spread: the nodes sorted by their place read from the finest digit
 * up (type, then each level keeping nodes whole, then the node among its
 * siblings); sn->whole: the same with the finest digit that varies below
 * the coarsest level read last, so that the groups of the finest level
 * above the nodes come whole (the spread order without such a level).
 * 0, or -1 out of memory. */
static int spread_order(tn_site_nodes *sn, int nlevels, int *const *group, const int *type_of)
{
    int n = sn->n, nd = nlevels + 2, rc = -1;
    int *digits = malloc(sizeof(int) * (size_t)n * (size_t)nd), *prefix = calloc((size_t)n, sizeof(int));
    int *child = malloc(sizeof(int) * (size_t)n), *key = malloc(sizeof(int) * 2 * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n), *seen = malloc(sizeof(int) * (size_t)(sn->P > n ? sn->P : n));
    int *col = malloc(sizeof(int) * (size_t)n);
    if (!digits || !prefix || !child || !key || !order || !seen || !col)
        goto out;
    int d = 0, kept = 0;
    for (int l = -1; l <= nlevels; l++) {
        if (l >= 0 && l < nlevels && !keeps_nodes(sn, group[l]))
            continue;
        if (l == -1 && !type_of)
            continue;
        for (int i = 0; i < n; i++) {
            int r = sn->rank[sn->start[i]];
            child[i] = l == -1 ? type_of[r] : l < nlevels ? group[l][r] : i;
        }
        if (l == -1) { /* types: any integers; as dense ids by first appearance */
            for (int i = 0; i < n; i++)
                key[i] = child[i];
            tb_sort_ranks_by_keys(key, 1, n, order);
            for (int k = 0, id = -1; k < n; k++) {
                id += k == 0 || key[order[k]] != key[order[k - 1]];
                child[order[k]] = id;
            }
        }
        kept += l >= 0 && l < nlevels;
        renumber(n, child, l >= 0 && l < nlevels ? sn->P : n, seen);
        place_digit(n, prefix, child, col, key, order);
        for (int i = 0; i < n; i++)
            digits[(size_t)i * (size_t)nd + (size_t)(nd - 1 - d)] = col[i];
        d++;
    }
    /* the finest digit most significant: digits were filled from the end */
    for (int i = 0; i < n; i++)
        memmove(&digits[(size_t)i * (size_t)d], &digits[(size_t)i * (size_t)nd + (size_t)(nd - d)],
                sizeof(int) * (size_t)d);
    tb_sort_ranks_by_keys(digits, d, n, sn->spread);
    /* the finest digit that varies below the coarsest level's (digits of
     * levels whose groups are the nodes themselves are all 0) */
    int f = -1;
    for (int j = 0; j < kept && f < 0; j++)
        for (int i = 0; i < n && f < 0; i++)
            if (digits[(size_t)i * (size_t)d + (size_t)j])
                f = j;
    if (f >= 0) { /* read last: the finest level's groups come whole */
        for (int i = 0; i < n; i++) {
            int *x = &digits[(size_t)i * (size_t)d], v = x[f];
            memmove(x + f, x + f + 1, sizeof(int) * (size_t)(d - 1 - f));
            x[d - 1] = v;
        }
        tb_sort_ranks_by_keys(digits, d, n, sn->whole);
    } else
        memcpy(sn->whole, sn->spread, sizeof(int) * (size_t)n);
    rc = 0;
out:
    free(digits), free(prefix), free(child), free(key), free(order), free(seen), free(col);
    return rc;
}

int tn_site_nodes_make(int P, const int *node_of, int nlevels, int *const *group, const int *type_of,
                       tn_site_nodes *sn)
{
    memset(sn, 0, sizeof *sn);
    if (P < 1)
        return -1;
    int *first = malloc(sizeof(int) * (size_t)P), *order = malloc(sizeof(int) * (size_t)P);
    sn->P = P;
    sn->rank = malloc(sizeof(int) * (size_t)P);
    int ok = first && order && sn->rank && node_firsts(P, node_of, order, first, &sn->n, &sn->ppn_max) == 0;
    if (ok) {
        sn->start = malloc(sizeof(int) * ((size_t)sn->n + 1));
        sn->spread = malloc(sizeof(int) * (size_t)sn->n);
        sn->whole = malloc(sizeof(int) * (size_t)sn->n);
        ok = sn->start && sn->spread && sn->whole;
    }
    /* nodes in the order of their lowest ranks: ranks sorted by that */
    if (ok)
        ok = tb_sort_ranks_by_keys(first, 1, P, sn->rank) == 0;
    for (int q = 0, i = 0; ok && q < P; q++)
        if (q == 0 || first[sn->rank[q]] != first[sn->rank[q - 1]])
            sn->start[i++] = q;
    if (ok) {
        sn->start[sn->n] = P;
        sn->ppn0 = sn->start[1] - sn->start[0];
        ok = spread_order(sn, nlevels, group, type_of) == 0;
    }
    free(first);
    free(order);
    if (!ok)
        tn_site_nodes_free(sn);
    return ok ? 0 : -1;
}

int tn_site_axis(int lo, int full, int *out, int cap)
{
    int n = 0;
    long cand[64];
    int nc = 0;
    cand[nc++] = lo;
    for (long p = 1; p < full && nc < 60; p *= 2)
        if (p > lo)
            cand[nc++] = p;
    cand[nc++] = full / 2;
    cand[nc++] = full;
    for (int k = 0; k < nc; k++) { /* ascending, each once, within lo..full */
        long best = -1;
        for (int j = 0; j < nc; j++)
            if (cand[j] >= lo && cand[j] <= full && (n == 0 || cand[j] > out[n - 1]) && (best < 0 || cand[j] < best))
                best = cand[j];
        if (best < 0 || n >= cap)
            break;
        out[n++] = (int)best;
    }
    return n;
}

/* The grid's counts from lo to full: tn_site_axis's and the midpoints
 * 3 x 2^k between them (2, 3, 4, 6, 8, 12 ...), so that a cell's ends lie
 * near its representative (a third of a doubling, not a half) and a cell
 * that cannot keep an algorithm gives up a smaller range.  At most cap. */
int tn_site_grid_axis(int lo, int full, int *out, int cap)
{
    int base[64], m = tn_site_axis(lo, full, base, 64), n = 0;
    for (int i = 0; i < m && n < cap; i++) {
        out[n++] = base[i];
        int mid = base[i] + base[i] / 2; /* 3 x 2^k past a power of two */
        if (i + 1 < m && (base[i] & (base[i] - 1)) == 0 && mid > base[i] && mid < base[i + 1] && n < cap)
            out[n++] = mid;
    }
    return n;
}

const char *tn_site_label(const tn_site_shape *s, char *buf, size_t len)
{
    static const char *const place[TN_PLACE_COUNT] = {"", "-scattered", "-random"};
    snprintf(buf, len, "%dx%d%s%s", s->nodes, s->ppn, s->place >= 0 && s->place < TN_PLACE_COUNT ? place[s->place] : "",
             s->draw == TN_DRAW_PACKED ? "-packed" : s->draw == TN_DRAW_WHOLE ? "-whole" : "");
    return buf;
}

/* A fixed pseudo-random sequence (splitmix64). */
static uint64_t mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Node i's rank at slot as member *c (its node, named by its lowest rank,
 * into node when given). */
static void put_member(const tn_site_nodes *sn, int i, int slot, int *members, int *node, int *c)
{
    members[*c] = sn->rank[sn->start[i] + slot];
    if (node)
        node[*c] = sn->rank[sn->start[i]];
    ++*c;
}

/* How many nodes hold at least k ranks. */
static int nodes_holding(const tn_site_nodes *sn, int k)
{
    int n = 0;
    for (int i = 0; i < sn->n; i++)
        n += sn->start[i + 1] - sn->start[i] >= k;
    return n;
}

int tn_site_members(const tn_site_nodes *sn, const tn_site_shape *s, int *members, int *node)
{
    int m = s->nodes, k = s->ppn, got = 0, size = 0;
    if (m < 1 || k < 1 || sn->n < 1 || sn->ppn_max < k)
        return -1;
    int *sel = malloc(sizeof(int) * (size_t)m), *cnt = malloc(sizeof(int) * (size_t)m);
    if (!sel || !cnt) {
        free(sel), free(cnt);
        return -1;
    }
    /* node 0 (world rank 0's) always, with as many of k as it holds */
    for (int j = 0; j < sn->n && got < m; j++) {
        int i = s->draw == TN_DRAW_PACKED ? j : s->draw == TN_DRAW_WHOLE ? sn->whole[j] : sn->spread[j];
        int have = sn->start[i + 1] - sn->start[i];
        if (have >= k || i == 0) {
            cnt[got] = have < k ? have : k;
            size += cnt[got];
            sel[got++] = i;
        }
    }
    if (got < m)
        size = -1;
    /* compact: each node's ranks in turn; otherwise round robin over the
     * nodes that have a rank left at that slot */
    if (size > 0) {
        int c = 0;
        if (s->place == TN_PLACE_SCATTERED) {
            for (int slot = 0; slot < k; slot++)
                for (int a = 0; a < m; a++)
                    if (slot < cnt[a])
                        put_member(sn, sel[a], slot, members, node, &c);
        } else {
            for (int a = 0; a < m; a++)
                for (int slot = 0; slot < cnt[a]; slot++)
                    put_member(sn, sel[a], slot, members, node, &c);
        }
    }
    if (size > 0 && s->place == TN_PLACE_RANDOM) { /* world rank 0 stays first */
        uint64_t x = (uint64_t)size * 1000003u + (uint64_t)m;
        for (int c = size - 1; c > 1; c--) {
            int j = 1 + (int)(mix(&x) % (uint64_t)c);
            int t = members[c];
            members[c] = members[j], members[j] = t;
            if (node)
                t = node[c], node[c] = node[j], node[j] = t;
        }
    }
    free(sel), free(cnt);
    return size;
}

/* Appends s, drawn `draw` (spread with one node or one rank per node),
 * unless the nodes cannot hold it, it is invalid (ppn above one on one
 * node, a placement of one rank per node ...) or its counts and placement
 * are already there. */
static void add_timed(const tn_site_nodes *sn, int nodes, int ppn, int place, int draw, tn_site_shape *out, int *n,
                      int cap)
{
    if (nodes > 1 && ppn == 1)
        place = TN_PLACE_COMPACT;
    if (nodes == 1)
        place = TN_PLACE_COMPACT;
    if (*n >= cap || nodes < 1 || ppn < 1 || nodes * ppn < 2 || ppn > sn->ppn_max)
        return;
    if (nodes_holding(sn, ppn) < nodes)
        return;
    for (int i = 0; i < *n; i++)
        if (out[i].nodes == nodes && out[i].ppn == ppn && out[i].place == place)
            return;
    out[(*n)++] = (tn_site_shape){nodes, ppn, place, nodes > 1 && ppn > 1 ? draw : TN_DRAW_SPREAD};
}

/* Node counts of the axis in bisection order: both ends, then the middle
 * of every interval left, coarsest first (nodes[0..n) ascending, n <= 64). */
static int bisection(const int *nodes, int n, int *out)
{
    int m = 0, lo[64], hi[64], head = 0, tail = 0;
    if (n > 0)
        out[m++] = nodes[n - 1];
    if (n > 1) {
        out[m++] = nodes[0];
        lo[tail] = 0, hi[tail++] = n - 1;
    }
    while (head < tail) { /* breadth first: a queue of index intervals */
        int a = lo[head], b = hi[head++], mid = (a + b) / 2;
        if (b - a < 2)
            continue;
        out[m++] = nodes[mid];
        if (tail + 2 <= 64)
            lo[tail] = a, hi[tail++] = mid, lo[tail] = mid, hi[tail++] = b;
    }
    return m;
}

/* The small cells' representatives (the site grid's: nodes on
 * tn_site_grid_axis, one, half or all of node 0's ranks per node, compact
 * and scattered) of at most `small` ranks, fewest ranks first (then fewest
 * nodes), after those already in out, to cap: a few ranks cost little to
 * time, and there the model's margin is as large as the gains. */
static void add_small(const tn_site_nodes *sn, int small, tn_site_shape *out, int *n, int cap)
{
    int an[64], na = sn->n >= 2 ? tn_site_grid_axis(2, sn->n, an, 64) : 0;
    const int ks[3] = {1, sn->ppn0 / 2, sn->ppn0};
    for (int size = 2; size <= small && size <= sn->P && *n < cap; size++)
        for (int i = -1; i < na; i++) /* -1: one node */
            for (int j = 0; j < 3; j++) {
                int nodes = i < 0 ? 1 : an[i], k = ks[j];
                if (nodes * k == size)
                    for (int c = 0; c < 2; c++)
                        add_timed(sn, nodes, k, c ? TN_PLACE_SCATTERED : TN_PLACE_COMPACT, TN_DRAW_WHOLE, out, n,
                                  cap);
            }
}

int tn_site_timed(const tn_site_nodes *sn, int budget, int small, tn_site_shape *out, int cap)
{
    int axis[64], order[64], n = 0, all = cap;
    int na = sn->n >= 2 ? tn_site_axis(2, sn->n, axis, 64) : 0;
    int no = bisection(axis, na, order);
    if (cap > budget && budget > 0)
        cap = budget;
    const int full = sn->ppn0, half = sn->ppn0 / 2;
    /* the ranks per node and placements of a node count, most telling first */
    const int first[3][2] = {{full, TN_PLACE_COMPACT}, {1, TN_PLACE_COMPACT}, {full, TN_PLACE_SCATTERED}};
    const int second[2][2] = {{half, TN_PLACE_COMPACT}, {half, TN_PLACE_SCATTERED}};
    for (int r = 0; r < 2 && r < no; r++)
        for (int c = 0; c < 3; c++)
            add_timed(sn, order[r], first[c][0], first[c][1], TN_DRAW_SPREAD, out, &n, cap);
    add_timed(sn, 1, full, TN_PLACE_COMPACT, TN_DRAW_SPREAD, out, &n, cap);
    /* nodes of more cores than the first (a partition of two node types):
     * all of theirs, on as many of them as have that many and on 2, with
     * world rank 0's node (every timed shape holds it) as full as it is */
    if (sn->ppn_max > full) {
        const int most[2] = {nodes_holding(sn, sn->ppn_max), 2};
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++)
                add_timed(sn, most[r], sn->ppn_max, c ? TN_PLACE_SCATTERED : TN_PLACE_COMPACT, TN_DRAW_SPREAD, out,
                          &n, cap);
    }
    for (int r = 0; r < 2 && r < no; r++)
        for (int c = 0; c < 2; c++)
            add_timed(sn, order[r], second[c][0], second[c][1], TN_DRAW_SPREAD, out, &n, cap);
    add_timed(sn, 1, half, TN_PLACE_COMPACT, TN_DRAW_SPREAD, out, &n, cap);
    /* the node counts between, full and one per node: the nodes axis, where
     * the model carries a measurement furthest */
    for (int r = 2; r < no; r++)
        for (int c = 0; c < 3; c++)
            add_timed(sn, order[r], first[c][0], first[c][1], TN_DRAW_SPREAD, out, &n, cap);
    add_small(sn, small, out, &n, all);
    return n;
}

int tn_site_picks(const tn_site_nodes *sn, const tn_site_shape *s, int n, tn_shape_pick *out, int cap)
{
    int k = 0;
    for (int i = 0; i < n && k < cap; i++) {
        int cap_size = s[i].nodes * s[i].ppn;
        int *m = malloc(sizeof *m * (size_t)cap_size), *node = malloc(sizeof *node * (size_t)cap_size);
        if (!m || !node) {
            free(m), free(node);
            tn_shape_picks_free(out, k);
            return -1;
        }
        int size = tn_site_members(sn, &s[i], m, node);
        if (size < 2) {
            free(m), free(node);
            continue;
        }
        tn_shape_pick *p = &out[k++];
        tn_site_label(&s[i], p->label, sizeof p->label);
        p->size = size;
        p->members = m;
        p->node = node;
        p->ppn_max = s[i].ppn;
    }
    return k;
}
