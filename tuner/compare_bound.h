/* The lower bound of --compare's broadcasts (topology/bound.h), per message
 * size, on the machine of machine.h: the SimGrid platform and hostfile of a
 * simulated run (--platform, --hostfile), else the one built from the
 * measured costs (--measurements), the communicator's levels and its
 * fan-out, measured here. */
#ifndef TN_TUNER_COMPARE_BOUND_H
#define TN_TUNER_COMPARE_BOUND_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "costs.h"

/* \brief Collective over comm, whose rank i is world rank members[i]
 *        (ascending, members[0] = 0; NULL: the job's first ranks).  platform and
 *        hostfile (both or neither), or costs (rank 0; NULL elsewhere or
 *        without): the machine; sizes[0..n) the message sizes; all_roots:
 *        the least bound over every root (rotating roots), else root 0.
 *        Says on out (rank 0) where the machine comes from, or why there is
 *        no bound.
 * \return 0 with bound[0..n) in seconds on rank 0, or -1 (no bound; the
 *         same on every rank). */
int tn_compare_bounds(MPI_Comm comm, const int *members, const char *platform, const char *hostfile,
                      const tn_costs *costs, const size_t *sizes, int n, int all_roots, double *bound, FILE *out);

#endif
