/* The configuration's topology: (schema: config/README.md, "topology"):
 * fingerprint, levels, leaves, groups and distance classes, each checked
 * where a human would fix it, then the lookup indexes (topo/index.c). */
#include "config/read_topology.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config/yaml_node.h"

#define MAX_NPROCS (1 << 24)

static int parse_fingerprint(tb_yaml_loader *L, const tb_ynode *n, const tb_ynode **hosts_node)
{
    tb_topology *t = &L->cfg->topo;
    tb_yaml_field f[] = {{"nprocs", 1, 0, 0}, {"hosts", 1, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 2, "the fingerprint") != 0)
        return -1;
    if (tb_yaml_get_int(L, f[0].val, 1, MAX_NPROCS, "the number of processes", &t->nprocs) != 0)
        return -1;
    const tb_ynode *hl = f[1].val;
    *hosts_node = hl;
    if (tb_yaml_expect_list(L, hl, "the list of hosts") != 0)
        return -1;
    int nh = tb_yaml_seq_len(hl);
    if (nh < 1)
        return tb_yaml_fail(L, hl, "expected at least one host");
    if (nh > t->nprocs)
        return tb_yaml_fail(L, hl, "expected at most %d hosts (one per process at most), got %d", t->nprocs, nh);
    /* each name once, in one pool: hosts[h] points into hosts[0]'s block */
    size_t pool = 0;
    for (int h = 0; h < nh; h++) {
        tb_ynode *hn = tb_yaml_seq_item(L, hl, h);
        char name[256];
        if (tb_yaml_get_name(L, hn, "a host name", 0, name, sizeof name) != 0)
            return -1;
        pool += strlen(name) + 1;
    }
    t->hosts = calloc((size_t)nh, sizeof *t->hosts);
    char *text = t->hosts ? malloc(pool) : NULL;
    if (!text)
        return tb_yaml_fail(L, hl, "expected a file that fits in memory");
    for (int h = 0, o = 0; h < nh; h++) {
        const char *name = tb_yaml_sval(L, tb_yaml_seq_item(L, hl, h));
        t->hosts[h] = text + o;
        memcpy(t->hosts[h], name, strlen(name) + 1);
        o += (int)strlen(name) + 1;
    }
    t->nhosts = nh;
    int a = 0, b = 0, rc = tb_topo_index_hosts(t, &a, &b);
    if (rc < 0)
        return tb_yaml_fail(L, hl, "expected a file that fits in memory");
    if (rc > 0 && strcmp(t->hosts[a], t->hosts[b]) == 0)
        return tb_yaml_fail(L, tb_yaml_seq_item(L, hl, b), "expected each host once: '%s' is already listed", t->hosts[b]);
    if (rc > 0)
        return tb_yaml_fail(L, tb_yaml_seq_item(L, hl, b), "expected host names with distinct hashes: '%s' and '%s' collide (rename one)",
                    t->hosts[a], t->hosts[b]);
    return 0;
}

static int parse_levels(tb_yaml_loader *L, const tb_ynode *n)
{
    tb_topology *t = &L->cfg->topo;
    if (tb_yaml_expect_list(L, n, "the level names, coarsest first") != 0)
        return -1;
    int nl = tb_yaml_seq_len(n);
    if (nl < 1 || nl > TB_MAX_LEVELS)
        return tb_yaml_fail(L, n, "expected 1 to %d level names, coarsest first, got %d", TB_MAX_LEVELS, nl);
    t->level_name = calloc((size_t)nl, sizeof *t->level_name);
    t->ngroups = calloc((size_t)nl, sizeof *t->ngroups);
    t->group = calloc((size_t)nl, sizeof *t->group);
    if (!t->level_name || !t->ngroups || !t->group)
        return tb_yaml_fail(L, n, "expected a file that fits in memory");
    t->nlevels = nl;
    for (int l = 0; l < nl; l++) {
        tb_ynode *ln = tb_yaml_seq_item(L, n, l);
        if (tb_yaml_get_name(L, ln, "a level name", 1, t->level_name[l], TB_LEVEL_NAME_MAX) != 0)
            return -1;
        for (int k = 0; k < l; k++)
            if (strcmp(t->level_name[k], t->level_name[l]) == 0)
                return tb_yaml_fail(L, ln, "expected each level once: '%s' is already listed", t->level_name[l]);
    }
    return 0;
}

/* leaves: one list per calibration rank, in rank order:
 * [host, pu] or [host, pu, core, package, numa], host an index into the
 * fingerprint's hosts. */
static int parse_leaves(tb_yaml_loader *L, const tb_ynode *n, const tb_ynode *hosts_node, const tb_ynode **leaf_nodes)
{
    tb_topology *t = &L->cfg->topo;
    const char *shape = "[host, pu] or [host, pu, core, package, numa] (host: an index into the fingerprint's hosts)";
    if (tb_yaml_expect_list(L, n, "the leaves (one per process of the calibration job, in rank order)") != 0)
        return -1;
    int nl = tb_yaml_seq_len(n);
    if (nl != t->nprocs)
        return tb_yaml_fail(L, n, "expected %d leaves (fingerprint nprocs), got %d", t->nprocs, nl);
    t->leaves = malloc((size_t)nl * sizeof *t->leaves);
    char *used = calloc((size_t)t->nhosts, 1);
    if (!t->leaves || !used) {
        free(used);
        return tb_yaml_fail(L, n, "expected a file that fits in memory");
    }
    t->nleaves = nl;
    int rc = 0;
    for (int i = 0; i < nl && rc == 0; i++) {
        tb_ynode *ln = tb_yaml_seq_item(L, n, i);
        if (!tb_yaml_is_list(ln) || tb_yaml_seq_len(ln) < 2 || tb_yaml_seq_len(ln) > 5) {
            char buf[64];
            rc = tb_yaml_fail(L, ln, "expected the leaf of calibration rank %d as %s, got %s", i, shape,
                      tb_yaml_is_list(ln) ? "a list of another length" : tb_yaml_shown(L, ln, buf, sizeof buf));
            break;
        }
        int v[5] = {0, -1, -1, -1, -1};
        rc = tb_yaml_list_int(L, ln, 0, 0, t->nhosts - 1, "a host index into the fingerprint's hosts", &v[0]);
        for (int k = 1; k < tb_yaml_seq_len(ln) && rc == 0; k++)
            rc = tb_yaml_list_int(L, ln, k, -1, INT_MAX, "an hwloc logical index or -1", &v[k]);
        t->leaves[i] = (tb_topo_leaf){v[0], v[1], v[2], v[3], v[4]};
        used[v[0]] = 1;
    }
    for (int h = 0; h < t->nhosts && rc == 0; h++)
        if (!used[h])
            rc = tb_yaml_fail(L, tb_yaml_seq_item(L, hosts_node, h), "expected every fingerprint host to have a leaf; '%s' has none",
                      t->hosts[h]);
    free(used);
    *leaf_nodes = n;
    return rc;
}

static int parse_groups(tb_yaml_loader *L, const tb_ynode *n)
{
    tb_topology *t = &L->cfg->topo;
    int nl = t->nlevels, nleaves = t->nleaves, rc = 0;
    tb_yaml_field f[TB_MAX_LEVELS];
    for (int l = 0; l < nl; l++)
        f[l] = (tb_yaml_field){t->level_name[l], 1, 0, 0};
    if (tb_yaml_take_fields(L, n, f, nl, "the groups (one entry per level)") != 0)
        return -1;
    /* the group each leaf was placed in, to point at it on a clash */
    int *placed = malloc((size_t)nleaves * sizeof *placed);
    if (!placed)
        return tb_yaml_fail(L, n, "expected a file that fits in memory");
    for (int l = 0; l < nl && rc == 0; l++) {
        const tb_ynode *gl = f[l].val;
        char what[96];
        snprintf(what, sizeof what, "the groups of level '%s' (a list of lists of ranks)", t->level_name[l]);
        if (tb_yaml_expect_list(L, gl, what) != 0) {
            rc = -1;
            break;
        }
        t->group[l] = malloc((size_t)nleaves * sizeof **t->group);
        if (!t->group[l]) {
            rc = tb_yaml_fail(L, gl, "expected a file that fits in memory");
            break;
        }
        for (int r = 0; r < nleaves; r++)
            t->group[l][r] = -1;
        int ng = tb_yaml_seq_len(gl);
        t->ngroups[l] = ng;
        for (int g = 0; g < ng && rc == 0; g++) {
            tb_ynode *gn = tb_yaml_seq_item(L, gl, g);
            if (tb_yaml_expect_list(L, gn, "a group (a list of ranks)") != 0) {
                rc = -1;
                break;
            }
            if (tb_yaml_seq_len(gn) == 0) {
                rc = tb_yaml_fail(L, gn, "expected a non-empty group of level '%s'", t->level_name[l]);
                break;
            }
            for (int i = 0; i < tb_yaml_seq_len(gn) && rc == 0; i++) {
                int lo = 0, hi = -1;
                if (tb_yaml_list_ranks(L, gn, i, nleaves - 1, &lo, &hi) != 0) {
                    rc = -1;
                    break;
                }
                for (int r = lo; r <= hi; r++) {
                    if (t->group[l][r] >= 0) {
                        rc = tb_yaml_fail_item(L, gn, i,
                                       "expected each rank in one group of level '%s': rank %d is already in the group at line %lu",
                                       t->level_name[l], r, tb_yaml_line_of(tb_yaml_seq_item(L, gl, placed[r])));
                        break;
                    }
                    t->group[l][r] = g;
                    placed[r] = g;
                }
            }
        }
        for (int r = 0; r < nleaves && rc == 0; r++)
            if (t->group[l][r] < 0)
                rc = tb_yaml_fail(L, gl, "expected the groups of level '%s' to cover every leaf; rank %d is in none",
                          t->level_name[l], r);
        if (rc != 0 || l == 0)
            continue;
        /* Finer levels must nest: a group split across two coarser groups
         * has no single leader at the coarser level. */
        int *parent = malloc((size_t)ng * sizeof *parent), *first = malloc((size_t)ng * sizeof *first);
        if (!parent || !first) {
            free(parent);
            free(first);
            rc = tb_yaml_fail(L, gl, "expected a file that fits in memory");
            break;
        }
        for (int g = 0; g < ng; g++)
            parent[g] = -1;
        for (int r = 0; r < nleaves && rc == 0; r++) {
            int g = t->group[l][r], up = t->group[l - 1][r];
            if (parent[g] < 0) {
                parent[g] = up;
                first[g] = r;
            } else if (parent[g] != up) {
                rc = tb_yaml_fail(L, tb_yaml_seq_item(L, gl, g),
                          "expected each group of level '%s' inside one group of level '%s'; ranks %d and %d are in different ones",
                          t->level_name[l], t->level_name[l - 1], first[g], r);
            }
        }
        free(parent);
        free(first);
    }
    free(placed);
    return rc;
}

/* distance: {unit: us, levels: [one per level, coarsest first], within: x} */
static int parse_distance(tb_yaml_loader *L, const tb_ynode *n)
{
    tb_topo_dist *d = &L->cfg->topo.dist;
    const tb_topology *t = &L->cfg->topo;
    tb_yaml_field f[] = {{"unit", 0, 0, 0}, {"levels", 1, 0, 0}, {"within", 1, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 3, "the distance classes") != 0)
        return -1;
    snprintf(d->unit, sizeof d->unit, "us");
    if (f[0].val && tb_yaml_get_name(L, f[0].val, "a unit such as us", 1, d->unit, sizeof d->unit) != 0)
        return -1;
    const tb_ynode *ll = f[1].val;
    if (tb_yaml_expect_list(L, ll, "the distance of each level, coarsest first") != 0)
        return -1;
    if (tb_yaml_seq_len(ll) != t->nlevels)
        return tb_yaml_fail(L, ll, "expected %d distances, one per level (coarsest first), got %d", t->nlevels, tb_yaml_seq_len(ll));
    for (int l = 0; l < t->nlevels; l++)
        if (tb_yaml_get_number(L, tb_yaml_seq_item(L, ll, l), "a distance", &d->level[l]) != 0)
            return -1;
    if (tb_yaml_get_number(L, f[2].val, "a distance", &d->within) != 0)
        return -1;
    /* finer groups are never farther apart: what distance_tree relies on */
    for (int l = 0; l < t->nlevels; l++) {
        int last = l + 1 == t->nlevels;
        double finer = last ? d->within : d->level[l + 1];
        if (d->level[l] < finer)
            return tb_yaml_fail(L, last ? f[2].val : tb_yaml_seq_item(L, ll, l + 1),
                        "expected distances that do not grow toward finer levels: level '%s' is %g, %s%s%s is %g",
                        t->level_name[l], d->level[l], last ? "within" : "level '",
                        last ? "" : t->level_name[l + 1], last ? "" : "'", finer);
    }
    d->given = 1;
    return 0;
}

int tb_yaml_read_topology(tb_yaml_loader *L, const tb_ynode *n)
{
    tb_yaml_field f[] = {{"fingerprint", 1, 0, 0}, {"levels", 1, 0, 0}, {"leaves", 1, 0, 0},
                 {"groups", 1, 0, 0}, {"distance", 0, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 5, "the topology") != 0)
        return -1;
    L->cfg->has_topology = 1;
    const tb_ynode *hosts_node = NULL, *leaves = NULL;
    if (parse_fingerprint(L, f[0].val, &hosts_node) != 0 || parse_levels(L, f[1].val) != 0)
        return -1;
    if (parse_leaves(L, f[2].val, hosts_node, &leaves) != 0 || parse_groups(L, f[3].val) != 0)
        return -1;
    if (f[4].val && parse_distance(L, f[4].val) != 0)
        return -1;
    tb_topology *t = &L->cfg->topo;
    int a = 0, b = 0, rc = tb_topo_index_leaves(t, &a, &b);
    if (rc < 0)
        return tb_yaml_fail(L, n, "expected a file that fits in memory");
    /* A running rank is matched to its leaf by (host, PU): two leaves with
     * the same place would make that ambiguous. */
    if (rc > 0)
        return tb_yaml_fail(L, tb_yaml_seq_item(L, leaves, b), "expected each (host, pu) once: ranks %d and %d are both on %s PU %d", a,
                    b, t->hosts[t->leaves[b].host], t->leaves[b].pu);
    return 0;
}
