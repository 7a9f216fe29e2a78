/* LogGP parameters from Hoefler's parameterised round trip PRTT(n,d,s):
 * the sender sends n messages of s bytes, waiting d between them, and the
 * receiver answers the last one with s bytes.  In LogGP
 *   PRTT(1,0,s) = 2 (L + 2o + (s-1)G)
 *   PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max(o + d, G_all),  G_all = g + (s-1)G
 * so with d = PRTT(1,0,s) (longer than G_all)
 *   o      = (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d
 *   G_all  = (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1)
 * and a least-squares line through G_all(s) over s gives g (intercept at
 * s = 1) and G (slope).  Eager and rendezvous protocols have different
 * lines: the switch S is where two segments fit G_all(s) and o(s) much
 * better than one line each (the fit "breaks").  o is the intercept of
 * o(s) below S, and L follows from PRTT(1,0,1) = 2 (L + 2o).
 * No MPI: the probe's LogGP measurement (loggp.c) calls it, the unit tests
 * run it on synthetic round trips. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

double tbp_linfit(const double *x, const double *y, const double *w, int n, double *a, double *b)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; k++) {
        double wk = w ? w[k] : 1.0;
        sw += wk;
        sx += wk * x[k];
        sy += wk * y[k];
        sxx += wk * x[k] * x[k];
        sxy += wk * x[k] * y[k];
    }
    double den = sw * sxx - sx * sx;
    if (n < 1 || !(sw > 0)) {
        *a = *b = 0;
        return 0;
    }
    if (!(fabs(den) > 1e-300 * (sw * sxx + 1e-300))) {
        *b = 0;
        *a = sy / sw;
    } else {
        *b = (sw * sxy - sx * sy) / den;
        *a = (sy - *b * sx) / sw;
    }
    double sse = 0;
    for (int k = 0; k < n; k++) {
        double r = y[k] - (*a + *b * x[k]);
        sse += (w ? w[k] : 1.0) * r * r;
    }
    return sse;
}

/* A two-segment fit must cut the weighted residual to this fraction of
 * the single line's before a protocol switch is reported, and the single
 * lines must miss by more than this RMS relative error (straight data
 * split anywhere fits "better" by rounding). */
#define SWITCH_GAIN 0.25
#define SWITCH_MIN_RMS 0.01

/* Residual of lines fitted to both series over [lo, hi). */
static double two_series(const double *x, const double *yg, const double *wg, const double *yo, const double *wo,
                         int lo, int hi)
{
    double a, b;
    return tbp_linfit(x + lo, yg + lo, wg + lo, hi - lo, &a, &b) + tbp_linfit(x + lo, yo + lo, wo + lo, hi - lo, &a, &b);
}

/* The line of G_all(s) = g + s G, which no network runs backwards: where
 * noise tilts the least-squares line below zero (G < 0 on a flat series,
 * g < 0 on a steep one), the best line with both parameters >= 0 instead
 * -- a constant (the weighted mean) or a line through the origin. */
static void gap_line(const double *x, const double *y, const double *w, int n, double *g, double *G)
{
    tbp_linfit(x, y, w, n, g, G);
    if (*G < 0) {
        double sw = 0, sy = 0;
        for (int k = 0; k < n; k++) {
            sw += w[k];
            sy += w[k] * y[k];
        }
        *g = sw > 0 ? sy / sw : 0;
        *G = 0;
    } else if (*g < 0) {
        double sxx = 0, sxy = 0;
        for (int k = 0; k < n; k++) {
            sxx += w[k] * x[k] * x[k];
            sxy += w[k] * x[k] * y[k];
        }
        *g = 0;
        *G = sxx > 0 && sxy > 0 ? sxy / sxx : 0;
    }
}

int tbp_loggp_fit_pair(tt_size_rec *s, int ns, int n, int use_min, tt_loggp_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    if (ns < 1 || n < 2)
        return -1;
    double *x = malloc(5 * (size_t)ns * sizeof *x), *yg = x + ns, *wg = x + 2 * ns, *yo = x + 3 * ns,
           *wo = x + 4 * ns;
    if (!x)
        return -1;
    int np = 0, first = -1;
    for (int k = 0; k < ns; k++) {
        double p1 = s[k].rtt, pn0 = tbp_pick(s[k].q[TT_Q_B], use_min);
        double pnd = tbp_pick(s[k].q[TT_Q_C], use_min);
        double o = (pnd - p1) / (n - 1) - p1;
        double gall = (pn0 - p1) / (n - 1);
        s[k].o_s = s[k].o_r = o > 0 ? o : 0;
        s[k].g = gall > 0 ? gall : 0;
        if (s[k].m >= 1) {
            if (first < 0)
                first = k;
            x[np] = s[k].m - 1;
            yg[np] = s[k].g;
            yo[np] = s[k].o_s;
            /* relative residuals: the small sizes matter as much as 2 MiB;
             * 1 ns floor so that a zero does not take all the weight */
            double sg = yg[np] > 1e-9 ? yg[np] : 1e-9, so = yo[np] > 1e-9 ? yo[np] : 1e-9;
            wg[np] = 1.0 / (sg * sg);
            wo[np] = 1.0 / (so * so);
            np++;
        }
    }
    if (np < 2) {
        free(x);
        return -1;
    }
    /* The switch shows in G_all(s) (other g and G) and above all in o(s):
     * an eager send returns after a copy, a rendezvous one after the
     * transfer.  Both series are fitted on each side of a candidate split. */
    double single = two_series(x, yg, wg, yo, wo, 0, np), best = INFINITY;
    int split = -1;
    for (int k = 2; k + 2 <= np; k++) {
        double e = two_series(x, yg, wg, yo, wo, 0, k) + two_series(x, yg, wg, yo, wo, k, np);
        if (e < best) {
            best = e;
            split = k;
        }
    }
    int eager = np;
    if (split > 0 && best < SWITCH_GAIN * single && single > 2.0 * np * SWITCH_MIN_RMS * SWITCH_MIN_RMS) {
        eager = split;
        fit->S = x[split] + 1;
    }
    gap_line(x, yg, wg, eager, &fit->g, &fit->G);
    if (eager < np) {
        gap_line(x + eager, yg + eager, wg + eager, np - eager, &fit->g2, &fit->G2);
    } else {
        fit->g2 = fit->g;
        fit->G2 = fit->G;
    }
    /* o is the per-message part of o(s) (the size-dependent copy is in G):
     * the intercept of its line below S */
    double slope;
    tbp_linfit(x, yo, wo, eager, &fit->o, &slope);
    if (fit->o < 0)
        fit->o = 0;
    double L = s[first].rtt / 2 - 2 * fit->o;
    fit->L = L > 0 ? L : 0;
    free(x);
    return 0;
}
