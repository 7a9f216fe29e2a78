/* Fan-out per class of destination: how many large messages one rank can
 * send at once to peers of one class (the coarsest level at which they
 * differ from it) before they share a wire.  On most machines a rank's
 * copies to several peers in its own socket run side by side, bounded by
 * the socket's memory bandwidth, while its messages to other nodes queue on
 * one adapter; the probe's pairwise figures cannot tell the two apart.  The
 * cost model (model.h) divides a link's gap by it. */
#ifndef TN_TUNER_FANOUT_H
#define TN_TUNER_FANOUT_H

#include <mpi.h>
#include <stddef.h>

#include "hier.h"

/* Collective over comm (h: its hierarchy in comm ranks, or NULL).  Rank 0
 * sends `bytes` to one peer of each class, then to up to `max_peers` peers
 * of that class at once (the lowest ranks of the class), each the fastest of
 * `reps` tries; fanout[c] = k t(1) / t(k), within [1, k].  Classes with
 * fewer than 2 peers get 1.  fanout has h->nlevels + 1 entries (1 without
 * levels: every peer is of class 0); every rank gets the same figures.  Assumes the other ranks see
 * their classes as rank 0 does (a homogeneous machine).  Returns 0, or -1
 * (out of memory anywhere; fanout then all 1). */
int tn_fanout_measure(MPI_Comm comm, const tb_hier *h, size_t bytes, int max_peers, int reps, double *fanout);

#endif
