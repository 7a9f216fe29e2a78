/* Per-pair cost curves from the measurement file of topobcast-probe
 * --save (format: probe/README.md), read by the probe's own loader
 * (topology/save.c, libtbtopology.a) so the two
 * tools accept the same files with the same messages.  The probe measures
 * each pair once, from the lower rank, so a pair's curve serves both
 * directions.  Pairs the probe left out (fast mode) take the curve of a
 * measured pair of the same class: the coarsest topology level at which
 * the two ranks differ (from the topology when one is given, else the
 * probe's own independence groups). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "costs_probe.h"

/* LogGP samples at most: 0, 1, both sides of the switch, the top size. */
#define LOGGP_SAMPLES 5

/* A pair's curve: PLogP as measured (o_s, o_r and g, noise below zero
 * taken as 0); LogGP from the fitted line(s), sampled at the ends of each segment.
 * Returns the sample count (nsizes, or at most LOGGP_SAMPLES) and writes
 * the samples when m is not NULL; *L the latency, *switch_at the
 * rendezvous switch used (0 if none). */
static int pair_curve(const tt_pair_rec *p, int loggp, double *m, double *os, double *orv, double *g, double *L,
                      double *switch_at)
{
    int n = 0;
    *switch_at = 0;
    if (!loggp) {
        *L = p->L < 0 ? 0 : p->L;
        for (; m && n < p->nsizes; n++) {
            m[n] = p->s[n].m;
            os[n] = p->s[n].o_s > 0 ? p->s[n].o_s : 0;
            orv[n] = p->s[n].o_r > 0 ? p->s[n].o_r : 0;
            g[n] = p->s[n].g > 0 ? p->s[n].g : 0;
        }
        return p->nsizes;
    }
    /* gap of an m-byte message: g + (m-1) G below the switch S, g2 +
     * (m-1) G2 at and above it */
    double xm[LOGGP_SAMPLES], xo[LOGGP_SAMPLES], xg[LOGGP_SAMPLES];
    const tt_loggp_fit *f = &p->lg;
    double last_m = p->s[p->nsizes - 1].m, S = f->S;
    double top = last_m > 1 ? last_m : 1;
    *L = f->L < 0 ? 0 : f->L;
    xm[n] = 0, xg[n++] = f->g;
    xm[n] = 1, xg[n++] = f->g;
    if (S > 2 && S <= top) {
        xm[n] = S - 1, xg[n] = f->g + (S - 2) * f->G, n++;
        xm[n] = S, xg[n] = f->g2 + (S - 1) * f->G2, n++;
        xm[n] = top > S ? top : S + 1, xg[n] = f->g2 + (xm[n] - 1) * f->G2, n++;
        *switch_at = S;
    } else if (top > 1) {
        xm[n] = top, xg[n] = f->g + (top - 1) * f->G, n++;
    }
    for (int k = 0; k < n; k++)
        xo[k] = f->o;
    if (m) {
        memcpy(m, xm, sizeof(double) * (size_t)n);
        memcpy(os, xo, sizeof(double) * (size_t)n);
        memcpy(orv, xo, sizeof(double) * (size_t)n); /* LogGP: one o for both sides */
        memcpy(g, xg, sizeof(double) * (size_t)n);
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Class of calibration ranks (a, b): coarsest topology level that splits
 * them (levels .. nlevels), or 0 / 1 by the probe's groups. */
static int rank_class(const tb_topology *topo, const int *group, int a, int b)
{
    if (topo && topo->nleaves > a && topo->nleaves > b) {
        for (int l = 0; l < topo->nlevels; l++)
            if (topo->group[l][a] != topo->group[l][b])
                return l;
        return topo->nlevels;
    }
    return group[a] == group[b];
}

int tn_costs_load_probe(const char *path, const tb_topology *topo, tn_costs *out, char (**hosts)[256], char *err,
                        size_t errlen)
{
    tt_meas M;
    int rc = -1;
    int *group = NULL, *rep = NULL, *counts = NULL;
    double *Lp = NULL, *sw = NULL;
    char (*host)[256] = NULL;
    memset(out, 0, sizeof *out);
    int read_rc = tt_save_load(path, &M, err, errlen);
    if (read_rc != 0)
        return -1;
    int nprocs = M.n, np = M.npairs, loggp = M.opt.mode == TT_MODE_LOGGP, nsw = 0;
    if (np == 0 && nprocs > 1) {
        snprintf(err, errlen, "%s: expected at least one 'pair' record", path);
        goto out;
    }
    if (topo && topo->nleaves != nprocs)
        topo = NULL; /* a topology of another job: classes from the probe's groups */

    int nclass = topo ? topo->nlevels + 1 : 2;
    group = malloc(sizeof(int) * (size_t)nprocs);
    host = malloc(sizeof *host * (size_t)nprocs);
    rep = malloc(sizeof(int) * (size_t)nclass);
    counts = malloc(sizeof(int) * (size_t)(np + 1));
    Lp = malloc(sizeof(double) * (size_t)(np + 1));
    sw = malloc(sizeof(double) * (size_t)(np + 1));
    if (!group || !host || !rep || !counts || !Lp || !sw) {
        snprintf(err, errlen, "%s: out of memory for %d ranks", path, nprocs);
        goto out;
    }
    for (int r = 0; r < nprocs; r++) {
        group[r] = M.rank[r].group;
        memcpy(host[r], M.rank[r].host, sizeof host[r]);
    }
    for (int p = 0; p < np; p++) {
        double s;
        counts[p] = pair_curve(&M.pair[p], loggp, NULL, NULL, NULL, NULL, &Lp[p], &s);
        if (s > 0)
            sw[nsw++] = s;
    }

    /* curves: the measured pairs, then one per class for the pairs left out */
    for (int c = 0; c < nclass; c++) {
        /* representative: the pair with the median L among its class */
        double *Ls = malloc(sizeof(double) * (size_t)(np + 1));
        int k = 0;
        if (!Ls)
            goto out;
        for (int p = 0; p < np; p++)
            if (rank_class(topo, group, M.pair[p].i, M.pair[p].j) == c)
                Ls[k++] = Lp[p];
        rep[c] = -1;
        if (k > 0) {
            qsort(Ls, (size_t)k, sizeof *Ls, cmp_double);
            double med = Ls[k / 2];
            for (int p = 0; p < np && rep[c] < 0; p++)
                if (rank_class(topo, group, M.pair[p].i, M.pair[p].j) == c && Lp[p] == med)
                    rep[c] = p;
        }
        free(Ls);
    }
    int any = 0;
    for (int c = 0; c < nclass; c++)
        if (rep[c] >= 0)
            any = rep[c];
    for (int c = 0; c < nclass; c++)
        if (rep[c] < 0)
            rep[c] = any; /* a class nobody measured: some measured pair */
    if (np == 0)
        counts[0] = 1;
    if (tn_costs_alloc_counts(out, nprocs, np > 0 ? np : 1, counts, 1) != 0) {
        snprintf(err, errlen, "%s: out of memory for %d pairs", path, np);
        goto out;
    }
    for (int p = 0; p < np; p++) {
        double s;
        pair_curve(&M.pair[p], loggp, tn_costs_m(out, p), tn_costs_os(out, p), tn_costs_or(out, p), tn_costs_g(out, p),
                   &out->L[p], &s);
    }
    for (int a = 0; a < nprocs; a++)
        for (int b = 0; b < nprocs; b++)
            out->pair[(size_t)a * (size_t)nprocs + (size_t)b] = a == b ? 0 : -1;
    for (int p = 0; p < np; p++) {
        out->pair[(size_t)M.pair[p].i * (size_t)nprocs + (size_t)M.pair[p].j] = p;
        out->pair[(size_t)M.pair[p].j * (size_t)nprocs + (size_t)M.pair[p].i] = p;
    }
    int missing = 0;
    for (int a = 0; a < nprocs; a++)
        for (int b = 0; b < nprocs; b++) {
            int *x = &out->pair[(size_t)a * (size_t)nprocs + (size_t)b];
            if (*x < 0) {
                *x = rep[rank_class(topo, group, a, b)];
                missing++;
            }
        }
    if (nsw > 0) {
        qsort(sw, (size_t)nsw, sizeof *sw, cmp_double);
        out->eager_limit = (size_t)sw[nsw / 2];
    }
    snprintf(out->source, sizeof out->source, "%s (%s, %d ranks, %d pairs measured, %d filled by class)", path,
             loggp ? "loggp" : "plogp", nprocs, np, missing / 2);
    if (hosts) {
        *hosts = host;
        host = NULL;
    }
    rc = 0;
out:
    if (rc != 0)
        tn_costs_free(out);
    tt_meas_free(&M);
    free(group);
    free(host);
    free(rep);
    free(counts);
    free(Lp);
    free(sw);
    return rc;
}
