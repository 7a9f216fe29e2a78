/* topobcast-probe: the pure pieces of the measurement (no MPI): timing
 * statistics over batches (timing_stats.c), message sizes (sizes.c) and
 * the LogGP fit (loggp_fit.c).  The records they fill, tt_meas and its
 * parts, are topology/'s (topology.h).  Times are in seconds, sizes in
 * bytes. */
#ifndef TBP_PROBE_H
#define TBP_PROBE_H

#include "topology.h"

/* ---- timing statistics (timing_stats.c) ----------------------------- */

/** \brief Five-number summary of x[0..n) (x is reordered): min, q1,
 *  median, q3, max, quartiles by linear interpolation between order
 *  statistics.
 *  \return nothing; out[5] is written. */
void tbp_five_numbers(double *x, int n, double out[5]);
/** \brief Outlier rejection, then the five numbers of what is left into
 *  out[5]: batches farther from the median than 3 robust standard
 *  deviations (1.4826 MAD) and than 1 % of the median are dropped
 *  (Hampel's identifier; nothing is dropped below 3 batches).  The kept
 *  batches end up in x[0..k), sorted.
 *  \return k, the batches kept (at least 1 when n >= 1). */
int tbp_summarize(double *x, int n, double out[5]);
/** \brief The statistic a run uses over its batches.
 *  \return the minimum (use_min) or the median of a five-number summary. */
static inline double tbp_pick(const double five[5], int use_min)
{
    return use_min ? five[0] : five[2];
}
/** \brief Whether the n >= min_n batches x[0..n) spread by at most tol
 *  times the largest of them (so more batches cannot change the statistic
 *  by more).
 *  \return 1 if they agree; 0 if not, if n < min_n, or if tol <= 0. */
int tbp_batches_agree(const double *x, int n, int min_n, double tol);

/* ---- sizes (sizes.c) -------------------------------------------------- */

/** \brief Base sizes 0, 1, 2, 4 ... up to max (max itself included) into
 *  out[cap] (cap at least 2 + log2(max)).
 *  \return the count written. */
int tbp_sizes_base(long max, long *out, int cap);
/** \brief Where linear interpolation between neighbours misses: for
 *  series y[c] (c < nseries) sampled at sizes m[0..n), ascending, with
 *  noise[c][k] >= 0 tolerated at each point (NULL: none).  A triple (a, b,
 *  c) of consecutive sizes fails when some series at b differs from the
 *  line through a and c by more than max(eps*|y(b)|, noise at b plus the
 *  noise of the line there); the midpoint of the side holding the bend is
 *  chosen (the side whose other neighbouring triple is straight, else the
 *  wider one), or, if that side is at most min_spacing wide, the next
 *  triple is tried.
 *  \return the next size to measure, or -1 if none. */
long tbp_sizes_next(const double *m, int n, const double *const *y, const double *const *noise,
                    int nseries, double eps, long min_spacing);
/** \brief Whether size k of the measured sizes s[0..ns) (ascending) looks
 *  hit by a stall: RTT, o_s or o_r above the next size's by more than eps
 *  (relative); the largest size: RTT above the previous one's times the
 *  size ratio by more than eps, or an interquartile range of RTT, o_s or
 *  o_r above eps of its median.  Such a size is measured again.
 *  \return 1 if suspect, else 0. */
int tbp_size_suspect(const tt_size_rec *s, int k, int ns, double eps);
/** \brief Two measurements of a size into s: each of RTT, o_s and o_r the
 *  lower with its summary, g and its burst length with the lower RTT.
 *  \return nothing. */
void tbp_size_keep_lower(tt_size_rec *s, const tt_size_rec *t);

/* ---- LogGP fit (loggp_fit.c) ------------------------------------------ */

/** \brief The LogGP fit of one pair: from per-size PRTT(1,0,s) (rtt),
 *  PRTT(n,0,s) (q[TT_Q_B]) and PRTT(n,d,s) (q[TT_Q_C]) with d =
 *  PRTT(1,0,s), each taken as minimum or median: o(s) and G_all(s) per
 *  size (written into s's o_s, o_r and g), then g, G by least squares over
 *  s >= 1, the switch S where two segments fit G_all(s) and o(s) clearly
 *  better than one line, and o as the intercept of o(s) below S, into fit.
 *  \return 0; -1 (fit zeroed) on fewer than 2 sizes >= 1, n < 2 or out of
 *  memory. */
int tbp_loggp_fit_pair(tt_size_rec *s, int ns, int n, int use_min, tt_loggp_fit *fit);
/** \brief Least-squares line y = a + b x over n points with weights w
 *  (NULL: 1) into *a and *b (b = 0 when the x do not vary; both 0 for no
 *  points).
 *  \return the weighted sum of squared residuals. */
double tbp_linfit(const double *x, const double *y, const double *w, int n, double *a, double *b);

#endif
