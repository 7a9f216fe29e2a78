/* Non-blocking (MPI_Ibcast) and persistent (MPI_Bcast_init + MPI_Start)
 * broadcasts: the same decision and schedules as MPI_Bcast, run by the
 * engine one step at a time from the application's MPI calls.
 *
 * The request the application holds is a real MPI request: a zero-byte
 * receive (persistent for MPI_Bcast_init) on a private duplicate of
 * MPI_COMM_SELF, which the library completes by sending itself the
 * matching message once the broadcast has ended on this rank.  MPI's own
 * wait/test/free functions then work on it, mixed with any other request.
 *
 * Progress: tb_nbc_progress, called by the intercepted wait/test family
 * (intercept/nbc.c), by the blocking point-to-point calls while a broadcast
 * is in progress (intercept/p2p.c) and by every start.  No thread.  The
 * library's own calls of MPI here (its requests, tests and waits) are MPI's
 * own (base/pmpi.h), never a tool's.
 *
 * Layer: below the dispatch (which decides a call, then starts it here) and
 * the communicator state (which lets it finish what runs on a private
 * duplicate before freeing it); nbc.c calls neither, only the functions
 * they pass it: for a deferred MPI_Ibcast, whether its communicator's
 * set-up has ended and its decision (tb_nbc_deferral), and the reaper of
 * freed communicators' states (tb_nbc_set_reaper). */
#ifndef TB_NBC_H
#define TB_NBC_H

#include <mpi.h>

#include "run/call.h"

/* \brief Starts the library's operation for a call the dispatch decided it
 * runs (tb_ibcast, tb_bcast_init in dispatch.c; c as tb_bcast_decide left
 * it): *req becomes the application's request (persistent, not yet started,
 * for tb_nbc_bcast_init).
 * \return an MPI error code (no request on failure). */
int tb_nbc_ibcast(const tb_bcast_call *c, MPI_Request *req);
/* How a deferred MPI_Ibcast is finished, passed by the dispatch:
 * waiting(cs, +1) when it is queued behind its communicator's set-up and
 * waiting(cs, -1) when it leaves the queue (both under the lock); ready(cs)
 * moves that set-up on and says whether it has ended
 * (tb_comm_setup_test); resolve decides it (tb_bcast_resolve). */
typedef struct tb_nbc_deferral {
    void (*waiting)(struct tb_comm_state *cs, int delta);
    int (*ready)(struct tb_comm_state *cs);
    tb_call_kind (*resolve)(int root, tb_bcast_call *c);
} tb_nbc_deferral;
/* \brief Queues an MPI_Ibcast the dispatch deferred (TB_CALL_DEFER: c->cs,
 * c->msg and c->priv, the duplicate it will run on, set) behind its communicator's set-up: decided (how->resolve)
 * and started in a later progress pass once how->ready, in call order;
 * *req becomes the application's request.  A derived datatype is
 * duplicated until then (the application may free it).
 * \return an MPI error code (no request on failure). */
int tb_nbc_defer(const tb_bcast_call *c, void *buf, MPI_Count count, MPI_Datatype type, int root,
                 const tb_nbc_deferral *how, MPI_Request *req);
/* \brief fn, called at the end of every progress pass, under the lock
 * (the communicator state's reaper, tb_comm_state_reap).
 * \return nothing. */
void tb_nbc_set_reaper(void (*fn)(void));
#if MPI_VERSION >= 4
int tb_nbc_bcast_init(const tb_bcast_call *c, MPI_Request *req);
#endif
/* MPI_Start of *req: 1 (with *rc) when *req is one of the library's
 * persistent broadcasts, which it then starts; 0 otherwise. */
int tb_nbc_start(MPI_Request *req, int *rc);
/* MPI_Request_free of *req: 1 (with *rc) when it was the library's
 * (tb_nbc_owns). */
int tb_nbc_request_free(MPI_Request *req, int *rc);
/* \brief Whether *req is the request of one of the library's broadcasts
 * (an MPI_Ibcast in progress, or ended but not yet completed by the
 * application; a persistent one).
 * \return 1 or 0. */
int tb_nbc_owns(const MPI_Request *req);
/* \brief Whether any of reqs[0..count) is (tb_nbc_owns).
 * \return 1 or 0. */
int tb_nbc_owns_any(int count, const MPI_Request reqs[]);
/* \brief After a call the library ran with MPI's own functions on requests
 * it owns: the ended MPI_Ibcasts' requests in before[] (the handles as the
 * call got them) that after[] (the same array now) shows completed
 * (MPI_REQUEST_NULL) are no longer the library's.
 * \return nothing. */
void tb_nbc_settled(int count, const MPI_Request before[], const MPI_Request after[]);
/* Nonzero while any broadcast of the library is in progress on this
 * process (one load, no lock, inlined: every intercepted point-to-point
 * call reads it): the wait/test and point-to-point wrappers then drive
 * progress. */
extern int tb_nbc_nactive;
static inline int tb_nbc_busy(void)
{
    return __atomic_load_n(&tb_nbc_nactive, __ATOMIC_RELAXED);
}
/* Nonzero while the library holds persistent requests. */
int tb_nbc_persistent(void);
/* Moves every broadcast in progress as far as it goes without waiting and
 * completes the requests of those that ended, in start order on each
 * communicator.  Returns at once if another thread is doing it. */
void tb_nbc_progress(void);
/* \brief One progress pass that waits for the lock (another thread's pass
 * may hold it), then fn(arg) under it: tb_comm_setup_wait's step, so that
 * only one thread at a time tests a set-up's requests.
 * \return nothing. */
void tb_nbc_progress_then(void (*fn)(void *), void *arg);
/* \brief PMPI_Wait of *req that, while any broadcast of the library is in
 * progress on this process, polls instead: moves them on, then tests *req,
 * until it completes or the library has nothing left to move.
 * \return PMPI_Wait's / PMPI_Test's error code. */
int tb_nbc_wait(MPI_Request *req, MPI_Status *status);
/* \brief While any broadcast of the library is in progress on this
 * process: moves them on until every one of reqs[0..count) has completed
 * (MPI_Request_get_status, which frees none of them: the wait that follows
 * completes them as the application asked, at the next layer), or until
 * the library has nothing left to move.  An inactive persistent request
 * counts as completed, as MPI_Waitall and MPI_Wait treat it.
 * \return nothing. */
void tb_nbc_progress_until(int count, const MPI_Request reqs[]);
/* \brief Whether this thread holds the library's progress lock (an MPI call
 * made under it may run an attribute delete callback).
 * \return 1 or 0. */
int tb_nbc_holding(void);
/* \brief Whether a broadcast is in progress on the private duplicate priv
 * (takes the lock: not under it).
 * \return 1 or 0. */
int tb_nbc_running(MPI_Comm priv);
/* \brief Whether an operation in progress, or a persistent request, uses
 * the private duplicate priv.  Lock held (tb_nbc_holding).
 * \return 1 or 0. */
int tb_nbc_uses(MPI_Comm priv);
/* \brief Forgets the private duplicate priv (its counters), which the
 * caller frees: nothing uses it (tb_nbc_uses).  Lock held.
 * \return nothing. */
void tb_nbc_forget(MPI_Comm priv);
/* At MPI_Finalize: runs every broadcast in progress to its end. */
void tb_nbc_finalize(void);
/* Before priv (a private duplicate) is freed with its communicator: runs
 * the broadcasts in progress on it to their end.  Returns 1 when persistent
 * requests still refer to priv: the library then keeps it and frees it with
 * the last of them; 0 when the caller frees it. */
int tb_nbc_release_comm(MPI_Comm priv);

#endif
