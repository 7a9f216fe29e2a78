/* The lookup indexes of a loaded topology (topo.h): host-name hashes
 * sorted for binary search, the leaves that have a PU sorted by
 * (host, pu), each host's first leaf, and which levels keep hosts whole.
 * Built once per process by the loader in O(P log P), so that mapping a
 * communicator of n ranks costs O(n log P) and never touches all P leaves
 * (derive.c). */
#include <stdlib.h>

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
