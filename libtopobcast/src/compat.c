#include "compat.h"

#include <limits.h>
#include <stdint.h>

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
