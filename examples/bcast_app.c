/* A small application that knows nothing about topobcast: broadcasts a
 * parameter block and then data arrays of growing size from rotating roots,
 * and checks what arrived.  Run it under LD_PRELOAD=libtopobcast.so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct { int steps; double dt; } params = {0, 0.0};
    if (rank == 0)
        params.steps = 6, params.dt = 0.125;
    MPI_Bcast(&params, (int)sizeof params, MPI_BYTE, 0, MPI_COMM_WORLD);

    int errors = 0;
    size_t n = 1;
    for (int step = 0; step < params.steps; step++, n *= 16) {
        int root = step % size;
        double *field = malloc(n * sizeof *field);
        for (size_t i = 0; i < n; i++)
            field[i] = rank == root ? (double)i * params.dt + step : -1.0;
        MPI_Bcast(field, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++)
            if (field[i] != (double)i * params.dt + step) {
                errors++;
                break;
            }
        free(field);
    }
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bcast_app: %d ranks, %d broadcasts up to %zu doubles: %s\n", size, params.steps + 1, n / 16,
               total ? "WRONG DATA" : "all data correct");
    MPI_Finalize();
    return total ? 1 : 0;
}
