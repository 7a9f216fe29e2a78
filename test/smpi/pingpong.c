/* Ping-pong between rank 0 and every other rank in turn, printing the
 * one-way time per peer and message size.  With one peer per level of a
 * platform (same socket, other socket, other node ...) it reads off the
 * levels a SimGrid platform model really produces, which is what
 * test/smpi/levels.sh and the SMPI suite check.  Plain MPI, so it runs
 * under MPICH as well.
 *
 * usage: pingpong [-i ITERS] [SIZE...]   SIZE in bytes, K/M suffixes
 *        (binary); default sizes 0 and 1M, default 10 round trips per size.
 * Rank 0 prints, per peer and size:
 *   peer RANK HOST BYTES ONEWAY_US GBPS
 * (GBPS = BYTES / one-way time in 1e9 bytes/s; 0 for empty messages). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 32

static int parse_size(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (*end || v > (1L << 30))
        return -1;
    *out = v;
    return 0;
}

/* Returns the mean one-way time of iters round trips (rank 0's view), after
 * one untimed round trip so first-contact costs are not measured. */
static double pingpong(int me, int peer, char *buf, int bytes, int iters)
{
    double t0 = 0;
    for (int i = -1; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        if (me == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / (2.0 * iters);
}

int main(int argc, char **argv)
{
    long sizes[MAX_SIZES];
    int nsizes = 0, iters = 10, bad = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-i") && i + 1 < argc) {
            iters = atoi(argv[++i]);
            bad |= iters < 1;
        } else if (nsizes < MAX_SIZES && parse_size(argv[i], &sizes[nsizes]) == 0) {
            nsizes++;
        } else {
            bad = 1;
        }
    }
    if (nsizes == 0) {
        sizes[0] = 0;
        sizes[1] = 1L << 20;
        nsizes = 2;
    }

    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (bad || np < 2) {
        if (me == 0)
            fprintf(stderr, "usage: pingpong [-i ITERS] [SIZE...]  (at least 2 ranks)\n");
        MPI_Finalize();
        return 2;
    }

    long maxsize = 1;
    for (int s = 0; s < nsizes; s++)
        maxsize = sizes[s] > maxsize ? sizes[s] : maxsize;
    char *buf = malloc((size_t)maxsize);
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    char *names = me == 0 ? malloc((size_t)np * MPI_MAX_PROCESSOR_NAME) : NULL;
    if (!buf || (me == 0 && !names)) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, 1, (size_t)maxsize);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);

    if (me == 0)
        printf("# peer rank host bytes oneway_us GBps (root on %s, %d round trips)\n", name, iters);
    for (int peer = 1; peer < np; peer++) {
        for (int s = 0; s < nsizes; s++) {
            if (me != 0 && me != peer)
                continue;
            double t = pingpong(me, peer, buf, (int)sizes[s], iters);
            if (me == 0)
                printf("peer %d %s %ld %.3f %.3f\n", peer, names + (size_t)peer * MPI_MAX_PROCESSOR_NAME,
                       sizes[s], t * 1e6, sizes[s] ? (double)sizes[s] / t / 1e9 : 0.0);
        }
    }
    fflush(stdout);
    free(buf);
    free(names);
    MPI_Finalize();
    return 0;
}
