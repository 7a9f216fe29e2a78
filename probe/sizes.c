/* Message sizes of a pair: powers of two, plus sizes inserted where the
 * curve is not straight between its neighbours (protocol switches, cache
 * limits), so that piecewise-linear interpolation between measured sizes
 * is within epsilon everywhere (seed thesis sec. 3.1.2, "Additional
 * measurements"), and base sizes measured again where the curve says a
 * stall hit them. */
#include <math.h>
#include <string.h>

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

/* Whether base size k of s[0..ns) looks disturbed: its RTT, o_s or o_r
 * above the next larger size's by more than eps (relative).  The largest
 * size has no next one: its RTT above the previous one's scaled by the
 * size ratio (an affine cost a + b m with a >= 0 never grows faster than
 * m), or batches that still spread, after outlier rejection, over an
 * interquartile range of more than eps of the median (half of them slow:
 * no median can tell).  Such a size was measured in a bad moment: on a
 * shared node a slow phase can outlast the warm-up and hit the first
 * sizes, or any other.  A protocol switch can look the same; then the size
 * is measured again for nothing.  A simulator's base sizes pass. */
int tbp_size_suspect(const tt_size_rec *s, int k, int ns, double eps)
{
    if (k + 1 < ns)
        return s[k].rtt > (1 + eps) * s[k + 1].rtt || s[k].o_s > (1 + eps) * s[k + 1].o_s ||
               s[k].o_r > (1 + eps) * s[k + 1].o_r;
    for (int q = 0; q < TT_NQ; q++)
        if (s[k].q[q][3] - s[k].q[q][1] > eps * s[k].q[q][2])
            return 1;
    return k > 0 && s[k - 1].m > 0 && s[k].rtt > (1 + eps) * (s[k].m / s[k - 1].m) * s[k - 1].rtt;
}

/* Of two measurements of a size, each of RTT, o_s and o_r is the lower
 * (noise only ever adds time), with its summary; g comes with the lower
 * RTT, from the quieter moment. */
void tbp_size_keep_lower(tt_size_rec *s, const tt_size_rec *t)
{
    if (t->rtt < s->rtt) {
        s->rtt = t->rtt;
        s->g = t->g;
        s->gsat = t->gsat;
        memcpy(s->q[TT_Q_A], t->q[TT_Q_A], sizeof s->q[TT_Q_A]);
    }
    if (t->o_s < s->o_s) {
        s->o_s = t->o_s;
        memcpy(s->q[TT_Q_B], t->q[TT_Q_B], sizeof s->q[TT_Q_B]);
    }
    if (t->o_r < s->o_r) {
        s->o_r = t->o_r;
        memcpy(s->q[TT_Q_C], t->q[TT_Q_C], sizeof s->q[TT_Q_C]);
    }
}
