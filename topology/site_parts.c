/* The inputs of a composition or a merge, each as what it says of the
 * site: a network pass (the probe's topology of one rank per host) and a
 * site file as levels of hosts, a node pass (the probe's topology of one
 * host) as a node type.  A level of one group says only that the pass
 * found no such level, and is left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "site_internal.h"

void tt_site_part_free(tt_site_part *p)
{
    for (int l = 0; l < p->nlev; l++)
        free(p->group[l]);
    for (int k = 0; k < p->ntypes; k++)
        tt_type_part_free(&p->types[k]);
    free(p->types);
    memset(p, 0, sizeof *p);
}

void tt_type_part_free(tt_type_part *t)
{
    for (int l = 0; l < t->nlev; l++)
        free(t->group[l]);
    free(t->pus);
    memset(t, 0, sizeof *t);
}

static int oom(const char *file, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: out of memory", file);
    return -1;
}

/* Level l of t over n members, member[i] being the i-th's index in t's
 * level arrays (NULL: i itself), as dense groups (malloc'd; NULL out of
 * memory). */
static int *level_groups(const tb_topology *t, int l, const int *member, int n)
{
    int *g = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!g)
        return NULL;
    for (int i = 0; i < n; i++)
        g[i] = t->group[l][member ? member[i] : i];
    if (tt_labels_canonical(g, n) < 0) {
        free(g);
        return NULL;
    }
    return g;
}

/* Appends t's level l (unless it holds one group) to the levels
 * name/group/cls[*count]; -1 out of memory. */
static int add_level(const tb_topology *t, int l, const int *member, int n, tt_level_name *name, int **group,
                     double *cls, int *count)
{
    if (t->ngroups[l] <= 1)
        return 0;
    if (!(group[*count] = level_groups(t, l, member, n)))
        return -1;
    snprintf(name[*count], sizeof name[0], "%s", t->level_name[l]);
    cls[*count] = t->dist.given ? t->dist.level[l] : NAN;
    (*count)++;
    return 0;
}

int tt_part_of_network_pass(const tt_site_file *f, tt_site_part *p, char *err, size_t errlen)
{
    const tb_topology *t = f->topo;
    memset(p, 0, sizeof *p);
    p->file = f->path;
    if (t->site) {
        snprintf(err, errlen,
                 "%s: expected a network pass (topobcast-probe's topology of one rank per host), got a site's "
                 "topology (merge site files with --merge)",
                 f->path);
        return -1;
    }
    /* each host's one leaf */
    int *leaf = malloc(sizeof(int) * (size_t)t->nhosts);
    if (!leaf)
        return oom(f->path, err, errlen);
    for (int h = 0; h < t->nhosts; h++)
        leaf[h] = -1;
    for (int i = 0; i < t->nleaves; i++) {
        int h = t->leaves[i].host;
        if (leaf[h] >= 0) {
            snprintf(err, errlen,
                     "%s: expected a network pass, one rank per host (srun --ntasks-per-node=1): host %s has ranks %d "
                     "and %d",
                     f->path, t->hosts[h], leaf[h], i);
            free(leaf);
            return -1;
        }
        leaf[h] = i;
    }
    p->nhosts = t->nhosts;
    p->host = t->hosts;
    p->hwloc = t->host_hwloc;
    int rc = 0;
    for (int l = 0; l < t->nlevels && rc == 0; l++)
        rc = add_level(t, l, leaf, t->nhosts, p->lev, p->group, p->cls, &p->nlev);
    free(leaf);
    if (rc != 0) {
        tt_site_part_free(p);
        return oom(f->path, err, errlen);
    }
    /* two of its ranks that share every group are two hosts of one finest
     * group: their class is the one between hosts, nothing is known inside
     * a host */
    p->perhost_cls = t->dist.given ? t->dist.within : NAN;
    p->within = NAN;
    return 0;
}

int tt_part_of_site(const tt_site_file *f, tt_site_part *p, char *err, size_t errlen)
{
    const tb_topology *t = f->topo;
    memset(p, 0, sizeof *p);
    p->file = f->path;
    p->nhosts = t->nhosts;
    p->host = t->hosts;
    p->hwloc = t->host_hwloc;
    p->host_type = t->host_type;
    int nhl = t->nhost_levels, last = nhl - 1;
    /* the level of one host per group, when it is the finest of the hosts' */
    int perhost = last >= 0 && t->ngroups[last] == t->nhosts ? last : -1;
    if (perhost >= 0) {
        snprintf(p->perhost, sizeof p->perhost, "%s", t->level_name[perhost]);
        p->perhost_cls = t->dist.given ? t->dist.level[perhost] : NAN;
    } else {
        p->perhost_cls = t->dist.given ? t->dist.within : NAN;
    }
    p->within = t->dist.given ? t->dist.within : NAN;
    for (int l = 0; l < nhl; l++)
        if (l != perhost && add_level(t, l, NULL, t->nhosts, p->lev, p->group, p->cls, &p->nlev) != 0)
            goto fail;
    p->types = calloc((size_t)(t->ntypes > 0 ? t->ntypes : 1), sizeof *p->types);
    if (!p->types)
        goto fail;
    p->ntypes = t->ntypes; /* zeroed: freed whole on a failure below */
    for (int k = 0; k < t->ntypes; k++) {
        const tb_topo_type *ty = &t->types[k];
        tt_type_part *q = &p->types[k];
        snprintf(q->name, sizeof q->name, "%s", ty->name);
        snprintf(q->hwloc, sizeof q->hwloc, "%s", ty->hwloc);
        q->file = f->path;
        q->npus = ty->npus;
        q->within = p->within;
        if (!(q->pus = malloc(sizeof *q->pus * (size_t)ty->npus)))
            goto fail;
        memcpy(q->pus, ty->pus, sizeof *q->pus * (size_t)ty->npus);
        for (int l = nhl; l < t->nlevels; l++, q->nlev++) {
            int j = l - nhl;
            snprintf(q->lev[j], sizeof q->lev[j], "%s", t->level_name[l]);
            q->cls[j] = t->dist.given ? t->dist.level[l] : NAN;
            if (!(q->group[j] = malloc(sizeof(int) * (size_t)ty->npus)))
                goto fail;
            memcpy(q->group[j], ty->group[j], sizeof(int) * (size_t)ty->npus);
            if (tt_labels_canonical(q->group[j], ty->npus) < 0) {
                q->nlev++; /* freed with the others */
                goto fail;
            }
        }
    }
    return 0;
fail:
    tt_site_part_free(p);
    return oom(f->path, err, errlen);
}

int tt_type_of_node_pass(const tt_node_pass *np, FILE *notes, tt_type_part *q, char *err, size_t errlen)
{
    const tb_topology *t = np->file.topo;
    const char *file = np->file.path;
    memset(q, 0, sizeof *q);
    if (t->site || t->nhosts != 1) {
        snprintf(err, errlen,
                 "%s: expected a node pass (topobcast-probe's topology of the ranks of one host), got %s", file,
                 t->site ? "a site's topology" : "ranks on several hosts");
        return -1;
    }
    snprintf(q->name, sizeof q->name, "%s", np->type);
    if (t->host_hwloc)
        snprintf(q->hwloc, sizeof q->hwloc, "%s", t->host_hwloc[0]);
    q->file = file;
    q->host = t->hosts[0];
    q->npus = t->nleaves;
    q->within = t->dist.given ? t->dist.within : NAN;
    int unbound = -1;
    for (int i = 0; i < t->nleaves && unbound < 0; i++)
        if (t->leaves[i].pu < 0)
            unbound = i;
    if (!(q->pus = malloc(sizeof *q->pus * (size_t)q->npus)))
        return oom(file, err, errlen);
    for (int i = 0; i < t->nleaves; i++) {
        q->pus[i] = t->leaves[i];
        q->pus[i].host = -1;
    }
    /* the levels that split the host (a level of one group keeps it whole) */
    for (int l = 0; l < t->nlevels; l++)
        if (add_level(t, l, NULL, t->nleaves, q->lev, q->group, q->cls, &q->nlev) != 0) {
            tt_type_part_free(q);
            return oom(file, err, errlen);
        }
    if (unbound >= 0 && q->nlev > 0) {
        snprintf(err, errlen,
                 "%s: expected a node pass whose ranks are bound to cores (srun --cpu-bind=cores, mpiexec -bind-to "
                 "core) for its levels inside the host (%s ...): rank %d is not bound",
                 file, q->lev[0], unbound);
        tt_type_part_free(q);
        return -1;
    }
    if (unbound >= 0) {
        /* nothing inside the host to place ranks by: the PUs only count */
        for (int i = 0; i < q->npus; i++)
            q->pus[i] = (tb_topo_leaf){-1, i, -1, -1, -1};
        if (notes)
            fprintf(notes,
                    "topobcast-probe: note: %s: its %d ranks were not bound to cores and it found no level inside "
                    "host %s: node type '%s' lists PUs 0-%d, which only count them\n",
                    file, q->npus, q->host, q->name, q->npus - 1);
    }
    return 0;
}
