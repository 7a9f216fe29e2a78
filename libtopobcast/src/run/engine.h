/* Executes one rank's schedule on a contiguous byte image of the message,
 * either to the end (tb_engine_run) or step by step (tb_engine_op), one
 * code path for both. */
#ifndef TB_ENGINE_H
#define TB_ENGINE_H

#include <mpi.h>
#include <stddef.h>

#include "schedule.h"
#include "run/shm.h"

/* An operation uses TB_ENGINE_TAGS consecutive tags from its first one:
 * tree k (0 .. TB_MAX_TREES-1) on tag + k, then one per range of an
 * exchange step.  tb_engine_run uses TB_ENGINE_TAG_BLOCKING; non-blocking
 * operations get their own. */
#define TB_ENGINE_TAGS (TB_MAX_TREES + 2)
#define TB_ENGINE_TAG_BLOCKING 7301
/* Receives posted ahead of the one being waited for, per tree: enough to
 * keep the link busy while a segment is forwarded, few enough to stay
 * cheap. */
#define TB_RECV_WINDOW 4
#define TB_MAX_OUTSTANDING 64
#define TB_ENGINE_LOCAL_CHILDREN 16

/* One tree's receive side: bytes [lo, frontier) of [lo, hi) are here.
 * From a shared-memory parent nothing is posted: piece `arrived` is copied
 * out of the parent's ring when its stamp says it is there. */
typedef struct tb_engine_tree {
    size_t seg, lo, hi, nseg, frontier, posted, arrived;
    int first; /* its children's first index in cursor/end */
    int shm_parent;
    /* the ring this rank writes for its shared-memory children: next byte,
     * end, piece number */
    size_t shm_cur, shm_end, shm_piece;
    uint64_t shm_k;
    MPI_Request rreq[TB_RECV_WINDOW];
} tb_engine_tree;

/* The state of one broadcast in progress on one rank.  Must not move in
 * memory between tb_engine_start and the end (it may point into itself). */
typedef struct tb_engine_op {
    const tb_schedule *s;
    char *buf;
    size_t n;
    MPI_Comm comm;
    int tag;
    int blocking; /* runs to its end in one call */
    int poll;     /* tests where a blocking operation without shared memory waits (non-blocking, or a
                     shared-memory stage: flags are polled, so MPI requests are tested between polls) */
    tb_shm *shm;  /* the communicator's rings, when the schedule has shared-memory edges */
    uint32_t epoch;
    int phase;
    int rc;
    /* tree phase: every tree at once, one pass over their children at a time */
    size_t dseg; /* the spec's segment (edges without their own) */
    int ntrees;
    tb_engine_tree tr[TB_MAX_TREES];
    size_t *cursor, *end; /* per child of every tree: next byte to send, end of its range */
    int tree, child, moved; /* position in the current pass over the children */
    MPI_Request sreq[TB_MAX_OUTSTANDING];
    int shead, scount, scap; /* ring of in-flight sends; scap 0 = blocking sends */
    /* exchange phase */
    int step, nxreq, xnb; /* xnb: blocks the exchange cuts the message into */
    size_t chunk;
    tb_xchg_step cur; /* the current round of a periodic (circulant) exchange */
    char *scratch;    /* one block, for a block received again (tb_xchg_step.dup) */
    size_t sl[2], sh[2], rl[2], rh[2];
    MPI_Request xreq[4];
    size_t local[2 * TB_ENGINE_LOCAL_CHILDREN];
} tb_engine_op;

/* \brief Prepares an operation (posts nothing).  blocking: the caller
 * drives it with tb_engine_progress to the end in one call, waiting inside
 * MPI, and sends are blocking when the spec says so (not with two trees,
 * whose ranks feed each other, nor with shared-memory edges: one send in
 * flight then); otherwise every call returns as soon as nothing can move
 * without waiting.  tag: first of TB_ENGINE_TAGS tags no other operation on
 * comm uses while this one runs.  shm: comm's rings when s->shm (then it
 * takes the broadcast's epoch, on every rank alike), else NULL.  The
 * schedule and buf must stay valid until the operation ends.
 * \return nothing; op->rc says whether it could start. */
void tb_engine_start(tb_engine_op *op, const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm, int tag,
                     int blocking, tb_shm *shm);
/* \brief Moves the operation on.
 * \return 1 once it has ended (op->rc holds the MPI error code; no request
 * of it is left), 0 while it waits for the network. */
int tb_engine_progress(tb_engine_op *op);

/* \brief Collective over comm (the private duplicate); every rank passes
 * its own schedule of the same plan and the same nbytes.  buf holds the
 * message at the root and receives it elsewhere.  shm as for
 * tb_engine_start.  idle (may be NULL) runs between two polls of a
 * shared-memory stage: the caller moves the process's non-blocking
 * broadcasts on there, one of which may hold a ring this one waits for.
 * \return an MPI error code. */
int tb_engine_run(const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm, tb_shm *shm, void (*idle)(void));

#endif
