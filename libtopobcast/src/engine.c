/* The one send/receive loop of the library.  Every algorithm reaches the
 * wire through here: a tree phase that pipelines segments from parent to
 * children, then the schedule's exchange steps. */
#include "engine.h"

#include <stdlib.h>

#define TB_TAG_TREE 7301
#define TB_TAG_XCHG 7302 /* and 7303: one tag per range of a step */
/* Largest single message, so byte counts always fit MPI's int count. */
#define TB_CHUNK_MAX ((size_t)1 << 30)
/* Receives posted ahead of the one being waited for: enough to keep the
 * link busy while a segment is forwarded, few enough to stay cheap. */
#define TB_RECV_WINDOW 4
#define TB_MAX_OUTSTANDING 64

typedef struct send_queue {
    MPI_Request req[TB_MAX_OUTSTANDING];
    int head, count, cap; /* ring of in-flight sends; cap 0 = blocking sends */
} send_queue;

static int sq_send(send_queue *q, const char *p, size_t len, int peer, MPI_Comm comm)
{
    if (q->cap == 0)
        return PMPI_Send(p, (int)len, MPI_BYTE, peer, TB_TAG_TREE, comm);
    if (q->count == q->cap) {
        int rc = PMPI_Wait(&q->req[q->head], MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        q->head = (q->head + 1) % q->cap;
        q->count--;
    }
    int slot = (q->head + q->count) % q->cap;
    q->count++;
    return PMPI_Isend(p, (int)len, MPI_BYTE, peer, TB_TAG_TREE, comm, &q->req[slot]);
}

static int sq_drain(send_queue *q)
{
    int rc = MPI_SUCCESS;
    for (; q->count > 0; q->count--) {
        int r = PMPI_Wait(&q->req[q->head], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = r;
        q->head = (q->head + 1) % q->cap;
    }
    return rc;
}

static size_t seg_size(const tb_schedule *s)
{
    size_t seg = s->spec.segment;
    return (seg == 0 || seg > TB_CHUNK_MAX) ? TB_CHUNK_MAX : seg;
}

/* Receives this rank's byte range from its parent segment by segment and
 * forwards each segment to the children whose range it completes, children
 * in send order within a segment (so a segment reaches all subtrees before
 * the next one starts). */
static int tree_phase(const tb_schedule *s, char *buf, size_t n, MPI_Comm comm)
{
    const size_t seg = seg_size(s);
    const size_t lo = tb_block_offset(n, s->nblocks, s->mine.lo);
    const size_t hi = tb_block_offset(n, s->nblocks, s->mine.hi);
    const int receives = s->parent >= 0 && hi > lo;
    const size_t nseg = receives ? (hi - lo + seg - 1) / seg : 0;
    size_t frontier = s->parent >= 0 ? lo : hi; /* bytes [lo, frontier) are here */

    size_t cursor_local[16], end_local[16];
    size_t *cursor = cursor_local, *end = end_local;
    if (s->nchildren > 16) {
        cursor = malloc(sizeof(size_t) * 2 * (size_t)s->nchildren);
        if (!cursor)
            return MPI_ERR_NO_MEM;
        end = cursor + s->nchildren;
    }
    for (int i = 0; i < s->nchildren; i++) {
        cursor[i] = tb_block_offset(n, s->nblocks, s->child_blocks[i].lo);
        end[i] = tb_block_offset(n, s->nblocks, s->child_blocks[i].hi);
    }

    send_queue q = {.cap = s->spec.nonblocking ? s->spec.outstanding : 0};
    if (q.cap > TB_MAX_OUTSTANDING)
        q.cap = TB_MAX_OUTSTANDING;
    MPI_Request rreq[TB_RECV_WINDOW];
    size_t posted = 0, arrived = 0;
    int rc = MPI_SUCCESS;

    for (;;) {
        while (posted < nseg && posted - arrived < TB_RECV_WINDOW && rc == MPI_SUCCESS) {
            size_t a = lo + posted * seg, len = (hi - a < seg) ? hi - a : seg;
            rc = PMPI_Irecv(buf + a, (int)len, MPI_BYTE, s->parent, TB_TAG_TREE, comm,
                            &rreq[posted % TB_RECV_WINDOW]);
            posted++;
        }
        /* one segment per child per pass keeps children interleaved */
        int progress = 1;
        while (progress && rc == MPI_SUCCESS) {
            progress = 0;
            for (int i = 0; i < s->nchildren && rc == MPI_SUCCESS; i++) {
                if (cursor[i] >= end[i])
                    continue;
                size_t len = end[i] - cursor[i] < seg ? end[i] - cursor[i] : seg;
                if (cursor[i] + len > frontier)
                    continue;
                rc = sq_send(&q, buf + cursor[i], len, s->children[i], comm);
                cursor[i] += len;
                progress = 1;
            }
        }
        if (rc != MPI_SUCCESS || arrived == nseg)
            break;
        rc = PMPI_Wait(&rreq[arrived % TB_RECV_WINDOW], MPI_STATUS_IGNORE);
        arrived++;
        frontier = lo + arrived * seg < hi ? lo + arrived * seg : hi;
    }
    /* on error, complete what was posted so no request outlives the call */
    while (posted > arrived) {
        PMPI_Wait(&rreq[arrived % TB_RECV_WINDOW], MPI_STATUS_IGNORE);
        arrived++;
    }
    int drc = q.cap ? sq_drain(&q) : MPI_SUCCESS;
    if (cursor != cursor_local)
        free(cursor);
    return rc != MPI_SUCCESS ? rc : drc;
}

/* One exchange step: up to two ranges each way, cut into chunks that both
 * sides enumerate in the same order (range 0 chunk c, range 1 chunk c, ...),
 * so messages between a pair match in order.  Each range has its own tag:
 * the two ranges of a wrapped block range differ in size, and SimGrid's
 * SMPI lets an eager message overtake a rendezvous one of the same tag
 * (a recursive-doubling allgather at P=12 deadlocked there with one tag). */
static int xchg_step(const tb_schedule *s, const tb_xchg_step *st, char *buf, size_t n, MPI_Comm comm)
{
    size_t sl[2], sh[2], rl[2], rh[2];
    for (int k = 0; k < 2; k++) {
        sl[k] = tb_block_offset(n, s->nblocks, st->send[k].lo);
        sh[k] = st->send[k].hi > st->send[k].lo ? tb_block_offset(n, s->nblocks, st->send[k].hi) : sl[k];
        rl[k] = tb_block_offset(n, s->nblocks, st->recv[k].lo);
        rh[k] = st->recv[k].hi > st->recv[k].lo ? tb_block_offset(n, s->nblocks, st->recv[k].hi) : rl[k];
    }
    for (size_t c = 0;; c++) {
        MPI_Request req[4];
        int nreq = 0, any = 0, rc = MPI_SUCCESS;
        for (int k = 0; k < 2; k++) {
            size_t a = rl[k] + c * TB_CHUNK_MAX;
            if (st->recv_peer >= 0 && a < rh[k]) {
                size_t len = rh[k] - a < TB_CHUNK_MAX ? rh[k] - a : TB_CHUNK_MAX;
                rc = PMPI_Irecv(buf + a, (int)len, MPI_BYTE, st->recv_peer, TB_TAG_XCHG + k, comm, &req[nreq++]);
                any = 1;
                if (rc != MPI_SUCCESS)
                    break;
            }
        }
        for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
            size_t a = sl[k] + c * TB_CHUNK_MAX;
            if (st->send_peer >= 0 && a < sh[k]) {
                size_t len = sh[k] - a < TB_CHUNK_MAX ? sh[k] - a : TB_CHUNK_MAX;
                rc = PMPI_Isend(buf + a, (int)len, MPI_BYTE, st->send_peer, TB_TAG_XCHG + k, comm, &req[nreq++]);
                any = 1;
            }
        }
        MPI_Status st_ignored[4]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
        int wrc = nreq ? PMPI_Waitall(nreq, req, st_ignored) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return rc;
        if (wrc != MPI_SUCCESS)
            return wrc;
        if (!any)
            return MPI_SUCCESS;
    }
}

int tb_engine_run(const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm)
{
    if (nbytes == 0 || s->size <= 1)
        return MPI_SUCCESS;
    int rc = tree_phase(s, buf, nbytes, comm);
    for (int k = 0; k < s->nsteps && rc == MPI_SUCCESS; k++)
        rc = xchg_step(s, &s->steps[k], buf, nbytes, comm);
    return rc;
}
