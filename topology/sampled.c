/* Sample mode's distances (analysis_internal.h): the pairs the probe did
 * not measure take the time of the minimax path through measured pairs.
 *
 * Kruskal's order: measured pairs by ascending time, each joining two
 * components of what the pairs so far connect; every pair (x, y) across
 * the two that was not measured takes that pair's time.  That is the
 * largest time on the best path from x to y, the subdominant ultrametric
 * of the measurements.  When the true times form a hierarchy of clusters
 * (an ultrametric: within a cluster nearer than to anything outside) and
 * the measured pairs connect each cluster inside itself, as the sampler's
 * sweeps do (probe/sample_plan.c), it equals the true time: the levels of
 * the completed matrix are those of the full one.  Measurement noise only
 * adds time, and the path takes the least of the times it could. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "cluster_internal.h" /* union-find */

typedef struct tk {
    double t;
    int k;
} tk;

static int cmp_tk(const void *a, const void *b)
{
    const tk *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->k - y->k;
}

int tt_sampled_distances(const tt_meas *m, const tt_analysis_opts *o, tt_analysis *a, char *err, size_t errlen)
{
    int n = m->n, E = m->npairs, vec = o->dist == TT_DIST_VECTORS, rc = -1;
    size_t nn = (size_t)n * (size_t)n;
    tt_plogp p = {0};
    tk *ord = malloc((size_t)(E ? E : 1) * sizeof *ord);
    int *parent = malloc((size_t)n * sizeof *parent), *next = malloc((size_t)n * sizeof *next);
    int *head = malloc((size_t)n * sizeof *head), *tail = malloc((size_t)n * sizeof *tail);
    if (!ord || !parent || !next || !head || !tail || (vec && tt_plogp_alloc(&p, n) != 0)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t x = 0; x < nn; x++)
        a->T[x] = NAN;
    for (int r = 0; r < n; r++) {
        a->T[(size_t)r * n + r] = 0;
        parent[r] = head[r] = tail[r] = r;
        next[r] = -1;
    }
    for (int k = 0; k < E; k++) {
        const tt_pair_rec *q = &m->pair[k];
        if (q->i < 0 || q->j < 0 || q->i >= n || q->j >= n || q->i == q->j || tt_pair_rec_time(q, o->at, o->interp, &ord[k].t) != 0 ||
            (vec && tt_pair_set_from_rec(&p, q->i, q->j, q) != 0)) {
            snprintf(err, errlen, "pair (%d, %d): unusable measurements", q->i, q->j);
            goto out;
        }
        ord[k].k = k;
        a->T[(size_t)q->i * n + q->j] = a->T[(size_t)q->j * n + q->i] = ord[k].t;
    }
    qsort(ord, (size_t)E, sizeof *ord, cmp_tk);
    a->extended = 0;
    int comps = n;
    for (int e = 0; e < E; e++) {
        const tt_pair_rec *q = &m->pair[ord[e].k];
        int ra = tt_uf_find(parent, q->i), rb = tt_uf_find(parent, q->j);
        if (ra == rb)
            continue;
        for (int x = head[ra]; x >= 0; x = next[x])
            for (int y = head[rb]; y >= 0; y = next[y]) {
                double *t = &a->T[(size_t)x * n + y];
                if (!isnan(*t))
                    continue;
                *t = a->T[(size_t)y * n + x] = ord[e].t;
                a->extended++;
                if (vec && tt_pair_set_from_rec(&p, x, y, q) != 0) {
                    snprintf(err, errlen, "out of memory");
                    goto out;
                }
            }
        int r = tt_uf_union(parent, ra, rb), o2 = r == ra ? rb : ra;
        next[tail[r]] = head[o2];
        tail[r] = tail[o2];
        comps--;
    }
    if (comps > 1) {
        int other = 1;
        while (other < n && tt_uf_find(parent, other) == tt_uf_find(parent, 0))
            other++;
        snprintf(err, errlen, "ranks 0 and %d are joined by no measured pairs (%d parts)", other, comps);
        goto out;
    }
    /* the rank measured between groups stands for its group */
    for (int u = 0; u < n; u++) {
        a->rep[u] = u;
        for (int v = 0; v < n; v++)
            if (m->rank[v].measured && m->rank[v].group == m->rank[u].group) {
                a->rep[u] = v;
                break;
            }
    }
    if (vec)
        tt_distance_vectors(&p, o->at, o->interp, 1, a->D);
    else
        memcpy(a->D, a->T, nn * sizeof *a->D);
    rc = 0;
out:
    if (vec)
        tt_plogp_free(&p);
    free(ord);
    free(parent);
    free(next);
    free(head);
    free(tail);
    return rc;
}
