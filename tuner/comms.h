/* The communicators of shapes.h made real: every rank's node from MPI
 * (MPI_COMM_TYPE_SHARED), the same choice on every rank, one communicator
 * per choice.  Shared by the tuning run (setup.c) and --compare
 * (compare.c), so both time the same communicators. */
#ifndef TN_TUNER_COMMS_H
#define TN_TUNER_COMMS_H

#include <mpi.h>

#include "shapes.h"

/* \brief Collective over MPI_COMM_WORLD: tn_shapes_choose(which,
 *        comm_sizes) on the job's nodes, and comms[i] = the communicator of
 *        picks[i] (MPI_COMM_WORLD for all ranks, else a new one;
 *        MPI_COMM_NULL on the ranks outside it), its ranks in world rank
 *        order.
 * \return the number of communicators, or -1 on every rank when one ran
 *         out of memory. */
int tn_comms_create(unsigned which, const int *comm_sizes, int ncomm_sizes, tn_shape_pick *picks, MPI_Comm *comms,
                    int cap);

/* \brief Frees what tn_comms_create made (MPI_COMM_WORLD is left alone).
 * \return nothing. */
void tn_comms_free(tn_shape_pick *picks, MPI_Comm *comms, int n);

#endif
