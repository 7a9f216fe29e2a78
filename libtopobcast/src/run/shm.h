/* The shared-memory stage's MPI half: one node-shared window per
 * communicator (MPI_Win_allocate_shared on the ranks of each node), in
 * which every rank owns a bounded ring of TB_SHM_SLOTS slots of
 * TB_SHM_SLOT_BYTES.  A leader publishes piece k of a broadcast into slot
 * k mod TB_SHM_SLOTS of its own ring, once, and the members of its group
 * copy it out concurrently; per-slot sequence stamps and consumption
 * counters (C11 atomics, MPI_Win_sync) order the two sides.  The engine
 * (engine.c) drives it from the schedule's shared-memory edges; the
 * communicator state (comm_state.c) creates it once and frees it with the
 * communicator. */
#ifndef TB_SHM_H
#define TB_SHM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

/* Ring geometry and the piece rule (TB_SHM_SLOTS, TB_SHM_SLOT_BYTES,
 * tb_shm_piece): schedule.h, which the tuner's model reads too. */

typedef struct tb_shm tb_shm;

/* \brief Collective over comm (a private duplicate; every rank calls it in
 * the same broadcast): splits comm by MPI_COMM_TYPE_SHARED and allocates
 * the node window.  node_of[r]: the lowest rank of comm on r's node (the
 * communicator state's allgathered identities); NULL (out of memory) makes
 * it unavailable everywhere.  Unavailable, the same on
 * every rank (agreed by an allreduce): under SMPI, when every node holds
 * one rank, or when MPI_Win_allocate_shared fails anywhere.
 * \return the stage (free with tb_shm_free), or NULL with the reason in
 * why. */
tb_shm *tb_shm_create(MPI_Comm comm, const int *node_of, char *why, size_t whylen);
/* \brief Collective over the node (called from the communicator's free on
 * every rank): ends the window.  NULL is allowed.
 * \return nothing. */
void tb_shm_free(tb_shm *shm);
/* \brief The next broadcast's epoch on this communicator: every rank calls
 * it once per broadcast whose schedule has shared-memory edges, in the
 * same order, so all agree; stamps carry it so that no broadcast reads
 * another's piece.
 * \return 1 .. 2^32 - 1. */
uint32_t tb_shm_epoch_next(tb_shm *shm);
/* \brief Leader side: publishes piece k of broadcast epoch (len <=
 * TB_SHM_SLOT_BYTES bytes from src) for readers members, once the slot's
 * previous piece has been read by all of its readers and no other
 * broadcast of this process is publishing on the ring (piece 0 takes the
 * ring, tb_shm_release gives it back).
 * \return 1 when published, 0 when it must be tried again later. */
int tb_shm_publish(tb_shm *shm, uint32_t epoch, uint64_t k, const void *src, size_t len, int readers);
/* \brief Leader side: broadcast epoch has published its last piece.
 * \return nothing. */
void tb_shm_release(tb_shm *shm, uint32_t epoch);
/* \brief Member side: copies piece k of broadcast epoch (len bytes) from
 * the ring of leader (a rank of comm on this node) into dst, if it has
 * been published, and counts it read.
 * \return 1 when copied, 0 when not there yet. */
int tb_shm_fetch(tb_shm *shm, int leader, uint32_t epoch, uint64_t k, void *dst, size_t len);
/* \brief Leaves the processor to others between two polls of a waiting
 * broadcast (sched_yield: ranks may outnumber cores).
 * \return nothing. */
void tb_shm_pause(void);

#endif
