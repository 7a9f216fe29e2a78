/* Broadcasts of every kind on MPI_COMM_WORLD and on a duplicate of it, for
 * test/suites/36-pmpi-tools.sh (the library beside a PMPI tool): for each
 * communicator, size (8 B, 4 KiB, 256 KiB) and root (first, last rank)
 *
 *   MPI_Bcast;
 *   MPI_Ibcast, a blocking MPI_Sendrecv around the ranks while it is
 *   outstanding, MPI_Wait;
 *   two MPI_Ibcast and a point-to-point pair completed by one MPI_Waitall;
 *   MPI_Ibcast completed by an MPI_Test loop;
 *   two MPI_Ibcast completed by MPI_Waitany;
 *   MPI 4: MPI_Bcast_init, started twice (MPI_Start, MPI_Wait), freed.
 *
 * Every rank checks every value it received.  At the end rank 0 prints
 * "ok bcast_kinds values" (or "not ok ..."), "# broadcasts: N" (the
 * broadcasts made, each counted once), and, for every function the test
 * tool (test/tool/ptool.c) wraps, how often the program called it, in the
 * tool's own form:
 *   bcast_kinds: NAME ranks=P calls_min=A calls_max=B calls_sum=C */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tool/ptool.h"

static long calls[NF];
static long broadcasts, errors;
static int rank, size;

static int value(long tag, int i)
{
    return (int)((tag * 1000003L + (long)i * 31L) % 2147483647L);
}

/* buf of n ints: the root's values for tag, -1 elsewhere */
static void fill(int *buf, int n, long tag, int root)
{
    for (int i = 0; i < n; i++)
        buf[i] = rank == root ? value(tag, i) : -1;
}

static void check(const int *buf, int n, long tag, const char *what)
{
    long bad = 0;
    for (int i = 0; i < n; i++)
        bad += buf[i] != value(tag, i);
    if (bad && errors < 5)
        fprintf(stderr, "bcast_kinds: rank %d: %s (tag %ld, %d ints): %ld values wrong\n", rank, what, tag, n, bad);
    errors += bad;
    broadcasts++;
}

static void kinds(MPI_Comm comm, int n, int root, long *tag, int *b[4])
{
    MPI_Request r[4];
    long t = *tag;

    fill(b[0], n, t, root);
    MPI_Bcast(b[0], n, MPI_INT, root, comm), calls[FN_BCAST]++;
    check(b[0], n, t++, "MPI_Bcast");

    /* a blocking exchange around the ranks while a broadcast is outstanding */
    int out = rank, in = -1;
    fill(b[0], n, t, root);
    MPI_Ibcast(b[0], n, MPI_INT, root, comm, &r[0]), calls[FN_IBCAST]++;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 7, &in, 1, MPI_INT, (rank + size - 1) % size, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE), calls[FN_WAIT]++;
    check(b[0], n, t++, "MPI_Ibcast + MPI_Wait");
    if (in != (rank + size - 1) % size)
        errors++;

    /* two broadcasts and the application's own pair in one MPI_Waitall */
    fill(b[0], n, t, root);
    fill(b[1], n, t + 1, root);
    MPI_Ibcast(b[0], n, MPI_INT, root, comm, &r[0]), calls[FN_IBCAST]++;
    MPI_Ibcast(b[1], n, MPI_INT, root, comm, &r[1]), calls[FN_IBCAST]++;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 8, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 8, MPI_COMM_WORLD, &r[3]);
    MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
    MPI_Waitall(4, r, st), calls[FN_WAITALL]++;
    check(b[0], n, t++, "MPI_Ibcast + MPI_Waitall");
    check(b[1], n, t++, "MPI_Ibcast + MPI_Waitall");

    int flag = 0;
    fill(b[0], n, t, root);
    MPI_Ibcast(b[0], n, MPI_INT, root, comm, &r[0]), calls[FN_IBCAST]++;
    while (!flag)
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE), calls[FN_TEST]++;
    check(b[0], n, t++, "MPI_Ibcast + MPI_Test");

    fill(b[0], n, t, root);
    fill(b[1], n, t + 1, root);
    MPI_Ibcast(b[0], n, MPI_INT, root, comm, &r[0]), calls[FN_IBCAST]++;
    MPI_Ibcast(b[1], n, MPI_INT, root, comm, &r[1]), calls[FN_IBCAST]++;
    for (int k = 0; k < 2; k++) {
        int idx;
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE), calls[FN_WAITANY]++;
    }
    check(b[0], n, t++, "MPI_Ibcast + MPI_Waitany");
    check(b[1], n, t++, "MPI_Ibcast + MPI_Waitany");

#if MPI_VERSION >= 4
    MPI_Bcast_init(b[2], n, MPI_INT, root, comm, MPI_INFO_NULL, &r[0]), calls[FN_BCAST_INIT]++;
    for (int k = 0; k < 2; k++) {
        fill(b[2], n, t, root);
        MPI_Start(&r[0]), calls[FN_START]++;
        MPI_Wait(&r[0], MPI_STATUS_IGNORE), calls[FN_WAIT]++;
        check(b[2], n, t++, "MPI_Bcast_init + MPI_Start");
    }
    MPI_Request_free(&r[0]);
#endif
    *tag = t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup), calls[FN_COMM_DUP]++;
    const int counts[] = {2, 1024, 65536};
    int *b[4];
    for (int k = 0; k < 4; k++)
        if (!(b[k] = malloc(sizeof(int) * 65536)))
            MPI_Abort(MPI_COMM_WORLD, 2);
    long tag = 1;
    MPI_Comm comms[] = {MPI_COMM_WORLD, dup};
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 3; s++)
            for (int root = 0; root < size; root += size > 1 ? size - 1 : 1)
                kinds(comms[c], counts[s], root, &tag, b);
    MPI_Comm_free(&dup);

    long total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int f = 0; f < NF; f++) {
        long lo = 0, hi = 0, sum = 0;
        MPI_Reduce(&calls[f], &lo, 1, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&calls[f], &hi, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&calls[f], &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("bcast_kinds: %s ranks=%d calls_min=%ld calls_max=%ld calls_sum=%ld\n", names[f], size, lo, hi,
                   sum);
    }
    if (rank == 0) {
        if (total == 0)
            printf("ok bcast_kinds values (%d ranks)\n", size);
        else
            printf("not ok bcast_kinds values (%d ranks): %ld wrong\n", size, total);
        printf("# broadcasts: %ld\n", broadcasts);
        fflush(stdout);
    }
    for (int k = 0; k < 4; k++)
        free(b[k]);
    MPI_Finalize();
    return 0;
}
