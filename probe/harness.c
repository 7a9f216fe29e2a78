/* Running a schedule (harness.h): subset barriers between rounds, the
 * pair tests, and progress reports to rank 0.
 *
 * Round r starts after a dissemination barrier over the ranks of rounds
 * r-1 and r: a rank of round r cannot start before every pair of round
 * r-1 is done, which by induction orders all rounds, while ranks idle in
 * both rounds neither wait nor send anything.  Progress: at about 200
 * checkpoint rounds the lowest rank of the round sends its round number
 * to rank 0, which waits for it only when idle itself, so the only extra
 * traffic during measurements is one tiny message now and then. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define TAG_PROGRESS 7
#define TAG_BARRIER 100 /* + step */

int tbp_subset_barrier(MPI_Comm comm, const int *ranks, int k, int tag_base)
{
    int me, idx = -1;
    MPI_Comm_rank(comm, &me);
    for (int x = 0; x < k; x++)
        if (ranks[x] == me)
            idx = x;
    if (idx < 0)
        return MPI_ERR_RANK;
    char out = 0, in;
    for (int step = 0, dist = 1; dist < k; step++, dist *= 2) {
        MPI_Request req;
        int rc = MPI_Isend(&out, 0, MPI_BYTE, ranks[(idx + dist) % k], tag_base + step, comm, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(&in, 0, MPI_BYTE, ranks[(idx - dist + k) % k], tag_base + step, comm,
                          MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* PMPI_Bcast throughout the probe: the probe is linked with libtopobcast
 * (for the identity and the loader), whose MPI_Bcast would otherwise
 * intercept these calls and set up its topology machinery on the way. */
int tbp_rounds_bcast(tbp_rounds *s, int root, MPI_Comm comm)
{
    int me, hdr[3] = {s->n, s->npairs, s->nrounds};
    MPI_Comm_rank(comm, &me);
    int rc = PMPI_Bcast(hdr, 3, MPI_INT, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (me != root) {
        memset(s, 0, sizeof *s);
        s->n = hdr[0];
        s->npairs = hdr[1];
        s->nrounds = hdr[2];
        s->pair = malloc((size_t)(s->npairs ? s->npairs : 1) * sizeof *s->pair);
        s->round_start = malloc((size_t)(s->nrounds + 1) * sizeof *s->round_start);
        if (!s->pair || !s->round_start)
            MPI_Abort(comm, 1); /* the others would wait forever */
    }
    rc = PMPI_Bcast(s->pair, 2 * s->npairs, MPI_INT, root, comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(s->round_start, s->nrounds + 1, MPI_INT, root, comm);
    return rc;
}

/* ---- progress (rank 0) ---------------------------------------------- */

struct tbp_progress {
    double start, last_draw;
    int total, rounds, tty, next_plain; /* next quarter to print, in percent */
};

static void fmt_eta(double s, char *buf, size_t cap)
{
    if (!(s >= 0) || s > 1e7) {
        snprintf(buf, cap, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

/* The ETA extrapolates rounds, not pairs: rounds take similar times, while
 * the first rounds of a schedule often pack many cheap intra-group pairs. */
static void progress_update(tbp_progress *p, int done, int rounds_done)
{
    double now = MPI_Wtime(), el = now - p->start;
    double rate = el > 0 ? done / el : 0;
    double pct = p->total ? 100.0 * done / p->total : 100.0;
    char eta[32];
    fmt_eta(rounds_done > 0 ? el * (p->rounds - rounds_done) / rounds_done : -1, eta, sizeof eta);
    if (p->tty) {
        if (now - p->last_draw < 0.25 && done < p->total)
            return;
        p->last_draw = now;
        fprintf(stderr, "\rprobe: %d/%d pairs (%3.0f%%), %.1f pairs/s, ETA %s   ", done, p->total, pct,
                rate, eta);
        if (done >= p->total)
            fputc('\n', stderr);
        fflush(stderr);
    } else if (pct >= p->next_plain && p->next_plain < 100) {
        while (p->next_plain <= pct && p->next_plain < 100)
            p->next_plain += 25;
        fprintf(stderr, "probe: %d/%d pairs (%.0f%%), %.1f pairs/s, ETA %s\n", done, p->total, pct, rate,
                eta);
        fflush(stderr);
    }
}

/* ---- the run ------------------------------------------------------------ */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorted, de-duplicated ranks of rounds [r0, r1]. */
static int participants(const tbp_rounds *s, int r0, int r1, int *out)
{
    int k = 0;
    if (r0 < 0)
        r0 = 0;
    for (int r = r0; r <= r1; r++)
        for (int q = s->round_start[r]; q < s->round_start[r + 1]; q++) {
            out[k++] = s->pair[q][0];
            out[k++] = s->pair[q][1];
        }
    qsort(out, (size_t)k, sizeof *out, cmp_int);
    int u = 0;
    for (int a = 0; a < k; a++)
        if (u == 0 || out[u - 1] != out[a])
            out[u++] = out[a];
    return u;
}

static int is_checkpoint(const tbp_rounds *s, int stride, int r)
{
    return (r + 1) % stride == 0 || r == s->nrounds - 1;
}

int tbp_harness_run(MPI_Comm comm, const tbp_rounds *s, tbp_pair_fn fn, void *ctx, tbp_progress_mode progress)
{
    int me, size;
    MPI_Comm ctl;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int rc = MPI_Comm_dup(comm, &ctl);
    if (rc != MPI_SUCCESS)
        return rc;

    /* my rounds, ascending (the schedule is ordered by round) */
    int nmine = 0;
    int *mine = malloc((size_t)(size > 1 ? size : 2) * sizeof *mine);
    int *mypair = malloc((size_t)(size > 1 ? size : 2) * sizeof *mypair);
    int maxround = 0;
    for (int r = 0; r < s->nrounds; r++) {
        int np = s->round_start[r + 1] - s->round_start[r];
        if (np > maxround)
            maxround = np;
    }
    int *part = malloc((size_t)(4 * maxround + 2) * sizeof *part);
    if (!mine || !mypair || !part)
        MPI_Abort(comm, 1);
    for (int r = 0; r < s->nrounds; r++)
        for (int q = s->round_start[r]; q < s->round_start[r + 1]; q++)
            if (s->pair[q][0] == me || s->pair[q][1] == me) {
                if (nmine == size) /* a rank is in at most size-1 pairs */
                    MPI_Abort(comm, 1);
                mine[nmine] = r;
                mypair[nmine++] = q;
            }

    int stride = s->nrounds / 200 > 1 ? s->nrounds / 200 : 1;
    if (progress == TBP_PROGRESS_AUTO)
        progress = isatty(STDERR_FILENO) ? TBP_PROGRESS_TTY : TBP_PROGRESS_PLAIN;
    tbp_progress prog = {.start = MPI_Wtime(), .last_draw = -1e9, .total = s->npairs, .rounds = s->nrounds,
                         .tty = progress == TBP_PROGRESS_TTY, .next_plain = 25};
    int report = progress != TBP_PROGRESS_NONE;

    /* Visit, in order, every round whose barrier I am in (my rounds and
     * the ones right after them) and, on rank 0, every checkpoint. */
    int k = 0; /* next of my rounds */
    int r = 0;
    while (rc == MPI_SUCCESS && r < s->nrounds) {
        int in_r = k < nmine && mine[k] == r;
        int in_prev = (k > 0 && mine[k - 1] == r - 1);
        if (in_r || in_prev) {
            int np = participants(s, r - 1, r, part);
            rc = tbp_subset_barrier(ctl, part, np, TAG_BARRIER);
        }
        if (rc == MPI_SUCCESS && in_r) {
            int q = mypair[k];
            rc = fn(comm, s->pair[q][0], s->pair[q][1], ctx);
            k++;
        }
        if (rc == MPI_SUCCESS && report && is_checkpoint(s, stride, r)) {
            /* the lowest rank of the round (rank 0 itself if it is in it) */
            int leader = s->n;
            for (int q = s->round_start[r]; q < s->round_start[r + 1]; q++)
                if (s->pair[q][0] < leader)
                    leader = s->pair[q][0];
            if (leader == s->n)
                leader = 0;
            if (me == 0) {
                int got = r;
                if (leader != 0)
                    rc = MPI_Recv(&got, 1, MPI_INT, leader, TAG_PROGRESS, ctl, MPI_STATUS_IGNORE);
                progress_update(&prog, s->round_start[r + 1], r + 1);
            } else if (me == leader) {
                rc = MPI_Send(&r, 1, MPI_INT, 0, TAG_PROGRESS, ctl);
            }
        }
        /* next round that concerns me */
        int next = s->nrounds;
        if (k < nmine)
            next = mine[k];
        if (k > 0 && mine[k - 1] + 1 > r && mine[k - 1] + 1 < next)
            next = mine[k - 1] + 1;
        if (me == 0 && report) {
            int c = r + 1;
            int nc = ((c + 1 + stride - 1) / stride) * stride - 1; /* next (c+1) % stride == 0 */
            if (nc > s->nrounds - 1)
                nc = s->nrounds - 1;
            if (nc >= c && nc < next)
                next = nc;
        }
        if (next <= r)
            next = r + 1;
        r = next;
    }
    free(mine);
    free(mypair);
    free(part);
    MPI_Comm_free(&ctl);
    return rc;
}
