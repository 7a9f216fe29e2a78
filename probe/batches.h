/* One pair's measurement context, and the repetition of a measurement
 * (batches.c): warm-up, batches, early stop, extension, summary. */
#ifndef TBP_BATCHES_H
#define TBP_BATCHES_H

#include <mpi.h>

#include "probe.h"

typedef struct tbp_measure_ctx {
    const tt_meas_opts *opt;
    char *buf;          /* opt->max_size bytes, reused for sending and receiving */
    double wtime;       /* this rank's MPI_Wtime overhead, subtracted from timings */
    tt_pair_rec *rec;   /* the pairs this rank sent in */
    int nrec, cap;
} tbp_measure_ctx;

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

#endif
