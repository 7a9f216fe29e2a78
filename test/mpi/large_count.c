/* More than INT_MAX bytes in one broadcast: MPI_Bcast of a derived type
 * (any MPI), and MPI_Bcast_c (MPI 4).  With MPI 4 the library must move
 * them itself, in chunks; with MPI 3.1 (no large-count MPI_Pack) it leaves
 * them to MPI and counts them as fallbacks.  Needs about 2.2 GB per rank,
 * one buffer at a time. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* 0 if all n bytes of b hold the pattern, counted over the ranks at rank 0 */
static long long wrong_bytes(const unsigned char *b, size_t n, int rc)
{
    long long bad = rc != MPI_SUCCESS, total = 0;
    for (size_t i = 0; i < n; i++)
        bad += b[i] != (unsigned char)((i * 2654435761u) >> 13);
    MPI_Reduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return total;
}

static unsigned char *pattern(size_t n, int rank)
{
    unsigned char *b = malloc(n);
    for (size_t i = 0; b && i < n; i++)
        b[i] = rank == 0 ? (unsigned char)((i * 2654435761u) >> 13) : 0;
    return b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPI_Bcast of 2049 elements of 1 MiB: more than INT_MAX bytes with an
     * int count, under any MPI */
    size_t n = (size_t)2049 << 20;
    unsigned char *b = pattern(n, rank);
    if (!b) {
        if (rank == 0)
            printf("not ok large_count cannot allocate %zu bytes\n", n);
        MPI_Finalize();
        return 1;
    }
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    long long total = wrong_bytes(b, n, MPI_Bcast(b, 2049, mib, 0, MPI_COMM_WORLD));
    MPI_Type_free(&mib);
    free(b);
    if (rank == 0)
        printf("%s large_count MPI_Bcast of 2049 x 1 MiB = %zu bytes on %d ranks (%lld wrong)\n",
               total ? "not ok" : "ok", n, size, total);
    failed |= total != 0;
#if MPI_VERSION >= 4
    MPI_Count c = (MPI_Count)INT_MAX + 4099;
    if (!(b = pattern((size_t)c, rank))) {
        if (rank == 0)
            printf("not ok large_count cannot allocate %lld bytes\n", (long long)c);
        MPI_Finalize();
        return 1;
    }
    total = wrong_bytes(b, (size_t)c, MPI_Bcast_c(b, c, MPI_BYTE, 0, MPI_COMM_WORLD));
    if (rank == 0)
        printf("%s large_count MPI_Bcast_c of %lld bytes on %d ranks (%lld wrong)\n", total ? "not ok" : "ok",
               (long long)c, size, total);
    failed |= total != 0;
    free(b);
#else
    if (rank == 0)
        printf("ok large_count MPI_Bcast_c skipped: MPI-%d has none\n", MPI_VERSION);
#endif
    MPI_Finalize();
    return failed;
}
