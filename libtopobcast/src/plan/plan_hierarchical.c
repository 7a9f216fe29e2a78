/* Hierarchical broadcast trees: magpie, magpie2 and interpipe.
 *
 * The root sends to one leader per other group of the coarsest level, then
 * every leader does the same inside its group one level down, and so on to
 * the ranks.  Each group boundary is therefore crossed exactly once, which
 * is what makes these trees fast when the slow links are the coarse ones
 * (Kielmann et al., MagPIe; Reinfjell's magpie/magpie2/interpipe).
 *
 * Fan-outs:
 *   magpie     flat at every level, ranks inside the finest group included
 *              (MagPIe's point-to-point sends to the cluster coordinators).
 *              Without a hierarchy the single "group" would be the whole
 *              communicator and a flat tree of P ranks is the worst choice
 *              for any message size, so it degrades to binomial instead.
 *   magpie2    spec->base[]: one entry for every level, or one per level
 *              coarsest first with the last also used for the leaf level
 *              (ranks inside the finest group); none -> binomial.
 *   interpipe  the tree of magpie2.  The engine pipelines segments down one
 *              tree, so pipelining across levels needs nothing more here
 *              than spec->segment (defaulted by algorithm.c).
 *
 * Leaders: the root for its own groups, otherwise the lowest rank of the
 * group, so every rank builds the same tree.  leaders=2, with a two-tree
 * base: the second tree enters a group without the root at its last rank
 * in the tree's order (the highest rank of its last subgroup; of a finest
 * group, its highest rank), so each of the group's halves has its own
 * entry and no rank both receives from above and sends inside for the two
 * trees (BETZY-like, P=512, levels=node/socket, dbt in 16 KiB pieces:
 * 1 MiB in 311.2 us with one leader, 244.7 us with two).  Add order: a
 * leader's edges across a coarser level are added before its edges inside
 * finer levels, so its slowest sends go out first.
 *
 * feeds=F (magpie2, interpipe; fed_groups below): F ranks of every finest
 * group receive from outside it -- its leader from the level above, the
 * others each from the leader of a sibling group (same group one level up,
 * used or not) -- and the finest groups' leaders take their level's base
 * in rail order.  A finest group of k ranks then makes k - F copies through
 * its own memory instead of k - 1: the lower bound's term for a socket
 * (topology/README.md).  With `chains=C` a chain base forms C chains (one
 * per rail with C = F).
 *
 * Time complexity: the message crosses each group boundary once (one edge
 * into each group's leader) and every rank receives it once; the rounds are
 * the sum, over the levels on the root's path, of the fan-out's rounds among
 * the g groups it meets there (flat: g - 1, binomial: ceil(log2 g)).
 * With feeds=F every finest group gets F - 1 more edges from its siblings'
 * leaders and its members hang off F heads: the rounds inside it shrink as
 * its fan-out's over (k / F) ranks.
 * Building: O(L P log P) for L levels used (sorting the ranks by their
 * groups), plus the base builders' O(P).
 *
 * Example (test/unit/test_hier_trees.c builds it and compares this text):
 *   magpie, P = 8, root 0, node {0 1 2 3} {4 5 6 7}; socket {0 1} {2 3} {4} {5 6 7}
 *   0 -> 4 2 1
 *   4 -> 5
 *   2 -> 3
 *   5 -> 6 7
 *   depth 3, rounds 4
 */
#include "plan/builders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hier_ctx {
    tb_tree *tree;      /* the tree being built (one pass per tree of the plan) */
    tb_plan *plan;
    const tb_alg_spec *spec;
    int tree_index;     /* which tree of the plan this pass builds */
    int circ;           /* the coarsest level's leaders run a circulant before the trees */
    int nused;          /* grouping levels in use */
    int **eff;          /* eff[j][r]: group of rank r at used level j, refining j-1 */
    int *ord;           /* ranks sorted by (eff[0], ..., eff[nused-1], rank) */
    const tb_plan_env *env;
    int *rail;          /* feeds > 1: rail[r] = group of rank r at the level above the finest used
                           one (its finest group's siblings), NULL without such a level */
    tb_tree_builder fan[TB_MAX_LEVELS + 1]; /* per used level, then the leaf level */
    tb_alg_spec fan_spec[TB_MAX_LEVELS + 1];
} hier_ctx;

/* The spec a base builder sees: its own defaults, with the parameters the
 * user gave the hierarchical algorithm that make sense for it. */
static void base_spec(const tb_plan_env *env, tb_alg_spec *out, tb_alg_id base, const tb_alg_spec *outer)
{
    env->spec_default(out, base);
    if (outer->radix >= 2)
        out->radix = outer->radix;
    if (outer->chains >= 1)
        out->chains = outer->chains;
}

/* Level j's fan-out from members[xi] over members[0, n): its base tree
 * (tree c->tree_index of a two-tree base), each edge with level j's
 * segment when the spec has one per level; or, with a circulant at the
 * coarsest level, the members become the sources that exchange among
 * themselves before the trees (root first in the exchange order). */
static int fan_out(hier_ctx *c, int j, const int *members, int n, int xi)
{
    if (j == 0 && c->circ) {
        if (c->tree_index == 0) {
            c->plan->order[0] = members[xi];
            for (int i = 0, v = 1; i < n; i++)
                if (i != xi)
                    c->plan->order[v++] = members[i];
            c->plan->norder = n;
        }
        for (int i = 0; i < n; i++)
            if (i != xi && tb_tree_add_source(c->tree, members[i]) != 0)
                return -1;
        return 0;
    }
    int first = c->tree->nedges;
    c->fan_spec[j].tree_index = c->tree_index;
    if (c->fan[j](c->tree, members, n, xi, &c->fan_spec[j], c->tree_index, c->tree_index + 1) != 0)
        return -1;
    if (c->spec->nlevel_seg < 2)
        return 0;
    return tb_tree_set_segment(c->tree, first, tb_segment_piece(tb_alg_level_segment(c->spec, j)));
}

/* feeds = F > 1: the finest groups' fan-out inside the group [s, e) of
 * level j (leaders leader[0..nsub), runs from start[], the root's xi) with
 * F entries per finest group.  Siblings are the finest groups of one group
 * of the level above them (c->rail; the whole communicator when there is
 * none), used or not.
 *  - Rail order: the leaders take level j's base in the order (place among
 *    their siblings, sibling group), so that the k-th finest group of every
 *    node forms the k-th rail: a chain or binary tree over them then joins
 *    groups of different nodes (two sockets of a node are not fed one from
 *    the other) and spreads each node's sends over its groups.
 *  - Cross feeds: a finest group's members other than its leader are cut
 *    into F parts in rank order (fewer when it has fewer siblings or
 *    members); part 0 hangs off its own leader, part i >= 1 off its first
 *    member, which the leader of the i-th next sibling sends the message
 *    to.  So F ranks of each group receive from outside it, and only the
 *    rest are copies through its memory: the bound (topology/README.md)
 *    counts a host's memory and its ways in together.
 * Edges in send order: level j's, then the cross feeds, then inside the
 * parts, coarsest first as everywhere else. */
static int fed_groups(hier_ctx *c, int j, const int *leader, const int *start, int nsub, int xi)
{
    const int F = c->spec->feeds;
    int rc = -1;
    int *keys = calloc(2 * (size_t)nsub, sizeof(int)), *ord = malloc(sizeof(int) * (size_t)nsub);
    int *sib = malloc(sizeof(int) * (size_t)nsub);   /* next sibling of subgroup n (cyclic), or n */
    int *nsib = malloc(sizeof(int) * (size_t)nsub);  /* siblings of n, itself included */
    int *lo = malloc(sizeof(int) * (size_t)nsub), *m = NULL;
    if (!keys || !ord || !sib || !nsib || !lo)
        goto out;
    /* siblings: subgroups sorted by (rail group, subgroup) form one run per
     * rail group; sib[] links each to the next of its run, the last back to
     * the first; place = its index in the run.  O(nsub log nsub). */
    for (int n = 0; n < nsub; n++) {
        keys[2 * n] = c->rail ? c->rail[leader[n]] : 0;
        keys[2 * n + 1] = n;
    }
    if (tb_sort_ranks_by_keys(keys, 2, nsub, ord) != 0)
        goto out;
    for (int a = 0, b; a < nsub; a = b) {
        for (b = a + 1; b < nsub && keys[2 * ord[b]] == keys[2 * ord[a]]; b++)
            ;
        for (int i = a; i < b; i++) {
            sib[ord[i]] = ord[i + 1 < b ? i + 1 : a];
            nsib[ord[i]] = b - a;
            lo[ord[i]] = i - a; /* place, for the rail order below */
        }
    }
    for (int n = 0; n < nsub; n++)
        keys[2 * n] = lo[n];
    if (tb_sort_ranks_by_keys(keys, 2, nsub, ord) != 0)
        goto out;
    int oxi = -1;
    for (int i = 0; i < nsub; i++) {
        lo[i] = leader[ord[i]];
        if (ord[i] == xi)
            oxi = i;
    }
    if (nsub > 1 && fan_out(c, j, lo, nsub, oxi) != 0)
        goto out;
    /* the parts: subgroup n's other members in rank order, cut into
     * `parts` runs (at most F, and no more than it has siblings or
     * members); part i >= 1 is fed by the leader i siblings on */
    int most = 0;
    for (int n = 0; n < nsub; n++)
        most = start[n + 1] - start[n] > most ? start[n + 1] - start[n] : most;
    m = malloc(sizeof(int) * (size_t)(most > 0 ? most : 1));
    if (!m)
        goto out;
    for (int pass = 0; pass < 2; pass++) /* the cross feeds of every group first, then inside the parts */
        for (int n = 0; n < nsub; n++) {
            int k = 0; /* members besides the leader, in rank order */
            for (int i = start[n]; i < start[n + 1]; i++)
                if (c->ord[i] != leader[n])
                    m[1 + k++] = c->ord[i];
            int parts = F < nsib[n] ? F : nsib[n];
            if (parts > k + 1)
                parts = k + 1;
            m[0] = leader[n];
            /* the leader and the k members in parts of near-equal size
             * (the larger ones first), part 0 led by the leader, part i by
             * its first member (FRAM-like, P=512, 8 MiB, 8 ranks a socket,
             * chains=2: 4 + 4 measured 2310 us, 5 + 3 2553 us) */
            int at = 0;
            for (int i = 0, feeder = n; i < parts; i++) {
                int len = (k + 1) / parts + (i < (k + 1) % parts);
                if (i > 0) {
                    feeder = sib[feeder];
                    if (pass == 0) {
                        int first = c->tree->nedges;
                        if (tb_tree_add_edge(c->tree, leader[feeder], m[at], c->tree_index, c->tree_index + 1) != 0)
                            goto out;
                        if (c->spec->nlevel_seg >= 2 &&
                            tb_tree_set_segment(c->tree, first, tb_segment_piece(tb_alg_level_segment(c->spec, j))) != 0)
                            goto out;
                    }
                }
                if (pass == 1 && len > 1 && fan_out(c, j + 1, m + at, len, 0) != 0)
                    goto out;
                at += len;
            }
        }
    rc = 0;
out:
    free(keys);
    free(ord);
    free(sib);
    free(nsib);
    free(lo);
    free(m);
    return rc;
}

/* Fan-out of one group [s, e) of ord (a group at used level j - 1, or
 * everyone for j = 0) from its leader x, then recursion into its subgroups. */
static int build_group(hier_ctx *c, int j, int s, int e, int x)
{
    if (e - s <= 1)
        return 0;
    if (j == c->nused) {
        /* leaf level: ord[s, e) is one finest group, in rank order */
        int xi = -1;
        for (int i = s; i < e; i++)
            if (c->ord[i] == x)
                xi = i - s;
        if (xi < 0)
            return -1;
        return fan_out(c, j, c->ord + s, e - s, xi);
    }
    const int *g = c->eff[j];
    int nsub = 0;
    for (int i = s; i < e; i++)
        nsub += i == s || g[c->ord[i]] != g[c->ord[i - 1]];
    int *leader = malloc(sizeof(int) * (size_t)nsub);
    int *start = malloc(sizeof(int) * (size_t)(nsub + 1));
    if (!leader || !start) {
        free(leader);
        free(start);
        return -1;
    }
    /* Subgroups come out in increasing id order, which is increasing order of
     * their lowest ranks (ids are first-appearance), and each run starts with
     * its lowest rank (the sort key descends through first-appearance ids
     * down to the rank). */
    int xi = -1;
    for (int i = s, n = 0; i < e; i++) {
        if (i == s || g[c->ord[i]] != g[c->ord[i - 1]]) {
            start[n] = i;
            leader[n] = g[c->ord[i]] == g[x] ? x : c->ord[i];
            if (g[c->ord[i]] == g[x])
                xi = n;
            n++;
        }
    }
    start[nsub] = e;
    /* leaders=2: the second tree enters every group without the root at
     * its last rank in ord, so a group's two halves arrive at two ranks and
     * neither carries both trees' sends across its level and inside it.
     * Not the coarsest level's under a circulant: its leaders are the
     * exchange's members, the sources of both trees. */
    if (c->spec->leaders == 2 && c->tree_index == 1 && !(j == 0 && c->circ))
        for (int n = 0; n < nsub; n++)
            if (n != xi)
                leader[n] = c->ord[start[n + 1] - 1];
    int rc = xi < 0 ? -1 : 0;
    if (rc == 0 && c->spec->feeds > 1 && j + 1 == c->nused) {
        rc = fed_groups(c, j, leader, start, nsub, xi);
        free(leader);
        free(start);
        return rc;
    }
    if (rc == 0 && nsub > 1)
        rc = fan_out(c, j, leader, nsub, xi);
    for (int n = 0; rc == 0 && n < nsub; n++)
        rc = build_group(c, j + 1, start[n], start[n + 1], leader[n]);
    free(leader);
    free(start);
    return rc;
}

/* Resolves spec->levels into used[] (indexes into h, coarsest first).  A
 * level that groups this communicator's ranks as a coarser one does (one
 * node per island) is that level (tb_hier_level_index).  A named level
 * missing from h otherwise is skipped: it does not split this communicator
 * (a sub-communicator inside one island has no island level), so leaving
 * it out is what using it would mean.  Names are checked against the
 * topology when a configuration file is loaded (config/load.c). */
static int select_levels(const tb_plan_env *env, const tb_hier *h, const tb_alg_spec *spec, int *used, char *err,
                         size_t errlen)
{
    if (!spec->levels[0]) {
        for (int l = 0; l < h->nlevels; l++)
            used[l] = l;
        return h->nlevels;
    }
    int nl = h->nlevels;
    char *flag = calloc((size_t)nl, 1); /* levels named, in any order */
    if (!flag) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *p = spec->levels;
    while (1) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || len >= TB_LEVEL_NAME_MAX) {
            snprintf(err, errlen, "%s: bad level name '%.*s' in levels=%s", env->name(spec->id), (int)len, p,
                     spec->levels);
            free(flag);
            return -1;
        }
        char name[TB_LEVEL_NAME_MAX];
        memcpy(name, p, len);
        name[len] = '\0';
        int l = tb_hier_level_index(h, name);
        if (l >= 0)
            flag[l] = 1;
        if (!slash)
            break;
        p = slash + 1;
    }
    int n = 0;
    for (int l = 0; l < nl; l++)
        if (flag[l])
            used[n++] = l;
    free(flag);
    return n;
}

static tb_alg_id fan_alg(const tb_alg_spec *spec, int j, int leaf)
{
    if (spec->id == TB_ALG_MAGPIE)
        return TB_ALG_FLAT;
    if (spec->nbase <= 0)
        return TB_ALG_BINOMIAL;
    int nb = spec->nbase > TB_MAX_LEVELS ? TB_MAX_LEVELS : spec->nbase;
    if (leaf || j >= nb)
        return spec->base[nb - 1];
    return spec->base[j];
}

static int set_fan(hier_ctx *c, int slot, tb_alg_id id, char *err, size_t errlen)
{
    if (c->env->level_xchg(id) != TB_XCHG_NONE) {
        /* an exchange among leaders runs before every tree: only the
         * coarsest level's leaders can have the message by then */
        if (slot != 0) {
            snprintf(err, errlen, "%s: base %s can only be the coarsest level's (e.g. base=%s/binomial)",
                     c->env->name(c->spec->id), c->env->name(id), c->env->name(id));
            return -1;
        }
        c->circ = 1;
        c->fan[slot] = NULL;
        return 0;
    }
    c->fan[slot] = c->env->tree_builder(id);
    if (!c->fan[slot]) {
        snprintf(err, errlen, "%s: base %s cannot be used as a level fan-out", c->env->name(c->spec->id),
                 c->env->name(id));
        return -1;
    }
    base_spec(c->env, &c->fan_spec[slot], id, c->spec);
    return 0;
}

int tb_plan_hierarchical(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen)
{
    if (size < 1 || root < 0 || root >= size) {
        snprintf(err, errlen, "%s: root %d outside 0..%d", env->name(spec->id), root, size - 1);
        return -1;
    }
    if (h && h->nlevels > 0 && h->size != size) {
        snprintf(err, errlen, "%s: hierarchy has %d ranks, communicator %d", env->name(spec->id), h->size,
                 size);
        return -1;
    }
    hier_ctx c;
    memset(&c, 0, sizeof c);
    c.spec = spec;
    c.env = env;
    int rc = -1;
    int *used = NULL;
    int *keys = NULL;
    int nl = h ? h->nlevels : 0;
    /* levels= is only checked against a hierarchy that has levels: without
     * one there is nothing to select, the base tree is used regardless, and
     * e.g. a one-node job whose only level was normalised away as trivial
     * keeps working */
    if (nl > 0) {
        used = malloc(sizeof(int) * (size_t)nl);
        if (!used) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        c.nused = select_levels(env, h, spec, used, err, errlen);
        if (c.nused < 0)
            goto out;
    }
    if (c.nused > TB_MAX_LEVELS) {
        /* per-level fan-out slots are bounded; the extra finest levels are
         * merged into the leaf level, which only costs locality below them */
        c.nused = TB_MAX_LEVELS;
    }
    if (c.nused == 0 && spec->id == TB_ALG_MAGPIE) {
        if (set_fan(&c, 0, TB_ALG_BINOMIAL, err, errlen) != 0)
            goto out;
    } else {
        for (int j = 0; j <= c.nused; j++)
            if (set_fan(&c, j, fan_alg(spec, j, j == c.nused), err, errlen) != 0)
                goto out;
    }
    c.eff = calloc((size_t)(c.nused > 0 ? c.nused : 1), sizeof(int *));
    c.ord = malloc(sizeof(int) * (size_t)size);
    keys = malloc(sizeof(int) * (size_t)size * (size_t)(c.nused > 0 ? c.nused : 1));
    if (!c.eff || !c.ord || !keys) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* Levels left out are merged away: intersecting each used level with the
     * previous used one keeps the hierarchy a refinement whatever was
     * skipped (and whether or not h was normalised). */
    for (int j = 0; j < c.nused; j++) {
        c.eff[j] = malloc(sizeof(int) * (size_t)size);
        if (!c.eff[j] || tb_hier_refine(size, j ? c.eff[j - 1] : NULL, h->group[used[j]], c.eff[j]) < 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    }
    for (int r = 0; r < size; r++)
        for (int j = 0; j < c.nused; j++)
            keys[(size_t)r * (size_t)c.nused + (size_t)j] = c.eff[j][r];
    if (tb_sort_ranks_by_keys(keys, c.nused, size, c.ord) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* feeds: the finest used level's siblings are the groups of the level
     * above it in h (the whole communicator when it is h's coarsest) */
    if (spec->feeds > 1 && c.nused > 0 && used[c.nused - 1] > 0) {
        c.rail = malloc(sizeof(int) * (size_t)size);
        if (!c.rail) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        memcpy(c.rail, h->group[used[c.nused - 1] - 1], sizeof(int) * (size_t)size);
    }
    /* a two-tree base makes two trees, each carrying half the message;
     * every other base builds the same tree for both halves */
    p->ntrees = 1;
    for (int j = 0; j <= c.nused; j++)
        if (c.fan[j] && env->ntrees(fan_alg(spec, j, j == c.nused)) == 2)
            p->ntrees = 2;
    if (c.circ && !(p->order = malloc(sizeof(int) * (size_t)size))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    c.plan = p;
    for (int k = 0; k < p->ntrees; k++) {
        tb_tree *t = k == 0 ? &p->tree : &p->tree2;
        if (tb_tree_init(t, size, root, p->ntrees) != 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        c.tree = t;
        c.tree_index = k;
        if (build_group(&c, 0, 0, size, root) != 0 || tb_tree_finalize(t) != 0) {
            snprintf(err, errlen, "%s: cannot build tree for %d ranks", env->name(spec->id), size);
            goto out;
        }
    }
    p->xchg = c.circ ? TB_XCHG_CIRC : TB_XCHG_NONE;
    rc = 0;
out:
    if (c.eff)
        for (int j = 0; j < c.nused; j++)
            free(c.eff[j]);
    free(c.eff);
    free(c.rail);
    free(c.ord);
    free(keys);
    free(used);
    return rc;
}
