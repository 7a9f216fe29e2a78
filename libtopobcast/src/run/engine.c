/* The one send/receive loop of the library.  Every algorithm reaches the
 * wire through here: a tree phase that pipelines segments from parents to
 * children in every tree of the schedule at once (one tree, or the two of
 * a double binary tree), and a phase of exchange steps, run after the
 * trees or, for a circulant among a level's leaders, before them.
 *
 * The loop is a state machine (tb_engine_op): each wait point is a place
 * where a non-blocking operation returns to its caller (MPI_Test says "not
 * yet") and resumes on the next call, and where a blocking one calls
 * MPI_Wait instead.  MPI_Bcast and MPI_Ibcast / MPI_Start therefore move
 * the same bytes in the same order.
 *
 * Shared-memory edges (tree_shm.c) are part of the same tree phase: a
 * leader writes each piece of its range once into its node ring (shm.c),
 * for all its shared-memory children, as soon as the piece has arrived
 * from its own parent (so the node stage pipelines with the level above);
 * a member takes its pieces out of its parent's ring instead of posting
 * receives.  Flags are polled, never waited for, so such an operation
 * tests its MPI requests too, and a blocking one loops over
 * tb_engine_progress (tb_engine_run). */
#include "run/engine.h"
#include "base/pmpi.h"

#include <stdlib.h>

enum { PH_PRE, PH_TREE, PH_POST, PH_DONE };

/* Empty polls of a blocking shared-memory stage between two yields. */
#define TB_ENGINE_SPINS 64

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* 1 when *r has completed (or failed, op->rc then set); 0 while a
 * non-blocking operation must come back later. */
static int settle(tb_engine_op *op, MPI_Request *r)
{
    int flag = 1;
    int rc = !op->poll ? tb_mpi.Wait(r, MPI_STATUS_IGNORE) : tb_mpi.Test(r, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        op->rc = rc;
        return 1;
    }
    return flag;
}

/* Posts tree k's receives up to the window; 0, or -1 with op->rc set. */
static int post_recvs(tb_engine_op *op, int k)
{
    tb_engine_tree *tr = &op->tr[k];
    while (!tr->shm_parent && tr->posted < tr->nseg && tr->posted - tr->arrived < TB_RECV_WINDOW) {
        size_t a = tr->lo + tr->posted * tr->seg, len = min_size(tr->hi - a, tr->seg);
        int rc = PMPI_Irecv(op->buf + a, (int)len, MPI_BYTE, op->s->tree[k].parent, op->tag + k, op->comm,
                            &tr->rreq[tr->posted % TB_RECV_WINDOW]);
        if (rc != MPI_SUCCESS) {
            op->rc = rc;
            return -1;
        }
        tr->posted++;
    }
    return 0;
}

/* Tree k's oldest receive has completed: what has arrived grows. */
static void absorb(tb_engine_op *op, int k)
{
    tb_engine_tree *tr = &op->tr[k];
    tr->arrived++;
    tr->frontier = min_size(tr->lo + tr->arrived * tr->seg, tr->hi);
}

static void send_pop(tb_engine_op *op)
{
    op->shead = (op->shead + 1) % op->scap;
    op->scount--;
}

/* With two trees a rank's parent in one may be its child in the other, so
 * no wait may be on one request alone: the oldest send (with_send) and the
 * oldest receive of every tree still receiving are waited on together, and
 * whatever completes is taken in (a receive also re-posts its window).
 * 1 when something completed or failed (op->rc), 0 to come back. */
static int await_any(tb_engine_op *op, int with_send)
{
    MPI_Request req[1 + TB_MAX_TREES];
    int who[1 + TB_MAX_TREES], n = 0, idx = MPI_UNDEFINED, flag = 1;
    if (with_send) {
        req[n] = op->sreq[op->shead];
        who[n++] = -1;
    }
    for (int k = 0; k < op->ntrees; k++)
        if (op->tr[k].arrived < op->tr[k].posted) {
            req[n] = op->tr[k].rreq[op->tr[k].arrived % TB_RECV_WINDOW];
            who[n++] = k;
        }
    int rc = !op->poll ? tb_mpi.Waitany(n, req, &idx, MPI_STATUS_IGNORE)
                          : tb_mpi.Testany(n, req, &idx, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && flag && idx == MPI_UNDEFINED)
        rc = MPI_ERR_INTERN; /* nothing to wait for: a schedule the builders never make */
    if (rc != MPI_SUCCESS) {
        /* a request that failed is MPI's no more: freed in the copy req[]
         * (MPICH sets idx, Open MPI does not), so its own slot must not be
         * waited on again at the end (finish) */
        for (int i = 0; i < n; i++)
            if (req[i] == MPI_REQUEST_NULL) {
                if (who[i] < 0)
                    op->sreq[op->shead] = MPI_REQUEST_NULL;
                else
                    op->tr[who[i]].rreq[op->tr[who[i]].arrived % TB_RECV_WINDOW] = MPI_REQUEST_NULL;
            }
        op->rc = rc;
        return 1;
    }
    if (!flag)
        return 0;
    if (who[idx] < 0) {
        op->sreq[op->shead] = MPI_REQUEST_NULL;
        send_pop(op);
        return 1;
    }
    int k = who[idx];
    op->tr[k].rreq[op->tr[k].arrived % TB_RECV_WINDOW] = MPI_REQUEST_NULL;
    absorb(op, k);
    post_recvs(op, k);
    return 1;
}

/* Room in the ring of in-flight sends: 1 (or failed: op->rc), or 0 while
 * the oldest is still in flight (non-blocking operations only). */
static int send_room(tb_engine_op *op)
{
    while (op->scap > 0 && op->scount >= op->scap && op->rc == MPI_SUCCESS) {
        if (op->ntrees > 1) {
            if (!await_any(op, 1))
                return 0;
            continue;
        }
        if (!settle(op, &op->sreq[op->shead]))
            return 0;
        send_pop(op);
    }
    return 1;
}

static int send_post(tb_engine_op *op, const char *p, size_t len, int peer, int tag)
{
    if (op->scap == 0)
        return tb_mpi.Send(p, (int)len, MPI_BYTE, peer, tag, op->comm);
    int slot = (op->shead + op->scount) % op->scap;
    op->scount++;
    return PMPI_Isend(p, (int)len, MPI_BYTE, peer, tag, op->comm, &op->sreq[slot]);
}

void tb_engine_start(tb_engine_op *op, const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm, int tag,
                     int blocking, tb_shm *shm)
{
    op->s = s;
    op->buf = buf;
    op->n = nbytes;
    op->comm = comm;
    op->tag = tag;
    op->blocking = blocking;
    op->rc = MPI_SUCCESS;
    op->shm = NULL;
    op->poll = !blocking;
    op->cursor = op->end = NULL;
    op->scratch = NULL;
    op->tree = op->child = op->moved = 0;
    op->shead = op->scount = 0;
    op->step = op->nxreq = 0;
    op->chunk = 0;
    op->ntrees = 0;
    op->phase = PH_DONE;
    if (nbytes == 0 || s->size <= 1)
        return;
    if (s->shm) {
        /* every rank takes the epoch, whatever its part in the rings */
        if (!shm) {
            op->rc = MPI_ERR_INTERN; /* the communicator state never hands out such a schedule */
            return;
        }
        op->shm = shm;
        op->epoch = tb_shm_epoch_next(shm);
        op->poll = 1;
    }
    op->dseg = tb_segment_bytes(&s->spec);
    op->ntrees = s->ntrees;
    int nchildren = 0;
    for (int k = 0; k < s->ntrees; k++) {
        const tb_sched_tree *st = &s->tree[k];
        tb_engine_tree *tr = &op->tr[k];
        tr->shm_parent = st->shm_parent;
        tr->shm_cur = tr->shm_end = 0;
        tr->shm_k = 0;
        if (st->nshm > 0) {
            tr->shm_cur = tb_block_offset(nbytes, s->nblocks, st->shm_blocks.lo);
            tr->shm_end = tb_block_offset(nbytes, s->nblocks, st->shm_blocks.hi);
            tr->shm_piece = tb_shm_piece(tr->shm_end - tr->shm_cur);
        }
        tr->lo = tb_block_offset(nbytes, s->nblocks, st->mine.lo);
        tr->hi = tb_block_offset(nbytes, s->nblocks, st->mine.hi);
        /* ring pieces: the same rule on both sides of the edge (same range) */
        tr->seg = st->shm_parent ? tb_shm_piece(tr->hi - tr->lo) : st->seg ? st->seg : op->dseg;
        tr->nseg = st->parent >= 0 && tr->hi > tr->lo ? (tr->hi - tr->lo + tr->seg - 1) / tr->seg : 0;
        tr->frontier = st->parent >= 0 ? tr->lo : tr->hi;
        tr->posted = tr->arrived = 0;
        tr->first = nchildren;
        nchildren += st->nchildren;
    }
    if (nchildren > TB_ENGINE_LOCAL_CHILDREN) {
        op->cursor = malloc(sizeof(size_t) * 2 * (size_t)nchildren);
        if (!op->cursor) {
            op->rc = MPI_ERR_NO_MEM;
            return;
        }
    } else {
        op->cursor = op->local;
    }
    op->end = op->cursor + nchildren;
    for (int k = 0; k < s->ntrees; k++)
        for (int i = 0; i < s->tree[k].nchildren; i++) {
            op->cursor[op->tr[k].first + i] = tb_block_offset(nbytes, s->nblocks, s->tree[k].child_blocks[i].lo);
            op->end[op->tr[k].first + i] = tb_block_offset(nbytes, s->nblocks, s->tree[k].child_blocks[i].hi);
        }
    /* a non-blocking operation never blocks in a send: "blocking" sends
     * become one send in flight at a time; so do those of two trees */
    op->scap = s->spec.nonblocking ? s->spec.outstanding : 0;
    if (op->scap > TB_MAX_OUTSTANDING)
        op->scap = TB_MAX_OUTSTANDING;
    if (op->scap <= 0)
        op->scap = !op->poll && s->ntrees == 1 ? 0 : 1;
    op->xnb = s->xperiod ? tb_xchg_blocks(&s->spec, nbytes) : s->nblocks;
    op->phase = s->xchg_first ? PH_PRE : PH_TREE;
}

/* Tree k's ring: publishes the next piece of its shared-memory children's
 * range if it has arrived and its slot is free.  1 when published. */
static int publish(tb_engine_op *op, int k)
{
    tb_engine_tree *tr = &op->tr[k];
    if (tr->shm_cur >= tr->shm_end)
        return 0;
    size_t len = min_size(tr->shm_end - tr->shm_cur, tr->shm_piece);
    if (tr->shm_cur + len > tr->frontier ||
        !tb_shm_publish(op->shm, op->epoch, tr->shm_k, op->buf + tr->shm_cur, len, op->s->tree[k].nshm))
        return 0;
    tr->shm_cur += len;
    tr->shm_k++;
    if (tr->shm_cur >= tr->shm_end)
        tb_shm_release(op->shm, op->epoch);
    return 1;
}

/* Tree k's next piece from a shared-memory parent, if its ring holds it.
 * 1 when it has arrived. */
static int fetch(tb_engine_op *op, int k)
{
    tb_engine_tree *tr = &op->tr[k];
    if (!tr->shm_parent || tr->arrived >= tr->nseg)
        return 0;
    size_t a = tr->lo + tr->arrived * tr->seg;
    if (!tb_shm_fetch(op->shm, op->s->tree[k].parent, op->epoch, tr->arrived, op->buf + a,
                      min_size(tr->hi - a, tr->seg)))
        return 0;
    absorb(op, k);
    return 1;
}

/* Receives this rank's byte range of every tree from its parent there,
 * segment by segment, and forwards each segment to the children whose
 * range it completes, children in send order within a segment (so a
 * segment reaches all subtrees before the next one starts), tree by tree;
 * an edge with a segment of its own is fed in pieces of that size from
 * what has arrived.  1 when finished or failed, 0 to come back. */
static int tree_progress(tb_engine_op *op)
{
    const tb_schedule *s = op->s;
    for (;;) {
        for (int k = 0; k < op->ntrees; k++)
            if (post_recvs(op, k) != 0)
                return 1;
        /* one segment per child per pass keeps children interleaved; a pass
         * interrupted by a full send ring resumes at the same child */
        for (;;) {
            for (; op->tree < op->ntrees; op->tree++, op->child = 0) {
                const tb_sched_tree *st = &s->tree[op->tree];
                for (; op->child < st->nchildren; op->child++) {
                    int i = op->tr[op->tree].first + op->child;
                    if (op->cursor[i] >= op->end[i])
                        continue;
                    size_t seg = st->child_seg && st->child_seg[op->child] ? st->child_seg[op->child] : op->dseg;
                    size_t len = min_size(op->end[i] - op->cursor[i], seg);
                    if (op->cursor[i] + len > op->tr[op->tree].frontier)
                        continue;
                    if (!send_room(op))
                        return 0;
                    if (op->rc != MPI_SUCCESS)
                        return 1;
                    int rc = send_post(op, op->buf + op->cursor[i], len, st->children[op->child], op->tag + op->tree);
                    if (rc != MPI_SUCCESS) {
                        op->rc = rc;
                        return 1;
                    }
                    op->cursor[i] += len;
                    op->moved = 1;
                }
                if (publish(op, op->tree))
                    op->moved = 1;
            }
            op->tree = 0;
            if (!op->moved)
                break;
            op->moved = 0;
        }
        int waiting = 0, pending = 0, net = 0;
        for (int k = 0; k < op->ntrees; k++) {
            waiting += op->tr[k].arrived < op->tr[k].nseg;
            net += !op->tr[k].shm_parent && op->tr[k].arrived < op->tr[k].nseg;
            pending += op->tr[k].shm_cur < op->tr[k].shm_end;
        }
        if (!waiting && !pending)
            break;
        int got = 0;
        for (int k = 0; k < op->ntrees; k++)
            got += fetch(op, k);
        if (got)
            continue;
        if (!net)
            return 0; /* a flag to poll again (only shared-memory operations get here) */
        if (op->ntrees > 1) {
            if (!await_any(op, 0))
                return 0;
        } else {
            if (!settle(op, &op->tr[0].rreq[op->tr[0].arrived % TB_RECV_WINDOW]))
                return 0;
            if (op->rc == MPI_SUCCESS)
                absorb(op, 0);
        }
        if (op->rc != MPI_SUCCESS)
            return 1;
    }
    while (op->scount > 0) {
        if (!settle(op, &op->sreq[op->shead]))
            return 0;
        if (op->rc != MPI_SUCCESS)
            return 1;
        send_pop(op);
    }
    return 1;
}

/* Byte ranges of one exchange step. */
static void xchg_ranges(tb_engine_op *op, const tb_xchg_step *st)
{
    for (int k = 0; k < 2; k++) {
        op->sl[k] = tb_block_offset(op->n, op->xnb, st->send[k].lo);
        op->sh[k] = st->send[k].hi > st->send[k].lo ? tb_block_offset(op->n, op->xnb, st->send[k].hi) : op->sl[k];
        op->rl[k] = tb_block_offset(op->n, op->xnb, st->recv[k].lo);
        op->rh[k] = st->recv[k].hi > st->recv[k].lo ? tb_block_offset(op->n, op->xnb, st->recv[k].hi) : op->rl[k];
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
    int rc = MPI_SUCCESS, tag = op->tag + TB_MAX_TREES;
    if (st->dup && !op->scratch && !(op->scratch = malloc(op->rh[0] - op->rl[0] + 1)))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
        size_t a = op->rl[k] + op->chunk * TB_CHUNK_MAX;
        /* a dup block (one block, one chunk) lands in scratch, never in the
         * message it may be sent from in the same step */
        if (st->recv_peer >= 0 && a < op->rh[k])
            rc = PMPI_Irecv(st->dup ? op->scratch : op->buf + a, (int)min_size(op->rh[k] - a, TB_CHUNK_MAX), MPI_BYTE,
                            st->recv_peer, tag + k, op->comm, &op->xreq[op->nxreq++]);
    }
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
        size_t a = op->sl[k] + op->chunk * TB_CHUNK_MAX;
        if (st->send_peer >= 0 && a < op->sh[k])
            rc = PMPI_Isend(op->buf + a, (int)min_size(op->sh[k] - a, TB_CHUNK_MAX), MPI_BYTE, st->send_peer,
                            tag + k, op->comm, &op->xreq[op->nxreq++]);
    }
    if (rc != MPI_SUCCESS)
        op->nxreq--; /* the failed call left no request */
    return rc;
}

/* The exchange's current step: the schedule's, or for a periodic
 * (circulant) exchange its round op->step worked out into op->cur when the
 * step starts.  NULL past the last one. */
static const tb_xchg_step *xchg_step(tb_engine_op *op)
{
    const tb_schedule *s = op->s;
    if (!s->xperiod)
        return op->step < s->nsteps ? &s->steps[op->step] : NULL;
    if (op->nxreq == 0 && op->chunk == 0 && !tb_xchg_round(s->steps, s->xperiod, op->xnb, op->step, &op->cur))
        return NULL;
    return &op->cur;
}

static int xchg_progress(tb_engine_op *op)
{
    const tb_xchg_step *st;
    while ((st = xchg_step(op)) != NULL) {
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
        int rc = !op->poll ? tb_mpi.Waitall(op->nxreq, op->xreq, ignored)
                              : tb_mpi.Testall(op->nxreq, op->xreq, &done, ignored);
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
        for (int k = 0; k < op->ntrees; k++)
            for (tb_engine_tree *tr = &op->tr[k]; tr->posted > tr->arrived; tr->arrived++)
                tb_mpi.Wait(&tr->rreq[tr->arrived % TB_RECV_WINDOW], MPI_STATUS_IGNORE);
        for (; op->scount > 0; op->scount--) {
            tb_mpi.Wait(&op->sreq[op->shead], MPI_STATUS_IGNORE);
            op->shead = (op->shead + 1) % op->scap;
        }
        for (int i = 0; i < op->nxreq; i++)
            tb_mpi.Wait(&op->xreq[i], MPI_STATUS_IGNORE);
        op->nxreq = 0;
    }
    if (op->shm)
        tb_shm_release(op->shm, op->epoch); /* a failed leader leaves the ring to the next broadcast */
    if (op->cursor != op->local)
        free(op->cursor);
    free(op->scratch);
    op->scratch = NULL;
    op->cursor = op->end = NULL;
    op->phase = PH_DONE;
}

int tb_engine_progress(tb_engine_op *op)
{
    if (op->phase == PH_DONE)
        return 1;
    if (op->phase == PH_PRE) {
        if (!xchg_progress(op))
            return 0;
        op->phase = PH_TREE;
    }
    if (op->phase == PH_TREE && op->rc == MPI_SUCCESS) {
        if (!tree_progress(op))
            return 0;
        op->phase = op->s->xchg_first ? PH_DONE : PH_POST;
    }
    if (op->phase == PH_POST && op->rc == MPI_SUCCESS && !xchg_progress(op))
        return 0;
    finish(op);
    return 1;
}

int tb_engine_run(const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm, tb_shm *shm, void (*idle)(void))
{
    tb_engine_op op;
    tb_engine_start(&op, s, buf, nbytes, comm, TB_ENGINE_TAG_BLOCKING, 1, shm);
    /* only a shared-memory stage polls; others end in one call.  The
     * processor goes to others only after a run of empty polls (ranks may
     * outnumber cores; a yield per poll costs a system call per piece) */
    for (int empty = 0; !tb_engine_progress(&op);) {
        if (idle)
            idle();
        if (++empty == TB_ENGINE_SPINS) {
            tb_shm_pause();
            empty = 0;
        }
    }
    return op.rc;
}
