/* Distance matrices from PLogP measurements (seed thesis sec. 3.2): the
 * predicted time of one message t(m) = L + (o_s + o_r)/2 + g(m), and the
 * Euclidean distance between the ranks' parameter vectors.  The probe fills a
 * tt_plogp; everything downstream only sees an n x n matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"

int tt_plogp_alloc(tt_plogp *p, int n)
{
    if (!p || n < 1)
        return -1;
    p->n = n;
    size_t np = (size_t)n * (size_t)(n - 1) / 2;
    p->pair = calloc(np ? np : 1, sizeof *p->pair);
    return p->pair ? 0 : -1;
}

void tt_plogp_free(tt_plogp *p)
{
    if (!p)
        return;
    if (p->pair) {
        size_t np = (size_t)p->n * (size_t)(p->n - 1) / 2;
        for (size_t i = 0; i < np; i++)
            free(p->pair[i].m); /* one block holds all four arrays */
    }
    free(p->pair);
    p->pair = NULL;
    p->n = 0;
}

int tt_plogp_set_pair(tt_plogp *p, int i, int j, double L, int nsizes, const double *m,
                      const double *o_s, const double *o_r, const double *g)
{
    if (!p || !p->pair || i == j || i < 0 || j < 0 || i >= p->n || j >= p->n || nsizes < 1 ||
        !m || !o_s || !o_r || !g)
        return -1;
    for (int k = 1; k < nsizes; k++)
        if (!(m[k] > m[k - 1]))
            return -1;
    double *blk = malloc((size_t)nsizes * 4 * sizeof *blk);
    if (!blk)
        return -1;
    tt_plogp_pair *q = &p->pair[tt_pair_index(p->n, i, j)];
    free(q->m);
    q->nsizes = nsizes;
    q->L = L;
    q->m = blk;
    q->o_s = blk + nsizes;
    q->o_r = blk + 2 * nsizes;
    q->g = blk + 3 * nsizes;
    memcpy(q->m, m, (size_t)nsizes * sizeof *blk);
    memcpy(q->o_s, o_s, (size_t)nsizes * sizeof *blk);
    memcpy(q->o_r, o_r, (size_t)nsizes * sizeof *blk);
    memcpy(q->g, g, (size_t)nsizes * sizeof *blk);
    return 0;
}

double tt_interp_at(const double *m, const double *y, int ns, double x, tt_interp how)
{
    if (!m || !y || ns < 1)
        return NAN;
    if (ns == 1)
        return y[0];
    if (how == TT_INTERP_LINFIT) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int k = 0; k < ns; k++) {
            sx += m[k];
            sy += y[k];
            sxx += m[k] * m[k];
            sxy += m[k] * y[k];
        }
        double den = ns * sxx - sx * sx;
        if (!(fabs(den) > 0.0))
            return sy / ns;
        double a = (ns * sxy - sx * sy) / den;
        double b = (sy - a * sx) / ns;
        return a * x + b;
    }
    if (x <= m[0])
        return y[0];
    int k = 1;
    while (k < ns - 1 && m[k] < x)
        k++;
    /* x in (m[k-1], m[k]], or beyond the last size: extend the last segment */
    double t = (x - m[k - 1]) / (m[k] - m[k - 1]);
    return y[k - 1] + t * (y[k] - y[k - 1]);
}

double tt_plogp_time(const tt_plogp_pair *p, double m, tt_interp how)
{
    if (!p || p->nsizes < 1)
        return NAN;
    double os = tt_interp_at(p->m, p->o_s, p->nsizes, m, how);
    double orr = tt_interp_at(p->m, p->o_r, p->nsizes, m, how);
    double g = tt_interp_at(p->m, p->g, p->nsizes, m, how);
    return p->L + 0.5 * (os + orr) + g;
}

int tt_distance_time(const tt_plogp *p, double m, tt_interp how, double *D)
{
    if (!p || !p->pair || !D)
        return -1;
    int n = p->n;
    for (int i = 0; i < n; i++) {
        D[(size_t)i * n + i] = 0.0;
        for (int j = i + 1; j < n; j++) {
            double t = tt_plogp_time(&p->pair[tt_pair_index(n, i, j)], m, how);
            D[(size_t)i * n + j] = t;
            D[(size_t)j * n + i] = t;
        }
    }
    return 0;
}

int tt_distance_vectors(const tt_plogp *p, double m, tt_interp how, unsigned flags, double *D)
{
    if (!p || !p->pair || !D)
        return -1;
    int n = p->n;
    size_t np = (size_t)n * (size_t)(n - 1) / 2;
    /* v[pair][4], NAN when unmeasured */
    double *v = malloc((np ? np : 1) * 4 * sizeof *v);
    if (!v)
        return -1;
    for (size_t q = 0; q < np; q++) {
        const tt_plogp_pair *pp = &p->pair[q];
        if (pp->nsizes < 1) {
            for (int c = 0; c < 4; c++)
                v[4 * q + c] = NAN;
            continue;
        }
        v[4 * q + 0] = pp->L;
        v[4 * q + 1] = tt_interp_at(pp->m, pp->o_s, pp->nsizes, m, how);
        v[4 * q + 2] = tt_interp_at(pp->m, pp->o_r, pp->nsizes, m, how);
        v[4 * q + 3] = tt_interp_at(pp->m, pp->g, pp->nsizes, m, how);
    }
    if (flags & TT_VEC_STANDARDIZE) {
        for (int c = 0; c < 4; c++) {
            double s = 0, ss = 0;
            long cnt = 0;
            for (size_t q = 0; q < np; q++)
                if (!isnan(v[4 * q + c])) {
                    s += v[4 * q + c];
                    ss += v[4 * q + c] * v[4 * q + c];
                    cnt++;
                }
            double var = cnt > 1 ? (ss - s * s / cnt) / (cnt - 1) : 0.0;
            double sd = var > 0.0 ? sqrt(var) : 0.0;
            if (sd > 0.0)
                for (size_t q = 0; q < np; q++)
                    v[4 * q + c] /= sd;
        }
    }
    /* ||V_i - V_j||^2 = sum over k of |v_ik - v_jk|^2 (v_ii = 0) */
    int diag = (flags & TT_VEC_THESIS_DIAGONAL) != 0;
    for (int i = 0; i < n; i++) {
        D[(size_t)i * n + i] = 0.0;
        for (int j = i + 1; j < n; j++) {
            double acc = 0.0;
            for (int k = 0; k < n; k++) {
                if (!diag && (k == i || k == j))
                    continue;
                const double *a = k == i ? NULL : v + 4 * tt_pair_index(n, i, k);
                const double *b = k == j ? NULL : v + 4 * tt_pair_index(n, j, k);
                for (int c = 0; c < 4; c++) {
                    double x = a ? a[c] : 0.0, y = b ? b[c] : 0.0;
                    if (isnan(x) || isnan(y))
                        continue;
                    acc += (x - y) * (x - y);
                }
            }
            double d = sqrt(acc);
            D[(size_t)i * n + j] = d;
            D[(size_t)j * n + i] = d;
        }
    }
    free(v);
    return 0;
}

int tt_distance_check(const double *D, int n)
{
    if (!D || n < 1)
        return -1;
    for (int i = 0; i < n; i++) {
        if (D[(size_t)i * n + i] != 0.0)
            return -1;
        for (int j = i + 1; j < n; j++) {
            double a = D[(size_t)i * n + j], b = D[(size_t)j * n + i];
            if (!isfinite(a) || a < 0.0 || a != b)
                return -1;
        }
    }
    return 0;
}

void tt_distance_symmetrize(double *D, int n)
{
    if (!D)
        return;
    for (int i = 0; i < n; i++) {
        D[(size_t)i * n + i] = 0.0;
        for (int j = i + 1; j < n; j++) {
            double v = 0.5 * (D[(size_t)i * n + j] + D[(size_t)j * n + i]);
            D[(size_t)i * n + j] = v;
            D[(size_t)j * n + i] = v;
        }
    }
}

void tt_distance_range(const double *D, int n, double *dmin, double *dmax)
{
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double v = D[(size_t)i * n + j];
            if (v > 0.0 && v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
    if (dmin)
        *dmin = isfinite(lo) ? lo : 0.0;
    if (dmax)
        *dmax = hi;
}
