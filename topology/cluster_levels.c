/* Levels without being told how many: in a latency dendrogram the merges of
 * one level (ranks of a socket, sockets of a node, nodes of an island...)
 * happen at similar distances and the next level starts after a jump, so
 * every large relative jump in the sorted merge distances is a level
 * boundary.  Relative, because latencies of successive levels differ by
 * factors (0.3 us socket, 2 us network) rather than by fixed amounts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_internal.h"

int tt_hierarchy_alloc(tt_hierarchy *h, int n, int nlevels)
{
    if (!h || n < 1 || nlevels < 0)
        return -1;
    memset(h, 0, sizeof *h);
    h->n = n;
    h->nlevels = nlevels;
    if (nlevels == 0)
        return 0;
    h->labels = calloc((size_t)nlevels, sizeof *h->labels);
    h->nclusters = calloc((size_t)nlevels, sizeof *h->nclusters);
    h->cut = calloc((size_t)nlevels, sizeof *h->cut);
    h->gap = calloc((size_t)nlevels, sizeof *h->gap);
    h->name = calloc((size_t)nlevels, sizeof *h->name);
    if (!h->labels || !h->nclusters || !h->cut || !h->gap || !h->name) {
        tt_hierarchy_free(h);
        return -1;
    }
    for (int l = 0; l < nlevels; l++) {
        h->labels[l] = calloc((size_t)n, sizeof **h->labels);
        if (!h->labels[l]) {
            tt_hierarchy_free(h);
            return -1;
        }
        h->cut[l] = NAN;
        h->gap[l] = NAN;
        snprintf(h->name[l], TT_NAME_MAX, "level-%d", l + 1);
    }
    return 0;
}

void tt_hierarchy_free(tt_hierarchy *h)
{
    if (!h)
        return;
    if (h->labels)
        for (int l = 0; l < h->nlevels; l++)
            free(h->labels[l]);
    free(h->labels);
    free(h->nclusters);
    free(h->cut);
    free(h->gap);
    free(h->name);
    memset(h, 0, sizeof *h);
}

typedef struct gap {
    int i;        /* merges 0..i are below the cut */
    double ratio; /* h[i+1]/h[i] - 1, INFINITY if h[i] == 0 */
    double cut;
} gap;

static int cmp_gap_ratio_desc(const void *a, const void *b)
{
    const gap *p = a, *q = b;
    if (p->ratio != q->ratio)
        return p->ratio > q->ratio ? -1 : 1;
    return p->i - q->i;
}

static int cmp_gap_coarse_first(const void *a, const void *b)
{
    const gap *p = a, *q = b;
    return q->i - p->i;
}

int tt_levels_from_dendrogram(const tt_dendrogram *dg, const tt_levels_opts *opts,
                              tt_hierarchy *out)
{
    if (!dg || !out || dg->n < 1)
        return -1;
    tt_levels_opts o = {.rel_gap = 0.25, .min_abs_frac = 0.02, .max_levels = 0};
    if (opts)
        o = *opts;
    int n = dg->n;
    if (n < 3)
        return tt_hierarchy_alloc(out, n, 0);
    const tt_merge *m = dg->merge;
    double hmax = m[n - 2].dist;
    gap *g = malloc((size_t)n * sizeof *g);
    if (!g)
        return -1;
    int ng = 0;
    /* i <= n-3 keeps at least two clusters; i >= 0 at least one merge */
    for (int i = 0; i <= n - 3; i++) {
        double lo = m[i].dist, hi = m[i + 1].dist;
        if (!(hi > lo) || hi - lo < o.min_abs_frac * hmax)
            continue;
        double ratio = lo > 0.0 ? hi / lo - 1.0 : INFINITY;
        if (ratio < o.rel_gap)
            continue;
        g[ng].i = i;
        g[ng].ratio = ratio;
        g[ng].cut = lo > 0.0 ? sqrt(lo * hi) : 0.5 * hi;
        ng++;
    }
    if (o.max_levels > 0 && ng > o.max_levels) {
        qsort(g, (size_t)ng, sizeof *g, cmp_gap_ratio_desc);
        ng = o.max_levels;
    }
    qsort(g, (size_t)ng, sizeof *g, cmp_gap_coarse_first);
    if (tt_hierarchy_alloc(out, n, ng) != 0) {
        free(g);
        return -1;
    }
    for (int l = 0; l < ng; l++) {
        int k = tt_dendrogram_cut_k(dg, n - (g[l].i + 1), out->labels[l]);
        if (k < 0) {
            tt_hierarchy_free(out);
            free(g);
            return -1;
        }
        out->nclusters[l] = k;
        out->cut[l] = g[l].cut;
        out->gap[l] = g[l].ratio;
    }
    free(g);
    return 0;
}

int tt_levels_from_ssstree(const tt_ssstree *t, tt_hierarchy *out)
{
    if (!t || !out || t->n < 1)
        return -1;
    int n = t->n;
    int *lab = malloc((size_t)(t->height + 1) * (size_t)n * sizeof *lab);
    int *keep = malloc((size_t)(t->height + 1) * sizeof *keep);
    int *kk = malloc((size_t)(t->height + 1) * sizeof *kk);
    if (!lab || !keep || !kk) {
        free(lab); free(keep); free(kk);
        return -1;
    }
    int nl = 0;
    for (int d = 1; d <= t->height; d++) {
        int *cur = lab + (size_t)nl * n;
        int k = tt_ssstree_labels(t, d, cur);
        if (k <= 1 || k >= n)
            continue;
        if (nl > 0 && memcmp(cur, lab + (size_t)(nl - 1) * n, (size_t)n * sizeof *cur) == 0)
            continue;
        keep[nl] = d;
        kk[nl] = k;
        nl++;
    }
    int rc = tt_hierarchy_alloc(out, n, nl);
    if (rc == 0)
        for (int l = 0; l < nl; l++) {
            memcpy(out->labels[l], lab + (size_t)l * n, (size_t)n * sizeof *lab);
            out->nclusters[l] = kk[l];
        }
    free(lab); free(keep); free(kk);
    return rc;
}

int tt_levels_name(tt_hierarchy *h, const tt_truth *truth, int ntruth, double min_accuracy)
{
    if (!h || (ntruth > 0 && !truth))
        return -1;
    char *named = calloc((size_t)(h->nlevels > 0 ? h->nlevels : 1), 1);
    if (!named)
        return -1;
    for (int l = 0; l < h->nlevels; l++)
        snprintf(h->name[l], TT_NAME_MAX, "level-%d", l + 1);
    int count = 0;
    for (int t = 0; t < ntruth; t++) {
        double bacc, bari;
        int bl = tt_best_level(h, truth[t].labels, named, &bacc, &bari);
        if (bl >= 0 && bacc >= min_accuracy) {
            snprintf(h->name[bl], TT_NAME_MAX, "%s", truth[t].name);
            named[bl] = 1;
            count++;
        }
    }
    free(named);
    return count;
}
