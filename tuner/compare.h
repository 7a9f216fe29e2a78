/* --compare: the tuned library (MPI_Bcast with the configuration loaded,
 * i.e. what an application gets) against the MPI library's own PMPI_Bcast,
 * in the same job, on the same sizes, with the same timing method as the
 * tuner; prints both times and the speedup per size, with summaries. */
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
    const char *platform, *hostfile; /* the simulated machine of the bound, or NULL */
    const tn_costs *costs;           /* rank 0: measured costs for the bound, or NULL */
} tn_compare_opts;

/* Collective over comm.  The library must already have its configuration
 * (TOPOBCAST_CONFIG set before the first broadcast).  With a machine
 * (platform or costs), each size also gets the lower bound and the
 * efficiency bound / topobcast time (compare_bound.h).  Returns 0, 1 if the
 * library delivered wrong data at some size, 2 on other errors. */
int tn_compare_run(MPI_Comm comm, const tn_compare_opts *o, FILE *out);

#endif
