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
 * group, so every rank builds the same tree.  Add order: a leader's edges
 * across a coarser level are added before its edges inside finer levels, so
 * its slowest sends go out first.
 *
 * Time complexity: the message crosses each group boundary once (one edge
 * into each group's leader) and every rank receives it once; the rounds are
 * the sum, over the levels on the root's path, of the fan-out's rounds among
 * the g groups it meets there (flat: g - 1, binomial: ceil(log2 g)).
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
#include "builders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hier_ctx {
    tb_tree *tree;
    const tb_alg_spec *spec;
    int nused;          /* grouping levels in use */
    int **eff;          /* eff[j][r]: group of rank r at used level j, refining j-1 */
    int *ord;           /* ranks sorted by (eff[0], ..., eff[nused-1], rank) */
    const tb_plan_env *env;
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
        return c->fan[j](c->tree, c->ord + s, e - s, xi, &c->fan_spec[j], 0, 1);
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
    int rc = xi < 0 ? -1 : 0;
    if (rc == 0 && nsub > 1)
        rc = c->fan[j](c->tree, leader, nsub, xi, &c->fan_spec[j], 0, 1);
    for (int n = 0; rc == 0 && n < nsub; n++)
        rc = build_group(c, j + 1, start[n], start[n + 1], leader[n]);
    free(leader);
    free(start);
    return rc;
}

/* Resolves spec->levels into used[] (indexes into h, coarsest first).  A
 * named level missing from h is skipped: it does not split this
 * communicator (a sub-communicator inside one island has no island level),
 * so leaving it out is what using it would mean.  Names are checked against
 * the topology when a configuration file is loaded (config_yaml.c). */
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
    if (tb_tree_init(&p->tree, size, root, 1) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    c.tree = &p->tree;
    if (build_group(&c, 0, 0, size, root) != 0 || tb_tree_finalize(&p->tree) != 0) {
        snprintf(err, errlen, "%s: cannot build tree for %d ranks", env->name(spec->id), size);
        goto out;
    }
    p->xchg = TB_XCHG_NONE;
    rc = 0;
out:
    if (c.eff)
        for (int j = 0; j < c.nused; j++)
            free(c.eff[j]);
    free(c.eff);
    free(c.ord);
    free(keys);
    free(used);
    return rc;
}
