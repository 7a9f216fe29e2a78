/* A site being built (tt_site_build) as the library's site topology:
 * host names in one pool, the levels of hosts with the level of one host
 * per group below them, node types with their levels below the hosts',
 * and the distance classes completed.  What the loader requires holds by
 * construction; the caller writes it with tb_topology_write and loads it
 * back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"
#include "topology.h"

static int level_taken(const tt_site_build *b, const char *name)
{
    for (int l = 0; l < b->nlev; l++)
        if (strcmp(b->lev[l], name) == 0)
            return 1;
    for (int k = 0; k < b->nsub; k++)
        if (strcmp(b->sub[k], name) == 0)
            return 1;
    return 0;
}

/* The level of one host per group: b's name for it, else node, else host. */
static const char *perhost_name(const tt_site_build *b)
{
    if (b->perhost[0])
        return b->perhost;
    return level_taken(b, "node") ? "host" : "node";
}

static int copy_hosts(const tt_site_build *b, tb_topology *t)
{
    size_t pool = 0;
    for (int h = 0; h < b->nhosts; h++)
        pool += strlen(b->host[h]) + 1;
    t->hosts = calloc((size_t)b->nhosts, sizeof *t->hosts);
    char *text = t->hosts ? malloc(pool) : NULL;
    if (!text)
        return -1;
    for (int h = 0, o = 0; h < b->nhosts; h++) {
        t->hosts[h] = text + o;
        memcpy(t->hosts[h], b->host[h], strlen(b->host[h]) + 1);
        o += (int)strlen(b->host[h]) + 1;
    }
    t->nhosts = b->nhosts;
    return 0;
}

static int copy_type(const tt_type_part *src, int nsub, tb_topo_type *ty)
{
    snprintf(ty->name, sizeof ty->name, "%s", src->name);
    snprintf(ty->hwloc, sizeof ty->hwloc, "%s", src->hwloc);
    ty->npus = src->npus;
    ty->pus = malloc(sizeof *ty->pus * (size_t)src->npus);
    ty->ngroups = calloc((size_t)(nsub > 0 ? nsub : 1), sizeof *ty->ngroups);
    ty->group = calloc((size_t)(nsub > 0 ? nsub : 1), sizeof *ty->group);
    if (!ty->pus || !ty->ngroups || !ty->group)
        return -1;
    memcpy(ty->pus, src->pus, sizeof *ty->pus * (size_t)src->npus);
    for (int k = 0; k < nsub; k++) {
        if (!(ty->group[k] = malloc(sizeof(int) * (size_t)src->npus)))
            return -1;
        memcpy(ty->group[k], src->group[k], sizeof(int) * (size_t)src->npus);
        for (int i = 0; i < src->npus; i++)
            if (src->group[k][i] + 1 > ty->ngroups[k])
                ty->ngroups[k] = src->group[k][i] + 1;
    }
    return 0;
}

int tt_site_assemble(const tt_site_build *b, const char *file, tb_topology *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->site = 1;
    /* the level of one host per group, unless the finest already is one */
    int add = !(b->nlev > 0 && b->group[b->nlev - 1] && b->nhosts > 0);
    if (!add) {
        int ng = 0;
        for (int h = 0; h < b->nhosts; h++)
            if (b->group[b->nlev - 1][h] + 1 > ng)
                ng = b->group[b->nlev - 1][h] + 1;
        add = ng != b->nhosts;
    }
    const char *ph = perhost_name(b);
    int nhl = b->nlev + add, L = nhl + b->nsub;
    if (L > TB_MAX_LEVELS) {
        snprintf(err, errlen, "%s: expected at most %d levels in all: %d of hosts, %s%d inside them", file,
                 TB_MAX_LEVELS, b->nlev, add ? "1 of one host per group, " : "", b->nsub);
        return -1;
    }
    if (add && level_taken(b, ph)) {
        snprintf(err, errlen,
                 "%s: expected the level of one host per group, '%s', to be no other level's name (rename that level "
                 "in the input)",
                 file, ph);
        return -1;
    }
    for (int k = 0; k < b->nsub; k++)
        for (int l = 0; l < b->nlev; l++)
            if (strcmp(b->sub[k], b->lev[l]) == 0) {
                snprintf(err, errlen, "%s: expected level names used once: '%s' is a level of hosts and one inside them",
                         file, b->sub[k]);
                return -1;
            }
    t->nlevels = L;
    t->nhost_levels = nhl;
    t->level_name = calloc((size_t)L, sizeof *t->level_name);
    t->ngroups = calloc((size_t)L, sizeof *t->ngroups);
    t->group = calloc((size_t)L, sizeof *t->group);
    t->host_type = malloc(sizeof *t->host_type * (size_t)(b->nhosts > 0 ? b->nhosts : 1));
    if (!t->level_name || !t->ngroups || !t->group || !t->host_type || copy_hosts(b, t) != 0)
        goto oom;
    for (int l = 0; l < nhl; l++) {
        snprintf(t->level_name[l], sizeof t->level_name[l], "%s", l < b->nlev ? b->lev[l] : ph);
        if (!(t->group[l] = malloc(sizeof(int) * (size_t)b->nhosts)))
            goto oom;
        for (int h = 0; h < b->nhosts; h++) {
            t->group[l][h] = l < b->nlev ? b->group[l][h] : h;
            if (t->group[l][h] + 1 > t->ngroups[l])
                t->ngroups[l] = t->group[l][h] + 1;
        }
    }
    /* a level inside hosts has, over the site, each typed host's groups and
     * one group per host of no type (as the loader counts them) */
    for (int k = 0; k < b->nsub; k++) {
        snprintf(t->level_name[nhl + k], sizeof t->level_name[0], "%s", b->sub[k]);
        for (int h = 0; h < b->nhosts; h++) {
            int ty = b->host_type ? b->host_type[h] : -1, ng = 1;
            for (int i = 0; ty >= 0 && i < b->types[ty].npus; i++)
                if (b->types[ty].group[k][i] + 1 > ng)
                    ng = b->types[ty].group[k][i] + 1;
            t->ngroups[nhl + k] += ng;
        }
    }
    for (int h = 0; h < b->nhosts; h++)
        t->host_type[h] = b->host_type ? b->host_type[h] : -1;
    if (b->ntypes > 0) {
        if (!(t->types = calloc((size_t)b->ntypes, sizeof *t->types)))
            goto oom;
        t->ntypes = b->ntypes;
        for (int k = 0; k < b->ntypes; k++)
            if (copy_type(&b->types[k], b->nsub, &t->types[k]) != 0)
                goto oom;
    }
    /* classes: hosts' levels, the per-host level, the levels inside hosts,
     * within */
    double cls[TB_MAX_LEVELS + 1];
    for (int l = 0; l < b->nlev; l++)
        cls[l] = b->cls[l];
    if (add)
        cls[b->nlev] = b->perhost_cls;
    for (int k = 0; k < b->nsub; k++)
        cls[nhl + k] = b->sub_cls[k];
    cls[L] = isnan(b->within) ? b->perhost_cls : b->within;
    if (tt_classes_complete(cls, L)) {
        t->dist.given = 1;
        snprintf(t->dist.unit, sizeof t->dist.unit, "us");
        for (int l = 0; l < L; l++)
            t->dist.level[l] = cls[l];
        t->dist.within = cls[L];
    }
    return 0;
oom:
    tb_topology_release(t);
    snprintf(err, errlen, "%s: out of memory building the site topology", file);
    return -1;
}
