/* --compare: the tuned library (MPI_Bcast with the configuration loaded,
 * i.e. what an application gets) against the MPI library's own PMPI_Bcast,
 * in the same job, on the same sizes, with the same timing method as the
 * tuner; prints both times and the speedup per communicator shape and
 * size, with summaries. */
#ifndef TN_TUNER_COMPARE_H
#define TN_TUNER_COMPARE_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "costs.h"

typedef struct tn_compare_opts {
    const size_t *sizes;
    int nsizes;
    int reps, warmup;
    int root_mode;     /* 0: root 0, 1: rotating, 2: both (mean of the medians) */
    const char *csv;   /* CSV path (rank 0 writes it) or NULL */
    int verbose;
    unsigned shapes;   /* the communicators, as the tuner chooses them (shapes.h) */
    const int *comm_sizes;
    int ncomm_sizes;
    const char *platform, *hostfile; /* the simulated machine of the bound, or NULL */
    const tn_costs *costs;           /* world rank 0: measured costs for the bound, or NULL */
} tn_compare_opts;

/* \brief Collective over MPI_COMM_WORLD: for each communicator the tuner
 *        would time (the same shapes.h choice), the library against
 *        PMPI_Bcast at every size, the two sides in interleaved rounds
 *        (5 natively, 1 under SMPI: reps split among them; each side the
 *        median of its rounds' medians), printed per shape with its
 *        summaries and written to the CSV (shape,nprocs,shape_keys,size,
 *        default_us,topobcast_us,speedup,algorithm,bound_us,efficiency,
 *        speedup_lo,speedup_hi: the rounds' lowest and highest speedup).  With a
 *        machine (platform or costs) each size also gets the lower bound of
 *        that communicator's broadcast and the efficiency bound / topobcast
 *        time (compare_bound.h).  The library must already have its
 *        configuration (TOPOBCAST_CONFIG set before the first broadcast).
 * \return 0, 1 if the library delivered wrong data at some size, 2 on
 *         other errors (the same on every rank). */
int tn_compare_run(const tn_compare_opts *o, FILE *out);

#endif
