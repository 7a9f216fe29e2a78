/* PLogP cost tables; see costs.h. */
#include "costs.h"

#include <stdlib.h>
#include <string.h>

int tn_costs_alloc_counts(tn_costs *c, int nprocs, int ncurves, const int *counts, int with_pairs)
{
    memset(c, 0, sizeof *c);
    if (nprocs < 1 || ncurves < 1)
        return -1;
    c->nprocs = nprocs;
    c->ncurves = ncurves;
    c->eager_limit = 65536;
    c->off = malloc(sizeof(int) * ((size_t)ncurves + 1));
    if (!c->off)
        return -1;
    c->off[0] = 0;
    for (int k = 0; k < ncurves; k++) {
        if (counts[k] < 1) {
            tn_costs_free(c);
            return -1;
        }
        c->off[k + 1] = c->off[k] + counts[k];
    }
    size_t total = (size_t)c->off[ncurves];
    c->m = calloc(total, sizeof *c->m);
    c->os = calloc(total, sizeof *c->os);
    c->orv = calloc(total, sizeof *c->orv);
    c->g = calloc(total, sizeof *c->g);
    c->L = calloc((size_t)ncurves, sizeof *c->L);
    if (with_pairs)
        c->pair = calloc((size_t)nprocs * (size_t)nprocs, sizeof *c->pair);
    if (!c->m || !c->L || !c->os || !c->orv || !c->g || (with_pairs && !c->pair)) {
        tn_costs_free(c);
        return -1;
    }
    return 0;
}

int tn_costs_alloc(tn_costs *c, int nprocs, int ncurves, int nm, int with_pairs)
{
    int *counts = malloc(sizeof(int) * (size_t)(ncurves > 0 ? ncurves : 1));
    if (!counts)
        return -1;
    for (int k = 0; k < ncurves; k++)
        counts[k] = nm;
    int rc = tn_costs_alloc_counts(c, nprocs, ncurves, counts, with_pairs);
    free(counts);
    return rc;
}

void tn_costs_free(tn_costs *c)
{
    free(c->off);
    free(c->m);
    free(c->L);
    free(c->os);
    free(c->orv);
    free(c->g);
    free(c->pair);
    tb_hier_free(&c->classes);
    memset(c, 0, sizeof *c);
}

int tn_costs_set_classes(tn_costs *c, const tb_hier *h)
{
    tb_hier_free(&c->classes);
    if (!h || h->size != c->nprocs || tb_hier_alloc(&c->classes, h->size, h->nlevels) != 0)
        return -1;
    for (int l = 0; l < h->nlevels; l++) {
        memcpy(c->classes.level_name[l], h->level_name[l], TB_LEVEL_NAME_MAX);
        memcpy(c->classes.group[l], h->group[l], sizeof(int) * (size_t)h->size);
        c->classes.ngroups[l] = h->ngroups[l];
    }
    return 0;
}

double tn_costs_interp(const double *x, const double *y, int n, double v)
{
    if (n <= 0)
        return 0.0;
    if (n == 1 || v <= x[0])
        return y[0];
    int lo = 0, hi = n - 1;
    if (v >= x[n - 1]) {
        lo = n - 2;
        hi = n - 1;
    } else {
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (x[mid] <= v)
                lo = mid;
            else
                hi = mid;
        }
    }
    double dx = x[hi] - x[lo];
    if (dx <= 0)
        return y[hi];
    double r = y[lo] + (y[hi] - y[lo]) * (v - x[lo]) / dx;
    return r > 0 ? r : 0.0;
}

double tn_costs_bandwidth(const tn_costs *c, int k)
{
    int n = tn_costs_n(c, k);
    const double *m = tn_costs_m(c, k), *g = tn_costs_g(c, k);
    if (n < 1 || m[n - 1] <= 0)
        return 0;
    int j = -1;
    for (int i = 0; i < n - 1; i++)
        if (m[i] <= m[n - 1] / 2)
            j = i;
    if (j >= 0 && g[n - 1] > g[j])
        return (m[n - 1] - m[j]) / (g[n - 1] - g[j]);
    return g[n - 1] > 0 ? m[n - 1] / g[n - 1] : 0;
}

void tn_costs_edge(const tn_costs *c, int a, int b, size_t bytes, tn_edge_cost *out)
{
    int k = tn_costs_curve(c, a, b);
    double m = (double)bytes;
    out->L = c->L[k];
    out->g = tn_costs_interp(tn_costs_m(c, k), tn_costs_g(c, k), tn_costs_n(c, k), m);
    out->os = tn_costs_interp(tn_costs_m(c, k), tn_costs_os(c, k), tn_costs_n(c, k), m);
    out->orv = tn_costs_interp(tn_costs_m(c, k), tn_costs_or(c, k), tn_costs_n(c, k), m);
    /* the overheads are part of the gap, never more: back to back, one
     * message per g(m) goes out and comes in (the probe's o_s is an
     * MPI_Ssend, which also waits for the match) */
    if (out->os > out->g)
        out->os = out->g;
    if (out->orv > out->g)
        out->orv = out->g;
    double bw = tn_costs_bandwidth(c, k);
    out->gbw = bw > 0 && m / bw < out->g ? m / bw : out->g;
}

int tn_costs_pair_class(const tb_hier *h, int a, int b)
{
    if (!h || h->nlevels <= 0)
        return 0;
    for (int l = 0; l < h->nlevels; l++)
        if (h->group[l][a] != h->group[l][b])
            return l;
    return h->nlevels;
}
