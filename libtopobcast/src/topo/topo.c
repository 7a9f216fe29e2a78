/* A loaded topology (topo.h): its lookup indexes -- host-name hashes
 * sorted for binary search; a job's leaves that have a PU sorted by
 * (host, pu), each host's first leaf; a site's node types' PUs sorted, each
 * host's first group below the hosts' levels; which levels keep hosts
 * whole -- built once per process by the loader in O(P log P), so that
 * mapping a communicator of n ranks costs O(n log P) and never touches all
 * P leaves (derive.c); its release, and its expansion into a job's form
 * for the tools. */
#define _GNU_SOURCE /* qsort_r */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "topo.h"

typedef struct hash_rec {
    uint64_t key;
    int host;
} hash_rec;

static int hash_cmp(const void *pa, const void *pb)
{
    const hash_rec *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->host > b->host) - (a->host < b->host);
}

/* out[0..n) = host indexes sorted by key[] (ties by index); 1 with *a, *b
 * when two keys are equal and unique_keys asks, -1 out of memory, else 0. */
static int sort_hosts(const uint64_t *key, int n, int *out, int unique_keys, int *a, int *b)
{
    hash_rec *r = malloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    if (!r)
        return -1;
    for (int h = 0; h < n; h++)
        r[h] = (hash_rec){key[h], h};
    qsort(r, (size_t)n, sizeof *r, hash_cmp);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        out[i] = r[i].host;
        if (unique_keys && i > 0 && r[i].key == r[i - 1].key && rc == 0) {
            *a = r[i - 1].host;
            *b = r[i].host;
            rc = 1;
        }
    }
    free(r);
    return rc;
}

int tb_topo_index_hosts(tb_topology *t, int *a, int *b)
{
    int H = t->nhosts;
    t->host_hash = malloc(sizeof(uint64_t) * (size_t)H);
    t->short_hash = malloc(sizeof(uint64_t) * (size_t)H);
    t->by_hash = malloc(sizeof(int) * (size_t)H);
    t->by_short = malloc(sizeof(int) * (size_t)H);
    if (!t->host_hash || !t->short_hash || !t->by_hash || !t->by_short)
        return -1;
    for (int h = 0; h < H; h++)
        tb_hash_host(t->hosts[h], &t->host_hash[h], &t->short_hash[h]);
    int rc = sort_hosts(t->host_hash, H, t->by_hash, 1, a, b);
    if (rc != 0)
        return rc;
    return sort_hosts(t->short_hash, H, t->by_short, 0, a, b);
}

int tb_topo_index_leaves(tb_topology *t, int *a, int *b)
{
    int H = t->nhosts, n = t->nleaves;
    t->first_leaf = malloc(sizeof(int) * (size_t)H);
    t->places = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *keys = calloc(2 * (size_t)(n > 0 ? n : 1), sizeof(int));
    int *hgroup = malloc(sizeof(int) * (size_t)H);
    int rc = -1;
    if (!t->first_leaf || !t->places || !keys || !hgroup)
        goto out;
    for (int h = 0; h < H; h++)
        t->first_leaf[h] = -1;
    for (int i = 0; i < n; i++) {
        int h = t->leaves[i].host;
        if (t->first_leaf[h] < 0)
            t->first_leaf[h] = i;
        keys[2 * i] = h;
        keys[2 * i + 1] = t->leaves[i].pu;
    }
    /* places: sorted by (host, pu), ties by leaf; leaves without a PU (-1)
     * are not places */
    if (tb_sort_ranks_by_keys(keys, 2, n, t->places) != 0)
        goto out;
    t->nplaces = 0;
    rc = 0;
    for (int i = 0; i < n; i++) {
        int leaf = t->places[i];
        if (t->leaves[leaf].pu < 0)
            continue;
        if (t->nplaces > 0 && rc == 0) {
            int prev = t->places[t->nplaces - 1];
            if (t->leaves[prev].host == t->leaves[leaf].host && t->leaves[prev].pu == t->leaves[leaf].pu) {
                *a = prev;
                *b = leaf;
                rc = 1;
            }
        }
        t->places[t->nplaces++] = leaf;
    }
    if (rc != 0)
        goto out;
    t->keeps_hosts = 0;
    for (int l = 0; l < t->nlevels; l++) {
        int keeps = 1;
        for (int h = 0; h < H; h++)
            hgroup[h] = -1;
        for (int i = 0; i < n && keeps; i++) {
            int h = t->leaves[i].host;
            if (hgroup[h] < 0)
                hgroup[h] = t->group[l][i];
            else
                keeps = hgroup[h] == t->group[l][i];
        }
        if (keeps)
            t->keeps_hosts |= 1u << l;
    }
out:
    free(keys);
    free(hgroup);
    return rc;
}

/* First position in idx[0..n) whose key[] is >= k. */
static int lower_bound(const int *idx, const uint64_t *key, int n, uint64_t k)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (key[idx[mid]] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int tb_topo_find_host(const tb_topology *t, uint64_t full, uint64_t shrt)
{
    int H = t->nhosts;
    int i = lower_bound(t->by_hash, t->host_hash, H, full);
    if (i < H && t->host_hash[t->by_hash[i]] == full)
        return t->by_hash[i];
    /* launchers and hostname(1) disagree on domains: the short name, when
     * exactly one host has it */
    i = lower_bound(t->by_short, t->short_hash, H, shrt);
    if (i < H && t->short_hash[t->by_short[i]] == shrt && (i + 1 == H || t->short_hash[t->by_short[i + 1]] != shrt))
        return t->by_short[i];
    return -1;
}

int tb_topo_unknown_host_text(char *buf, size_t len, const tb_topology *t, const char *source, const char *host,
                              int world_rank)
{
    return snprintf(buf, len,
                    "host %.255s (world rank %d) is not in the topology of %.200s (%d host%s: %.64s%s%.64s): "
                    "recalibrate, or probe it and merge (topobcast-probe --merge)",
                    host, world_rank, source, t->nhosts, t->nhosts == 1 ? "" : "s", t->hosts[0],
                    t->nhosts > 1 ? " ... " : "", t->nhosts > 1 ? t->hosts[t->nhosts - 1] : "");
}

int tb_topo_leaf_at(const tb_topology *t, int host, int pu)
{
    int lo = 0, hi = t->nplaces;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const tb_topo_leaf *p = &t->leaves[t->places[mid]];
        if (p->host < host || (p->host == host && p->pu < pu))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->nplaces) {
        const tb_topo_leaf *p = &t->leaves[t->places[lo]];
        if (p->host == host && p->pu == pu)
            return t->places[lo];
    }
    return -1;
}

static int pu_cmp(const void *pa, const void *pb, void *arg)
{
    const tb_topo_leaf *pus = arg;
    int a = pus[*(const int *)pa].pu, b = pus[*(const int *)pb].pu;
    return (a > b) - (a < b);
}

int tb_topo_index_types(tb_topology *t, int *a, int *b)
{
    int H = t->nhosts, nsub = t->nlevels - t->nhost_levels;
    for (int k = 0; k < t->ntypes; k++) {
        tb_topo_type *ty = &t->types[k];
        ty->by_pu = malloc(sizeof(int) * (size_t)(ty->npus > 0 ? ty->npus : 1));
        if (!ty->by_pu)
            return -1;
        for (int i = 0; i < ty->npus; i++)
            ty->by_pu[i] = i;
        qsort_r(ty->by_pu, (size_t)ty->npus, sizeof(int), pu_cmp, ty->pus);
        for (int i = 1; i < ty->npus; i++)
            if (ty->pus[ty->by_pu[i]].pu == ty->pus[ty->by_pu[i - 1]].pu) {
                int p = ty->by_pu[i - 1], q = ty->by_pu[i];
                *a = k;
                *b = p > q ? p : q;
                return 1;
            }
    }
    t->host_pubase = malloc(sizeof(int) * ((size_t)H + 1));
    t->host_gbase = calloc((size_t)(nsub > 0 ? nsub : 1), sizeof *t->host_gbase);
    if (!t->host_pubase || !t->host_gbase)
        return -1;
    long pus = 0;
    for (int h = 0; h < H; h++) {
        t->host_pubase[h] = (int)pus;
        pus += t->host_type[h] >= 0 ? t->types[t->host_type[h]].npus : 1;
        if (pus > INT_MAX)
            return -1;
    }
    t->host_pubase[H] = (int)pus;
    for (int k = 0; k < nsub; k++) {
        t->host_gbase[k] = malloc(sizeof(int) * (size_t)(H > 0 ? H : 1));
        if (!t->host_gbase[k])
            return -1;
        long g = 0;
        for (int h = 0; h < H; h++) {
            t->host_gbase[k][h] = (int)g;
            g += t->host_type[h] >= 0 ? t->types[t->host_type[h]].ngroups[k] : 1;
            if (g > INT_MAX)
                return -1;
        }
        t->ngroups[t->nhost_levels + k] = (int)g;
    }
    t->keeps_hosts = t->nhost_levels >= 32 ? ~0u : (1u << t->nhost_levels) - 1u;
    return 0;
}

int tb_topo_type_pu(const tb_topo_type *ty, int pu)
{
    int lo = 0, hi = ty->npus;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (ty->pus[ty->by_pu[mid]].pu < pu)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ty->npus && ty->pus[ty->by_pu[lo]].pu == pu ? ty->by_pu[lo] : -1;
}

void tb_topology_release(tb_topology *t)
{
    if (t->group)
        for (int l = 0; l < t->nlevels; l++)
            free(t->group[l]);
    free(t->group);
    free(t->ngroups);
    free(t->level_name);
    free(t->leaves);
    if (t->hosts)
        free(t->hosts[0]); /* the pool */
    free(t->hosts);
    if (t->host_hwloc)
        free(t->host_hwloc[0]); /* its pool */
    free(t->host_hwloc);
    for (int k = 0; t->types && k < t->ntypes; k++) {
        tb_topo_type *ty = &t->types[k];
        for (int j = 0; ty->group && j < t->nlevels - t->nhost_levels; j++)
            free(ty->group[j]);
        free(ty->group);
        free(ty->ngroups);
        free(ty->pus);
        free(ty->by_pu);
    }
    free(t->types);
    free(t->host_type);
    if (t->host_gbase)
        for (int k = 0; k < t->nlevels - t->nhost_levels; k++)
            free(t->host_gbase[k]);
    free(t->host_gbase);
    free(t->host_pubase);
    free(t->host_hash);
    free(t->short_hash);
    free(t->by_hash);
    free(t->by_short);
    free(t->first_leaf);
    free(t->places);
    memset(t, 0, sizeof *t);
}

/* The host name pool, level names and distances of t, copied into out. */
static int copy_names(const tb_topology *t, tb_topology *out)
{
    size_t pool = 0;
    for (int h = 0; h < t->nhosts; h++)
        pool += strlen(t->hosts[h]) + 1;
    out->nhosts = t->nhosts;
    out->hosts = calloc((size_t)t->nhosts, sizeof *out->hosts);
    char *text = out->hosts ? malloc(pool > 0 ? pool : 1) : NULL;
    out->nlevels = t->nlevels;
    out->level_name = malloc(sizeof *out->level_name * (size_t)(t->nlevels > 0 ? t->nlevels : 1));
    out->ngroups = calloc((size_t)(t->nlevels > 0 ? t->nlevels : 1), sizeof *out->ngroups);
    out->group = calloc((size_t)(t->nlevels > 0 ? t->nlevels : 1), sizeof *out->group);
    if (!text || !out->level_name || !out->ngroups || !out->group) {
        free(text);
        return -1;
    }
    for (int h = 0, o = 0; h < t->nhosts; h++) {
        out->hosts[h] = text + o;
        memcpy(out->hosts[h], t->hosts[h], strlen(t->hosts[h]) + 1);
        o += (int)strlen(t->hosts[h]) + 1;
    }
    memcpy(out->level_name, t->level_name, sizeof *out->level_name * (size_t)t->nlevels);
    memcpy(out->ngroups, t->ngroups, sizeof *out->ngroups * (size_t)t->nlevels);
    out->dist = t->dist;
    return 0;
}

int tb_topology_expand(const tb_topology *t, tb_topology *out)
{
    memset(out, 0, sizeof *out);
    if (copy_names(t, out) != 0)
        goto fail;
    int n = t->site ? t->host_pubase[t->nhosts] : t->nleaves;
    out->nleaves = n;
    out->nprocs = t->site ? n : t->nprocs;
    out->leaves = malloc(sizeof *out->leaves * (size_t)(n > 0 ? n : 1));
    if (!out->leaves)
        goto fail;
    for (int l = 0; l < t->nlevels; l++)
        if (!(out->group[l] = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1))))
            goto fail;
    if (!t->site) {
        memcpy(out->leaves, t->leaves, sizeof *out->leaves * (size_t)n);
        for (int l = 0; l < t->nlevels; l++)
            memcpy(out->group[l], t->group[l], sizeof(int) * (size_t)n);
    } else {
        int nhl = t->nhost_levels;
        for (int h = 0, i = 0; h < t->nhosts; h++) {
            const tb_topo_type *ty = t->host_type[h] >= 0 ? &t->types[t->host_type[h]] : NULL;
            int npus = ty ? ty->npus : 1;
            for (int p = 0; p < npus; p++, i++) {
                out->leaves[i] = ty ? ty->pus[p] : (tb_topo_leaf){0, -1, -1, -1, -1};
                out->leaves[i].host = h;
                for (int l = 0; l < t->nlevels; l++)
                    out->group[l][i] = l < nhl ? t->group[l][h]
                                               : t->host_gbase[l - nhl][h] + (ty ? ty->group[l - nhl][p] : 0);
            }
        }
    }
    int a, b;
    if (tb_topo_index_hosts(out, &a, &b) != 0 || tb_topo_index_leaves(out, &a, &b) != 0)
        goto fail;
    return 0;
fail:
    tb_topology_release(out);
    return -1;
}
