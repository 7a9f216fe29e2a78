/* Ping-pong between ranks 0 and 1: the one-way time per message size, so
 * the emulated cluster's links (same island vs. across the shaped trunk)
 * can be compared.  Each round times a batch of round trips; the median and
 * the best round are reported, the best being the figure least disturbed
 * by other work on a shared 2-core machine.
 *
 *   vc_pingpong SIZE...        (bytes; default 8 65536)
 *
 * Rank 0 prints "pingpong SIZE MEDIAN_US MIN_US NAME0 NAME1" per size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 7

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fewer iterations for large messages keep a slow trunk within budget
 * (1 MiB across a 100 Mbit/s trunk is ~90 ms one way). */
static int iterations_for(long bytes)
{
    if (bytes <= 4096)
        return 200;
    if (bytes <= 65536)
        return 20;
    return 2;
}

/* iters round trips of bytes between ranks 0 and 1 (others idle). */
static void round_trips(char *buf, long bytes, int rank, int iters)
{
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

static void one_way_us(char *buf, long bytes, int rank, double *median, double *best)
{
    int iters = iterations_for(bytes);
    double t[ROUNDS];

    /* Warm-up: connection setup and TCP window growth stay out of the figures. */
    round_trips(buf, bytes, rank, iters);
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        round_trips(buf, bytes, rank, iters);
        t[r] = (MPI_Wtime() - t0) / (2.0 * iters) * 1e6;
    }
    qsort(t, ROUNDS, sizeof t[0], cmp_double);
    *median = t[ROUNDS / 2];
    *best = t[0];
}

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    long sizes_default[] = {8, 65536};
    int nsizes = argc > 1 ? argc - 1 : 2;
    long *sizes = malloc((size_t)nsizes * sizeof *sizes);
    long max_bytes = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "vc_pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < nsizes; i++) {
        sizes[i] = argc > 1 ? atol(argv[i + 1]) : sizes_default[i];
        if (sizes[i] < 0 || sizes[i] > (1L << 30)) {
            if (rank == 0)
                fprintf(stderr, "vc_pingpong: bad size %s\n", argv[i + 1]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (sizes[i] > max_bytes)
            max_bytes = sizes[i];
    }
    char *buf = calloc((size_t)max_bytes, 1);
    MPI_Get_processor_name(name, &len);
    if (rank == 0)
        MPI_Recv(peer, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (rank == 1)
        MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD);

    for (int i = 0; i < nsizes; i++) {
        double median, best;
        one_way_us(buf, sizes[i], rank, &median, &best);
        if (rank == 0)
            printf("pingpong %ld %.2f %.2f %s %s\n", sizes[i], median, best, name, peer);
    }
    free(buf);
    free(sizes);
    MPI_Finalize();
    return 0;
}
