/* A PMPI profiling tool written as the real ones are (mpiP, Score-P, TAU,
 * Caliper), to run beside the library in either LD_PRELOAD order
 * (test/suites/36-pmpi-tools.sh):
 *
 *   - it sets itself up in MPI_Init / MPI_Init_thread (and, under Open
 *     MPI, whose Fortran bindings call PMPI_ directly, in the Fortran
 *     MPI_INIT), and aborts with a message when one of its wrappers runs
 *     before that: a tool whose MPI_Init was skipped crashes on first
 *     use, as they do;
 *   - it wraps MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, MPI_Start(all), the
 *     wait and test families, MPI_Comm_dup and MPI_Finalize (and, under
 *     Open MPI, the Fortran MPI_BCAST), each through its PMPI_ call, counts
 *     the calls and times them;
 *   - in MPI_Finalize, before PMPI_Finalize, rank 0 prints one line per
 *     wrapped function, over every rank of MPI_COMM_WORLD:
 *       ptool: NAME ranks=P calls_min=A calls_max=B calls_sum=C seconds_max=T
 *     and "ptool: report from P ranks" last.  Rank 0 also says
 *     "ptool: initialised on P ranks" when it sets itself up. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptool.h"

/* what a real tool builds in MPI_Init: its tables, here the counters */
static struct state {
    long calls[NF];
    double seconds[NF];
} *st;

static void need_init(int f)
{
    if (!st) {
        fprintf(stderr, "ptool: %s called before the tool's MPI_Init ran: its state is not set up\n", names[f]);
        abort();
    }
}

#define TIMED(f, call)                                                                                        \
    do {                                                                                                      \
        need_init(f);                                                                                         \
        double t0_ = PMPI_Wtime();                                                                            \
        int rc_ = (call);                                                                                     \
        st->seconds[f] += PMPI_Wtime() - t0_;                                                                 \
        st->calls[f]++;                                                                                       \
        return rc_;                                                                                           \
    } while (0)

static void set_up(void)
{
    int size = 0, rank = 0;
    st = calloc(1, sizeof *st);
    if (!st)
        abort();
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("ptool: initialised on %d ranks\n", size);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        set_up();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        set_up();
    return rc;
}

static void report(void)
{
    int size = 0, rank = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int f = 0; f < NF; f++) {
        long c = st->calls[f], lo = 0, hi = 0, sum = 0;
        double t = 0;
        PMPI_Reduce(&c, &lo, 1, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
        PMPI_Reduce(&c, &hi, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        PMPI_Reduce(&c, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        PMPI_Reduce(&st->seconds[f], &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("ptool: %s ranks=%d calls_min=%ld calls_max=%ld calls_sum=%ld seconds_max=%.6f\n", names[f], size,
                   lo, hi, sum, t);
    }
    if (rank == 0) {
        printf("ptool: report from %d ranks\n", size);
        fflush(stdout);
    }
}

/* the tool's own MPI_Finalize and MPI_Bcast, which its Fortran wrappers
 * call too (never through the names, which may resolve to another layer) */
static int finalize_tool(void)
{
    if (!st) {
        fprintf(stderr, "ptool: MPI_Finalize called before the tool's MPI_Init ran: no report\n");
        abort();
    }
    report();
    return PMPI_Finalize();
}

static int bcast_tool(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TIMED(FN_BCAST, PMPI_Bcast(buf, count, type, root, comm));
}

int MPI_Finalize(void)
{
    return finalize_tool();
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    return bcast_tool(buf, count, type, root, comm);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    TIMED(FN_IBCAST, PMPI_Ibcast(buf, count, type, root, comm, req));
}

#if MPI_VERSION >= 4
int MPI_Bcast_init(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *req)
{
    TIMED(FN_BCAST_INIT, PMPI_Bcast_init(buf, count, type, root, comm, info, req));
}
#endif

int MPI_Start(MPI_Request *req)
{
    TIMED(FN_START, PMPI_Start(req));
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    TIMED(FN_STARTALL, PMPI_Startall(n, reqs));
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    TIMED(FN_WAIT, PMPI_Wait(req, status));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    TIMED(FN_WAITALL, PMPI_Waitall(n, reqs, statuses));
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    TIMED(FN_WAITANY, PMPI_Waitany(n, reqs, index, status));
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *out, int indices[], MPI_Status statuses[])
{
    TIMED(FN_WAITSOME, PMPI_Waitsome(n, reqs, out, indices, statuses));
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    TIMED(FN_TEST, PMPI_Test(req, flag, status));
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    TIMED(FN_TESTALL, PMPI_Testall(n, reqs, flag, statuses));
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    TIMED(FN_TESTANY, PMPI_Testany(n, reqs, index, flag, status));
}

int MPI_Testsome(int n, MPI_Request reqs[], int *out, int indices[], MPI_Status statuses[])
{
    TIMED(FN_TESTSOME, PMPI_Testsome(n, reqs, out, indices, statuses));
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    TIMED(FN_COMM_DUP, PMPI_Comm_dup(comm, out));
}

#if defined(OPEN_MPI)
/* Open MPI's Fortran bindings call PMPI_Init, PMPI_Bcast and PMPI_Finalize
 * directly, so a tool wraps their Fortran entry points too (gfortran's
 * names: mpif.h and use mpi, then use mpi_f08); ierror is optional in
 * mpi_f08 (NULL when absent). */
static void f_init(MPI_Fint *ierr)
{
    int rc = PMPI_Init(NULL, NULL);
    if (rc == MPI_SUCCESS)
        set_up();
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

static void f_finalize(MPI_Fint *ierr)
{
    int rc = finalize_tool();
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

static void f_bcast(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,
                    const MPI_Fint *comm, MPI_Fint *ierr)
{
    int rc = bcast_tool(buf, (int)*count, PMPI_Type_f2c(*type), (int)*root, PMPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

/* NAME (gfortran's name of a Fortran entry point) running FN */
#define FORTRAN_IERR(name, fn)                                                                                \
    void name(MPI_Fint *ierr);                                                                                \
    void name(MPI_Fint *ierr)                                                                                 \
    {                                                                                                         \
        fn(ierr);                                                                                             \
    }
#define FORTRAN_BCAST(name)                                                                                   \
    void name(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,                   \
              const MPI_Fint *comm, MPI_Fint *ierr);                                                          \
    void name(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,                   \
              const MPI_Fint *comm, MPI_Fint *ierr)                                                           \
    {                                                                                                         \
        f_bcast(buf, count, type, root, comm, ierr);                                                          \
    }
FORTRAN_IERR(mpi_init_, f_init)
FORTRAN_IERR(mpi_init_f08_, f_init)
FORTRAN_IERR(mpi_finalize_, f_finalize)
FORTRAN_IERR(mpi_finalize_f08_, f_finalize)
FORTRAN_BCAST(mpi_bcast_)
FORTRAN_BCAST(mpi_bcast_f08_)
#endif
