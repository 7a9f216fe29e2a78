/* The configuration's topology (schema: config/README.md, "topology"):
 * fingerprint, levels, then either a job's leaves and their groups or a
 * site's host groups and node types, and the distance classes; each
 * checked where a human would fix it, then the lookup indexes
 * (topo/topo.c). */
#include "config/read_topology.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config/yaml_node.h"

#define MAX_NPROCS (1 << 24)
#define MAX_TYPES 64

static int oom(tb_yaml_loader *L, const tb_ynode *n)
{
    return tb_yaml_fail(L, n, "expected a file that fits in memory");
}

/* hwloc's summary of a host ("2 packages, 8 NUMA nodes, 128 cores, 256
 * PUs", tb_hwloc_summary): printable, shorter than TB_TOPO_HWLOC_MAX; ""
 * says unknown. */
static int get_hwloc(tb_yaml_loader *L, const tb_ynode *n, char *dst)
{
    const char *s;
    char buf[64];
    const char *what = "hwloc's summary of a host";
    if (tb_yaml_scalar(L, n, what, &s) != 0)
        return -1;
    size_t len = strlen(s);
    int ok = len < TB_TOPO_HWLOC_MAX;
    for (size_t i = 0; ok && i < len; i++)
        ok = (unsigned char)s[i] >= 0x20 && s[i] != 0x7f;
    if (!ok)
        return tb_yaml_fail(L, n, "expected %s (at most %d printable characters, such as \"2 packages, 8 NUMA nodes, 128 "
                                  "cores, 256 PUs\"), got '%s'",
                            what, TB_TOPO_HWLOC_MAX - 1, tb_yaml_shown(L, n, buf, sizeof buf));
    memcpy(dst, s, len + 1);
    return 0;
}

/* fingerprint hwloc: one summary per host, in the order of hosts, kept in
 * one pool (t->host_hwloc[0] first).  O(hosts). */
static int parse_host_hwloc(tb_yaml_loader *L, const tb_ynode *hl)
{
    tb_topology *t = &L->cfg->topo;
    if (tb_yaml_expect_list(L, hl, "hwloc's summary of each host, in the order of hosts") != 0)
        return -1;
    if (tb_yaml_seq_len(hl) != t->nhosts)
        return tb_yaml_fail(L, hl, "expected one hwloc summary per host (%d host%s), \"\" where unknown; got %d",
                            t->nhosts, t->nhosts == 1 ? "" : "s", tb_yaml_seq_len(hl));
    char one[TB_TOPO_HWLOC_MAX];
    size_t pool = 0;
    for (int h = 0; h < t->nhosts; h++) {
        if (get_hwloc(L, tb_yaml_seq_item(L, hl, h), one) != 0)
            return -1;
        pool += strlen(one) + 1;
    }
    t->host_hwloc = calloc((size_t)t->nhosts, sizeof *t->host_hwloc);
    char *text = t->host_hwloc ? malloc(pool) : NULL;
    if (!text)
        return oom(L, hl);
    for (int h = 0, o = 0; h < t->nhosts; h++) {
        const char *v = tb_yaml_sval(L, tb_yaml_seq_item(L, hl, h));
        t->host_hwloc[h] = text + o;
        memcpy(t->host_hwloc[h], v, strlen(v) + 1);
        o += (int)strlen(v) + 1;
    }
    return 0;
}

/* fingerprint: {nprocs: N, hosts: [...], hwloc: [...]}; nprocs only in a
 * job's topology (with leaves), where it is optional and equals the
 * leaves' count; hwloc optional, one summary per host */
static int parse_fingerprint(tb_yaml_loader *L, const tb_ynode *n, const tb_ynode **hosts_node,
                             const tb_ynode **nprocs_node)
{
    tb_topology *t = &L->cfg->topo;
    tb_yaml_field f[] = {{"nprocs", 0, 0, 0}, {"hosts", 1, 0, 0}, {"hwloc", 0, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 3, "the fingerprint") != 0)
        return -1;
    *nprocs_node = f[0].val;
    if (f[0].val && tb_yaml_get_int(L, f[0].val, 1, MAX_NPROCS, "the number of processes", &t->nprocs) != 0)
        return -1;
    const tb_ynode *hl = f[1].val;
    *hosts_node = hl;
    if (tb_yaml_expect_list(L, hl, "the list of hosts") != 0)
        return -1;
    int nh = tb_yaml_seq_len(hl);
    if (nh < 1)
        return tb_yaml_fail(L, hl, "expected at least one host");
    if (nh > MAX_NPROCS)
        return tb_yaml_fail(L, hl, "expected at most %d hosts, got %d", MAX_NPROCS, nh);
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
        return oom(L, hl);
    for (int h = 0, o = 0; h < nh; h++) {
        const char *name = tb_yaml_sval(L, tb_yaml_seq_item(L, hl, h));
        t->hosts[h] = text + o;
        memcpy(t->hosts[h], name, strlen(name) + 1);
        o += (int)strlen(name) + 1;
    }
    t->nhosts = nh;
    int a = 0, b = 0, rc = tb_topo_index_hosts(t, &a, &b);
    if (rc < 0)
        return oom(L, hl);
    if (rc > 0 && strcmp(t->hosts[a], t->hosts[b]) == 0)
        return tb_yaml_fail(L, tb_yaml_seq_item(L, hl, b), "expected each host once: '%s' is already listed", t->hosts[b]);
    if (rc > 0)
        return tb_yaml_fail(L, tb_yaml_seq_item(L, hl, b), "expected host names with distinct hashes: '%s' and '%s' collide (rename one)",
                    t->hosts[a], t->hosts[b]);
    return f[2].val ? parse_host_hwloc(L, f[2].val) : 0;
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
        return oom(L, n);
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

/* One PU or process record: [first, pu, core, package, numa] with `first`
 * the host index (hosts: its bound) in a job's leaves, or [pu, core,
 * package, numa] in a node type (hosts 0: no host field, pu >= 0). */
static int parse_record(tb_yaml_loader *L, const tb_ynode *ln, int hosts, const char *shape, const char *whose,
                        tb_topo_leaf *out)
{
    int off = hosts ? 1 : 0, min = hosts ? 2 : 1;
    if (!tb_yaml_is_list(ln) || tb_yaml_seq_len(ln) < min || tb_yaml_seq_len(ln) > 4 + off) {
        char buf[64];
        return tb_yaml_fail(L, ln, "expected %s as %s, got %s", whose, shape,
                            tb_yaml_is_list(ln) ? "a list of another length" : tb_yaml_shown(L, ln, buf, sizeof buf));
    }
    int v[5] = {-1, -1, -1, -1, -1};
    if (hosts && tb_yaml_list_int(L, ln, 0, 0, hosts - 1, "a host index into the fingerprint's hosts", &v[0]) != 0)
        return -1;
    for (int k = off; k < tb_yaml_seq_len(ln); k++)
        if (tb_yaml_list_int(L, ln, k, k == off && !hosts ? 0 : -1, INT_MAX,
                             k == off && !hosts ? "an hwloc logical PU index" : "an hwloc logical index or -1",
                             &v[k - off + 1]) != 0)
            return -1;
    *out = (tb_topo_leaf){v[0], v[1], v[2], v[3], v[4]};
    return 0;
}

/* leaves: one list per calibration rank, in rank order:
 * [host, pu] or [host, pu, core, package, numa], host an index into the
 * fingerprint's hosts. */
static int parse_leaves(tb_yaml_loader *L, const tb_ynode *n, const tb_ynode *hosts_node, const tb_ynode *nprocs_node)
{
    tb_topology *t = &L->cfg->topo;
    const char *shape = "[host, pu] or [host, pu, core, package, numa] (host: an index into the fingerprint's hosts)";
    if (tb_yaml_expect_list(L, n, "the leaves (one per process of the calibration job, in rank order)") != 0)
        return -1;
    int nl = tb_yaml_seq_len(n);
    if (nl < 1 || nl > MAX_NPROCS)
        return tb_yaml_fail(L, n, "expected 1 to %d leaves, one per process of the calibration job, got %d", MAX_NPROCS, nl);
    if (nprocs_node && nl != t->nprocs)
        return tb_yaml_fail(L, n, "expected %d leaves (fingerprint nprocs), got %d", t->nprocs, nl);
    t->nprocs = nl;
    t->leaves = malloc((size_t)nl * sizeof *t->leaves);
    char *used = calloc((size_t)t->nhosts, 1);
    if (!t->leaves || !used) {
        free(used);
        return oom(L, n);
    }
    t->nleaves = nl;
    int rc = 0;
    for (int i = 0; i < nl && rc == 0; i++) {
        char whose[64];
        snprintf(whose, sizeof whose, "the leaf of calibration rank %d", i);
        rc = parse_record(L, tb_yaml_seq_item(L, n, i), t->nhosts, shape, whose, &t->leaves[i]);
        if (rc == 0)
            used[t->leaves[i].host] = 1;
    }
    for (int h = 0; h < t->nhosts && rc == 0; h++)
        if (!used[h])
            rc = tb_yaml_fail(L, tb_yaml_seq_item(L, hosts_node, h),
                              "expected every fingerprint host to have a leaf; '%s' has none", t->hosts[h]);
    free(used);
    return rc;
}

/* The groups of levels names[0..nl) (the keys of node n, all of them, no
 * others) over n_members members called `member` (each one of the
 * `whole`s: "rank" of the leaves, "host" of the hosts): group[l][m] and
 * ngroups[l], every member in exactly one group of each level, each group
 * of a level inside one group of the level before. */
static int parse_group_levels(tb_yaml_loader *L, const tb_ynode *n, char (*names)[TB_LEVEL_NAME_MAX], int nl,
                              int n_members, const char *member, const char *whole, const char *what, int **group,
                              int *ngroups)
{
    int rc = 0;
    tb_yaml_field f[TB_MAX_LEVELS];
    for (int l = 0; l < nl; l++)
        f[l] = (tb_yaml_field){names[l], 1, 0, 0};
    if (tb_yaml_take_fields(L, n, f, nl, what) != 0)
        return -1;
    /* the group each member was placed in, to point at it on a clash */
    int *placed = malloc((size_t)(n_members > 0 ? n_members : 1) * sizeof *placed);
    if (!placed)
        return oom(L, n);
    for (int l = 0; l < nl && rc == 0; l++) {
        const tb_ynode *gl = f[l].val;
        char lwhat[96];
        snprintf(lwhat, sizeof lwhat, "the groups of level '%s' (a list of lists of %ss)", names[l], member);
        char item[48];
        snprintf(item, sizeof item, strcmp(whole, member) == 0 ? "a %s index" : "a %s %s", whole, member);
        if (tb_yaml_expect_list(L, gl, lwhat) != 0) {
            rc = -1;
            break;
        }
        group[l] = malloc((size_t)(n_members > 0 ? n_members : 1) * sizeof **group);
        if (!group[l]) {
            rc = oom(L, gl);
            break;
        }
        for (int r = 0; r < n_members; r++)
            group[l][r] = -1;
        int ng = tb_yaml_seq_len(gl);
        ngroups[l] = ng;
        for (int g = 0; g < ng && rc == 0; g++) {
            tb_ynode *gn = tb_yaml_seq_item(L, gl, g);
            char gwhat[64];
            snprintf(gwhat, sizeof gwhat, "a group (a list of %ss)", member);
            if (tb_yaml_expect_list(L, gn, gwhat) != 0) {
                rc = -1;
                break;
            }
            if (tb_yaml_seq_len(gn) == 0) {
                rc = tb_yaml_fail(L, gn, "expected a non-empty group of level '%s'", names[l]);
                break;
            }
            for (int i = 0; i < tb_yaml_seq_len(gn) && rc == 0; i++) {
                int lo = 0, hi = -1;
                if (tb_yaml_list_ranks(L, gn, i, n_members - 1, item, &lo, &hi) != 0) {
                    rc = -1;
                    break;
                }
                for (int r = lo; r <= hi; r++) {
                    if (group[l][r] >= 0) {
                        rc = tb_yaml_fail_item(L, gn, i,
                                               "expected each %s in one group of level '%s': %s %d is already in the group at line %lu",
                                               member, names[l], member, r,
                                               tb_yaml_line_of(tb_yaml_seq_item(L, gl, placed[r])));
                        break;
                    }
                    group[l][r] = g;
                    placed[r] = g;
                }
            }
        }
        for (int r = 0; r < n_members && rc == 0; r++)
            if (group[l][r] < 0)
                rc = tb_yaml_fail(L, gl, "expected the groups of level '%s' to cover every %s; %s %d is in none",
                                  names[l], whole, member, r);
        if (rc != 0 || l == 0)
            continue;
        /* Finer levels must nest: a group split across two coarser groups
         * has no single leader at the coarser level. */
        int *parent = malloc((size_t)ng * sizeof *parent), *first = malloc((size_t)ng * sizeof *first);
        if (!parent || !first) {
            free(parent);
            free(first);
            rc = oom(L, gl);
            break;
        }
        for (int g = 0; g < ng; g++)
            parent[g] = -1;
        for (int r = 0; r < n_members && rc == 0; r++) {
            int g = group[l][r], up = group[l - 1][r];
            if (parent[g] < 0) {
                parent[g] = up;
                first[g] = r;
            } else if (parent[g] != up) {
                rc = tb_yaml_fail(L, tb_yaml_seq_item(L, gl, g),
                                  "expected each group of level '%s' inside one group of level '%s'; %ss %d and %d are in different ones",
                                  names[l], names[l - 1], member, first[g], r);
            }
        }
        free(parent);
        free(first);
    }
    free(placed);
    return rc;
}

/* The keys of a mapping, in order, as level names: how many of them, the
 * first n of the topology's levels from `from` on, in order (0 when they
 * are not). */
static int levels_prefix(tb_yaml_loader *L, const tb_ynode *map, int from, int *count)
{
    const tb_topology *t = &L->cfg->topo;
    *count = 0;
    if (map->type != Y_MAP)
        return 0;
    for (uint32_t i = 0; i + 1 < map->len; i += 2) {
        const tb_ynode *k = &L->t.nodes[L->t.kids[map->first + i]];
        int l = from + (int)(i / 2);
        if (k->type != Y_SCALAR || l >= t->nlevels || strcmp(tb_yaml_sval(L, k), t->level_name[l]) != 0)
            return 0;
        (*count)++;
    }
    return 1;
}

/* A site topology's groups: the levels that keep hosts whole, the
 * coarsest first, as groups of host indexes. */
static int parse_host_groups(tb_yaml_loader *L, const tb_ynode *n, int have_types)
{
    tb_topology *t = &L->cfg->topo;
    int nhl = 0;
    if (n->type == Y_MAP && !levels_prefix(L, n, 0, &nhl)) {
        char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)] = "";
        for (int l = 0, o = 0; l < t->nlevels; l++)
            o += snprintf(list + o, sizeof list - (size_t)o, "%s%s", l ? ", " : "", t->level_name[l]);
        return tb_yaml_fail(L, n, "expected the groups of the coarsest levels, in the order of levels (%s), as groups of "
                                  "host indexes; the levels below them in node_types", list);
    }
    if (nhl < 1)
        return tb_yaml_fail(L, n, "expected the groups of at least the coarsest level '%s' (groups of host indexes)",
                            t->level_name[0]);
    if (nhl < t->nlevels && !have_types)
        return tb_yaml_fail(L, n, "expected groups for every level, or node_types for the levels below '%s'",
                            t->level_name[nhl - 1]);
    t->nhost_levels = nhl;
    if (parse_group_levels(L, n, t->level_name, nhl, t->nhosts, "host", "host", "the groups (one entry per level)",
                           t->group, t->ngroups) != 0)
        return -1;
    if (nhl < t->nlevels && t->ngroups[nhl - 1] != t->nhosts)
        return tb_yaml_fail(L, n, "expected level '%s' to hold one host per group (%d groups for %d hosts): the levels "
                                  "below it, in node_types, split hosts",
                            t->level_name[nhl - 1], t->ngroups[nhl - 1], t->nhosts);
    return 0;
}

/* One node type: {name, hwloc, hosts, pus, groups}. */
static int parse_type(tb_yaml_loader *L, const tb_ynode *n, int k, int *host_type)
{
    tb_topology *t = &L->cfg->topo;
    tb_topo_type *ty = &t->types[k];
    int nsub = t->nlevels - t->nhost_levels;
    tb_yaml_field f[] = {{"name", 1, 0, 0}, {"hwloc", 0, 0, 0}, {"hosts", 1, 0, 0}, {"pus", 1, 0, 0},
                         {"groups", nsub > 0, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 5, "a node type") != 0)
        return -1;
    if (tb_yaml_get_name(L, f[0].val, "a node type name", 1, ty->name, sizeof ty->name) != 0)
        return -1;
    for (int j = 0; j < k; j++)
        if (strcmp(t->types[j].name, ty->name) == 0)
            return tb_yaml_fail(L, f[0].val, "expected each node type once: '%s' is already listed", ty->name);
    if (f[1].val && get_hwloc(L, f[1].val, ty->hwloc) != 0)
        return -1;
    /* hosts */
    const tb_ynode *hl = f[2].val;
    if (tb_yaml_expect_list(L, hl, "the type's hosts (host indexes into the fingerprint's hosts)") != 0)
        return -1;
    for (int i = 0; i < tb_yaml_seq_len(hl); i++) {
        int lo, hi;
        if (tb_yaml_list_ranks(L, hl, i, t->nhosts - 1, "a host index", &lo, &hi) != 0)
            return -1;
        for (int h = lo; h <= hi; h++) {
            if (host_type[h] >= 0)
                return tb_yaml_fail_item(L, hl, i, "expected each host in one node type: host %d (%s) is already of type '%s'",
                                         h, t->hosts[h], t->types[host_type[h]].name);
            host_type[h] = k;
        }
    }
    /* pus */
    const tb_ynode *pl = f[3].val;
    if (tb_yaml_expect_list(L, pl, "the PUs of one host of the type, [pu, core, package, numa] each") != 0)
        return -1;
    ty->npus = tb_yaml_seq_len(pl);
    if (ty->npus < 1 || ty->npus > MAX_NPROCS)
        return tb_yaml_fail(L, pl, "expected 1 to %d PUs, got %d", MAX_NPROCS, ty->npus);
    ty->pus = malloc(sizeof *ty->pus * (size_t)ty->npus);
    ty->ngroups = calloc((size_t)(nsub > 0 ? nsub : 1), sizeof *ty->ngroups);
    ty->group = calloc((size_t)(nsub > 0 ? nsub : 1), sizeof *ty->group);
    if (!ty->pus || !ty->ngroups || !ty->group)
        return oom(L, pl);
    for (int i = 0; i < ty->npus; i++) {
        char whose[64];
        snprintf(whose, sizeof whose, "PU %d of node type '%s'", i, ty->name);
        if (parse_record(L, tb_yaml_seq_item(L, pl, i), 0, "[pu] or [pu, core, package, numa] (pu >= 0)", whose,
                         &ty->pus[i]) != 0)
            return -1;
    }
    /* groups: every level below the hosts', over PU positions */
    if (!f[4].val)
        return 0;
    if (nsub == 0)
        return tb_yaml_fail(L, f[4].val, "expected no groups in a node type: every level is a level of hosts");
    int count = 0;
    if (!levels_prefix(L, f[4].val, t->nhost_levels, &count) || count != nsub) {
        char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)] = "";
        for (int l = t->nhost_levels, o = 0; l < t->nlevels; l++)
            o += snprintf(list + o, sizeof list - (size_t)o, "%s%s", l > t->nhost_levels ? ", " : "", t->level_name[l]);
        return tb_yaml_fail(L, f[4].val, "expected the groups of the levels below the hosts', in order (%s), as groups of "
                                         "PU positions", list);
    }
    char what[96];
    snprintf(what, sizeof what, "the groups of node type '%s'", ty->name);
    return parse_group_levels(L, f[4].val, t->level_name + t->nhost_levels, nsub, ty->npus, "position", "PU", what,
                              ty->group, ty->ngroups);
}

static int parse_types(tb_yaml_loader *L, const tb_ynode *n)
{
    tb_topology *t = &L->cfg->topo;
    if (tb_yaml_expect_list(L, n, "the node types") != 0)
        return -1;
    int nt = tb_yaml_seq_len(n);
    if (nt < 1 || nt > MAX_TYPES)
        return tb_yaml_fail(L, n, "expected 1 to %d node types, got %d", MAX_TYPES, nt);
    t->types = calloc((size_t)nt, sizeof *t->types);
    t->host_type = malloc(sizeof *t->host_type * (size_t)t->nhosts);
    if (!t->types || !t->host_type)
        return oom(L, n);
    for (int h = 0; h < t->nhosts; h++)
        t->host_type[h] = -1;
    t->ntypes = nt;
    for (int k = 0; k < nt; k++)
        if (parse_type(L, tb_yaml_seq_item(L, n, k), k, t->host_type) != 0)
            return -1;
    return 0;
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
        return tb_yaml_fail(L, ll, "expected %d distances, one per level (coarsest first), got %d", t->nlevels,
                            tb_yaml_seq_len(ll));
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
    tb_yaml_field f[] = {{"fingerprint", 1, 0, 0}, {"levels", 1, 0, 0}, {"leaves", 0, 0, 0},
                         {"groups", 1, 0, 0},      {"node_types", 0, 0, 0}, {"distance", 0, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 6, "the topology") != 0)
        return -1;
    L->cfg->has_topology = 1;
    tb_topology *t = &L->cfg->topo;
    const tb_ynode *hosts_node = NULL, *nprocs_node = NULL;
    if (parse_fingerprint(L, f[0].val, &hosts_node, &nprocs_node) != 0 || parse_levels(L, f[1].val) != 0)
        return -1;
    int a = 0, b = 0, rc;
    if (f[2].val) { /* a job's topology */
        if (f[4].val)
            return tb_yaml_fail(L, f[4].val, "expected either leaves (a job's topology) or node_types (a site's), not both");
        if (parse_leaves(L, f[2].val, hosts_node, nprocs_node) != 0 ||
            parse_group_levels(L, f[3].val, t->level_name, t->nlevels, t->nleaves, "rank", "leaf",
                               "the groups (one entry per level)", t->group, t->ngroups) != 0)
            return -1;
        if (f[5].val && parse_distance(L, f[5].val) != 0)
            return -1;
        rc = tb_topo_index_leaves(t, &a, &b);
        if (rc < 0)
            return oom(L, n);
        /* A running rank is matched to its leaf by (host, PU): two leaves
         * with the same place would make that ambiguous. */
        if (rc > 0)
            return tb_yaml_fail(L, tb_yaml_seq_item(L, f[2].val, b), "expected each (host, pu) once: ranks %d and %d are both on %s PU %d",
                                a, b, t->hosts[t->leaves[b].host], t->leaves[b].pu);
        return 0;
    }
    /* a site's topology: groups of hosts, then node types */
    if (nprocs_node)
        return tb_yaml_fail(L, nprocs_node, "expected no nprocs in a site topology (one without leaves): it serves jobs "
                                            "of any size on its hosts");
    t->site = 1;
    if (parse_host_groups(L, f[3].val, f[4].val != NULL) != 0)
        return -1;
    if (f[4].val && parse_types(L, f[4].val) != 0)
        return -1;
    if (!f[4].val && !(t->host_type = malloc(sizeof *t->host_type * (size_t)t->nhosts)))
        return oom(L, n);
    for (int h = 0; !f[4].val && h < t->nhosts; h++)
        t->host_type[h] = -1;
    if (f[5].val && parse_distance(L, f[5].val) != 0)
        return -1;
    rc = tb_topo_index_types(t, &a, &b);
    if (rc < 0)
        return oom(L, n);
    if (rc > 0)
        return tb_yaml_fail(L, f[4].val, "expected each PU once in node type '%s': position %d repeats PU %d", t->types[a].name,
                            b, t->types[a].pus[b].pu);
    return 0;
}
