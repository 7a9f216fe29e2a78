/* Small helpers shared by the clustering files (not part of the API). */
#ifndef TT_CLUSTER_INTERNAL_H
#define TT_CLUSTER_INTERNAL_H

#include <stdint.h>

#include "cluster.h"

/* Union-find with path halving; the root of a set is its smallest member so
 * that results never depend on union order. */
static inline int tt_uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static inline int tt_uf_union(int *parent, int a, int b)
{
    a = tt_uf_find(parent, a);
    b = tt_uf_find(parent, b);
    if (a == b)
        return a;
    if (a < b) {
        parent[b] = a;
        return a;
    }
    parent[a] = b;
    return b;
}

/* splitmix64: tiny, seedable, good enough for choosing start medoids. */
static inline uint64_t tt_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform double in [0,1). */
static inline double tt_rng_unit(uint64_t *s)
{
    return (double)(tt_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/** \brief Labels from a union-find forest parent[n] (compressed on the
 *  way), canonical order, into labels[n].
 *  \return the number of sets; -1 if out of memory. */
int tt_labels_from_uf(int *parent, int n, int *labels);

/** \brief The level of h that best matches the truth labels: highest
 *  accuracy, ties broken by the higher ARI, the coarser level first; levels
 *  with skip[l] set are passed over (skip may be NULL).
 *  \return the level, -1 if none qualifies; *acc and *ari are its accuracy
 *  and ARI (-1 and NAN when none). */
int tt_best_level(const tt_hierarchy *h, const int *truth, const char *skip, double *acc, double *ari);

/** \brief tt_hdbscan with precomputed core distances core[n] (the search
 *  sorts every row once instead of selecting per min_samples).
 *  \return as tt_hdbscan: the number of clusters, or -1 on bad input or
 *  out of memory. */
int tt_hdbscan_core(const double *D, int n, const double *core, int min_cluster_size,
                    int *labels, tt_dendrogram *mr);

#endif
