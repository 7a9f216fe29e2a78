/* Exported entry points for non-blocking and persistent broadcasts, and the
 * calls that make them progress (run/nbc.h).
 *
 * Progress happens here: in MPI_Ibcast / MPI_Start / MPI_Startall, and in
 * the wait/test family below; and in the blocking point-to-point calls
 * (p2p.c).  While a broadcast of the
 * library is in progress, a wait polls (drives every broadcast, then tests
 * the application's requests) until it is satisfied; when none is, each
 * call goes straight to MPI.  A rank that stops calling these functions
 * stops forwarding: its subtree waits for it. */
#define _GNU_SOURCE /* dladdr */
#include "dispatch/dispatch.h"
#include "run/nbc.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* MPICH's mpi_f08 binding calls the C MPI_Ibcast and MPI_Bcast_init, but
 * PMPI_Wait, PMPI_Test, PMPI_Start ... for the rest, which never reach the
 * library: its broadcasts would never progress.  The binding's functions
 * are not in the dynamic symbol table, so calls made from a Fortran binding
 * library (MPICH's libmpichfort, Open MPI's libmpi_mpifh and
 * libmpi_usempif08) all go to MPI; the same call site on every rank, so
 * every rank decides alike.  One lookup per call site and thread. */
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

TB_EXPORT int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                         MPI_Request *request)
{
    if (from_fortran(__builtin_return_address(0)))
        return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
    return tb_ibcast(buffer, count, datatype, root, comm, NULL, request);
}

#if MPI_VERSION >= 4
TB_EXPORT int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request *request)
{
    if (from_fortran(__builtin_return_address(0)))
        return PMPI_Ibcast_c(buffer, count, datatype, root, comm, request);
    return tb_ibcast(buffer, count, datatype, root, comm, NULL, request);
}

TB_EXPORT int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request)
{
    if (from_fortran(__builtin_return_address(0)))
        return PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request);
    return tb_bcast_init(buffer, count, datatype, root, comm, info, request);
}

TB_EXPORT int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request)
{
    if (from_fortran(__builtin_return_address(0)))
        return PMPI_Bcast_init_c(buffer, count, datatype, root, comm, info, request);
    return tb_bcast_init(buffer, count, datatype, root, comm, info, request);
}
#endif

TB_EXPORT int MPI_Start(MPI_Request *request)
{
    int rc;
    if (tb_nbc_start(request, &rc))
        return rc;
    return PMPI_Start(request);
}

TB_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (!tb_nbc_persistent())
        return PMPI_Startall(count, array_of_requests);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        int r;
        if (!tb_nbc_start(&array_of_requests[i], &r))
            r = PMPI_Start(&array_of_requests[i]);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

/* A communicator freed while its set-up without waiting is in flight
 * (comm_state.h): the set-up ends first (MPI_Comm_free is collective, and
 * every rank started it), so no collective of the library's is left on a
 * freed communicator. */
TB_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    tb_comm_state *cs = comm && *comm != MPI_COMM_NULL ? tb_comm_state_find(*comm) : NULL;
    if (cs && (cs->setup || cs->deferred))
        tb_comm_setup_wait(cs);
    return PMPI_Comm_free(comm);
}

/* Cancelling a collective is erroneous; MPI's own broadcasts ignore it.  A
 * library broadcast's request stands for a placeholder receive, which
 * MPI_Cancel would cancel while the broadcast runs on: ignored too. */
TB_EXPORT int MPI_Cancel(MPI_Request *request)
{
    if (tb_nbc_owns(request))
        return MPI_SUCCESS;
    return PMPI_Cancel(request);
}

TB_EXPORT int MPI_Request_free(MPI_Request *request)
{
    int rc;
    if (tb_nbc_request_free(request, &rc))
        return rc;
    return PMPI_Request_free(request);
}

/* Waits: poll while the library has work, then leave the rest to MPI. */

TB_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return tb_nbc_wait(request, status);
}

/* MPI_Waitall polls with PMPI_Testsome, not PMPI_Testall: MPICH 4.0's
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
TB_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (!tb_nbc_busy() || count <= 0)
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
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
            PMPI_Wait(&req[i], &array_of_statuses[i]);
    int rc, out;
    do {
        int busy = tb_nbc_busy();
        if (busy)
            tb_nbc_progress();
        out = 0;
        rc = busy ? PMPI_Testsome(count, req, &out, idx, st) : PMPI_Waitsome(count, req, &out, idx, st);
        for (int j = 0; out != MPI_UNDEFINED && j < out; j++) {
            array_of_requests[idx[j]] = req[idx[j]];
            req[idx[j]] = MPI_REQUEST_NULL;
            if (keep)
                array_of_statuses[idx[j]] = st[j];
        }
    } while (rc == MPI_SUCCESS && out != MPI_UNDEFINED);
    for (int i = 0; keep && rc == MPI_SUCCESS && i < count; i++)
        if (req[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&req[i], &array_of_statuses[i]);
    free(req);
    free(idx);
    if (keep)
        free(st);
    return rc;
}

TB_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    while (tb_nbc_busy()) {
        int flag = 0;
        tb_nbc_progress();
        int rc = PMPI_Testany(count, array_of_requests, index, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return PMPI_Waitany(count, array_of_requests, index, status);
}

TB_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[])
{
    while (tb_nbc_busy()) {
        tb_nbc_progress();
        int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
        if (rc != MPI_SUCCESS || *outcount != 0)
            return rc;
    }
    return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

/* Tests: one progress pass, then MPI's test. */

TB_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    tb_nbc_progress();
    return PMPI_Test(request, flag, status);
}

TB_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    tb_nbc_progress();
    return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
}

TB_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    tb_nbc_progress();
    return PMPI_Testany(count, array_of_requests, index, flag, status);
}

TB_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[])
{
    tb_nbc_progress();
    return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

TB_EXPORT int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    tb_nbc_progress();
    return PMPI_Request_get_status(request, flag, status);
}
