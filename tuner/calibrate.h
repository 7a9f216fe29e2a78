/* Cost curves measured by the tuner itself (no probe file): see calibrate.c. */
#ifndef TN_TUNER_CALIBRATE_H
#define TN_TUNER_CALIBRATE_H

#include <mpi.h>
#include <stdio.h>

#include "costs.h"
#include "hier.h"

/* Collective over comm (the whole job; h its hierarchy, ranks = comm
 * ranks).  On rank 0, *out gets one curve per pair class and h's classes
 * (costs.h: O(P x levels), no pair table); other ranks get nothing.
 * Returns 0 everywhere, or -1 everywhere with err set on rank 0. */
int tn_calibrate_quick(MPI_Comm comm, const tb_hier *h, size_t max_bytes, int reps, tn_costs *out, char *err,
                       size_t errlen);

/* One line per pair class (h gives the names): latency, small-message gap,
 * 1 MiB time. */
void tn_costs_describe(const tn_costs *c, const tb_hier *h, FILE *f);

#endif
