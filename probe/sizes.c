/* Message sizes of a pair: powers of two, plus sizes inserted where the
 * curve is not straight between its neighbours (protocol switches, cache
 * limits), so that piecewise-linear interpolation between measured sizes
 * is within epsilon everywhere (seed thesis sec. 3.1.2, "Additional
 * measurements"). */
#include <math.h>

#include "probe.h"

int tbp_sizes_base(long max, long *out, int cap)
{
    int n = 0;
    if (max < 0 || cap < 1)
        return 0;
    out[n++] = 0;
    for (long m = 1; m < max && n < cap; m *= 2)
        out[n++] = m;
    if (max > 0 && n < cap)
        out[n++] = max;
    return n;
}

/* Does series y miss the line through its neighbours at point b?  The
 * tolerance is eps relative, or the noise of the point plus that of the
 * line (interpolated from the neighbours' noise), whichever is larger. */
static int misses(const double *m, const double *y, const double *noise, int b, double eps)
{
    double t = (m[b] - m[b - 1]) / (m[b + 1] - m[b - 1]);
    double line = y[b - 1] + t * (y[b + 1] - y[b - 1]);
    double miss = fabs(y[b] - line);
    double tol = eps * fabs(y[b]);
    if (noise) {
        double nz = noise[b] + (1 - t) * noise[b - 1] + t * noise[b + 1];
        if (nz > tol)
            tol = nz;
    }
    return miss > tol;
}

/* Does any series miss the line through its neighbours at point b? */
static int triple_fails(const double *m, const double *const *y, const double *const *noise, int nseries,
                        int b, double eps)
{
    for (int c = 0; c < nseries; c++)
        if (misses(m, y[c], noise ? noise[c] : NULL, b, eps))
            return 1;
    return 0;
}

long tbp_sizes_next(const double *m, int n, const double *const *y, const double *const *noise,
                    int nseries, double eps, long min_spacing)
{
    for (int b = 1; b + 1 < n; b++) {
        long gap_lo = (long)m[b] - (long)m[b - 1], gap_hi = (long)m[b + 1] - (long)m[b];
        if (gap_lo <= min_spacing && gap_hi <= min_spacing)
            continue;
        if (!triple_fails(m, y, noise, nseries, b, eps))
            continue;
        /* The bend (or jump) lies on the side whose other neighbour triple
         * is straight; when both or neither are, halve the wider side
         * (the upper one on a tie, as the thesis does).  A suspect side
         * already at the spacing limit is resolved: nothing to insert. */
        int prev_ok = b >= 2 && !triple_fails(m, y, noise, nseries, b - 1, eps);
        int next_ok = b + 2 < n && !triple_fails(m, y, noise, nseries, b + 1, eps);
        int upper;
        if (next_ok && !prev_ok)
            upper = 0;
        else if (prev_ok && !next_ok)
            upper = 1;
        else
            upper = gap_hi >= gap_lo;
        long gap = upper ? gap_hi : gap_lo;
        if (gap <= min_spacing)
            continue;
        return (long)m[upper ? b : b - 1] + gap / 2;
    }
    return -1;
}
