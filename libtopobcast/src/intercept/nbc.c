/* Exported entry points for non-blocking and persistent broadcasts, and the
 * calls that make them progress (run/nbc.h), at both layers (layer.h).
 *
 * Progress happens here: in MPI_Ibcast / MPI_Start / MPI_Startall, and in
 * the wait/test family below; and in the blocking point-to-point calls
 * (p2p.c).  While a broadcast of the library is in progress, a wait polls
 * (drives every broadcast, then tests the application's requests) until it
 * is satisfied; when none is, each call goes straight to the layer below. A
 * rank that stops calling these functions stops forwarding: its subtree
 * waits for it.
 *
 * A call on a request of the library's own broadcasts (tb_nbc_owns, when
 * the call starts: an MPI_Ibcast in progress, a persistent broadcast) is
 * the library's: it is completed, started or freed with MPI's own functions
 * and never reaches a tool below the library, which saw neither its
 * MPI_Ibcast nor its MPI_Bcast_init; an MPI_Ibcast's request stays the
 * library's once its broadcast has ended, until the application completes
 * or frees it (TB_OWNED, tb_nbc_settled).  Any other call goes on to the
 * layer below once the library has moved its broadcasts on: MPI_Wait and
 * MPI_Waitall only when their requests have completed
 * (tb_nbc_progress_until), so that the call below returns at once with the
 * statuses; MPI_Waitany and MPI_Waitsome, whose requests
 * MPI_Request_get_status cannot tell from inactive ones, are polled by the
 * library itself while it has broadcasts in progress. */
#define _GNU_SOURCE /* dladdr */
#include "dispatch/dispatch.h"
#include "intercept/layer.h"
#include "run/nbc.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#if TB_PMPI_LAYER
#define from_fortran(ret) 0
#else
/* The static library has no PMPI_ layer, and MPICH's mpi_f08 binding calls
 * the C MPI_Ibcast and MPI_Bcast_init, but PMPI_Wait, PMPI_Test, PMPI_Start
 * ... for the rest, which would not reach the library: its broadcasts would
 * never progress.  The binding's functions are not in the dynamic symbol
 * table, so calls made from a Fortran binding library (MPICH's
 * libmpichfort, Open MPI's libmpi_mpifh and libmpi_usempif08) all go to
 * MPI there; the same call site on every rank, so every rank decides
 * alike.  One lookup per call site and thread.  (The shared library serves
 * those PMPI_ calls: it runs the bindings' broadcasts too.) */
static int from_fortran(const void *ret)
{
    static __thread const void *last;
    static __thread int last_fortran;
    if (ret != last) {
        Dl_info info;
        last_fortran = dladdr(ret, &info) && info.dli_fname &&
                       (strstr(info.dli_fname, "fort") || strstr(info.dli_fname, "f08") ||
                        strstr(info.dli_fname, "mpifh"));
        last = ret;
    }
    return last_fortran;
}
#endif

/* call, the library's own (MPI's functions) on n requests of reqs, some
 * of them the library's: those it completes are no longer the library's
 * (tb_nbc_settled).  A GNU C statement expression, of call's value. */
#define TB_OWNED(n, reqs, call)                                                                               \
    __extension__({                                                                                           \
        MPI_Request tb_one_, *tb_was_ = (n) == 1 ? &tb_one_ : malloc(sizeof *tb_was_ * (size_t)(n));          \
        if (tb_was_)                                                                                          \
            memcpy(tb_was_, reqs, sizeof *tb_was_ * (size_t)(n));                                             \
        int tb_rc_ = (call);                                                                                  \
        if (tb_was_)                                                                                          \
            tb_nbc_settled(n, tb_was_, reqs);                                                                 \
        if (tb_was_ != &tb_one_)                                                                              \
            free(tb_was_);                                                                                    \
        tb_rc_;                                                                                               \
    })

/* MPI_Ibcast and MPI_Bcast_init, and their large-count forms (CT the
 * count's type): the library's operation, or the call passed on. */
#define TB_IBCAST(F, CT)                                                                                      \
    TB_ENTRY(F, (void *buffer, CT count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request), \
             (buffer, count, datatype, root, comm, request), 0)                                               \
    {                                                                                                         \
        int rc = from_fortran(caller) ? TB_PASS : tb_ibcast(buffer, count, datatype, root, comm, NULL, request); \
        return rc != TB_PASS ? rc : TB_DOWN(F, buffer, count, datatype, root, comm, request);                 \
    }
#define TB_BCAST_INIT(F, CT)                                                                                  \
    TB_ENTRY(F,                                                                                               \
             (void *buffer, CT count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,          \
              MPI_Request *request),                                                                          \
             (buffer, count, datatype, root, comm, info, request), 0)                                         \
    {                                                                                                         \
        int rc = from_fortran(caller) ? TB_PASS : tb_bcast_init(buffer, count, datatype, root, comm, request); \
        return rc != TB_PASS ? rc : TB_DOWN(F, buffer, count, datatype, root, comm, info, request);           \
    }

TB_IBCAST(Ibcast, int)
#if MPI_VERSION >= 4
TB_IBCAST(Ibcast_c, MPI_Count)
TB_BCAST_INIT(Bcast_init, int)
TB_BCAST_INIT(Bcast_init_c, MPI_Count)
#endif

TB_ENTRY(Start, (MPI_Request *request), (request), 0)
{
    int rc;
    if (tb_nbc_start(request, &rc))
        return rc;
    return TB_DOWN(Start, request);
}

TB_ENTRY(Startall, (int count, MPI_Request array_of_requests[]), (count, array_of_requests), !tb_nbc_persistent())
{
    if (!tb_nbc_persistent())
        return TB_DOWN(Startall, count, array_of_requests);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        int r;
        if (!tb_nbc_start(&array_of_requests[i], &r))
            r = TB_DOWN(Start, &array_of_requests[i]);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

/* A communicator freed while its set-up without waiting is in flight
 * (comm_state.h): the set-up ends first (MPI_Comm_free is collective, and
 * every rank started it), so no collective of the library's is left on a
 * freed communicator. */
TB_ENTRY(Comm_free, (MPI_Comm *comm), (comm), 0)
{
    tb_comm_state *cs = comm && *comm != MPI_COMM_NULL ? tb_comm_state_find(*comm) : NULL;
    if (cs && (cs->setup || cs->deferred))
        tb_comm_setup_wait(cs);
    return TB_DOWN(Comm_free, comm);
}

/* Cancelling a collective is erroneous; MPI's own broadcasts ignore it.  A
 * library broadcast's request stands for a placeholder receive, which
 * MPI_Cancel would cancel while the broadcast runs on: ignored too. */
TB_ENTRY(Cancel, (MPI_Request *request), (request), 0)
{
    if (tb_nbc_owns(request))
        return MPI_SUCCESS;
    return TB_DOWN(Cancel, request);
}

TB_ENTRY(Request_free, (MPI_Request *request), (request), 0)
{
    int rc;
    if (tb_nbc_request_free(request, &rc))
        return rc;
    return TB_DOWN(Request_free, request);
}

/* Waits: the library's requests are its own; for the others, poll while
 * the library has work, then pass the call on. */

TB_ENTRY(Wait, (MPI_Request *request, MPI_Status *status), (request, status), 0)
{
    if (tb_nbc_owns(request))
        return TB_OWNED(1, request, tb_nbc_wait(request, status));
    if (request)
        tb_nbc_progress_until(1, request);
    return TB_DOWN(Wait, request, status);
}

/* An MPI_Waitall on requests of the library's polls with MPI's own
 * PMPI_Testsome, not PMPI_Testall: MPICH 4.0's
 * Testall fails (MPI_ERR_IN_STATUS) on one of MPI's own persistent
 * collective requests still in progress, which aborted a Waitall of such a
 * request and one of the library's broadcasts.  It runs on a copy of the
 * requests in which each completed one becomes MPI_REQUEST_NULL (MPICH
 * 4.0's Testsome and Waitsome report an inactive persistent collective
 * request as completed again and again); the application's array gets
 * each request's new handle, and its status at its index, as it completes.
 * What is left when the library has nothing more to move is waited for
 * with PMPI_Waitsome.  Null requests get the empty status first, as
 * PMPI_Waitall gives them; Testsome and Waitsome skip inactive persistent
 * requests too, so what is left of the copy at the end is inactive and a
 * wait on it gives the empty status.  (Open MPI's MPI_STATUSES_IGNORE is
 * NULL.) */
static int waitall_owned(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (!tb_nbc_busy() || count <= 0)
        return tb_mpi.Waitall(count, array_of_requests, array_of_statuses);
    int keep = array_of_statuses != MPI_STATUSES_IGNORE;
    MPI_Request *req = malloc(sizeof *req * (size_t)count);
    int *idx = malloc(sizeof *idx * (size_t)count);
    MPI_Status *st = keep ? malloc(sizeof *st * (size_t)count) : MPI_STATUSES_IGNORE;
    if (!req || !idx || (keep && !st)) {
        free(req);
        free(idx);
        if (keep)
            free(st);
        return MPI_ERR_NO_MEM;
    }
    memcpy(req, array_of_requests, sizeof *req * (size_t)count);
    for (int i = 0; keep && i < count; i++)
        if (req[i] == MPI_REQUEST_NULL)
            tb_mpi.Wait(&req[i], &array_of_statuses[i]);
    int rc, out;
    do {
        int busy = tb_nbc_busy();
        if (busy)
            tb_nbc_progress();
        out = 0;
        rc = busy ? tb_mpi.Testsome(count, req, &out, idx, st) : tb_mpi.Waitsome(count, req, &out, idx, st);
        for (int j = 0; out != MPI_UNDEFINED && j < out; j++) {
            array_of_requests[idx[j]] = req[idx[j]];
            req[idx[j]] = MPI_REQUEST_NULL;
            if (keep)
                array_of_statuses[idx[j]] = st[j];
        }
    } while (rc == MPI_SUCCESS && out != MPI_UNDEFINED);
    for (int i = 0; keep && rc == MPI_SUCCESS && i < count; i++)
        if (req[i] != MPI_REQUEST_NULL)
            tb_mpi.Wait(&req[i], &array_of_statuses[i]);
    free(req);
    free(idx);
    if (keep)
        free(st);
    return rc;
}

TB_ENTRY(Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]),
         (count, array_of_requests, array_of_statuses), 0)
{
    if (tb_nbc_owns_any(count, array_of_requests))
        return TB_OWNED(count, array_of_requests, waitall_owned(count, array_of_requests, array_of_statuses));
    if (count > 0 && array_of_requests)
        tb_nbc_progress_until(count, array_of_requests);
    return TB_DOWN(Waitall, count, array_of_requests, array_of_statuses);
}

/* MPI_Waitany and MPI_Waitsome: while the library has broadcasts in
 * progress, MPI's own tests between progress passes. */
static int waitany_polling(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status, int *done)
{
    int rc = MPI_SUCCESS;
    for (*done = 0; !*done && tb_nbc_busy();) {
        tb_nbc_progress();
        rc = tb_mpi.Testany(count, array_of_requests, index, done, status);
        *done = *done || rc != MPI_SUCCESS;
    }
    return rc;
}

static int waitsome_polling(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                            MPI_Status array_of_statuses[], int *done)
{
    int rc = MPI_SUCCESS;
    for (*done = 0; !*done && tb_nbc_busy();) {
        tb_nbc_progress();
        rc = tb_mpi.Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
        *done = rc != MPI_SUCCESS || *outcount != 0;
    }
    return rc;
}

static int waitany_owned(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    int done, rc = waitany_polling(count, array_of_requests, index, status, &done);
    return done ? rc : tb_mpi.Waitany(count, array_of_requests, index, status);
}

static int waitsome_owned(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                          MPI_Status array_of_statuses[])
{
    int done, rc = waitsome_polling(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, &done);
    return done ? rc : tb_mpi.Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

TB_ENTRY(Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status),
         (count, array_of_requests, index, status), 0)
{
    if (tb_nbc_owns_any(count, array_of_requests))
        return TB_OWNED(count, array_of_requests, waitany_owned(count, array_of_requests, index, status));
    int done, rc = waitany_polling(count, array_of_requests, index, status, &done);
    return done ? rc : TB_DOWN(Waitany, count, array_of_requests, index, status);
}

TB_ENTRY(Waitsome,
         (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
          MPI_Status array_of_statuses[]),
         (incount, array_of_requests, outcount, array_of_indices, array_of_statuses), 0)
{
    if (tb_nbc_owns_any(incount, array_of_requests))
        return TB_OWNED(incount, array_of_requests,
                        waitsome_owned(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));
    int done, rc = waitsome_polling(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, &done);
    return done ? rc : TB_DOWN(Waitsome, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

/* Tests: one progress pass, then the test: MPI's own on the library's
 * requests (as they were before the pass, which may end their
 * broadcasts). */

TB_ENTRY(Test, (MPI_Request *request, int *flag, MPI_Status *status), (request, flag, status), 0)
{
    int own = tb_nbc_owns(request);
    tb_nbc_progress();
    return own ? TB_OWNED(1, request, tb_mpi.Test(request, flag, status)) : TB_DOWN(Test, request, flag, status);
}

TB_ENTRY(Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]),
         (count, array_of_requests, flag, array_of_statuses), 0)
{
    int own = tb_nbc_owns_any(count, array_of_requests);
    tb_nbc_progress();
    return own ? TB_OWNED(count, array_of_requests, tb_mpi.Testall(count, array_of_requests, flag, array_of_statuses))
               : TB_DOWN(Testall, count, array_of_requests, flag, array_of_statuses);
}

TB_ENTRY(Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status),
         (count, array_of_requests, index, flag, status), 0)
{
    int own = tb_nbc_owns_any(count, array_of_requests);
    tb_nbc_progress();
    return own ? TB_OWNED(count, array_of_requests, tb_mpi.Testany(count, array_of_requests, index, flag, status))
               : TB_DOWN(Testany, count, array_of_requests, index, flag, status);
}

TB_ENTRY(Testsome,
         (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
          MPI_Status array_of_statuses[]),
         (incount, array_of_requests, outcount, array_of_indices, array_of_statuses), 0)
{
    int own = tb_nbc_owns_any(incount, array_of_requests);
    tb_nbc_progress();
    return own ? TB_OWNED(incount, array_of_requests,
                          tb_mpi.Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses))
               : TB_DOWN(Testsome, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

TB_ENTRY(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status), (request, flag, status), 0)
{
    int own = tb_nbc_owns(&request);
    tb_nbc_progress();
    return own ? tb_mpi.Request_get_status(request, flag, status) : TB_DOWN(Request_get_status, request, flag, status);
}
