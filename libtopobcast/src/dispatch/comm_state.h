/* What the library keeps per user communicator, cached as an attribute:
 * the private duplicate its messages travel on, the agreed configuration
 * verdict, the communicator's hierarchy and built schedules. */
#ifndef TB_COMM_STATE_H
#define TB_COMM_STATE_H

#include <mpi.h>

#include "base/compat.h"

#include "hier.h"
#include "schedule.h"
#include "shape.h"
#include "run/shm.h"

/* Schedules kept per communicator, (root, spec) each, least recently used
 * replaced.  Beyond them, an algorithm whose plan rotates with its root
 * (tb_plan_rotates) keeps its plan for root 0, and every other root's
 * schedule is renumbered from it (a rank's part, not a whole plan), so a
 * loop over all roots does not rebuild an O(P) plan per call; the
 * topology-aware ones are rebuilt (O(L P) with the ranks' radix sort). */
#define TB_SCHEDULE_CACHE 16
#define TB_ROOT0_PLANS 2

typedef struct tb_root0_plan {
    int valid;
    tb_alg_spec spec;
    unsigned long stamp;
    tb_plan plan; /* spec's plan for root 0, over all ranks: O(P), made only once the cache is full */
} tb_root0_plan;

typedef struct tb_cached_schedule {
    int valid;
    int root;
    tb_alg_spec spec;
    unsigned long stamp; /* last use, for LRU replacement */
    tb_schedule sched;
} tb_cached_schedule;

typedef struct tb_comm_state {
    MPI_Comm dup;          /* private duplicate; MPI_COMM_NULL until an algorithm first runs */
    int no_dup;            /* agreed: no duplicate to be had (TOPOBCAST_MAX_COMMS, or MPI refused) */
    int size, rank;
    int usable;            /* every rank loaded the same config (and, once complete, mapped itself) */
    int why;               /* tb_fallback_why, when !usable or no_dup */
    size_t default_upto;   /* calls of 1..default_upto bytes go to MPI_Bcast (0 with TOPOBCAST_STATS) */
    int complete;          /* hier and shape derived (tb_comm_state_complete) */
    size_t hier_above;     /* agreed: a call of more bytes needs hier and shape (SIZE_MAX once complete) */
    tb_hier hier;          /* once complete: from the topology file when usable, else from MPI + hwloc */
    tb_shape shape;        /* once complete: of hier and the ranks' nodes, what the table's shape keys see */
    int *node_of;          /* once complete: node_of[r], lowest rank of r's shared-memory node */
    int shm_tried;         /* tb_comm_shm has run (agreed: shm is then set on every rank or on none) */
    int shm_warned;        /* a plan's shared-memory edge crossed nodes: said once (TOPOBCAST_VERBOSE) */
    tb_shm *shm;           /* node rings of the shared-memory stage, on the private duplicate */
    unsigned long clock;
    tb_cached_schedule cache[TB_SCHEDULE_CACHE];
    tb_root0_plan root0[TB_ROOT0_PLANS];
    /* set up by MPI_Ibcast, without waiting (tb_comm_setup_start) */
    struct tb_comm_setup *setup; /* the set-up's collectives, while in flight */
    int nb_route;          /* every MPI_Ibcast goes through the private duplicate (MPI's own too) until the
                            * next blocking call (tb_comm_setup_sync) */
    int deferred;          /* MPI_Ibcasts waiting for the set-up (run/nbc.c) */
    int cap_full;          /* agreed: the duplicate was one too many (TOPOBCAST_MAX_COMMS); MPI's own broadcast
                            * on it until the next blocking call frees it */
    struct tb_comm_state *next_orphan; /* its communicator is gone: freed once nothing uses it (reap) */
} tb_comm_state;

/* Returns comm's state, creating it collectively on first use (comm must be
 * an intracommunicator of size > 1): one allreduce agrees on the settings;
 * the hierarchy waits for tb_comm_state_complete (at once if some rank has
 * TOPOBCAST_STATS or TOPOBCAST_VERBOSE).  NULL only if creation failed. */
tb_comm_state *tb_comm_state_get(MPI_Comm comm);
/* \brief Completes cs (comm's state): the identity exchange (topo/map.c),
 * the hierarchy, the shape, and, with a topology, one allreduce agreeing
 * that every rank was placed in it (else cs->usable becomes 0 on every
 * rank, with one warning).  Collective over comm when cs is not complete:
 * call it on every rank in the same call, decided from agreed inputs
 * (cs->hier_above, an explicit spec).  Nothing when already complete.
 * \return MPI_SUCCESS, or the MPI error of the exchange (cs stays
 * incomplete; the caller uses MPI_Bcast). */
int tb_comm_state_complete(tb_comm_state *cs, MPI_Comm comm);
/* comm's state if it has one (it is then an intracommunicator of size > 1),
 * else NULL; never creates. */
tb_comm_state *tb_comm_state_find(MPI_Comm comm);

/* Each thread's last lookup: a broadcast on the communicator of the previous
 * one (the common case) skips MPI's attribute search.  tb_state_gen is
 * bumped whenever a state is freed, so that a freed communicator's handle,
 * reused by MPI for a new one, never hits the cache.  Initial-exec TLS: a
 * plain load on every broadcast. */
typedef struct tb_state_lookup {
    MPI_Comm comm;
    tb_comm_state *cs;
    unsigned long gen;
} tb_state_lookup;
extern unsigned long tb_state_gen;
extern TB_TLS tb_state_lookup tb_state_last;
/* tb_comm_state_find's cached answer, or NULL (then ask tb_comm_state_find). */
static inline tb_comm_state *tb_comm_state_cached(MPI_Comm comm)
{
    if (tb_state_last.cs && tb_state_last.comm == comm &&
        tb_state_last.gen == __atomic_load_n(&tb_state_gen, __ATOMIC_ACQUIRE))
        return tb_state_last.cs;
    return NULL;
}
/* The private duplicate of comm that the library's messages travel on,
 * created (collectively, on first use) only when an algorithm other than
 * MPI_Bcast runs, so communicators whose rules all say default cost the
 * application no context id.  At most TOPOBCAST_MAX_COMMS exist per process;
 * beyond that, or if MPI cannot create one, returns MPI_COMM_NULL on every
 * rank of comm (agreed) and the caller falls back to MPI_Bcast.  Collective
 * over comm; call it from the same broadcast on every rank. */
MPI_Comm tb_comm_private(tb_comm_state *cs, MPI_Comm comm);
/* \brief The shared-memory stage's rings of comm's private duplicate
 * priv, created on first use: collective over priv, called from the same
 * broadcast on every rank (one whose spec uses shm).  Without them (SMPI,
 * one rank per node, no shared window) says why once with
 * TOPOBCAST_VERBOSE, and tb_comm_schedule runs binomial in shm's place.
 * \return the rings, or NULL on every rank. */
tb_shm *tb_comm_shm(tb_comm_state *cs, MPI_Comm priv);
/* Schedule for (root, spec), built and cached on first use.  NULL with err
 * set if the algorithm cannot be built for this communicator.  A spec with
 * shm runs binomial in its place when the communicator has no rings
 * (tb_comm_shm) or a shared-memory edge of the plan would join two nodes. */
const tb_schedule *tb_comm_schedule(tb_comm_state *cs, int root, const tb_alg_spec *spec, char *err,
                                    size_t errlen);
/* Setting a communicator up without waiting (MPI_Ibcast).
 *
 * MPI_Ibcast must return without waiting for the other ranks, yet a
 * communicator's set-up is collective.  Every rank calls MPI_Ibcast on a
 * communicator in the same order, so the first one that needs a set-up is
 * the same call on every rank: it starts the set-up as non-blocking
 * collectives on the communicator (MPI_Iallreduce of the agreement,
 * MPI_Iallgather of the identities, MPI_Comm_idup of the duplicate), and
 * that broadcast and every later MPI_Ibcast on the communicator wait in
 * the library (run/nbc.c) until the set-up has completed on this rank.  Then
 * each is decided as MPI_Bcast would be, and runs on the duplicate: a
 * library algorithm, or MPI's own MPI_Ibcast on the duplicate (never on
 * the application's communicator, where the other ranks may have issued
 * other collectives meanwhile).  The next blocking call on the
 * communicator (MPI_Bcast, MPI_Bcast_init) completes the set-up on every
 * rank and ends that routing (tb_comm_setup_sync).  Under SMPI, whose
 * MPI_Comm_idup blocks, MPI_Ibcast does not start a set-up. */

/* \brief Starts comm's set-up without waiting: a new state (cs NULL,
 * attached to comm) or what cs still lacks (its hierarchy, its
 * duplicate).  Called on every rank from the same MPI_Ibcast, decided from
 * agreed inputs.
 * \return the state, cs->setup set; NULL if nothing was started (out of
 * memory, an MPI error, SMPI): the caller uses MPI's own call. */
tb_comm_state *tb_comm_setup_start(MPI_Comm comm, tb_comm_state *cs);
/* \brief Moves cs's set-up on (tests its requests).  Local; under nbc.c's
 * lock (one thread at a time).
 * \return 1 when cs has no set-up in flight (any more), else 0. */
int tb_comm_setup_test(tb_comm_state *cs);
/* \brief In a blocking call on cs's communicator (every rank makes it in
 * the same order): completes the set-up and the MPI_Ibcasts waiting for
 * it, ends the routing through the duplicate, and frees the duplicate if
 * it was over TOPOBCAST_MAX_COMMS.  Nothing when none of these is pending.
 * \return nothing. */
void tb_comm_setup_sync(tb_comm_state *cs);
/* \brief Completes cs's set-up and starts the MPI_Ibcasts waiting for it:
 * in MPI_Comm_free (collective), so that no set-up collective is left
 * on a freed communicator (Open MPI 4.1 crashes progressing one).
 * \return nothing. */
void tb_comm_setup_wait(tb_comm_state *cs);
/* \brief The private duplicate cs's broadcasts run on: its duplicate, or
 * the one its set-up is making.
 * \return the handle, or MPI_COMM_NULL. */
MPI_Comm tb_comm_setup_priv(const tb_comm_state *cs);

/* \brief Frees the states whose communicators were freed while the library
 * still used them (set-up in flight, deferred MPI_Ibcasts, or MPI running
 * the delete callback inside one of the library's own calls) once nothing
 * uses them any more: no set-up, no deferred call, no operation on the
 * duplicate.  run/nbc.c calls it at the end of each progress pass, its lock
 * held (tb_nbc_set_reaper, once a state is left so).  A shared-memory window of such a state is left to MPI_Finalize
 * (freeing it is collective).
 * \return nothing. */
void tb_comm_state_reap(void);

/* Drops the state of MPI_COMM_WORLD (at MPI_Finalize). */
void tb_comm_state_release_world(void);

#endif
