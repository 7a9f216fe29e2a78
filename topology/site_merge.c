/* topobcast-probe --merge: probe outputs whose hosts overlap into one site
 * topology (site.h, tt_site_merge; probe/README.md, "Adding a node").
 * Hosts are known by name across the inputs; each level of hosts by name,
 * its groups joined where they share a host; node types by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "site_internal.h"

/* The hosts of all inputs: gid[i][x] is input i's host x in the union,
 * numbered by first appearance; name[g] and first[g] (its first input). */
typedef struct host_union {
    int n;
    const char **name;
    int *first;
    int **gid;
} host_union;

typedef struct entry {
    const char *name;
    int in, local;
} entry;

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (a->in != b->in)
        return (a->in > b->in) - (a->in < b->in);
    return (a->local > b->local) - (a->local < b->local);
}

static int order_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->in != b->in)
        return (a->in > b->in) - (a->in < b->in);
    return (a->local > b->local) - (a->local < b->local);
}

static void union_free(host_union *u, int nin)
{
    for (int i = 0; u->gid && i < nin; i++)
        free(u->gid[i]);
    free(u->gid);
    free(u->name);
    free(u->first);
    memset(u, 0, sizeof *u);
}

/* O(T log T) for T hosts over all inputs. */
static int union_hosts(const tt_site_part *p, int nin, host_union *u)
{
    memset(u, 0, sizeof *u);
    size_t total = 0;
    for (int i = 0; i < nin; i++)
        total += (size_t)p[i].nhosts;
    entry *e = malloc(sizeof *e * (total ? total : 1)), *d = malloc(sizeof *d * (total ? total : 1));
    u->gid = calloc((size_t)nin, sizeof *u->gid);
    int rc = -1;
    if (!e || !d || !u->gid)
        goto out;
    size_t k = 0;
    for (int i = 0; i < nin; i++) {
        if (!(u->gid[i] = malloc(sizeof(int) * (size_t)(p[i].nhosts > 0 ? p[i].nhosts : 1))))
            goto out;
        for (int x = 0; x < p[i].nhosts; x++)
            e[k++] = (entry){p[i].host[x], i, x};
    }
    qsort(e, total, sizeof *e, entry_cmp);
    /* each name's first appearance, then those in input order */
    int nd = 0;
    for (size_t j = 0; j < total; j++)
        if (j == 0 || strcmp(e[j].name, e[j - 1].name) != 0)
            d[nd++] = e[j];
    qsort(d, (size_t)nd, sizeof *d, order_cmp);
    u->name = malloc(sizeof *u->name * (size_t)(nd > 0 ? nd : 1));
    u->first = malloc(sizeof(int) * (size_t)(nd > 0 ? nd : 1));
    if (!u->name || !u->first)
        goto out;
    for (int g = 0; g < nd; g++) {
        u->name[g] = d[g].name;
        u->first[g] = d[g].in;
        u->gid[d[g].in][d[g].local] = g;
    }
    /* the other appearances take their name's id: sorted by name, the
     * first of each run is the one numbered */
    for (size_t j = 0, head = 0; j < total; j++) {
        if (j > 0 && strcmp(e[j].name, e[j - 1].name) != 0)
            head = j;
        u->gid[e[j].in][e[j].local] = u->gid[e[head].in][e[head].local];
    }
    u->n = nd;
    rc = 0;
out:
    free(e);
    free(d);
    if (rc != 0)
        union_free(u, nin);
    return rc;
}

/* Every input shares a host with the others, through a chain of inputs. */
static int check_overlap(const tt_site_part *p, int nin, const host_union *u, char *err, size_t errlen)
{
    int *in_of = malloc(sizeof(int) * (size_t)(u->n > 0 ? u->n : 1)), parent[256];
    if (!in_of) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < nin; i++)
        parent[i] = i;
    for (int g = 0; g < u->n; g++)
        in_of[g] = -1;
    for (int i = 0; i < nin; i++)
        for (int x = 0; x < p[i].nhosts; x++) {
            int g = u->gid[i][x];
            if (in_of[g] >= 0)
                tt_uf_union(parent, in_of[g], i);
            in_of[g] = i;
        }
    free(in_of);
    for (int i = 1; i < nin; i++)
        if (tt_uf_find(parent, i) != tt_uf_find(parent, 0)) {
            snprintf(err, errlen,
                     "%s: expected hosts in common with %s or the other inputs (probe a new node together with some "
                     "known ones), it shares none",
                     p[i].file, p[0].file);
            return -1;
        }
    return 0;
}

/* Level L (lev) of the union, as groups of the union's hosts: the groups
 * of the inputs that have it, joined where they share a host; each input
 * without it (its hosts looked alike there) joins its hosts to the one
 * group its placed hosts share, or to one group of its own when none is
 * placed, or leaves its other hosts alone when they lie in several. */
static int merge_level(const tt_site_part *p, int nin, const host_union *u, const char *lev, int *label)
{
    int n = u->n, rc = -1;
    int *parent = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)), *first = NULL;
    char *placed = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!parent || !placed)
        goto out;
    for (int g = 0; g < n; g++)
        parent[g] = g;
    int maxh = 1;
    for (int i = 0; i < nin; i++)
        if (p[i].nhosts > maxh)
            maxh = p[i].nhosts;
    if (!(first = malloc(sizeof(int) * (size_t)maxh)))
        goto out;
    for (int i = 0; i < nin; i++) {
        int l = -1;
        for (int k = 0; k < p[i].nlev && l < 0; k++)
            if (strcmp(p[i].lev[k], lev) == 0)
                l = k;
        if (l < 0)
            continue;
        for (int x = 0; x < p[i].nhosts; x++)
            first[x] = -1;
        for (int x = 0; x < p[i].nhosts; x++) {
            int grp = p[i].group[l][x], g = u->gid[i][x];
            if (first[grp] < 0)
                first[grp] = g;
            else
                tt_uf_union(parent, first[grp], g);
            placed[g] = 1;
        }
    }
    for (int i = 0; i < nin; i++) {
        int has = 0;
        for (int k = 0; k < p[i].nlev && !has; k++)
            has = strcmp(p[i].lev[k], lev) == 0;
        if (has)
            continue;
        int root = -1, several = 0;
        for (int x = 0; x < p[i].nhosts && !several; x++) {
            int g = u->gid[i][x];
            if (!placed[g])
                continue;
            int r = tt_uf_find(parent, g);
            if (root >= 0 && r != root)
                several = 1;
            root = r;
        }
        for (int x = 0; x < p[i].nhosts; x++) {
            int g = u->gid[i][x];
            if (!several)
                root = root < 0 ? g : tt_uf_union(parent, root, g);
            placed[g] = 1;
        }
    }
    for (int g = 0; g < n; g++)
        label[g] = tt_uf_find(parent, g);
    rc = tt_labels_canonical(label, n) < 0 ? -1 : 0;
out:
    free(parent);
    free(first);
    free(placed);
    return rc;
}

/* Each group of level l inside one group of level l - 1. */
static int check_nested(const host_union *u, const tt_site_part *p, int **label, const tt_level_name *lev, int nlev,
                        char *err, size_t errlen)
{
    int n = u->n;
    int *up = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)), *who = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int rc = 0;
    if (!up || !who) {
        free(up);
        free(who);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int l = 1; l < nlev && rc == 0; l++) {
        for (int g = 0; g < n; g++)
            up[g] = -1;
        for (int h = 0; h < n && rc == 0; h++) {
            int g = label[l][h];
            if (up[g] < 0) {
                up[g] = label[l - 1][h];
                who[g] = h;
            } else if (up[g] != label[l - 1][h]) {
                int a = who[g];
                snprintf(err, errlen,
                         "%s: expected groups that still nest once merged: hosts %s (%s) and %s (%s) share a group of "
                         "level '%s' but not of level '%s' (the inputs disagree)",
                         p[u->first[h]].file, u->name[a], p[u->first[a]].file, u->name[h], p[u->first[h]].file,
                         lev[l], lev[l - 1]);
                rc = -1;
            }
        }
    }
    free(up);
    free(who);
    return rc;
}

/* The mean of the known (not NaN) values among n, NaN if none. */
static double mean_known(double sum, int n)
{
    return n ? sum / n : NAN;
}

/* The union of the inputs' node types, by name (types[0..*ntypes), borrowed
 * from the parts and filled to sub[0..nsub)). */
static int merge_types(tt_site_part *p, int nin, const tt_level_name *sub, int nsub, tt_type_part **types,
                       int *ntypes, char *err, size_t errlen)
{
    int total = 0;
    for (int i = 0; i < nin; i++)
        total += p[i].ntypes;
    tt_type_part **v = calloc((size_t)(total > 0 ? total : 1), sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = 0;
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < p[i].ntypes; k++) {
            tt_type_part *t = &p[i].types[k];
            if (tt_type_fill_levels(t, sub, nsub) != 0) {
                snprintf(err, errlen, "%s: out of memory", t->file);
                free(v);
                return -1;
            }
            int same = -1;
            for (int j = 0; j < n && same < 0; j++)
                if (strcmp(v[j]->name, t->name) == 0)
                    same = j;
            if (same < 0) {
                v[n++] = t;
                continue;
            }
            const tt_type_part *a = v[same];
            int equal = a->npus == t->npus;
            for (int x = 0; equal && x < t->npus; x++)
                equal = a->pus[x].pu == t->pus[x].pu && a->pus[x].core == t->pus[x].core &&
                        a->pus[x].package == t->pus[x].package && a->pus[x].numa == t->pus[x].numa;
            int lev = -1;
            for (int k2 = 0; equal && k2 < nsub; k2++)
                if (memcmp(a->group[k2], t->group[k2], sizeof(int) * (size_t)t->npus) != 0) {
                    equal = 0;
                    lev = k2;
                }
            if (!equal) {
                snprintf(err, errlen, "%s: expected node type '%s' as %s has it: %s%s%s", t->file, t->name, a->file,
                         lev >= 0 ? "its groups of level '" : "its PUs differ", lev >= 0 ? sub[lev] : "",
                         lev >= 0 ? "' differ" : "");
                free(v);
                return -1;
            }
        }
    tt_type_part *out = calloc((size_t)(n > 0 ? n : 1), sizeof *out);
    if (!out) {
        free(v);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int j = 0; j < n; j++)
        out[j] = *v[j]; /* a shallow copy: the parts own the arrays */
    free(v);
    *types = out;
    *ntypes = n;
    return 0;
}

/* type[g] of every host of the union: as the site files give it (they
 * must agree), the administrator's lists overriding; then hwloc for the
 * hosts a network pass reports. */
static int merge_host_types(const tt_site_part *p, int nin, const host_union *u, const tt_type_part *types,
                            int ntypes, const tt_type_hosts *named, int nnamed, FILE *notes, int *type, char *err,
                            size_t errlen)
{
    int n = u->n, rc = 0;
    int *forced = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)), *from = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    char **hwloc = calloc((size_t)(n > 0 ? n : 1), sizeof *hwloc);
    tt_host_index idx;
    if (!forced || !from || !hwloc || tt_host_index_build(&idx, u->name, n) != 0) {
        free(forced);
        free(from);
        free(hwloc);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int g = 0; g < n; g++)
        forced[g] = type[g] = from[g] = -1;
    rc = tt_types_by_list(named, nnamed, types, ntypes, &idx, "the files merged", forced, notes, err, errlen);
    for (int i = 0; i < nin && rc == 0; i++)
        for (int x = 0; x < p[i].nhosts && rc == 0; x++) {
            int g = u->gid[i][x];
            if (p[i].hwloc && p[i].hwloc[x][0] && !hwloc[g])
                hwloc[g] = p[i].hwloc[x];
            if (!p[i].host_type || p[i].host_type[x] < 0)
                continue;
            const char *name = p[i].types[p[i].host_type[x]].name;
            int k = 0;
            while (k < ntypes && strcmp(types[k].name, name) != 0)
                k++;
            if (type[g] >= 0 && type[g] != k && forced[g] < 0) {
                snprintf(err, errlen, "%s: expected host %s of type '%s', as %s has it; here it is of type '%s' "
                                      "(name its type: --node-type NAME=%s)",
                         p[i].file, u->name[g], types[type[g]].name, p[from[g]].file, name, u->name[g]);
                rc = -1;
            }
            type[g] = k;
            from[g] = i;
        }
    for (int g = 0; g < n && rc == 0; g++) {
        if (forced[g] >= 0)
            type[g] = forced[g];
        if (!hwloc[g])
            hwloc[g] = (char *)"";
    }
    if (rc == 0)
        rc = tt_types_by_hwloc(types, ntypes, hwloc, n, u->name, type, err, errlen);
    tt_host_index_free(&idx);
    free(forced);
    free(from);
    free(hwloc);
    return rc;
}

/* The per-host level's name: the one the site files use (all alike). */
static int perhost_name(const tt_site_part *p, int nin, tt_level_name out, char *err, size_t errlen)
{
    int by = -1;
    out[0] = 0;
    for (int i = 0; i < nin; i++) {
        if (!p[i].perhost[0])
            continue;
        if (by >= 0 && strcmp(out, p[i].perhost) != 0) {
            snprintf(err, errlen, "%s: expected the level of one host per group named '%s', as in %s; got '%s'",
                     p[i].file, out, p[by].file, p[i].perhost);
            return -1;
        }
        snprintf(out, sizeof(tt_level_name), "%s", p[i].perhost);
        by = i;
    }
    return 0;
}

int tt_site_merge(const tt_site_file *in, int nin, const tt_type_hosts *named, int nnamed, FILE *notes,
                  tb_topology *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nin < 1 || nin > 256) {
        snprintf(err, errlen, "expected 1 to 256 files to merge, got %d", nin);
        return -1;
    }
    tt_site_part *p = calloc((size_t)nin, sizeof *p);
    host_union u = {0};
    tt_site_build b;
    tt_type_part *types = NULL;
    int *label[TB_MAX_LEVELS] = {0}, *type = NULL, ntypes = 0, rc = -1;
    memset(&b, 0, sizeof b);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < nin; i++)
        if ((in[i].topo->site ? tt_part_of_site(&in[i], &p[i], err, errlen)
                              : tt_part_of_network_pass(&in[i], &p[i], err, errlen)) != 0)
            goto out;
    if (union_hosts(p, nin, &u) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (check_overlap(p, nin, &u, err, errlen) != 0)
        goto out;
    /* the levels of hosts, and those inside them, each by name */
    const tt_level_name *lists[256];
    const char *files[256];
    int counts[256], ntl = 0;
    for (int i = 0; i < nin; i++) {
        lists[i] = p[i].lev;
        counts[i] = p[i].nlev;
        files[i] = p[i].file;
    }
    if (tt_levels_union(lists, counts, files, nin, b.lev, TB_MAX_LEVELS, &b.nlev, err, errlen) != 0 ||
        perhost_name(p, nin, b.perhost, err, errlen) != 0)
        goto out;
    const tt_level_name **tl = malloc(sizeof *tl * (size_t)(nin * 64 + 1));
    const char **tf = malloc(sizeof *tf * (size_t)(nin * 64 + 1));
    int *tc = malloc(sizeof(int) * (size_t)(nin * 64 + 1));
    if (!tl || !tf || !tc) {
        free(tl);
        free(tf);
        free(tc);
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < p[i].ntypes; k++, ntl++) {
            tl[ntl] = p[i].types[k].lev;
            tc[ntl] = p[i].types[k].nlev;
            tf[ntl] = p[i].file;
        }
    int urc = ntl ? tt_levels_union(tl, tc, tf, ntl, b.sub, TB_MAX_LEVELS, &b.nsub, err, errlen) : 0;
    free(tl);
    free(tf);
    free(tc);
    if (urc != 0)
        goto out;
    /* groups, level by level, and their nesting */
    for (int l = 0; l < b.nlev; l++) {
        if (!(label[l] = malloc(sizeof(int) * (size_t)(u.n > 0 ? u.n : 1))) ||
            merge_level(p, nin, &u, b.lev[l], label[l]) != 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        b.group[l] = label[l];
    }
    if (check_nested(&u, p, label, b.lev, b.nlev, err, errlen) != 0)
        goto out;
    if (merge_types(p, nin, b.sub, b.nsub, &types, &ntypes, err, errlen) != 0)
        goto out;
    if (!(type = malloc(sizeof(int) * (size_t)(u.n > 0 ? u.n : 1)))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (merge_host_types(p, nin, &u, types, ntypes, named, nnamed, notes, type, err, errlen) != 0)
        goto out;
    tt_note_untyped(notes, type, u.name, u.n, ntypes);
    /* classes: the mean of the inputs that have each */
    for (int l = 0; l < b.nlev; l++) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < nin; i++)
            for (int k = 0; k < p[i].nlev; k++)
                if (strcmp(p[i].lev[k], b.lev[l]) == 0 && !isnan(p[i].cls[k])) {
                    sum += p[i].cls[k];
                    n++;
                }
        b.cls[l] = mean_known(sum, n);
    }
    double sp = 0, sw = 0, ss[TB_MAX_LEVELS] = {0};
    int np = 0, nw = 0, ns[TB_MAX_LEVELS] = {0};
    for (int i = 0; i < nin; i++) {
        if (!isnan(p[i].perhost_cls)) {
            sp += p[i].perhost_cls;
            np++;
        }
        if (!isnan(p[i].within)) {
            sw += p[i].within;
            nw++;
        }
        /* a site's classes inside hosts are its types' (all alike) */
        for (int k = 0; p[i].ntypes > 0 && k < b.nsub; k++)
            if (!isnan(p[i].types[0].cls[k])) {
                ss[k] += p[i].types[0].cls[k];
                ns[k]++;
            }
    }
    b.perhost_cls = mean_known(sp, np);
    b.within = mean_known(sw, nw);
    for (int k = 0; k < b.nsub; k++)
        b.sub_cls[k] = mean_known(ss[k], ns[k]);
    b.nhosts = u.n;
    b.host = u.name;
    b.ntypes = ntypes;
    b.types = types;
    b.host_type = type;
    if (tt_site_assemble(&b, in[nin - 1].path, out, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    for (int l = 0; l < TB_MAX_LEVELS; l++)
        free(label[l]);
    free(types);
    free(type);
    union_free(&u, nin);
    for (int i = 0; i < nin; i++)
        tt_site_part_free(&p[i]);
    free(p);
    return rc;
}
