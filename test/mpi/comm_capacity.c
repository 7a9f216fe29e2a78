/* How many communicators can the application hold, each used for a
 * broadcast and all kept alive?  Duplicates MPI_COMM_WORLD (errors returned)
 * until MPI refuses, broadcasting on each new one, then broadcasts again on
 * every one it holds, checking every byte.  Prints "capacity N" from rank 0
 * and "all data correct" if every broadcast delivered the root's bytes.
 *
 * With "split" as argument it instead splits MPI_COMM_WORLD into halves and
 * broadcasts on each half (for the one-warning-per-job check). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMMS 8192
#define N 1000

static int bcast_check(MPI_Comm c, int tag, int *bad)
{
    int rank, buf[N];
    MPI_Comm_rank(c, &rank);
    for (int i = 0; i < N; i++)
        buf[i] = rank == 0 ? tag * 7919 + i : -1;
    int rc = MPI_Bcast(buf, N, MPI_INT, 0, c);
    for (int i = 0; i < N; i++)
        if (buf[i] != tag * 7919 + i)
            (*bad)++;
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "split") == 0) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        for (int r = 0; r < 3; r++)
            bcast_check(half, r, &bad);
        MPI_Comm_free(&half);
    } else {
        MPI_Comm *c = malloc(MAX_COMMS * sizeof *c);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int n = 0;
        while (n < MAX_COMMS && MPI_Comm_dup(MPI_COMM_WORLD, &c[n]) == MPI_SUCCESS) {
            if (bcast_check(c[n], n, &bad) != MPI_SUCCESS)
                bad++;
            n++;
        }
        for (int i = 0; i < n; i++)
            if (bcast_check(c[i], i + 1, &bad) != MPI_SUCCESS)
                bad++;
        for (int i = 0; i < n; i++)
            MPI_Comm_free(&c[i]);
        free(c);
        if (rank == 0)
            printf("capacity %d\n", n);
    }
    int all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all_bad ? "DATA MISMATCH (%d)\n" : "all data correct\n", all_bad);
    MPI_Finalize();
    return 0;
}
