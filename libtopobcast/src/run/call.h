/* A broadcast call as the dispatch decided it (dispatch/dispatch.c), and
 * as the non-blocking operations (run/nbc.c) take it over: where it runs,
 * with which schedule and message.  The communicator's state stays opaque
 * below the dispatch. */
#ifndef TB_RUN_CALL_H
#define TB_RUN_CALL_H

#include <mpi.h>

#include "algorithm.h"
#include "run/datatype.h"
#include "run/shm.h"
#include "schedule.h"

struct tb_comm_state;

/* What tb_bcast decides before moving bytes, shared with the non-blocking
 * and persistent entry points (run/nbc.c).  The same on every rank of comm. */
typedef enum {
    TB_CALL_MPI,     /* MPI's own broadcast (already counted in the stats) */
    TB_CALL_LIBRARY, /* the library runs c->sched on c->priv */
    TB_CALL_DEFER    /* MPI_Ibcast: waits in nbc.c for c->cs's set-up (tb_comm_setup_start), then
                      * tb_bcast_resolve decides it */
} tb_call_kind;
typedef struct tb_bcast_call {
    struct tb_comm_state *cs;   /* the communicator's state (dispatch/comm_state.h), opaque here */
    MPI_Comm priv;               /* the private duplicate */
    tb_alg_spec spec;
    int rule, is_root, count_it; /* for tb_stats_count once the broadcast ends */
    const tb_schedule *sched;    /* cached: valid until the next lookup on cs */
    tb_shm *shm;                 /* cs's rings when sched has shared-memory edges, else NULL */
    tb_msg msg;
    MPI_Comm mpi_comm;           /* where MPI's own call goes (TB_CALL_MPI): the communicator, or its
                                  * duplicate while MPI_Ibcasts are routed through it (comm_state.h) */
} tb_bcast_call;

#endif
