/* Fan-out per class of destination, measured; see fanout.h. */
#include "fanout.h"

#include <stdlib.h>
#include <string.h>

#include "costs.h"

#define TAG 7412

/* Rank 0 sends bytes to peers[0..n) at once and waits for an empty answer
 * from each; the fastest of reps tries, on rank 0 (0 elsewhere). */
static double fan_time(MPI_Comm comm, int me, const int *peers, int n, char *buf, size_t bytes, int reps,
                       MPI_Request *req)
{
    double best = 0;
    int mine = 0;
    for (int i = 0; i < n; i++)
        mine |= peers[i] == me;
    for (int t = -1; t < reps; t++) { /* one untimed warm-up */
        MPI_Barrier(comm);
        if (me == 0) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < n; i++)
                MPI_Isend(buf, (int)bytes, MPI_BYTE, peers[i], TAG, comm, &req[i]);
            for (int i = 0; i < n; i++)
                MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG, comm, MPI_STATUS_IGNORE);
            double dt = MPI_Wtime() - t0;
            if (t >= 0 && (best == 0 || dt < best))
                best = dt;
        } else if (mine) {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, comm);
        }
    }
    return best;
}

int tn_fanout_measure(MPI_Comm comm, const tb_hier *h, size_t bytes, int max_peers, int reps, double *fanout)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int nclass = (h && h->size == P ? h->nlevels : 0) + 1;
    for (int c = 0; c < nclass; c++)
        fanout[c] = 1.0;
    if (max_peers < 2 || bytes == 0 || bytes > (size_t)1 << 30)
        return 0;
    int *peers = malloc(sizeof(int) * (size_t)max_peers);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)max_peers);
    char *buf = malloc(bytes);
    int ok = peers && req && buf, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(peers), free(req), free(buf);
        return -1;
    }
    memset(buf, 0, bytes);
    for (int c = 0; c < nclass; c++) {
        int n = 0; /* the same list on every rank: h is */
        for (int r = 1; r < P && n < max_peers; r++)
            if (tn_costs_pair_class(nclass > 1 ? h : NULL, 0, r) == c)
                peers[n++] = r;
        if (n < 2)
            continue;
        double t1 = fan_time(comm, me, peers, 1, buf, bytes, reps, req);
        double tk = fan_time(comm, me, peers, n, buf, bytes, reps, req);
        if (me == 0 && t1 > 0 && tk > 0) {
            double f = n * t1 / tk;
            fanout[c] = f < 1.0 ? 1.0 : f > n ? n : f;
        }
    }
    MPI_Bcast(fanout, nclass, MPI_DOUBLE, 0, comm);
    free(peers), free(req), free(buf);
    return 0;
}
