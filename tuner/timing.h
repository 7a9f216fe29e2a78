/* Measurement core shared by topobcast-bench and the tuner.
 *
 * A collective is only as fast as its slowest rank, and a single run on a
 * shared machine is noise: every repetition starts from an MPI_Barrier, is
 * timed locally on every rank, and the repetition's time is the maximum
 * over ranks.  Summaries use order statistics (median, quartiles) because
 * the distribution has a long right tail (scheduler, page faults). */
#ifndef TN_TIMING_H
#define TN_TIMING_H

#include <mpi.h>

typedef struct tn_timing_stats {
    int n;               /* repetitions summarised */
    double min, max;
    double median, p25, p75, p90;
    double mean;
    double trimmed_mean; /* mean of the samples at or below the 90th percentile */
} tn_timing_stats;

/* One operation to time; returns an MPI error code. */
typedef int (*tn_timing_op)(void *ctx, int rep);

/* Collective over comm.  Runs op `warmup` times (untimed, each after a
 * barrier), then `reps` timed repetitions.  On every rank, samples[0..reps)
 * (if not NULL) receives the per-repetition time in seconds = max over ranks,
 * and *out their summary.  Returns MPI_SUCCESS, or the first error code op
 * returned on any rank (then the samples are not meaningful). */
int tn_timing_measure(MPI_Comm comm, int warmup, int reps, tn_timing_op op, void *ctx,
                      double *samples, tn_timing_stats *out);

/* Summary of n samples (n >= 1); the array is not modified. */
void tn_timing_summarize(const double *samples, int n, tn_timing_stats *out);

/* Quantile q in [0,1] of sorted[0..n) with linear interpolation. */
double tn_timing_quantile(const double *sorted, int n, double q);

#endif
