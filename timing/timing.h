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
#include <stddef.h>

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

/* \brief Warm-up of comm's broadcast paths before anything is timed
 *        (collective): 20 one-byte broadcasts, the root rotating over the
 *        ranks, the first two followed by one of max_bytes from buf.  That
 *        sets up connections and per-communicator state and touches buf;
 *        the large size only twice, as under SimGrid one 8 MiB broadcast
 *        at P=512 costs ~16 s of simulation.  With through_library each
 *        call is made through MPI_Bcast too (the interposed library), after
 *        PMPI_Bcast.
 * \return nothing; errors are left to the timed calls that follow. */
void tbtime_warm_up(MPI_Comm comm, void *buf, size_t max_bytes, int through_library);

/* \brief Summary of samples[0..n); the array is not modified.
 * \return nothing; *out is zeroed when n <= 0 (or out of memory). */
void tbtime_summarize(const double *samples, int n, tbtime_stats *out);

/* \brief Quantile q in [0,1] of sorted[0..n), linear interpolation between
 *        neighbouring samples.
 * \return the quantile; 0 when n <= 0. */
double tbtime_quantile(const double *sorted, int n, double q);

/* \brief Whether some host runs more ranks of comm than it has cores
 *        online (collective; MPI_COMM_TYPE_SHARED groups a host's ranks).
 *        Under SimGrid SMPI the hosts are simulated: always 0.
 * \return 1 when crowded, with *ranks and *cores of the most crowded host
 *         (ranks minus cores largest), on every rank; 0 otherwise, or when
 *         an MPI call fails. */
int tbtime_crowded(MPI_Comm comm, int *ranks, int *cores);

#endif
