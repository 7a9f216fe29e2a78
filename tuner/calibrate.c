/* Quick calibration for the cost model when no probe measurements are
 * given: one ping-pong partner of rank 0 per class of the job's hierarchy
 * (the coarsest level at which they differ, or "same finest group"), and
 * from its round trips the PLogP quantities the model uses:
 *   g(0) from a burst of empty messages, L = (RTT(0) - 2 g(0)) / 2,
 *   g(m) = RTT(m) - RTT(0) + g(0) (Kielmann et al.; the answer is empty),
 *   o_s(m) = time in MPI_Send (at most g(m)), each the fastest of its
 *   repetitions; o_r(m) is taken equal to o_s(m), as LogGP's single o.
 * Costs a few hundred round trips; the other ranks wait in a barrier. */
#include "calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 7411
#define BURST 16

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The minimum, not the median: on a shared machine the partner is
 * sometimes descheduled for a whole time slice, and a latency is the best
 * the hardware does, not the average interference. */
static double fastest(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[0];
}

/* Rank 0 and peer: RTT(m) and the MPI_Send time of m bytes. */
static void ping(MPI_Comm comm, int me, int peer, char *buf, size_t m, int reps, double *rtt, double *send)
{
    double *r = malloc(sizeof(double) * (size_t)reps), *s = malloc(sizeof(double) * (size_t)reps);
    if (!r || !s) {
        free(r);
        free(s);
        *rtt = *send = 0;
        return;
    }
    for (int i = -2; i < reps; i++) { /* two warm-up round trips */
        if (me == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(buf, (int)m, MPI_BYTE, peer, TAG, comm);
            double t1 = MPI_Wtime();
            MPI_Recv(buf, 0, MPI_BYTE, peer, TAG, comm, MPI_STATUS_IGNORE);
            double t2 = MPI_Wtime();
            if (i >= 0) {
                r[i] = t2 - t0;
                s[i] = t1 - t0;
            }
        } else {
            MPI_Recv(buf, (int)m, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, 0, MPI_BYTE, 0, TAG, comm);
        }
    }
    if (me == 0) {
        *rtt = fastest(r, reps);
        *send = fastest(s, reps);
    }
    free(r);
    free(s);
}

/* Rank 0 and peer: time of BURST empty sends answered by one empty reply. */
static double burst(MPI_Comm comm, int me, int peer, char *buf, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps), res = 0;
    if (!t)
        return 0;
    for (int i = -2; i < reps; i++) {
        if (me == 0) {
            double t0 = MPI_Wtime();
            for (int k = 0; k < BURST; k++)
                MPI_Send(buf, 0, MPI_BYTE, peer, TAG, comm);
            MPI_Recv(buf, 0, MPI_BYTE, peer, TAG, comm, MPI_STATUS_IGNORE);
            if (i >= 0)
                t[i] = MPI_Wtime() - t0;
        } else {
            for (int k = 0; k < BURST; k++)
                MPI_Recv(buf, 0, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, 0, MPI_BYTE, 0, TAG, comm);
        }
    }
    if (me == 0)
        res = fastest(t, reps);
    free(t);
    return res;
}

int tn_calibrate_quick(MPI_Comm comm, const tb_hier *h, size_t max_bytes, int reps, tn_costs *out, char *err,
                       size_t errlen)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    memset(out, 0, sizeof *out);
    if (reps < 3)
        reps = 3;
    /* sizes 0, 1, then x4 up to the largest message, plus both sides of the
     * usual eager/rendezvous switch */
    size_t sizes[40];
    int ns = 0;
    sizes[ns++] = 0;
    for (size_t m = 1; m <= max_bytes && ns < 36; m *= 4)
        sizes[ns++] = m;
    if (max_bytes > 65536 && ns < 38) {
        sizes[ns++] = 65535;
        sizes[ns++] = 65536;
    }
    if (sizes[ns - 1] < max_bytes)
        sizes[ns++] = max_bytes;
    for (int i = 1; i < ns; i++) /* sort (the switch sizes went last) */
        for (int j = i; j > 0 && sizes[j] < sizes[j - 1]; j--) {
            size_t t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
        }
    int w = 1;
    for (int i = 1; i < ns; i++)
        if (sizes[i] != sizes[w - 1])
            sizes[w++] = sizes[i];
    ns = w;

    int nclass = (h && h->nlevels > 0 ? h->nlevels : 0) + 1;
    char *buf = malloc(max_bytes > 0 ? max_bytes : 1);
    int *partner = malloc(sizeof(int) * (size_t)nclass);
    double *rtt = calloc((size_t)nclass * (size_t)ns, sizeof(double));
    double *snd = calloc((size_t)nclass * (size_t)ns, sizeof(double));
    double *b0 = calloc((size_t)nclass, sizeof(double));
    int ok = buf && partner && rtt && snd && b0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        snprintf(err, errlen, "quick calibration: out of memory");
        free(buf), free(partner), free(rtt), free(snd), free(b0);
        return -1;
    }
    memset(buf, 0, max_bytes > 0 ? max_bytes : 1);
    /* the lowest rank of each class as seen from rank 0 (same on every rank) */
    for (int c = 0; c < nclass; c++) {
        partner[c] = -1;
        for (int r = 1; r < P && partner[c] < 0; r++)
            if ((nclass == 1 ? 0 : tn_costs_pair_class(h, 0, r)) == c)
                partner[c] = r;
    }
    for (int c = 0; c < nclass; c++) {
        int peer = partner[c];
        if (peer >= 0 && (me == 0 || me == peer)) {
            int other = me == 0 ? peer : 0;
            b0[c] = burst(comm, me, other, buf, reps);
            for (int i = 0; i < ns; i++) {
                /* big messages: fewer repetitions, they are steady */
                int rr = sizes[i] >= ((size_t)1 << 20) ? (reps + 3) / 4 : reps;
                ping(comm, me, other, buf, sizes[i], rr < 3 ? 3 : rr, &rtt[(size_t)c * (size_t)ns + (size_t)i],
                     &snd[(size_t)c * (size_t)ns + (size_t)i]);
            }
        }
        MPI_Barrier(comm);
    }
    int rc = 0;
    if (me == 0) {
        /* classes with no partner borrow the nearest measured class */
        int *src = malloc(sizeof(int) * (size_t)nclass);
        int nmeasured = 0;
        for (int c = 0; c < nclass; c++) {
            src[c] = -1;
            for (int d = 0; d < nclass && src[c] < 0; d++) {
                if (c + d < nclass && partner[c + d] >= 0)
                    src[c] = c + d;
                else if (c - d >= 0 && partner[c - d] >= 0)
                    src[c] = c - d;
            }
            nmeasured += partner[c] >= 0;
        }
        if (nmeasured == 0 || tn_costs_alloc(out, P, nclass, ns, 0) != 0 ||
            (nclass > 1 && tn_costs_set_classes(out, h) != 0)) {
            tn_costs_free(out);
            snprintf(err, errlen, "quick calibration: %s", nmeasured ? "out of memory" : "no pair to measure");
            rc = -1;
        } else {
            for (int c = 0; c < nclass; c++) {
                const double *R = rtt + (size_t)src[c] * (size_t)ns, *S = snd + (size_t)src[c] * (size_t)ns;
                double g0 = (b0[src[c]] - R[0]) / (BURST - 1);
                if (g0 < 1e-8)
                    g0 = 1e-8;
                double L = (R[0] - 2 * g0) / 2;
                out->L[c] = L > 0 ? L : 0;
                for (int i = 0; i < ns; i++) {
                    double g = R[i] - R[0] + g0;
                    tn_costs_m(out, c)[i] = (double)sizes[i];
                    tn_costs_g(out, c)[i] = g > g0 ? g : g0;
                    tn_costs_os(out, c)[i] = S[i] < tn_costs_g(out, c)[i] ? S[i] : tn_costs_g(out, c)[i];
                    tn_costs_or(out, c)[i] = tn_costs_os(out, c)[i];
                }
            }
            int o = snprintf(out->source, sizeof out->source, "quick calibration (rank 0 with");
            for (int c = 0; c < nclass && o < (int)sizeof out->source; c++)
                o += snprintf(out->source + o, sizeof out->source - (size_t)o, " %s%d",
                              partner[c] >= 0 ? "" : "-", partner[c] >= 0 ? partner[c] : src[c]);
            if (o < (int)sizeof out->source)
                snprintf(out->source + o, sizeof out->source - (size_t)o, ")");
        }
        free(src);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    free(buf), free(partner), free(rtt), free(snd), free(b0);
    return rc;
}

void tn_costs_describe(const tn_costs *c, const tb_hier *h, FILE *f)
{
    int nl = h ? h->nlevels : 0;
    int classes = c->pair || c->classes.size ? nl + 1 : 1;
    for (int k = 0; k < classes; k++) {
        /* a pair of the class (per-pair costs: the first one found) */
        int a = -1, b = -1;
        for (int x = 0; x < c->nprocs && x < (h ? h->size : c->nprocs) && a < 0; x++)
            for (int y = x + 1; y < c->nprocs && y < (h ? h->size : c->nprocs) && a < 0; y++)
                if (classes == 1 || tn_costs_pair_class(h, x, y) == k)
                    a = x, b = y;
        if (a < 0)
            continue;
        char label[64];
        if (classes == 1)
            snprintf(label, sizeof label, "any pair");
        else if (k < nl)
            snprintf(label, sizeof label, "other %s", h->level_name[k]);
        else
            snprintf(label, sizeof label, "same %s", h->level_name[nl - 1]);
        tn_edge_cost e0, e1;
        const double m1 = 1 << 20;
        tn_costs_edge(c, a, b, 0, &e0);
        tn_costs_edge(c, a, b, (size_t)m1, &e1);
        fprintf(f, "  %-16s (%d-%d) L %.2f us, g(0) %.2f us, 1 MiB one-way %.1f us (%.2f GB/s)\n", label, a, b,
                e0.L * 1e6, e0.g * 1e6, (e1.L + e1.g) * 1e6, e1.g > 0 ? m1 / e1.g / 1e9 : 0.0);
    }
}
