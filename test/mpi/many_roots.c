/* Broadcasts from every root in turn, several algorithms interleaved: more
 * (root, algorithm) pairs than a communicator's schedule cache holds
 * (TB_SCHEDULE_CACHE, 16), so that the library builds schedules again, and,
 * for the algorithms whose plan rotates with the root, renumbers them from
 * one kept plan (comm_state.c).  A plain MPI program: under a selection
 * table whose rules give each message size its own algorithm, every call of
 * the loops below is a (root, algorithm) pair.
 *
 * On MPI_COMM_WORLD and on the rank-reversed communicator, `rounds` times:
 * for every count of `counts`, every root, MPI_Bcast (and MPI_Ibcast +
 * MPI_Wait with --ibcast) of bytes that depend on (round, count, root,
 * position); every rank checks every byte and the guard after the buffer.
 * Rank 0 prints "ok many_roots ..." or "not ok many_roots ..." per
 * communicator.
 *
 * Usage: many_roots [--rounds N] [--counts C1,C2,...] [--ibcast] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNTS 16
#define GUARD 16

static unsigned char pattern(int round, int count, int root, long i)
{
    return (unsigned char)(i * 131 + count * 7 + root * 29 + round * 53 + (i >> 8));
}

/* Every broadcast of the loops on comm; returns the broadcasts whose bytes
 * were wrong on this rank, describing the first in what. */
static long run(MPI_Comm comm, int rounds, const int *counts, int ncounts, int ibcast, char *what, size_t len)
{
    int rank, size, maxc = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int c = 0; c < ncounts; c++)
        maxc = counts[c] > maxc ? counts[c] : maxc;
    unsigned char *buf = malloc((size_t)maxc + GUARD);
    long bad = 0;
    for (int round = 0; round < rounds; round++)
        for (int c = 0; c < ncounts; c++)
            for (int root = 0; root < size; root++) {
                int n = counts[c];
                memset(buf, 0xA5, (size_t)n + GUARD);
                if (rank == root)
                    for (long i = 0; i < n; i++)
                        buf[i] = pattern(round, n, root, i);
                if (ibcast) {
                    MPI_Request r;
                    MPI_Ibcast(buf, n, MPI_BYTE, root, comm, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                } else {
                    MPI_Bcast(buf, n, MPI_BYTE, root, comm);
                }
                long wrong = -1;
                for (long i = 0; i < n && wrong < 0; i++)
                    if (buf[i] != pattern(round, n, root, i))
                        wrong = i;
                for (long i = n; i < n + GUARD && wrong < 0; i++)
                    if (buf[i] != 0xA5)
                        wrong = i;
                if (wrong >= 0 && bad++ == 0)
                    snprintf(what, len, "rank %d: round %d, count %d, root %d: byte %ld wrong", rank, round, n,
                             root, wrong);
            }
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = 2, ibcast = 0, ncounts = 0, counts[MAX_COUNTS];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--ibcast")) {
            ibcast = 1;
        } else if (!strcmp(argv[i], "--counts") && i + 1 < argc) {
            for (char *p = strtok(argv[++i], ","); p && ncounts < MAX_COUNTS; p = strtok(NULL, ","))
                counts[ncounts++] = atoi(p);
        }
    }
    if (ncounts == 0) {
        counts[0] = 7;
        counts[1] = 5000;
        counts[2] = 70000;
        ncounts = 3;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    const char *names[2] = {"world", "reversed"};
    MPI_Comm comms[2] = {MPI_COMM_WORLD, rev};
    int status = 0;
    for (int k = 0; k < 2; k++) {
        char what[200] = "";
        long bad = run(comms[k], rounds, counts, ncounts, ibcast, what, sizeof what), total = 0;
        MPI_Reduce(&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        /* the first rank with a wrong byte says which */
        int mine = bad ? rank : size, first = size;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (first < size && rank == first && rank != 0)
            MPI_Send(what, (int)sizeof what, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            if (first < size && first != 0)
                MPI_Recv(what, (int)sizeof what, MPI_CHAR, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            long calls = (long)rounds * ncounts * size;
            if (total == 0)
                printf("ok many_roots %s: %ld %s, roots 0..%d in turn for each of %d counts, every byte right\n",
                       names[k], calls, ibcast ? "MPI_Ibcast" : "MPI_Bcast", size - 1, ncounts);
            else
                printf("not ok many_roots %s: %ld wrong of %ld on all ranks (%s)\n", names[k], total,
                       calls * size, what);
            status |= total != 0;
        }
    }
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return status;
}
