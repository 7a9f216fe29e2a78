/* The cost of passing through the library: a loop of small MPI_Bcast calls
 * on a duplicated communicator, timed, or counted under callgrind.
 *
 *   intercept_cost BYTES ITERS            timing: prints "BYTES median_us"
 *                                          over 15 batches of ITERS calls
 *   intercept_cost --loop BYTES ITERS     one untimed loop in bcast_loop(),
 *                                          for callgrind --toggle-collect */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCHES 15

__attribute__((noinline)) void bcast_loop(void *buf, int bytes, int iters, MPI_Comm comm)
{
    for (int i = 0; i < iters; i++)
        MPI_Bcast(buf, bytes, MPI_BYTE, 0, comm);
}

/* not bcast_loop: callgrind collects only inside bcast_loop */
__attribute__((noinline)) static void warm_up(void *buf, int bytes, MPI_Comm comm)
{
    for (int i = 0; i < 100; i++)
        MPI_Bcast(buf, bytes, MPI_BYTE, 0, comm);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int loop = argc > 1 && strcmp(argv[1], "--loop") == 0;
    if (argc != 3 + loop) {
        fprintf(stderr, "usage: intercept_cost [--loop] BYTES ITERS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bytes = atoi(argv[1 + loop]), iters = atoi(argv[2 + loop]), rank;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    char *buf = calloc((size_t)bytes + 1, 1);
    warm_up(buf, bytes, comm); /* the library's setup, outside the count */
    if (loop) {
        bcast_loop(buf, bytes, iters, comm);
    } else {
        double t[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            bcast_loop(buf, bytes, iters, comm);
            t[b] = (MPI_Wtime() - t0) / iters * 1e6;
        }
        /* the slower rank's batch time, so both sides count */
        double tm[BATCHES];
        MPI_Reduce(t, tm, BATCHES, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (rank == 0) {
            qsort(tm, BATCHES, sizeof tm[0], cmp);
            printf("%d %.4f\n", bytes, tm[BATCHES / 2]);
        }
    }
    free(buf);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
