/* From an MPI_Bcast call to an algorithm: argument screening, agreement,
 * selection, schedule lookup, datatype handling, engine. */
#ifndef TB_DISPATCH_H
#define TB_DISPATCH_H

#include <mpi.h>

#include "algorithm.h"
#include "comm_state.h"
#include "datatype.h"

/* The fast path of MPI_Bcast, inlined into the entry point: 1 if the call
 * surely goes to PMPI_Bcast -- a communicator this thread used last, a
 * predefined type it has seen, and no more bytes than the communicator's
 * default_upto (computed from the agreed settings, so every rank agrees).
 * 0 means "ask tb_bcast", never "the library runs". */
static inline int tb_bcast_fast_default(int count, MPI_Datatype type, MPI_Comm comm)
{
    const tb_comm_state *cs = tb_comm_state_cached(comm);
    if (!cs || count < 0)
        return 0;
    size_t tsize = tb_named_type_size(type);
    /* count < 2^31 and a predefined type's size are far from overflowing */
    return tsize && (size_t)count * tsize <= cs->default_upto;
}
/* explicit_spec NULL: choose by TOPOBCAST_ALGORITHM or the selection table. */
int tb_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
             const tb_alg_spec *explicit_spec);
/* What tb_bcast decides before moving bytes, shared with the non-blocking
 * and persistent entry points (nbc.c).  The same on every rank of comm. */
typedef enum {
    TB_CALL_NOTHING, /* nothing to move: size-1 communicator or empty message */
    TB_CALL_MPI,     /* MPI's own broadcast (already counted in the stats) */
    TB_CALL_LIBRARY  /* the library runs c->sched on c->priv */
} tb_call_kind;
typedef struct tb_bcast_call {
    tb_comm_state *cs;
    MPI_Comm priv;               /* the private duplicate */
    tb_alg_spec spec;
    int rule, is_root, count_it; /* for tb_stats_count once the broadcast ends */
    const tb_schedule *sched;    /* cached: valid until the next lookup on cs */
    tb_shm *shm;                 /* cs's rings when sched has shared-memory edges, else NULL */
    tb_msg msg;
} tb_bcast_call;
/* Collective on first use of comm (state, hierarchy, private duplicate,
 * rings), unless local: MPI_Ibcast, which must not wait for the other
 * ranks, takes MPI's own call (counted as a fallback) where one of those
 * is still to be set up.  They are set up only in blocking calls, which
 * every rank of comm makes in the same order, so all ranks agree either
 * way. */
tb_call_kind tb_bcast_decide(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                             const tb_alg_spec *explicit_spec, int local, tb_bcast_call *c);
/* \brief MPI_Ibcast and MPI_Bcast_init: the same decision as tb_bcast
 * (explicit_spec NULL: by TOPOBCAST_ALGORITHM or the selection table), then
 * an operation of nbc.c, or MPI's own call.  Collective on first use of comm.
 * \return an MPI error code; *req is the application's request. */
int tb_ibcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
              const tb_alg_spec *explicit_spec, MPI_Request *req);
#if MPI_VERSION >= 4
int tb_bcast_init(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                  MPI_Request *req);
#endif
/* The spec tb_bcast would choose (without broadcasting).  Collective on
 * first use of comm. */
int tb_bcast_choice(MPI_Comm comm, MPI_Count count, MPI_Datatype type, tb_alg_spec *out);

#endif
