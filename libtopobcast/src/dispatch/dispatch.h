/* From an MPI_Bcast call to an algorithm: argument screening, agreement,
 * selection, schedule lookup, datatype handling, engine. */
#ifndef TB_DISPATCH_H
#define TB_DISPATCH_H

#include <mpi.h>

#include "algorithm.h"
#include "dispatch/comm_state.h"
#include "run/call.h"
#include "run/datatype.h"

/* The fast path of MPI_Bcast, inlined into the entry point: 1 if the
 * library surely leaves the call to MPI (passed on as for TB_PASS, below)
 * -- a communicator this thread used last, a predefined type it has seen,
 * and no more bytes than the communicator's default_upto (computed from
 * the agreed settings, so every rank agrees).  0 means "ask tb_bcast",
 * never "the library runs". */
static inline int tb_bcast_fast_default(int count, MPI_Datatype type, MPI_Comm comm)
{
    const tb_comm_state *cs = tb_comm_state_cached(comm);
    if (!cs || count < 0)
        return 0;
    size_t tsize = tb_named_type_size(type);
    /* count < 2^31 and a predefined type's size are far from overflowing */
    return tsize && (size_t)count * tsize <= cs->default_upto;
}
/* What tb_bcast, tb_ibcast and tb_bcast_init answer for a call the library
 * leaves to MPI as it is (never an MPI error code): the entry point passes
 * it on, unchanged, to the layer below its own (intercept/layer.h), so a
 * tool there sees it. */
#define TB_PASS (-1)
/* \brief MPI_Bcast and MPI_Bcast_c (explicit_spec NULL: choose by
 * TOPOBCAST_ALGORITHM or the selection table), run by the library.
 * \return an MPI error code, or TB_PASS. */
int tb_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
             const tb_alg_spec *explicit_spec);
/* \brief tb_bcast for the library's own callers (the public
 * topobcast_bcast_algorithm, the tools): what it leaves goes to MPI's own
 * broadcast.
 * \return an MPI error code. */
int tb_bcast_or_mpi(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                    const tb_alg_spec *explicit_spec);
/* Collective on first use of comm (state, hierarchy, private duplicate,
 * rings), unless local: MPI_Ibcast, which must not wait for the other
 * ranks, starts the set-up without waiting instead and is deferred
 * (TB_CALL_DEFER) with every later one until it ends (comm_state.h); the
 * rings are made only in blocking calls (an MPI_Ibcast whose spec needs
 * them before takes MPI's own call, counted as a fallback).  Every rank
 * makes these calls in the same order, so all ranks agree either way. */
tb_call_kind tb_bcast_decide(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                             const tb_alg_spec *explicit_spec, int local, tb_bcast_call *c);
/* \brief A deferred MPI_Ibcast, once c->cs's set-up has ended on this
 * rank: decided as tb_bcast_decide would (c->msg, c->cs set when it was
 * deferred).  Local.
 * \return TB_CALL_LIBRARY or TB_CALL_MPI (MPI_Ibcast on c->mpi_comm). */
tb_call_kind tb_bcast_resolve(int root, tb_bcast_call *c);
/* \brief MPI_Ibcast and MPI_Bcast_init: the same decision as tb_bcast
 * (explicit_spec NULL: by TOPOBCAST_ALGORITHM or the selection table), then
 * an operation of run/nbc.c, or MPI's own call on the private duplicate
 * while MPI_Ibcasts are routed through it.  Collective on first use of comm.
 * \return an MPI error code (*req is the application's request), or
 * TB_PASS. */
int tb_ibcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
              const tb_alg_spec *explicit_spec, MPI_Request *req);
#if MPI_VERSION >= 4
int tb_bcast_init(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req);
#endif
/* The spec tb_bcast would choose (without broadcasting).  Collective on
 * first use of comm. */
int tb_bcast_choice(MPI_Comm comm, MPI_Count count, MPI_Datatype type, tb_alg_spec *out);

#endif
