#include "base/compat.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/pmpi.h"

size_t tb_max_bytes(void)
{
#if TB_HAVE_LARGE_COUNT
    return SIZE_MAX;
#else
    return (size_t)INT_MAX; /* MPI_Pack positions are int */
#endif
}

/* MPICH 4.0.2 refuses a NULL buffer in MPI_Pack and MPI_Unpack ("Null
 * pointer in parameter inbuf"), and a buffer of MPI_BOTTOM, with a type of
 * absolute addresses, is NULL.  The same bytes are then reached from the
 * data's lowest address A through `count` elements of the type moved by
 * -A: *shifted (to free) and *base (A). */
static int bottom_view(MPI_Count count, MPI_Datatype type, MPI_Datatype *shifted, void **base)
{
    MPI_Datatype run;
#if TB_HAVE_LARGE_COUNT
    int rc = PMPI_Type_contiguous_c(count, type, &run);
#else
    int rc = PMPI_Type_contiguous((int)count, type, &run);
#endif
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count lb = 0, extent = 0;
    rc = PMPI_Type_get_true_extent_x(run, &lb, &extent);
    MPI_Aint at = lb != 0 ? (MPI_Aint)lb : 1, disp = -at;
    int one = 1;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_hindexed(1, &one, &disp, run, shifted);
    PMPI_Type_free(&run);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(shifted)) != MPI_SUCCESS)
        PMPI_Type_free(shifted);
    *base = (void *)(intptr_t)at;
    return rc;
}

int tb_pack(const void *in, MPI_Count count, MPI_Datatype type, void *out, size_t bytes, size_t *used, MPI_Comm comm)
{
    if (in == MPI_BOTTOM && count > 0) {
        MPI_Datatype shifted;
        void *base;
        int rc = bottom_view(count, type, &shifted, &base);
        if (rc == MPI_SUCCESS) {
            rc = tb_pack(base, 1, shifted, out, bytes, used, comm);
            PMPI_Type_free(&shifted);
        }
        return rc;
    }
#if TB_HAVE_LARGE_COUNT
    MPI_Count pos = 0;
    int rc = PMPI_Pack_c(in, count, type, out, (MPI_Count)bytes, &pos, comm);
#else
    int pos = 0;
    int rc = PMPI_Pack((void *)in, (int)count, type, out, (int)bytes, &pos, comm);
#endif
    if (used)
        *used = (size_t)pos;
    return rc;
}

int tb_unpack(const void *in, size_t bytes, void *out, MPI_Count count, MPI_Datatype type, MPI_Comm comm)
{
    if (out == MPI_BOTTOM && count > 0) {
        MPI_Datatype shifted;
        void *base;
        int rc = bottom_view(count, type, &shifted, &base);
        if (rc == MPI_SUCCESS) {
            rc = tb_unpack(in, bytes, base, 1, shifted, comm);
            PMPI_Type_free(&shifted);
        }
        return rc;
    }
#if TB_HAVE_LARGE_COUNT
    MPI_Count pos = 0;
    return PMPI_Unpack_c(in, (MPI_Count)bytes, &pos, out, count, type, comm);
#else
    int pos = 0;
    return PMPI_Unpack((void *)in, (int)bytes, &pos, out, (int)count, type, comm);
#endif
}

int tb_pmpi_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm)
{
#if TB_HAVE_LARGE_COUNT
    if (count > INT_MAX)
        return tb_mpi.Bcast_c(buf, count, type, root, comm);
#endif
    return tb_mpi.Bcast(buf, (int)count, type, root, comm);
}

int tb_pmpi_ibcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
#if TB_HAVE_LARGE_COUNT
    if (count > INT_MAX)
        return tb_mpi.Ibcast_c(buf, count, type, root, comm, req);
#endif
    return tb_mpi.Ibcast(buf, (int)count, type, root, comm, req);
}

#if MPI_VERSION >= 4
int tb_pmpi_bcast_init(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{
    if (count > INT_MAX)
        return tb_mpi.Bcast_init_c(buf, count, type, root, comm, info, req);
    return tb_mpi.Bcast_init(buf, (int)count, type, root, comm, info, req);
}
#endif

void tb_quiet_begin(MPI_Comm comm, tb_quiet_errors *q)
{
    q->swapped = PMPI_Comm_get_errhandler(comm, &q->saved) == MPI_SUCCESS && q->saved != MPI_ERRHANDLER_NULL &&
                 PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS;
}

void tb_quiet_end(MPI_Comm comm, tb_quiet_errors *q)
{
    if (q->swapped) {
        PMPI_Comm_set_errhandler(comm, q->saved);
        PMPI_Errhandler_free(&q->saved);
        q->swapped = 0;
    }
}

void tb_check_mpi_library(void)
{
#if !defined(SMPI_H) && (defined(OPEN_MPI) || defined(MPICH_VERSION))
#if defined(OPEN_MPI)
    static const char built[] = "Open MPI", other[] = "for MPICH: build/lib/libtopobcast.so, installed as PREFIX/lib/libtopobcast.so";
    static const char *const foreign[] = {"MPICH", "MVAPICH", "Intel(R) MPI"};
#else
    static const char built[] = "MPICH", other[] = "for Open MPI: build/openmpi/lib/libtopobcast.so, installed as PREFIX/lib/openmpi/libtopobcast.so";
    static const char *const foreign[] = {"Open MPI"};
#endif
    static char version[16384]; /* MPICH's MPI_MAX_LIBRARY_VERSION_STRING is 8192, Open MPI's 256 */
    int len = 0;
    if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    version[len > 0 && (size_t)len < sizeof version ? (size_t)len : sizeof version - 1] = 0;
    for (char *t = version; (t = strchr(t, '\t'));)
        *t = ' '; /* "MPICH Version:\t4.0.2" */
    for (size_t k = 0; k < sizeof foreign / sizeof foreign[0]; k++)
        if (strstr(version, foreign[k])) {
            if (tb_env_rank() <= 0)
                fprintf(stderr,
                        "topobcast: this libtopobcast was built for %s, but the program runs %.*s; the two "
                        "MPIs' handles differ, so it cannot even pass calls through: stopping.  Preload the "
                        "library built %s, or none.\n",
                        built, (int)strcspn(version, "\n,"), version, other);
            else
                /* the launcher kills the job at the first exit: the other
                 * ranks leave rank 0 time to say why (1 run in 5 lost the
                 * line on this machine) */
                nanosleep(&(struct timespec){2, 0}, NULL);
            _exit(1);
        }
#endif
}
