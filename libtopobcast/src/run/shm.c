/* Node-shared rings of the shared-memory stage (see shm.h).
 *
 * Memory ordering.  A slot header holds a 64-bit stamp (epoch << 32 | k
 * mod 2^32 of the piece in it; 0: never written), the count of members
 * that have read it and how many must.  Leader: waits until done ==
 * readers (acquire), copies the piece in, sets readers and done = 0, then
 * MPI_Win_sync and a release store of the stamp.  Member: an acquire load
 * of the stamp equal to the one it waits for, MPI_Win_sync, the copy out,
 * then a release increment of done.  A piece is never overwritten before
 * every reader has counted it read, and a member never takes another
 * broadcast's piece (the epoch) or an older piece of the same slot (k). */
#include "run/shm.h"
#include "base/pmpi.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

typedef struct tb_shm_slot {
    _Atomic uint64_t stamp;
    _Atomic uint64_t done;
    uint64_t readers;
    char pad[64 - 3 * sizeof(uint64_t)];
} tb_shm_slot;

#define RING_BYTES (TB_SHM_SLOTS * (sizeof(tb_shm_slot) + TB_SHM_SLOT_BYTES))

struct tb_shm {
    MPI_Win win;
    int size;           /* ranks of comm */
    int *local;         /* local[r]: r's rank on this node, -1 elsewhere */
    char **ring;        /* ring of each rank of this node, by node rank */
    char *mine;
    uint32_t epoch;     /* last epoch handed out */
    uint32_t owner;     /* epoch publishing on this rank's ring, 0: none */
};

static tb_shm_slot *slot_hdr(char *ring, uint64_t k)
{
    return (tb_shm_slot *)ring + k % TB_SHM_SLOTS;
}

static char *slot_data(char *ring, uint64_t k)
{
    return ring + TB_SHM_SLOTS * sizeof(tb_shm_slot) + (k % TB_SHM_SLOTS) * TB_SHM_SLOT_BYTES;
}

static uint64_t stamp_of(uint32_t epoch, uint64_t k)
{
    return (uint64_t)epoch << 32 | (k & 0xffffffffu);
}

tb_shm *tb_shm_create(MPI_Comm comm, const int *node_of, char *why, size_t whylen)
{
    int size, rank, ok = 1, nsize = 1;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    tb_shm *shm = calloc(1, sizeof *shm);
    if (shm)
        shm->win = MPI_WIN_NULL;
    MPI_Comm node = MPI_COMM_NULL;
    for (int r = 0; node_of && r < size; r++)
        nsize += r != rank && node_of[r] == node_of[rank];
#ifdef SMPI_H
    ok = 0; /* SMPI's shared windows are not the memory of one host */
    snprintf(why, whylen, "shared memory is not simulated under SMPI");
#endif
    if (ok && (!shm || !node_of)) {
        ok = 0;
        snprintf(why, whylen, "out of memory");
    }
    /* nodes of one rank each: nothing to share anywhere */
    int v[2] = {ok, -nsize};
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        v[0] = 0;
    if (v[0] && v[1] == -1) {
        snprintf(why, whylen, "every node holds one rank of the communicator");
        v[0] = 0;
    }
    if (v[0]) {
        /* every rank takes part in the window's creation, failing or not */
        ok = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS;
        int nrank = 0, nn = 0;
        if (ok) {
            PMPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
            PMPI_Comm_size(node, &nn);
            PMPI_Comm_rank(node, &nrank);
            shm->local = malloc(sizeof(int) * (size_t)size);
            shm->ring = calloc((size_t)nn, sizeof(char *));
            /* node ranks follow comm ranks (key = rank in the split) */
            for (int r = 0, i = 0; shm->local && r < size; r++)
                shm->local[r] = node_of[r] == node_of[rank] ? i++ : -1;
            ok = shm->local && shm->ring && nn == nsize;
        }
        if (node != MPI_COMM_NULL) {
            MPI_Info info;
            PMPI_Info_create(&info);
            PMPI_Info_set(info, "alloc_shared_noncontig", "true");
            void *base = NULL;
            if (PMPI_Win_allocate_shared((MPI_Aint)RING_BYTES, 1, info, node, &base, &shm->win) != MPI_SUCCESS)
                shm->win = MPI_WIN_NULL;
            PMPI_Info_free(&info);
            ok = ok && shm->win != MPI_WIN_NULL;
            for (int i = 0; ok && i < nn; i++) {
                MPI_Aint bytes;
                int unit;
                void *p = NULL;
                ok = PMPI_Win_shared_query(shm->win, i, &bytes, &unit, &p) == MPI_SUCCESS && p &&
                     bytes >= (MPI_Aint)RING_BYTES;
                shm->ring[i] = p;
            }
            if (ok) {
                shm->mine = shm->ring[nrank];
                memset(shm->mine, 0, TB_SHM_SLOTS * sizeof(tb_shm_slot));
            }
            if (shm->win != MPI_WIN_NULL) {
                PMPI_Win_lock_all(MPI_MODE_NOCHECK, shm->win);
                PMPI_Win_sync(shm->win);
            }
            /* every ring is zeroed before anyone reads a stamp */
            PMPI_Barrier(node);
            if (shm->win != MPI_WIN_NULL)
                PMPI_Win_sync(shm->win);
            tb_mpi.Comm_free(&node);
        }
        if (!ok)
            snprintf(why, whylen, "MPI_Win_allocate_shared failed on some rank");
        if (PMPI_Allreduce(&ok, &v[0], 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
            v[0] = 0;
        if (!v[0] && ok)
            snprintf(why, whylen, "MPI_Win_allocate_shared failed on another rank");
    }
    if (!v[0]) {
        tb_shm_free(shm);
        return NULL;
    }
    shm->size = size;
    return shm;
}

void tb_shm_free(tb_shm *shm)
{
    if (!shm)
        return;
    if (shm->win != MPI_WIN_NULL && shm->ring) {
        PMPI_Win_unlock_all(shm->win);
        PMPI_Win_free(&shm->win);
    }
    free(shm->local);
    free(shm->ring);
    free(shm);
}

uint32_t tb_shm_epoch_next(tb_shm *shm)
{
    if (++shm->epoch == 0)
        shm->epoch = 1; /* stamp 0 means "never written" */
    return shm->epoch;
}

int tb_shm_publish(tb_shm *shm, uint32_t epoch, uint64_t k, const void *src, size_t len, int readers)
{
    if (shm->owner != epoch) {
        if (shm->owner != 0 || k != 0)
            return 0;
        shm->owner = epoch;
    }
    tb_shm_slot *h = slot_hdr(shm->mine, k);
    if (atomic_load_explicit(&h->stamp, memory_order_relaxed) != 0 &&
        atomic_load_explicit(&h->done, memory_order_acquire) < h->readers)
        return 0;
    memcpy(slot_data(shm->mine, k), src, len);
    h->readers = (uint64_t)readers;
    atomic_store_explicit(&h->done, 0, memory_order_relaxed);
    PMPI_Win_sync(shm->win);
    atomic_store_explicit(&h->stamp, stamp_of(epoch, k), memory_order_release);
    return 1;
}

void tb_shm_release(tb_shm *shm, uint32_t epoch)
{
    if (shm->owner == epoch)
        shm->owner = 0;
}

int tb_shm_fetch(tb_shm *shm, int leader, uint32_t epoch, uint64_t k, void *dst, size_t len)
{
    char *ring = shm->ring[shm->local[leader]];
    tb_shm_slot *h = slot_hdr(ring, k);
    if (atomic_load_explicit(&h->stamp, memory_order_acquire) != stamp_of(epoch, k))
        return 0;
    PMPI_Win_sync(shm->win);
    memcpy(dst, slot_data(ring, k), len);
    atomic_fetch_add_explicit(&h->done, 1, memory_order_release);
    return 1;
}

void tb_shm_pause(void)
{
    sched_yield();
}
