/* LD_PRELOAD shim for the emulated cluster's ranks: works around a
 * finalize deadlock of MPICH 4.0.2 (ch4:ucx) over UCX 1.13's TCP transport.
 *
 * MPICH's finalize closes every UCX endpoint in flush mode, progresses until
 * all closes complete, and only then enters a PMI barrier, in which it stops
 * progressing UCX.  A TCP flush can need an answer from the peer; if that
 * peer already finished its own closes it sits in the PMI barrier and never
 * answers, so the rank waiting for it spins forever while everyone else waits
 * in the barrier.  Here that happened in about a third of 4-node runs, even
 * for MPI_Init + MPI_Allreduce + MPI_Finalize.
 *
 * The shim replaces ucp_disconnect_nb (the call MPICH makes, through the PLT)
 * by a flush with a bounded wait (progressing the worker MPICH created) and
 * no close at all: MPICH then destroys the worker, which destroys the
 * remaining endpoints locally without asking any peer.  (A forced close is
 * refused by UCX for endpoints created without peer error handling, as
 * MPICH's are.)  A peer that does not answer within the grace period is
 * already inside MPI_Finalize, so it has received everything it was going
 * to receive.
 *
 * VC_UCX_CLOSE_GRACE_MS (default 1000) sets the bounded wait. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ucp/api/ucp.h>

typedef ucs_status_t (*worker_create_fn)(ucp_context_h, const ucp_worker_params_t *,
                                         ucp_worker_h *);

/* MPICH uses one worker unless several VCIs are configured; with several,
 * the endpoint's own worker is unknown, so the flush step is skipped. */
static ucp_worker_h the_worker;
static int worker_count;

ucs_status_t ucp_worker_create(ucp_context_h context, const ucp_worker_params_t *params,
                               ucp_worker_h *worker_p)
{
    static worker_create_fn real;
    if (!real)
        real = (worker_create_fn)dlsym(RTLD_NEXT, "ucp_worker_create");
    ucs_status_t status = real(context, params, worker_p);
    if (status == UCS_OK) {
        the_worker = *worker_p;
        worker_count++;
    }
    return status;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double grace_ms(void)
{
    const char *s = getenv("VC_UCX_CLOSE_GRACE_MS");
    return s && *s ? atof(s) : 1000.0;
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
    if (the_worker && worker_count == 1) {
        ucp_request_param_t param = {.op_attr_mask = 0};
        ucs_status_ptr_t req = ucp_ep_flush_nbx(ep, &param);
        if (UCS_PTR_IS_PTR(req)) {
            double deadline = now_ms() + grace_ms();
            while (ucp_request_check_status(req) == UCS_INPROGRESS && now_ms() < deadline)
                ucp_worker_progress(the_worker);
            if (ucp_request_check_status(req) == UCS_INPROGRESS)
                fprintf(stderr, "vc_ucx_close: flush unanswered after %.0f ms, endpoint left to "
                                "worker destroy\n", grace_ms());
            ucp_request_free(req); /* released by UCX when it completes or is purged */
        }
    }
    return NULL; /* UCS_OK: done; ucp_worker_destroy releases the endpoint */
}
