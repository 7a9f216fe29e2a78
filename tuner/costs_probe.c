/* Reads the measurement file of topobcast-probe --save (format:
 * probe/README.md, "topobcast-probe-measurements 1") into per-pair cost
 * curves.  The probe measures each pair once, from the lower rank, so a
 * pair's curve serves both directions.  Pairs the probe left out (fast
 * mode) take the curve of a measured pair of the same class: the coarsest
 * topology level at which the two ranks differ (from the topology when one
 * is given, else the probe's own independence groups). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs_probe.h"

typedef struct pair_in {
    int i, j;
    double L;
    int n;
    double *m, *os, *g;
} pair_in;

typedef struct reader {
    FILE *f;
    const char *name;
    int line;
    char *buf;
    size_t cap;
    char *err;
    size_t errlen;
} reader;

static int fail(reader *R, const char *what)
{
    snprintf(R->err, R->errlen, "%s:%d: expected %s", R->name, R->line, what);
    return -1;
}

static int next_line(reader *R)
{
    ssize_t len = getline(&R->buf, &R->cap, R->f);
    if (len < 0)
        return -1;
    R->line++;
    while (len > 0 && (R->buf[len - 1] == '\n' || R->buf[len - 1] == '\r'))
        R->buf[--len] = 0;
    return 0;
}

/* The token after " key=" in line, copied to out. */
static const char *value_of(const char *line, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += kl) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " ");
            if (n >= cap)
                return NULL;
            memcpy(out, v, n);
            out[n] = 0;
            return out;
        }
    }
    return NULL;
}

static void pairs_free(pair_in *p, int n)
{
    for (int k = 0; k < n; k++) {
        free(p[k].m);
        free(p[k].os);
        free(p[k].g);
    }
    free(p);
}

/* One pair's samples: PLogP as measured; LogGP from the fitted line(s),
 * sampled at the ends of each segment. */
static int read_pair(reader *R, int loggp, int nprocs, pair_in *p, double *switch_at)
{
    char v[512];
    memset(p, 0, sizeof *p);
    int ns;
    if (sscanf(R->buf, "pair %d %d", &p->i, &p->j) != 2 || p->i < 0 || p->j <= p->i || p->j >= nprocs)
        return fail(R, "'pair I J' with 0 <= I < J < nprocs");
    if (!value_of(R->buf, "L", v, sizeof v) || sscanf(v, "%lg", &p->L) != 1 || !value_of(R->buf, "sizes", v, sizeof v) ||
        sscanf(v, "%d", &ns) != 1 || ns < 1 || ns > 1 << 20)
        return fail(R, "L=SECONDS sizes=N on a pair line");
    double lg[7] = {0};
    if (loggp && (!value_of(R->buf, "loggp", v, sizeof v) ||
                  sscanf(v, "%lg,%lg,%lg,%lg,%lg,%lg,%lg", &lg[0], &lg[1], &lg[2], &lg[3], &lg[4], &lg[5], &lg[6]) != 7))
        return fail(R, "loggp=L,o,g,G,S,g2,G2");
    int cap = loggp ? 5 : ns;
    p->m = malloc(sizeof(double) * (size_t)cap);
    p->os = malloc(sizeof(double) * (size_t)cap);
    p->g = malloc(sizeof(double) * (size_t)cap);
    if (!p->m || !p->os || !p->g)
        return fail(R, "a file that fits in memory");
    double last_m = 0;
    for (int k = 0; k < ns; k++) {
        double m, rtt, os, orr, g;
        if (next_line(R) != 0 || sscanf(R->buf, "s %lg %lg %lg %lg %lg", &m, &rtt, &os, &orr, &g) != 5)
            return fail(R, "a size line 's M RTT O_S O_R G ...'");
        if (!(m >= 0) || (k > 0 && !(m > last_m)))
            return fail(R, "ascending message sizes");
        last_m = m;
        if (!loggp) {
            p->m[p->n] = m;
            p->os[p->n] = os > 0 ? os : 0;
            p->g[p->n] = g > 0 ? g : 0;
            p->n++;
        }
    }
    if (loggp) {
        /* gap of an m-byte message: g + (m-1) G below the switch S, g2 +
         * (m-1) G2 at and above it */
        double L = lg[0], o = lg[1], g = lg[2], G = lg[3], S = lg[4], g2 = lg[5], G2 = lg[6];
        double top = last_m > 1 ? last_m : 1;
        p->L = L;
        p->m[p->n] = 0, p->os[p->n] = o, p->g[p->n] = g, p->n++;
        p->m[p->n] = 1, p->os[p->n] = o, p->g[p->n] = g, p->n++;
        if (S > 2 && S <= top) {
            p->m[p->n] = S - 1, p->os[p->n] = o, p->g[p->n] = g + (S - 2) * G, p->n++;
            p->m[p->n] = S, p->os[p->n] = o, p->g[p->n] = g2 + (S - 1) * G2, p->n++;
            p->m[p->n] = top > S ? top : S + 1, p->os[p->n] = o, p->g[p->n] = g2 + (p->m[p->n] - 1) * G2, p->n++;
            *switch_at = S;
        } else if (top > 1) {
            p->m[p->n] = top, p->os[p->n] = o, p->g[p->n] = g + (top - 1) * G, p->n++;
        }
    }
    if (p->L < 0)
        p->L = 0;
    return 0;
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

int tb_costs_load_probe(const char *path, const tb_topology *topo, tb_costs *out, char (**hosts)[256], char *err,
                        size_t errlen)
{
    reader R = {NULL, path, 0, NULL, 0, err, errlen};
    int rc = -1, nprocs = 0, loggp = 0, np = 0, npcap = 0;
    pair_in *pairs = NULL;
    int *group = NULL, *rep = NULL, *counts = NULL;
    char (*host)[256] = NULL;
    double *sw = NULL;
    int nsw = 0;
    char mode[16];
    memset(out, 0, sizeof *out);
    R.f = fopen(path, "r");
    if (!R.f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (next_line(&R) != 0 || strcmp(R.buf, "topobcast-probe-measurements 1") != 0) {
        fail(&R, "'topobcast-probe-measurements 1' (a file written by topobcast-probe --save)");
        goto out;
    }
    if (next_line(&R) != 0 || sscanf(R.buf, "mode %15s", mode) != 1 || (strcmp(mode, "plogp") && strcmp(mode, "loggp"))) {
        fail(&R, "'mode plogp' or 'mode loggp'");
        goto out;
    }
    loggp = !strcmp(mode, "loggp");
    if (next_line(&R) != 0 || sscanf(R.buf, "nprocs %d", &nprocs) != 1 || nprocs < 1 || nprocs > 1 << 20) {
        fail(&R, "'nprocs N'");
        goto out;
    }
    group = calloc((size_t)nprocs, sizeof *group);
    host = calloc((size_t)nprocs, sizeof *host);
    if (!group || !host) {
        fail(&R, "a file that fits in memory");
        goto out;
    }
    while (next_line(&R) == 0) {
        if (!strcmp(R.buf, "end"))
            break;
        if (!strncmp(R.buf, "rank ", 5)) {
            int r;
            char v[256];
            if (sscanf(R.buf, "rank %d", &r) != 1 || r < 0 || r >= nprocs || !value_of(R.buf, "host", host[r], sizeof host[r]) ||
                !value_of(R.buf, "group", v, sizeof v)) {
                fail(&R, "'rank R host=NAME ... group=G' with 0 <= R < nprocs");
                goto out;
            }
            group[r] = atoi(v);
        } else if (!strncmp(R.buf, "pair ", 5)) {
            if (np == npcap) {
                npcap = npcap ? npcap * 2 : 1024;
                pair_in *nptr = realloc(pairs, sizeof *pairs * (size_t)npcap);
                if (!nptr) {
                    fail(&R, "a file that fits in memory");
                    goto out;
                }
                pairs = nptr;
            }
            double s = 0;
            int prc = read_pair(&R, loggp, nprocs, &pairs[np], &s);
            np++;
            if (prc != 0)
                goto out;
            if (s > 0) {
                if (nsw % 1024 == 0) {
                    double *n2 = realloc(sw, sizeof *sw * (size_t)(nsw + 1024));
                    if (!n2)
                        goto out;
                    sw = n2;
                }
                sw[nsw++] = s;
            }
        }
        /* options, run and unknown lines carry nothing the model needs */
    }
    if (strcmp(R.buf ? R.buf : "", "end") != 0) {
        fail(&R, "'end' (the file is truncated)");
        goto out;
    }
    if (np == 0 && nprocs > 1) {
        fail(&R, "at least one 'pair' record");
        goto out;
    }
    if (topo && topo->nleaves != nprocs)
        topo = NULL; /* a topology of another job: classes from the probe's groups */

    /* curves: the measured pairs, then one per class for the pairs left out */
    int nclass = topo ? topo->nlevels + 1 : 2;
    rep = malloc(sizeof(int) * (size_t)nclass);
    counts = malloc(sizeof(int) * (size_t)(np + 1));
    if (!rep || !counts)
        goto out;
    for (int c = 0; c < nclass; c++) {
        /* representative: the pair with the median L among its class */
        double *Ls = malloc(sizeof(double) * (size_t)(np + 1));
        int k = 0;
        if (!Ls)
            goto out;
        for (int p = 0; p < np; p++)
            if (rank_class(topo, group, pairs[p].i, pairs[p].j) == c)
                Ls[k++] = pairs[p].L;
        rep[c] = -1;
        if (k > 0) {
            qsort(Ls, (size_t)k, sizeof *Ls, cmp_double);
            double med = Ls[k / 2];
            for (int p = 0; p < np && rep[c] < 0; p++)
                if (rank_class(topo, group, pairs[p].i, pairs[p].j) == c && pairs[p].L == med)
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
    for (int p = 0; p < np; p++)
        counts[p] = pairs[p].n;
    if (np == 0)
        counts[0] = 1;
    if (tb_costs_alloc_counts(out, nprocs, np > 0 ? np : 1, counts, 1) != 0) {
        snprintf(err, errlen, "%s: out of memory for %d pairs", path, np);
        goto out;
    }
    for (int p = 0; p < np; p++) {
        out->L[p] = pairs[p].L;
        memcpy(tb_costs_m(out, p), pairs[p].m, sizeof(double) * (size_t)pairs[p].n);
        memcpy(tb_costs_os(out, p), pairs[p].os, sizeof(double) * (size_t)pairs[p].n);
        memcpy(tb_costs_g(out, p), pairs[p].g, sizeof(double) * (size_t)pairs[p].n);
    }
    for (int a = 0; a < nprocs; a++)
        for (int b = 0; b < nprocs; b++)
            out->pair[(size_t)a * (size_t)nprocs + (size_t)b] = a == b ? 0 : -1;
    for (int p = 0; p < np; p++) {
        out->pair[(size_t)pairs[p].i * (size_t)nprocs + (size_t)pairs[p].j] = p;
        out->pair[(size_t)pairs[p].j * (size_t)nprocs + (size_t)pairs[p].i] = p;
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
             mode, nprocs, np, missing / 2);
    if (hosts) {
        *hosts = host;
        host = NULL;
    }
    rc = 0;
out:
    if (rc != 0)
        tb_costs_free(out);
    pairs_free(pairs, np);
    free(group);
    free(host);
    free(rep);
    free(counts);
    free(sw);
    free(R.buf);
    fclose(R.f);
    return rc;
}
