/* The MPI side of the probe: who the ranks are, the pair tests (PLogP
 * after Kielmann et al. as in the seed thesis sec. 3.1.2, or LogGP by
 * Hoefler's PRTT(n,d,s)), and bringing every result to rank 0.
 *
 * A pair test is driven by the sender (the lower rank): before each timed
 * loop it sends the receiver a command "receive n messages of m bytes,
 * answer with r bytes, c times", so the receiver needs no knowledge of the
 * method and both sides always agree on what comes next, including the
 * sizes inserted on the fly. */
#ifndef TBP_PLOGP_H
#define TBP_PLOGP_H

#include <mpi.h>

#include "probe.h"

typedef struct tbp_measure_ctx {
    const tt_meas_opts *opt;
    char *buf;          /* opt->max_size bytes, reused for sending and receiving */
    double wtime;       /* this rank's MPI_Wtime overhead, subtracted from timings */
    tt_pair_rec *rec;   /* the pairs this rank sent in */
    int nrec, cap;
} tbp_measure_ctx;

/** \brief Prepares c for measuring with opt (kept by pointer): the payload
 *  buffer of opt->max_size bytes (SMPI's shared one under SMPI) and this
 *  rank's MPI_Wtime overhead.
 *  \return 0 (c owns its buffer and records: tbp_measure_free); -1 if out
 *  of memory. */
int tbp_measure_init(tbp_measure_ctx *c, const tt_meas_opts *opt);
/** \brief Frees what c owns (buffer, records) and zeroes it.
 *  \return nothing. */
void tbp_measure_free(tbp_measure_ctx *c);
/** \brief The harness callback (tbp_pair_fn): the receiver serves the
 *  sender's commands, the sender measures the pair by opt->mode and keeps
 *  the record in c.
 *  \return MPI_SUCCESS, an MPI error code, or MPI_ERR_NO_MEM. */
int tbp_measure_pair(MPI_Comm comm, int sender, int receiver, void *ctx);

/* The repetition of a measurement (batches.c).  A batch: fn performs
 * reps operations against peer and writes their mean per series to v;
 * the receiver's part of one operation is "receive nmsg messages of m
 * bytes, answer with reply bytes".  warm operations go untimed first; per
 * operations make a batch; at least min batches (R, or fewer), more while
 * cheap (--max-reps, --rep-budget) when extend is set. */
#define TBP_MAX_SERIES 2
typedef int (*tbp_batch_fn)(MPI_Comm comm, int peer, tbp_measure_ctx *c, const void *arg, long reps, double *v);
typedef struct tbp_batches {
    long m, nmsg, reply;
    long warm, per;
    int min;
    int extend;
    int nser; /* series per batch, at most TBP_MAX_SERIES */
    tbp_batch_fn fn;
    const void *arg;
} tbp_batches;
/* Runs the batches of one measurement and writes the robust five-number
 * summary of each series (tbp_summarize) to five[s]. */
int tbp_measure_batches(MPI_Comm comm, int peer, tbp_measure_ctx *c, const tbp_batches *b, double five[][5]);
/* A pair's warm-up: empty round trips until they are stable; *rtt is the
 * best chunk's round trip, to size the first batches. */
int tbp_warm_up(MPI_Comm comm, int peer, tbp_measure_ctx *c, double *rtt);

/** \brief Sender side of the LogGP mode (loggp.c): PRTT(1,0,s),
 *  PRTT(n,0,s), PRTT(n,d,s) per base size, then the fit (loggp_fit.c) into
 *  rec; the receiver side is the command loop (tbp_cmd_serve).
 *  \return MPI_SUCCESS with rec's sizes malloc'd (owned by rec:
 *  tt_pair_rec_free); an MPI error code or MPI_ERR_NO_MEM otherwise. */
int tbp_loggp_measure(MPI_Comm comm, int receiver, tbp_measure_ctx *c, tt_pair_rec *rec);

/* The command protocol shared by the two modes (pair_cmd.c). */
/** \brief Sender: tells the receiver its next command, "count times:
 *  receive n messages of m bytes, answer with reply bytes" (count 0: the
 *  pair is done).
 *  \return MPI_SUCCESS or the error code of MPI_Send. */
int tbp_cmd_send(MPI_Comm comm, int receiver, long m, long n, long reply, long count);
/** \brief Sender: ends the receiver's current command before its count
 *  (the batches agreed); the next command follows.
 *  \return MPI_SUCCESS or the error code of MPI_Send. */
int tbp_cmd_stop(MPI_Comm comm, int receiver);
/** \brief Receiver: obeys the sender's commands, with buf (large enough
 *  for the largest message) as payload, until a command of count 0.
 *  \return MPI_SUCCESS, or the first MPI error code. */
int tbp_cmd_serve(MPI_Comm comm, int sender, char *buf);

/* The clock (wtime.c). */
/** \brief Busy-waits until MPI_Wtime() reaches t (under SMPI: sleeps in
 *  simulated time).
 *  \return nothing. */
void tbp_spin_until(double t);
/** \brief MPI_Wtime overhead of this process (seed thesis fig. 3.7): a
 *  fixed busy loop timed with and without MPI_Wtime around each call.
 *  \return the overhead of one call in seconds, at least 0. */
double tbp_wtime_overhead(void);

/** \brief Everyone's identity to rank 0: host (MPI processor name), hwloc
 *  place, world rank, group = dense id of the host by first appearance;
 *  the group ids to every rank (collective on comm).
 *  \return MPI_SUCCESS with *out malloc'd on rank 0 (P records, the
 *  caller's), NULL elsewhere, and group[0..P) filled on every rank; an MPI
 *  error code otherwise. */
int tbp_identity_gather(MPI_Comm comm, tt_rank_info **out, int *group);

/** \brief Collective on comm: rank 0 receives every rank's len bytes
 *  (len may differ between ranks), concatenated in rank order, by a
 *  binomial tree of messages (gather.c: SMPI's own gather is quadratic in
 *  the simulator's time).
 *  \return MPI_SUCCESS with, on rank 0, *all malloc'd (the caller's) and
 *  *total its length (other ranks: untouched); an MPI error code or
 *  MPI_ERR_NO_MEM otherwise. */
int tbp_gather_bytes(MPI_Comm comm, const void *mine, size_t len, char **all, size_t *total);

/* Collective: rank 0 appends every rank's records to m->pair. */
int tbp_results_gather(MPI_Comm comm, tbp_measure_ctx *c, tt_meas *m);

/* In the measurement functions (int rc and a label out in scope): rc = x,
 * and on an MPI error straight to out. */
#define TBP_CHECK(x)                                                                               \
    do {                                                                                           \
        if ((rc = (x)) != MPI_SUCCESS)                                                             \
            goto out;                                                                              \
    } while (0)

#define TBP_TAG_CMD 11
#define TBP_TAG_DATA 12
#define TBP_TAG_STOP 13 /* ends a command early (empty) */

#endif
