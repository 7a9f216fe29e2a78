/* The one send/receive loop of the library.  Every algorithm reaches the
 * wire through here: a tree phase that pipelines segments from parent to
 * children, then the schedule's exchange steps.
 *
 * The loop is a state machine (tb_engine_op): each wait point is a place
 * where a non-blocking operation returns to its caller (MPI_Test says "not
 * yet") and resumes on the next call, and where a blocking one calls
 * MPI_Wait instead.  MPI_Bcast and MPI_Ibcast / MPI_Start therefore move
 * the same bytes in the same order. */
#include "engine.h"

#include <stdlib.h>

enum { PH_TREE, PH_XCHG, PH_DONE };

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* 1 when *r has completed (or failed, op->rc then set); 0 while a
 * non-blocking operation must come back later. */
static int settle(tb_engine_op *op, MPI_Request *r)
{
    int flag = 1;
    int rc = op->blocking ? PMPI_Wait(r, MPI_STATUS_IGNORE) : PMPI_Test(r, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        op->rc = rc;
        return 1;
    }
    return flag;
}

/* Room in the ring of in-flight sends: 1, or 0 while the oldest is still
 * in flight (non-blocking operations only). */
static int send_room(tb_engine_op *op)
{
    if (op->scap == 0 || op->scount < op->scap)
        return 1;
    if (!settle(op, &op->sreq[op->shead]))
        return 0;
    op->shead = (op->shead + 1) % op->scap;
    op->scount--;
    return 1;
}

static int send_post(tb_engine_op *op, const char *p, size_t len, int peer)
{
    if (op->scap == 0)
        return PMPI_Send(p, (int)len, MPI_BYTE, peer, op->tag, op->comm);
    int slot = (op->shead + op->scount) % op->scap;
    op->scount++;
    return PMPI_Isend(p, (int)len, MPI_BYTE, peer, op->tag, op->comm, &op->sreq[slot]);
}

void tb_engine_start(tb_engine_op *op, const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm, int tag,
                     int blocking)
{
    op->s = s;
    op->buf = buf;
    op->n = nbytes;
    op->comm = comm;
    op->tag = tag;
    op->blocking = blocking;
    op->rc = MPI_SUCCESS;
    op->cursor = op->end = NULL;
    op->posted = op->arrived = 0;
    op->child = op->moved = 0;
    op->shead = op->scount = 0;
    op->step = op->nxreq = 0;
    op->chunk = 0;
    op->phase = PH_DONE;
    if (nbytes == 0 || s->size <= 1)
        return;
    op->seg = tb_segment_bytes(&s->spec);
    op->lo = tb_block_offset(nbytes, s->nblocks, s->mine.lo);
    op->hi = tb_block_offset(nbytes, s->nblocks, s->mine.hi);
    op->nseg = s->parent >= 0 && op->hi > op->lo ? (op->hi - op->lo + op->seg - 1) / op->seg : 0;
    op->frontier = s->parent >= 0 ? op->lo : op->hi;
    if (s->nchildren > TB_ENGINE_LOCAL_CHILDREN) {
        op->cursor = malloc(sizeof(size_t) * 2 * (size_t)s->nchildren);
        if (!op->cursor) {
            op->rc = MPI_ERR_NO_MEM;
            return;
        }
    } else {
        op->cursor = op->local;
    }
    op->end = op->cursor + s->nchildren;
    for (int i = 0; i < s->nchildren; i++) {
        op->cursor[i] = tb_block_offset(nbytes, s->nblocks, s->child_blocks[i].lo);
        op->end[i] = tb_block_offset(nbytes, s->nblocks, s->child_blocks[i].hi);
    }
    /* a non-blocking operation never blocks in a send: "blocking" sends
     * become one send in flight at a time */
    op->scap = s->spec.nonblocking ? s->spec.outstanding : 0;
    if (op->scap > TB_MAX_OUTSTANDING)
        op->scap = TB_MAX_OUTSTANDING;
    if (op->scap <= 0)
        op->scap = blocking ? 0 : 1;
    op->phase = PH_TREE;
}

/* Receives this rank's byte range from its parent segment by segment and
 * forwards each segment to the children whose range it completes, children
 * in send order within a segment (so a segment reaches all subtrees before
 * the next one starts).  1 when finished or failed, 0 to come back. */
static int tree_progress(tb_engine_op *op)
{
    const tb_schedule *s = op->s;
    for (;;) {
        while (op->posted < op->nseg && op->posted - op->arrived < TB_RECV_WINDOW) {
            size_t a = op->lo + op->posted * op->seg, len = min_size(op->hi - a, op->seg);
            int rc = PMPI_Irecv(op->buf + a, (int)len, MPI_BYTE, s->parent, op->tag, op->comm,
                                &op->rreq[op->posted % TB_RECV_WINDOW]);
            if (rc != MPI_SUCCESS) {
                op->rc = rc;
                return 1;
            }
            op->posted++;
        }
        /* one segment per child per pass keeps children interleaved; a pass
         * interrupted by a full send ring resumes at the same child */
        for (;;) {
            for (; op->child < s->nchildren; op->child++) {
                int i = op->child;
                if (op->cursor[i] >= op->end[i])
                    continue;
                size_t len = min_size(op->end[i] - op->cursor[i], op->seg);
                if (op->cursor[i] + len > op->frontier)
                    continue;
                if (!send_room(op))
                    return 0;
                if (op->rc != MPI_SUCCESS)
                    return 1;
                int rc = send_post(op, op->buf + op->cursor[i], len, s->children[i]);
                if (rc != MPI_SUCCESS) {
                    op->rc = rc;
                    return 1;
                }
                op->cursor[i] += len;
                op->moved = 1;
            }
            op->child = 0;
            if (!op->moved)
                break;
            op->moved = 0;
        }
        if (op->arrived == op->nseg)
            break;
        if (!settle(op, &op->rreq[op->arrived % TB_RECV_WINDOW]))
            return 0;
        if (op->rc != MPI_SUCCESS)
            return 1;
        op->arrived++;
        op->frontier = min_size(op->lo + op->arrived * op->seg, op->hi);
    }
    while (op->scount > 0) {
        if (!settle(op, &op->sreq[op->shead]))
            return 0;
        if (op->rc != MPI_SUCCESS)
            return 1;
        op->shead = (op->shead + 1) % op->scap;
        op->scount--;
    }
    return 1;
}

/* Byte ranges of one exchange step. */
static void xchg_ranges(tb_engine_op *op, const tb_xchg_step *st)
{
    const tb_schedule *s = op->s;
    for (int k = 0; k < 2; k++) {
        op->sl[k] = tb_block_offset(op->n, s->nblocks, st->send[k].lo);
        op->sh[k] = st->send[k].hi > st->send[k].lo ? tb_block_offset(op->n, s->nblocks, st->send[k].hi) : op->sl[k];
        op->rl[k] = tb_block_offset(op->n, s->nblocks, st->recv[k].lo);
        op->rh[k] = st->recv[k].hi > st->recv[k].lo ? tb_block_offset(op->n, s->nblocks, st->recv[k].hi) : op->rl[k];
    }
}

/* Posts chunk op->chunk of an exchange step: up to two ranges each way,
 * cut into chunks that both sides enumerate in the same order (range 0
 * chunk c, range 1 chunk c, ...), so messages between a pair match in
 * order.  Each range has its own tag: the two ranges of a wrapped block
 * range differ in size, and SimGrid's SMPI lets an eager message overtake a
 * rendezvous one of the same tag (a recursive-doubling allgather at P=12
 * deadlocked there with one tag).  op->nxreq: requests posted, 0 when the
 * step has no chunk left. */
static int xchg_post(tb_engine_op *op, const tb_xchg_step *st)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
        size_t a = op->rl[k] + op->chunk * TB_CHUNK_MAX;
        if (st->recv_peer >= 0 && a < op->rh[k])
            rc = PMPI_Irecv(op->buf + a, (int)min_size(op->rh[k] - a, TB_CHUNK_MAX), MPI_BYTE, st->recv_peer,
                            op->tag + 1 + k, op->comm, &op->xreq[op->nxreq++]);
    }
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
        size_t a = op->sl[k] + op->chunk * TB_CHUNK_MAX;
        if (st->send_peer >= 0 && a < op->sh[k])
            rc = PMPI_Isend(op->buf + a, (int)min_size(op->sh[k] - a, TB_CHUNK_MAX), MPI_BYTE, st->send_peer,
                            op->tag + 1 + k, op->comm, &op->xreq[op->nxreq++]);
    }
    if (rc != MPI_SUCCESS)
        op->nxreq--; /* the failed call left no request */
    return rc;
}

static int xchg_progress(tb_engine_op *op)
{
    const tb_schedule *s = op->s;
    while (op->step < s->nsteps) {
        const tb_xchg_step *st = &s->steps[op->step];
        if (op->nxreq == 0) {
            if (op->chunk == 0)
                xchg_ranges(op, st);
            int rc = xchg_post(op, st);
            if (rc != MPI_SUCCESS) {
                op->rc = rc;
                return 1;
            }
            if (op->nxreq == 0) {
                op->step++;
                op->chunk = 0;
                continue;
            }
        }
        MPI_Status ignored[4]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
        int done = 1;
        int rc = op->blocking ? PMPI_Waitall(op->nxreq, op->xreq, ignored)
                              : PMPI_Testall(op->nxreq, op->xreq, &done, ignored);
        if (rc != MPI_SUCCESS) {
            op->rc = rc;
            return 1;
        }
        if (!done)
            return 0;
        op->nxreq = 0;
        op->chunk++;
    }
    return 1;
}

/* After an error, completes what was posted so that no request outlives the
 * operation; then frees what start allocated. */
static void finish(tb_engine_op *op)
{
    if (op->rc != MPI_SUCCESS) {
        for (; op->posted > op->arrived; op->arrived++)
            PMPI_Wait(&op->rreq[op->arrived % TB_RECV_WINDOW], MPI_STATUS_IGNORE);
        for (; op->scount > 0; op->scount--) {
            PMPI_Wait(&op->sreq[op->shead], MPI_STATUS_IGNORE);
            op->shead = (op->shead + 1) % op->scap;
        }
        for (int i = 0; i < op->nxreq; i++)
            PMPI_Wait(&op->xreq[i], MPI_STATUS_IGNORE);
        op->nxreq = 0;
    }
    if (op->cursor != op->local)
        free(op->cursor);
    op->cursor = op->end = NULL;
    op->phase = PH_DONE;
}

int tb_engine_progress(tb_engine_op *op)
{
    if (op->phase == PH_DONE)
        return 1;
    if (op->phase == PH_TREE) {
        if (!tree_progress(op))
            return 0;
        op->phase = PH_XCHG;
    }
    if (op->rc == MPI_SUCCESS && !xchg_progress(op))
        return 0;
    finish(op);
    return 1;
}

int tb_engine_run(const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm)
{
    tb_engine_op op;
    tb_engine_start(&op, s, buf, nbytes, comm, TB_ENGINE_TAG_BLOCKING, 1);
    while (!tb_engine_progress(&op))
        ; /* a blocking operation ends in one call */
    return op.rc;
}
