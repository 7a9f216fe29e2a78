/* The communicators of shapes.h made real: every rank's node from MPI
 * (MPI_COMM_TYPE_SHARED), the same choice on every rank, one communicator
 * per choice.  Shared by the tuning run (setup.c), its site mode, and
 * --compare (compare.c), so each times the same communicators. */
#ifndef TN_TUNER_COMMS_H
#define TN_TUNER_COMMS_H

#include <mpi.h>

#include "hier.h"
#include "shapes.h"

/* What a site calibration (--site) draws its shapes from. */
typedef struct tn_site_want {
    int budget;           /* shapes timed, at most (tn_site_timed) */
    int small;            /* ... and the grid's shapes of at most this many ranks */
    const tb_hier *world; /* the job's hierarchy in world ranks (its levels spread the nodes), or NULL */
    int type;             /* this rank's node type (any integer, the same on every rank of a node) */
} tn_site_want;

/* \brief Collective over MPI_COMM_WORLD: the picks -- tn_shapes_choose(which,
 *        comm_sizes) on the job's nodes, or with site (not NULL) the site's
 *        timed shapes (tn_site_timed, tn_site_picks; *nodes, if not NULL,
 *        gets the nodes they are drawn from) -- and comms[i] = the
 *        communicator of picks[i] (MPI_COMM_WORLD for all ranks in world
 *        order, else a new one; MPI_COMM_NULL on the ranks outside it),
 *        its ranks in the order of picks[i].members.
 * \return the number of communicators, or -1 on every rank when one ran
 *         out of memory. */
int tn_comms_create(unsigned which, const int *comm_sizes, int ncomm_sizes, const tn_site_want *site,
                    tn_site_nodes *nodes, tn_shape_pick *picks, MPI_Comm *comms, int cap);

/* \brief Frees what tn_comms_create made (MPI_COMM_WORLD is left alone).
 * \return nothing. */
void tn_comms_free(tn_shape_pick *picks, MPI_Comm *comms, int n);

#endif
