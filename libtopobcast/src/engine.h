/* Executes one rank's schedule on a contiguous byte image of the message,
 * either to the end (tb_engine_run) or step by step (tb_engine_op), one
 * code path for both. */
#ifndef TB_ENGINE_H
#define TB_ENGINE_H

#include <mpi.h>
#include <stddef.h>

#include "schedule.h"

/* An operation uses TB_ENGINE_TAGS consecutive tags from its first one (tree
 * phase, then one per range of an exchange step).  tb_engine_run uses
 * TB_ENGINE_TAG_BLOCKING; non-blocking operations get their own. */
#define TB_ENGINE_TAGS 3
#define TB_ENGINE_TAG_BLOCKING 7301
/* Receives posted ahead of the one being waited for: enough to keep the
 * link busy while a segment is forwarded, few enough to stay cheap. */
#define TB_RECV_WINDOW 4
#define TB_MAX_OUTSTANDING 64
#define TB_ENGINE_LOCAL_CHILDREN 16

/* The state of one broadcast in progress on one rank.  Must not move in
 * memory between tb_engine_start and the end (it may point into itself). */
typedef struct tb_engine_op {
    const tb_schedule *s;
    char *buf;
    size_t n;
    MPI_Comm comm;
    int tag;
    int blocking; /* waits where a non-blocking operation tests */
    int phase;
    int rc;
    /* tree phase: bytes [lo, frontier) of [lo, hi) are here */
    size_t seg, lo, hi, nseg, frontier, posted, arrived;
    size_t *cursor, *end; /* per child: next byte to send, end of its range */
    int child, moved;     /* position in the current pass over the children */
    MPI_Request rreq[TB_RECV_WINDOW];
    MPI_Request sreq[TB_MAX_OUTSTANDING];
    int shead, scount, scap; /* ring of in-flight sends; scap 0 = blocking sends */
    /* exchange phase */
    int step, nxreq;
    size_t chunk;
    size_t sl[2], sh[2], rl[2], rh[2];
    MPI_Request xreq[4];
    size_t local[2 * TB_ENGINE_LOCAL_CHILDREN];
} tb_engine_op;

/* Prepares an operation (posts nothing).  blocking: the caller drives it
 * with tb_engine_progress to the end in one call, waiting inside MPI, and
 * sends are blocking when the spec says so; otherwise every call returns as
 * soon as nothing can move without waiting.  tag: first of TB_ENGINE_TAGS
 * tags no other operation on comm uses while this one runs.  The schedule
 * and buf must stay valid until the operation ends. */
void tb_engine_start(tb_engine_op *op, const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm, int tag,
                     int blocking);
/* Moves the operation on.  Returns 1 once it has ended (op->rc holds the
 * MPI error code; no request of it is left), 0 while it waits for the
 * network. */
int tb_engine_progress(tb_engine_op *op);

/* Collective over comm (the private duplicate); every rank passes its own
 * schedule of the same plan and the same nbytes.  buf holds the message at
 * the root and receives it elsewhere.  Returns an MPI error code. */
int tb_engine_run(const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm);

#endif
