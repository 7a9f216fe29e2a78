/* The pure parts of the probe's measurement: robust statistics, the size
 * list with interpolation-driven insertion, and the LogGP fit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "tap.h"

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel) * fabs(b) + 1e-18)

/* Curves for the insertion tests, in microseconds. */
static double linear(double m) { return 2.0 + 0.001 * m; }
static double kink(double m) { return m < 5000 ? 2.0 + 0.001 * m : 7.0 + 0.004 * (m - 5000); }
/* eager below 64 KiB, rendezvous (one more round trip) from 64 KiB on */
static double jump(double m) { return m < 65536 ? 2.0 + 0.0004 * m : 30.0 + 0.0002 * m; }

typedef double (*curve)(double);

/* Runs the insertion loop to the end; returns the sizes measured in
 * addition to the base ones, or -1 if it does not stop within cap. */
static int insert_all(curve f, long max, double eps, double *m, double *y, int *n, int cap, long *added)
{
    long base[64];
    int nb = tbp_sizes_base(max, base, 64);
    *n = nb;
    for (int k = 0; k < nb; k++) {
        m[k] = (double)base[k];
        y[k] = f(m[k]);
    }
    int extra = 0;
    for (;;) {
        const double *ys[1] = {y};
        long next = tbp_sizes_next(m, *n, ys, NULL, 1, eps, 32);
        if (next < 0)
            return extra;
        if (*n == cap)
            return -1;
        int p = 0;
        while (p < *n && m[p] < (double)next)
            p++;
        if (p < *n && m[p] == (double)next)
            return -1; /* the same size twice: would never end */
        memmove(m + p + 1, m + p, (size_t)(*n - p) * sizeof *m);
        memmove(y + p + 1, y + p, (size_t)(*n - p) * sizeof *y);
        m[p] = (double)next;
        y[p] = f(m[p]);
        (*n)++;
        added[extra++] = next;
    }
}

/* Largest relative miss of piecewise-linear interpolation over [0, max],
 * ignoring intervals of at most 32 bytes (the resolution limit). */
static double worst_miss(curve f, const double *m, int n)
{
    double worst = 0;
    for (int k = 0; k + 1 < n; k++) {
        if (m[k + 1] - m[k] <= 32)
            continue;
        for (int s = 1; s < 16; s++) {
            double x = m[k] + (m[k + 1] - m[k]) * s / 16.0;
            double t = (x - m[k]) / (m[k + 1] - m[k]);
            double line = f(m[k]) + t * (f(m[k + 1]) - f(m[k]));
            double miss = fabs(line - f(x)) / f(x);
            if (miss > worst)
                worst = miss;
        }
    }
    return worst;
}

static void test_stats(void)
{
    double a[] = {5, 1, 4, 2, 3}, f[5];
    tbp_five_numbers(a, 5, f);
    TAP_OK(f[0] == 1 && f[1] == 2 && f[2] == 3 && f[3] == 4 && f[4] == 5, "five numbers of 1..5 (%g %g %g %g %g)",
           f[0], f[1], f[2], f[3], f[4]);
    double b[] = {4, 1, 3, 2};
    tbp_five_numbers(b, 4, f);
    TAP_OK(f[0] == 1 && NEAR(f[1], 1.75, 1e-12) && NEAR(f[2], 2.5, 1e-12) && NEAR(f[3], 3.25, 1e-12) && f[4] == 4,
           "five numbers of 1..4 interpolate quartiles (%g %g %g)", f[1], f[2], f[3]);
    /* one huge outlier moves neither the minimum nor the median */
    double c[] = {1.0, 1.1, 1.05, 1000.0, 1.02, 0.98, 1.01};
    tbp_five_numbers(c, 7, f);
    TAP_OK(tbp_pick(f, 1) == 0.98 && tbp_pick(f, 0) == 1.02 && f[4] == 1000.0,
           "min %g and median %g ignore the outlier", tbp_pick(f, 1), tbp_pick(f, 0));
    double same[] = {2.0, 2.0005, 1.9995, 2.0};
    TAP_OK(tbp_batches_agree(same, 3, 3, 1e-3), "three batches within 0.1%% agree");
    TAP_OK(!tbp_batches_agree(same, 2, 3, 1e-3), "two batches are too few when three are needed");
    TAP_OK(!tbp_batches_agree(same, 4, 3, 1e-4), "not within a tighter tolerance");
    TAP_OK(!tbp_batches_agree(same, 4, 3, 0), "tolerance 0 never stops");
    double outl[] = {2.0, 2.0, 2.5};
    TAP_OK(!tbp_batches_agree(outl, 3, 3, 1e-3), "an outlier batch keeps the measurement going");
    double zero[] = {0, 0, 0};
    TAP_OK(tbp_batches_agree(zero, 3, 3, 1e-3), "equal zero batches agree");
    double one = 7;
    tbp_five_numbers(&one, 1, f);
    TAP_OK(f[0] == 7 && f[2] == 7 && f[4] == 7, "five numbers of a single sample");
}

/* Outlier rejection: what the summary keeps and what it reports. */
static void test_summarize(void)
{
    double f[5];
    /* clean batches 1.0..1.4 and four stalls: the plain median is the
     * largest clean batch, the summary's the middle one */
    double a[] = {60, 1.2, 1.0, 70, 1.4, 50, 1.1, 80, 1.3};
    double raw[9];
    memcpy(raw, a, sizeof a);
    tbp_five_numbers(raw, 9, f);
    double plain = f[2];
    int k = tbp_summarize(a, 9, f);
    TAP_OK(plain == 1.4 && k == 5 && f[0] == 1.0 && f[2] == 1.2 && f[4] == 1.4,
           "4 stalls of 9 batches rejected: median %g (plain %g), max %g, %d kept", f[2], plain, f[4], k);
    TAP_OK(a[0] == 1.0 && a[4] == 1.4, "kept batches first, sorted");
    /* one slow batch of R = 4 */
    double b[] = {1.01, 1.0, 9.0, 1.02};
    k = tbp_summarize(b, 4, f);
    TAP_OK(k == 3 && f[4] == 1.02 && f[2] == 1.01, "R = 4, one stall: rejected (median %g, max %g)", f[2], f[4]);
    /* a simulator: equal but for rounding, nothing goes */
    double c[] = {2.2e-6, 2.2e-6 * (1 + 1e-13), 2.2e-6 * (1 - 1e-13), 2.2e-6};
    k = tbp_summarize(c, 4, f);
    TAP_OK(k == 4 && f[2] == tbp_pick(f, 0), "rounding-level differences: all 4 kept");
    /* within 1 % of the median nothing is an outlier, however tight the rest */
    double d[] = {1.0, 1.0, 1.0, 1.0, 1.009};
    k = tbp_summarize(d, 5, f);
    TAP_OK(k == 5 && f[4] == 1.009, "a batch 0.9 %% off is kept");
    /* fewer than 3 batches: no rejection */
    double e[] = {1.0, 100.0};
    k = tbp_summarize(e, 2, f);
    TAP_OK(k == 2 && f[2] == 50.5, "2 batches: both kept");
    /* half of them slow: no median can tell, and none is dropped */
    double g[] = {1.0, 1.02, 50, 60};
    k = tbp_summarize(g, 4, f);
    TAP_OK(k == 4, "2 stalls of 4: kept (more batches are the remedy)");
}

/* Base sizes measured again, and how two measurements combine. */
static void test_suspect(void)
{
    tt_size_rec s[4] = {
        {.m = 0, .rtt = 12e-3, .o_s = 14e-3, .o_r = 4e-6, .g = 1e-7},  /* stalled */
        {.m = 1, .rtt = 1.3e-6, .o_s = 1.4e-6, .o_r = 0.18e-6, .g = 1e-7},
        {.m = 2, .rtt = 1.3e-6, .o_s = 1.4e-6, .o_r = 0.19e-6, .g = 1e-7},
        {.m = 4, .rtt = 1.35e-6, .o_s = 1.45e-6, .o_r = 0.19e-6, .g = 1e-7},
    };
    TAP_OK(tbp_size_suspect(s, 0, 4, 0.05), "size 0 slower than size 1: suspect");
    TAP_OK(!tbp_size_suspect(s, 1, 4, 0.05) && !tbp_size_suspect(s, 2, 4, 0.05), "monotone sizes pass");
    TAP_OK(!tbp_size_suspect(s, 3, 4, 0.05), "largest size within twice the previous passes");
    double bimodal[5] = {0.26e-6, 0.4e-6, 1.77e-6, 2.3e-6, 2.5e-6};
    memcpy(s[3].q[TT_Q_B], bimodal, sizeof bimodal);
    TAP_OK(tbp_size_suspect(s, 3, 4, 0.05), "largest size with half its o_s batches slow: suspect");
    memset(s[3].q, 0, sizeof s[3].q);
    s[3].rtt = 40e-6;
    TAP_OK(tbp_size_suspect(s, 3, 4, 0.05), "largest size 30x the previous one (size ratio 2): suspect");
    s[2].o_r = 0.3e-6;
    TAP_OK(tbp_size_suspect(s, 2, 4, 0.05), "o_r above the next size's: suspect");
    tt_size_rec again = {.m = 0, .rtt = 1.25e-6, .o_s = 20e-3, .o_r = 0.17e-6, .g = 2e-7, .gsat = 64};
    again.q[TT_Q_A][2] = 1.25e-6;
    s[0].q[TT_Q_B][2] = 14e-3;
    tbp_size_keep_lower(&s[0], &again);
    TAP_OK(s[0].rtt == 1.25e-6 && s[0].q[TT_Q_A][2] == 1.25e-6 && s[0].g == 2e-7 && s[0].gsat == 64,
           "lower RTT taken with its summary and g");
    TAP_OK(s[0].o_s == 14e-3 && s[0].q[TT_Q_B][2] == 14e-3 && s[0].o_r == 0.17e-6,
           "o_s kept where the first was lower, o_r taken where the second was");
}

static void test_sizes(void)
{
    long s[64];
    int n = tbp_sizes_base(1024, s, 64);
    TAP_OK(n == 12 && s[0] == 0 && s[1] == 1 && s[2] == 2 && s[11] == 1024, "base sizes 0,1,2..1024 (%d)", n);
    n = tbp_sizes_base(1000, s, 64);
    TAP_OK(n == 12 && s[10] == 512 && s[11] == 1000, "base sizes end with M itself when not a power of two");
    n = tbp_sizes_base(2L << 20, s, 64);
    TAP_OK(n == 23 && s[22] == 2L << 20, "0..2 MiB: 23 sizes");

    double m[256], y[256];
    long added[256];
    int extra = insert_all(linear, 1L << 20, 0.01, m, y, &n, 256, added);
    TAP_OK(extra == 0, "a straight line needs no extra size (%d)", extra);

    extra = insert_all(kink, 1L << 20, 0.01, m, y, &n, 256, added);
    int inside = 1;
    for (int k = 0; k < extra; k++)
        inside &= added[k] > 4096 && added[k] < 8192;
    TAP_OK(extra > 0 && extra <= 14 && inside, "a kink at 5000: %d extra sizes, all in (4096, 8192)", extra);
    TAP_OK(worst_miss(kink, m, n) <= 0.011, "after insertion the kink interpolates within eps (worst %.4f)",
           worst_miss(kink, m, n));

    extra = insert_all(jump, 2L << 20, 0.01, m, y, &n, 256, added);
    int below = 0, above = 0;
    for (int k = 0; k < extra; k++) {
        below += added[k] > 32768 && added[k] < 65536;
        above += added[k] > 65536;
    }
    int has_edge = 0;
    for (int k = 0; k < n; k++)
        has_edge |= m[k] >= 65536 - 32 && m[k] < 65536;
    TAP_OK(extra > 0 && below >= 9 && above <= 3 && has_edge,
           "a jump at 64 KiB: %d extra sizes (%d below, %d above), edge located within 32 bytes", extra, below, above);

    /* noise: a miss smaller than the measured spread is not a bend */
    double mm[5] = {0, 1024, 2048, 3072, 4096}, yy[5] = {1, 2, 3.2, 4, 5}, nz[5] = {0, 0, 0.3, 0, 0};
    const double *ys[1] = {yy}, *ns[1] = {nz};
    TAP_OK(tbp_sizes_next(mm, 5, ys, NULL, 1, 0.01, 32) > 0, "a 7%% miss without noise inserts a size");
    TAP_OK(tbp_sizes_next(mm, 5, ys, ns, 1, 0.01, 32) < 0, "the same miss within the noise does not");
    /* sizes closer than the spacing are never split */
    double tm[3] = {0, 32, 64}, ty[3] = {1, 5, 1};
    const double *tys[1] = {ty};
    TAP_OK(tbp_sizes_next(tm, 3, tys, NULL, 1, 0.01, 32) < 0, "no insertion below 32-byte spacing");
}

/* Size record k's PRTT batches for a round trip p1 and a gap gall (n
 * messages a batch, per-message overhead o), every quantile the same. */
static void prtt_set(tt_size_rec *r, double p1, double gall, int n, double o)
{
    r->rtt = p1;
    for (int q = 0; q < 5; q++) {
        r->q[TT_Q_A][q] = p1;
        r->q[TT_Q_B][q] = p1 + (n - 1) * gall;
        r->q[TT_Q_C][q] = p1 + (n - 1) * (o + p1);
    }
}

/* Synthetic PRTT data of a LogGP network with a protocol switch. */
static void test_loggp(void)
{
    const double L = 1.0e-6, o = 0.3e-6, g = 0.2e-6, G = 1e-10, g2 = 5e-6, G2 = 0.8e-10, S = 65536;
    const int n = 8;
    long base[64];
    int ns = tbp_sizes_base(2L << 20, base, 64);
    tt_size_rec s[64];
    memset(s, 0, sizeof s);
    for (int k = 0; k < ns; k++) {
        double sz = (double)base[k];
        double gs = sz < S ? g : g2, Gs = sz < S ? G : G2;
        double gall = gs + (sz - 1) * Gs;
        double p1 = 2 * (L + 2 * o + (sz - 1) * Gs);
        s[k].m = sz;
        prtt_set(&s[k], p1, gall, n, o);
    }
    tt_loggp_fit fit;
    int rc = tbp_loggp_fit_pair(s, ns, n, 0, &fit);
    TAP_OK(rc == 0, "LogGP fit runs");
    TAP_OK(fit.S == S, "switch found at %g (expected %g)", fit.S, S);
    TAP_OK(NEAR(fit.o, o, 1e-6) && NEAR(fit.g, g, 1e-6) && NEAR(fit.G, G, 1e-4),
           "eager o=%g g=%g G=%g recovered", fit.o, fit.g, fit.G);
    TAP_OK(NEAR(fit.g2, g2, 1e-4) && NEAR(fit.G2, G2, 1e-4), "rendezvous g=%g G=%g recovered", fit.g2, fit.G2);
    TAP_OK(NEAR(fit.L, L, 1e-6), "L=%g recovered", fit.L);
    TAP_OK(NEAR(s[5].o_s, o, 1e-6) && NEAR(s[5].g, g + (s[5].m - 1) * G, 1e-6),
           "per-size o(s) and G_all(s) written into the records");

    /* without a switch: one line, S = 0 */
    for (int k = 0; k < ns; k++) {
        double sz = s[k].m, gall = g + (sz - 1) * G, p1 = 2 * (L + 2 * o + (sz - 1) * G);
        prtt_set(&s[k], p1, gall, n, o);
    }
    tbp_loggp_fit_pair(s, ns, n, 0, &fit);
    TAP_OK(fit.S == 0 && NEAR(fit.G, G, 1e-4), "no switch on a single line (S=%g, G=%g)", fit.S, fit.G);

    /* noise that tilts G_all(s) down (a flat network: every size's gap
     * the same, the small ones measured high): never a negative G or g */
    for (int k = 0; k < ns; k++) {
        double gall = g * (1.0 + 0.5 / (1.0 + k)), p1 = 2 * (L + 2 * o);
        prtt_set(&s[k], p1, gall, n, o);
    }
    tbp_loggp_fit_pair(s, ns, n, 0, &fit);
    TAP_OK(fit.G >= 0 && fit.g >= 0 && fit.G2 >= 0 && fit.g2 >= 0 && NEAR(fit.g, g, 0.5),
           "a gap falling with size fits G=0 and g>0, not a negative slope (g=%g G=%g)", fit.g, fit.G);
    /* and a steep one that the straight line would start below zero */
    for (int k = 0; k < ns; k++) {
        double sz = s[k].m, gall = sz < 1024 ? 1e-12 : (sz - 1) * G, p1 = 2 * (L + 2 * o);
        prtt_set(&s[k], p1, gall, n, o);
    }
    tbp_loggp_fit_pair(s, ns, n, 0, &fit);
    TAP_OK(fit.G >= 0 && fit.g >= 0 && fit.G2 >= 0 && fit.g2 >= 0,
           "a gap that starts flat then grows gives g>=0 and G>=0 (g=%g G=%g g2=%g G2=%g)", fit.g, fit.G, fit.g2,
           fit.G2);

    double x[4] = {0, 1, 2, 3}, yv[4] = {1, 3, 5, 7}, a, b;
    double e = tbp_linfit(x, yv, NULL, 4, &a, &b);
    TAP_OK(NEAR(a, 1.0, 1e-12) && NEAR(b, 2.0, 1e-12) && e < 1e-20, "least squares line y = 1 + 2x");
}

int main(void)
{
    test_stats();
    test_summarize();
    test_suspect();
    test_sizes();
    test_loggp();
    TAP_DONE();
}
