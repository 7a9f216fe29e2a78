/* Agglomerative clustering with a dendrogram.  Uses the nearest-neighbour
 * chain so that P = 512..4096 stays O(n^2) time; single, average and
 * complete linkage are all reducible, which is what the chain needs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_internal.h"

typedef struct raw_merge {
    int a, b;    /* representative objects of the two clusters */
    double dist;
    int order;   /* record order, breaks ties so the sort is stable */
} raw_merge;

static int cmp_raw(const void *x, const void *y)
{
    const raw_merge *p = x, *q = y;
    if (p->dist < q->dist)
        return -1;
    if (p->dist > q->dist)
        return 1;
    return p->order - q->order;
}

const char *tt_linkage_name(tt_linkage link)
{
    switch (link) {
    case TT_LINK_SINGLE: return "single";
    case TT_LINK_AVERAGE: return "average";
    case TT_LINK_COMPLETE: return "complete";
    }
    return "?";
}

/* Lance-Williams update for the three linkages. */
static double combine(tt_linkage link, double dak, double dbk, int sa, int sb)
{
    switch (link) {
    case TT_LINK_SINGLE: return dak < dbk ? dak : dbk;
    case TT_LINK_COMPLETE: return dak > dbk ? dak : dbk;
    case TT_LINK_AVERAGE: break;
    }
    return ((double)sa * dak + (double)sb * dbk) / (double)(sa + sb);
}

int tt_agglomerative(const double *D, int n, tt_linkage link, tt_dendrogram *out)
{
    if (!D || !out || n < 1 || (link != TT_LINK_SINGLE && link != TT_LINK_AVERAGE &&
                                link != TT_LINK_COMPLETE))
        return -1;
    out->n = n;
    out->merge = NULL;
    if (n == 1)
        return 0;
    size_t nn = (size_t)n * (size_t)n;
    double *W = malloc(nn * sizeof *W);
    int *size = malloc((size_t)n * sizeof *size);
    char *active = malloc((size_t)n);
    int *chain = malloc((size_t)n * sizeof *chain);
    raw_merge *raw = malloc((size_t)(n - 1) * sizeof *raw);
    int *parent = malloc((size_t)n * sizeof *parent);
    int *cid = malloc((size_t)n * sizeof *cid);
    double *height = malloc((size_t)n * sizeof *height);
    out->merge = malloc((size_t)(n - 1) * sizeof *out->merge);
    if (!W || !size || !active || !chain || !raw || !parent || !cid || !height || !out->merge) {
        free(W); free(size); free(active); free(chain); free(raw); free(parent); free(cid);
        free(height); free(out->merge);
        out->merge = NULL;
        return -1;
    }
    memcpy(W, D, nn * sizeof *W);
    for (int i = 0; i < n; i++) {
        size[i] = 1;
        active[i] = 1;
    }
    int nactive = n, top = 0, nraw = 0;
    while (nactive > 1) {
        if (top == 0) {
            int first = 0;
            while (!active[first])
                first++;
            chain[top++] = first;
        }
        int a = chain[top - 1];
        int prev = top >= 2 ? chain[top - 2] : -1;
        /* Nearest active neighbour; preferring the previous chain element on
         * ties guarantees the chain ends in a reciprocal pair. */
        int b = -1;
        double best = INFINITY;
        const double *row = W + (size_t)a * n;
        for (int k = 0; k < n; k++) {
            if (k == a || !active[k])
                continue;
            if (row[k] < best) {
                best = row[k];
                b = k;
            }
        }
        if (prev >= 0 && row[prev] <= best)
            b = prev;
        if (b != prev) {
            chain[top++] = b;
            continue;
        }
        top -= 2;
        /* Merge a and b into the lower index slot. */
        int keep = a < b ? a : b, gone = a < b ? b : a;
        raw[nraw].a = a;
        raw[nraw].b = b;
        raw[nraw].dist = W[(size_t)a * n + b];
        raw[nraw].order = nraw;
        nraw++;
        for (int k = 0; k < n; k++) {
            if (!active[k] || k == a || k == b)
                continue;
            double v = combine(link, W[(size_t)keep * n + k], W[(size_t)gone * n + k], size[keep],
                               size[gone]);
            W[(size_t)keep * n + k] = v;
            W[(size_t)k * n + keep] = v;
        }
        size[keep] += size[gone];
        active[gone] = 0;
        nactive--;
    }
    /* Rounding in the average update can put a merge a hair below the merge
     * that created one of its clusters; clamp so the sort keeps every merge
     * after the merges it depends on. */
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        height[i] = 0.0;
    }
    for (int r = 0; r < nraw; r++) {
        int ra = tt_uf_find(parent, raw[r].a), rb = tt_uf_find(parent, raw[r].b);
        double h = height[ra] > height[rb] ? height[ra] : height[rb];
        if (raw[r].dist < h)
            raw[r].dist = h;
        int root = tt_uf_union(parent, ra, rb);
        height[root] = raw[r].dist;
    }
    qsort(raw, (size_t)nraw, sizeof *raw, cmp_raw);
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        cid[i] = i;
        size[i] = 1;
    }
    for (int r = 0; r < nraw; r++) {
        int ra = tt_uf_find(parent, raw[r].a), rb = tt_uf_find(parent, raw[r].b);
        int ca = cid[ra], cb = cid[rb];
        tt_merge *m = &out->merge[r];
        m->a = ca < cb ? ca : cb;
        m->b = ca < cb ? cb : ca;
        m->dist = raw[r].dist;
        m->size = size[ra] + size[rb];
        int root = tt_uf_union(parent, ra, rb);
        cid[root] = n + r;
        size[root] = m->size;
    }
    free(W); free(size); free(active); free(chain); free(raw); free(parent); free(cid);
    free(height);
    return 0;
}

void tt_dendrogram_free(tt_dendrogram *dg)
{
    if (!dg)
        return;
    free(dg->merge);
    dg->merge = NULL;
    dg->n = 0;
}

/* Applies the first nmerges merges to singleton clusters. */
static int apply_merges(const tt_dendrogram *dg, int nmerges, int *labels)
{
    int n = dg->n;
    int *parent = malloc((size_t)n * sizeof *parent);
    int *rep = malloc((size_t)(2 * n) * sizeof *rep);
    if (!parent || !rep) {
        free(parent);
        free(rep);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        rep[i] = i;
    }
    for (int r = 0; r < nmerges; r++) {
        const tt_merge *m = &dg->merge[r];
        tt_uf_union(parent, rep[m->a], rep[m->b]);
        rep[n + r] = rep[m->a];
    }
    int k = tt_labels_from_uf(parent, n, labels);
    free(parent);
    free(rep);
    return k;
}

int tt_dendrogram_cut_k(const tt_dendrogram *dg, int k, int *labels)
{
    if (!dg || !labels || k < 1 || k > dg->n)
        return -1;
    return apply_merges(dg, dg->n - k, labels);
}

int tt_dendrogram_cut_height(const tt_dendrogram *dg, double height, int *labels)
{
    if (!dg || !labels || dg->n < 1)
        return -1;
    int m = 0;
    while (m < dg->n - 1 && dg->merge[m].dist <= height)
        m++;
    return apply_merges(dg, m, labels);
}
