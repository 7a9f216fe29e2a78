/* The LogGP measurement of a pair (loggp.c). */
#ifndef TBP_LOGGP_H
#define TBP_LOGGP_H

#include <mpi.h>

#include "batches.h"

/** \brief Sender side of the LogGP mode (loggp.c): PRTT(1,0,s),
 *  PRTT(n,0,s), PRTT(n,d,s) per base size, then the fit (loggp_fit.c) into
 *  rec; the receiver side is the command loop (tbp_cmd_serve).
 *  \return MPI_SUCCESS with rec's sizes malloc'd (owned by rec:
 *  tt_pair_rec_free); an MPI error code or MPI_ERR_NO_MEM otherwise. */
int tbp_loggp_measure(MPI_Comm comm, int receiver, tbp_measure_ctx *c, tt_pair_rec *rec);

#endif
