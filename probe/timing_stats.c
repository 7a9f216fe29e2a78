/* Robust summaries of repeated timings.  Single timings on a shared
 * machine have a long upper tail (interrupts, other traffic, a rank
 * descheduled for a time slice), so the probe keeps each measurement as
 * batch means, rejects the outlying batches and reports the minimum or the
 * median of the others, never the mean (Bufe 2014, sec. 1.5 and 3.2.1;
 * the seed thesis leaves outliers out of its figures likewise). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile_sorted(const double *x, int n, double p)
{
    double pos = p * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1)
        return x[n - 1];
    double t = pos - lo;
    return x[lo] + t * (x[lo + 1] - x[lo]);
}

void tbp_five_numbers(double *x, int n, double out[5])
{
    if (n < 1) {
        for (int k = 0; k < 5; k++)
            out[k] = 0.0;
        return;
    }
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    out[0] = x[0];
    out[1] = quantile_sorted(x, n, 0.25);
    out[2] = quantile_sorted(x, n, 0.5);
    out[3] = quantile_sorted(x, n, 0.75);
    out[4] = x[n - 1];
}

/* Hampel's identifier: a batch is an outlier when it lies more than
 * HAMPEL_K robust standard deviations (1.4826 MAD, the MAD of a normal
 * sample scaled to its sigma) from the median, and more than REJECT_FLOOR
 * relative: batches that close can never matter, and a deterministic
 * simulator, whose batches differ by rounding only, keeps all of them.
 * The median and the MAD each stand up to nearly half the batches being
 * outliers, so one pass finds them even when the median alone (R = 4: two
 * slow batches of four) would be dragged up. */
#define HAMPEL_K 3.0
#define MAD_TO_SIGMA 1.4826
#define REJECT_FLOOR 0.01

int tbp_summarize(double *x, int n, double out[5])
{
    int lo = 0, hi = n;
    double *dev = n >= 3 ? malloc((size_t)n * sizeof *dev) : NULL;
    if (dev) {
        qsort(x, (size_t)n, sizeof *x, cmp_double);
        double med = quantile_sorted(x, n, 0.5);
        for (int k = 0; k < n; k++)
            dev[k] = fabs(x[k] - med);
        qsort(dev, (size_t)n, sizeof *dev, cmp_double);
        double cut = HAMPEL_K * MAD_TO_SIGMA * quantile_sorted(dev, n, 0.5);
        if (cut < REJECT_FLOOR * fabs(med))
            cut = REJECT_FLOOR * fabs(med);
        while (lo < n && med - x[lo] > cut)
            lo++;
        while (hi > lo && x[hi - 1] - med > cut)
            hi--;
        free(dev);
        if (lo > 0)
            memmove(x, x + lo, (size_t)(hi - lo) * sizeof *x);
    }
    tbp_five_numbers(x, hi - lo, out);
    return hi - lo;
}

/* Batches that agree this closely cannot move the median or the minimum by
 * more than that, so further batches would measure nothing new (a quiet
 * link, or a deterministic simulator).  On a noisy machine they rarely
 * agree and all R batches run. */
int tbp_batches_agree(const double *x, int n, int min_n, double tol)
{
    if (!(tol > 0) || n < min_n || n < 1)
        return 0;
    double lo = x[0], hi = x[0], big = fabs(x[0]);
    for (int k = 1; k < n; k++) {
        if (x[k] < lo)
            lo = x[k];
        if (x[k] > hi)
            hi = x[k];
        if (fabs(x[k]) > big)
            big = fabs(x[k]);
    }
    return hi - lo <= tol * big;
}
