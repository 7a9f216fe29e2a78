/* The timing method shared by topobcast-tuner and topobcast-bench
 * (libtbtiming.a): synchronised repetitions and robust summaries.
 *
 * A collective is only as fast as its slowest rank, and a single run on a
 * shared machine is noise: every repetition starts from an MPI_Barrier, is
 * timed locally on every rank, and the repetition's time is the maximum
 * over ranks.  Summaries use order statistics (median, quartiles) because
 * the distribution has a long right tail (scheduler, page faults).
 * Time: O(reps log reps) per summary, one reduction of reps doubles per
 * measurement. */
#ifndef TBTIME_H
#define TBTIME_H

#include <mpi.h>

typedef struct tbtime_stats {
    int n;               /* repetitions summarised */
    double min, max;
    double median, p25, p75, p90;
    double mean;
    double trimmed_mean; /* mean of the samples at or below the 90th percentile */
} tbtime_stats;

/* One operation to time; returns an MPI error code.  rep is the repetition
 * (0..reps-1), or -1 - i for warm-up call i. */
typedef int (*tbtime_op)(void *ctx, int rep);

/* \brief Times op over comm (collective): `warmup` untimed calls, then
 *        `reps` timed repetitions, each after an MPI_Barrier.
 * \return MPI_SUCCESS, with samples[0..reps) (if not NULL) the time of each
 *         repetition in seconds, the maximum over ranks, and *out their
 *         summary, on every rank; or the first error code op returned on
 *         any rank (then *out is zeroed and the samples are not meaningful);
 *         or MPI_ERR_NO_MEM on a rank that cannot allocate its sample
 *         arrays, before any communication. */
int tbtime_measure(MPI_Comm comm, int warmup, int reps, tbtime_op op, void *ctx,
                   double *samples, tbtime_stats *out);

/* \brief Summary of samples[0..n); the array is not modified.
 * \return nothing; *out is zeroed when n <= 0 (or out of memory). */
void tbtime_summarize(const double *samples, int n, tbtime_stats *out);

/* \brief Quantile q in [0,1] of sorted[0..n), linear interpolation between
 *        neighbouring samples.
 * \return the quantile; 0 when n <= 0. */
double tbtime_quantile(const double *sorted, int n, double q);

#endif
