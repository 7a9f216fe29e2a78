/* Robust summaries of repeated timings.  Single timings on a shared
 * machine have a long upper tail (interrupts, other traffic), so the probe
 * keeps each measurement as R batch means and reports the minimum or the
 * median of them, never the mean (Bufe 2014, sec. 1.5). */
#include <math.h>
#include <stdlib.h>

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
