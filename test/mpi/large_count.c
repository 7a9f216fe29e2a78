/* MPI_Bcast_c with more than INT_MAX bytes: the library must intercept it
 * and move it in chunks.  Needs about 2.2 GB per rank. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#if MPI_VERSION >= 4
    MPI_Count n = (MPI_Count)INT_MAX + 4099;
    unsigned char *b = malloc((size_t)n);
    if (!b) {
        if (rank == 0)
            printf("not ok large_count cannot allocate %lld bytes\n", (long long)n);
        MPI_Finalize();
        return 1;
    }
    for (MPI_Count i = 0; i < n; i++)
        b[i] = rank == 0 ? (unsigned char)((i * 2654435761u) >> 13) : 0;
    int rc = MPI_Bcast_c(b, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    long long bad = rc != MPI_SUCCESS;
    for (MPI_Count i = 0; i < n; i++)
        bad += b[i] != (unsigned char)((i * 2654435761u) >> 13);
    long long total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s large_count MPI_Bcast_c of %lld bytes on %d ranks (%lld wrong)\n", total ? "not ok" : "ok",
               (long long)n, size, total);
    free(b);
#else
    if (rank == 0)
        printf("ok large_count skipped: MPI-%d has no MPI_Bcast_c\n", MPI_VERSION);
#endif
    MPI_Finalize();
    return 0;
}
