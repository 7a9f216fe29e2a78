/* The one data check of topobcast-bench's two modes (bench.h). */
#include <mpi.h>

#include "bench.h"

int tbb_validate(unsigned char *buf, size_t bytes, int root, tbb_bcast_fn run, void *ctx)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = me == root ? (unsigned char)(i * 31 + 7 + i / 251) : 0xA5;
    int bad = run(ctx, root) != MPI_SUCCESS ? 2 : 0, any;
    for (size_t i = 0; i < bytes && !bad; i++)
        if (buf[i] != (unsigned char)(i * 31 + 7 + i / 251))
            bad = 1;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any == 2 ? -1 : any;
}
