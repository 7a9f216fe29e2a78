/* The smallest whole job for bench/scale/smpi_startup.sh: MPI_Init, one
 * 8-byte MPI_Bcast from rank 0 on MPI_COMM_WORLD, MPI_Finalize.  Built
 * twice for SMPI (bench/module.mk): without the library (scale_trivial)
 * and linked with it (scale_trivial_lib), where that one broadcast pays
 * the library's whole start-up on the communicator.  Exit status 1 on a
 * rank that received the wrong bytes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long v = rank == 0 ? 0x0123456789abcdefLL : 0;
    MPI_Bcast(&v, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    int bad = v != 0x0123456789abcdefLL, nbad = 0;
    MPI_Reduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("smpi_trivial: %d ranks, %d received wrong bytes\n", size, nbad);
    MPI_Finalize();
    return bad;
}
