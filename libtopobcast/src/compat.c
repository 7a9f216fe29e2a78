#include "compat.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

size_t tb_max_bytes(void)
{
#if TB_HAVE_LARGE_COUNT
    return SIZE_MAX;
#else
    return (size_t)INT_MAX; /* MPI_Pack positions are int */
#endif
}

int tb_pack(const void *in, MPI_Count count, MPI_Datatype type, void *out, size_t bytes, MPI_Comm comm)
{
#if TB_HAVE_LARGE_COUNT
    MPI_Count pos = 0;
    return PMPI_Pack_c(in, count, type, out, (MPI_Count)bytes, &pos, comm);
#else
    int pos = 0;
    return PMPI_Pack((void *)in, (int)count, type, out, (int)bytes, &pos, comm);
#endif
}

int tb_unpack(const void *in, size_t bytes, void *out, MPI_Count count, MPI_Datatype type, MPI_Comm comm)
{
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
        return PMPI_Bcast_c(buf, count, type, root, comm);
#endif
    return PMPI_Bcast(buf, (int)count, type, root, comm);
}

int tb_pmpi_ibcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
#if TB_HAVE_LARGE_COUNT
    if (count > INT_MAX)
        return PMPI_Ibcast_c(buf, count, type, root, comm, req);
#endif
    return PMPI_Ibcast(buf, (int)count, type, root, comm, req);
}

#if MPI_VERSION >= 4
int tb_pmpi_bcast_init(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{
    if (count > INT_MAX)
        return PMPI_Bcast_init_c(buf, count, type, root, comm, info, req);
    return PMPI_Bcast_init(buf, (int)count, type, root, comm, info, req);
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
