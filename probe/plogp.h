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

#include "batches.h"
#include "loggp.h"
#include "pair_cmd.h"
#include "probe.h"
#include "wtime.h"

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


#endif
