/* Accuracy against ground truth.  The seed thesis's accuracy (fraction of
 * ranks mapped to their correct machine/node/socket) needs a mapping from
 * clusters to true groups; we take the one-to-one mapping that maximises the
 * correctly mapped ranks, so merging two nodes into one cluster scores 0.5,
 * not 1.0.  The adjusted Rand index complements it without any mapping. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_internal.h"

/* An ordered pair of ints, sorted lexicographically: (label, object) for
 * dense ids, (cluster, group) for the contingency cells of the ARI. */
typedef struct ipair {
    int a, b;
} ipair;

static int cmp_ipair(const void *x, const void *y)
{
    const ipair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Dense ids 0..k-1 for arbitrary int labels (by value); returns k.  With
 * noise_singletons, negative labels each get their own id. */
static int dense_ids(const int *in, int n, int *out, int noise_singletons)
{
    ipair *a = malloc((size_t)n * sizeof *a);
    if (!a)
        return -1;
    for (int i = 0; i < n; i++) {
        a[i].a = in[i];
        a[i].b = i;
    }
    qsort(a, (size_t)n, sizeof *a, cmp_ipair);
    int k = 0;
    for (int s = 0; s < n; s++) {
        if (noise_singletons && a[s].a < 0) {
            out[a[s].b] = k++;
            continue;
        }
        if (s > 0 && a[s].a == a[s - 1].a && !(noise_singletons && a[s - 1].a < 0))
            out[a[s].b] = k - 1;
        else
            out[a[s].b] = k++;
    }
    free(a);
    return k;
}

/* Maximum-weight assignment of the R rows of an R x C matrix of counts
 * (R <= C) to distinct columns (Hungarian method with potentials,
 * O(R^2 C)); returns the total weight.  Rows are the smaller side, so a
 * partition into many groups (every rank alone) against a few costs
 * little. */
static long hungarian_max(const int *w, int R, int C)
{
    long maxw = 0;
    for (long i = 0; i < (long)R * C; i++)
        if (w[i] > maxw)
            maxw = w[i];
    long *u = calloc((size_t)R + 1, sizeof *u), *v = calloc((size_t)C + 1, sizeof *v);
    int *p = calloc((size_t)C + 1, sizeof *p), *way = calloc((size_t)C + 1, sizeof *way);
    long *minv = malloc(((size_t)C + 1) * sizeof *minv);
    char *used = malloc((size_t)C + 1);
    long total = -1;
    if (!u || !v || !p || !way || !minv || !used)
        goto out;
    /* minimise cost = maxw - w (1-based arrays, as in the textbook form) */
    for (int i = 1; i <= R; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= C; j++) {
            minv[j] = LONG_MAX;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            long delta = LONG_MAX;
            for (int j = 1; j <= C; j++) {
                if (used[j])
                    continue;
                long cur = (maxw - w[(size_t)(i0 - 1) * C + (j - 1)]) - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= C; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    total = 0;
    for (int j = 1; j <= C; j++)
        if (p[j])
            total += w[(size_t)(p[j] - 1) * C + (j - 1)];
out:
    free(u); free(v); free(p); free(way); free(minv); free(used);
    return total;
}

double tt_accuracy(const int *pred, const int *truth, int n)
{
    if (!pred || !truth || n < 1)
        return NAN;
    int *pt = malloc((size_t)n * sizeof *pt), *tt = malloc((size_t)n * sizeof *tt);
    double acc = NAN;
    int *w = NULL;
    if (!pt || !tt)
        goto out;
    int kp = dense_ids(pred, n, pt, 0);
    int kt = dense_ids(truth, n, tt, 0);
    if (kp < 0 || kt < 0)
        goto out;
    /* noise (pred < 0) gets its own id: drop it from the matching */
    int noise_id = -1;
    for (int i = 0; i < n; i++)
        if (pred[i] < 0) {
            noise_id = pt[i];
            break;
        }
    /* the smaller partition's groups are the rows */
    int R = kp < kt ? kp : kt, C = kp < kt ? kt : kp;
    w = calloc((size_t)R * C, sizeof *w);
    if (!w)
        goto out;
    for (int i = 0; i < n; i++)
        if (pt[i] != noise_id)
            w[kp <= kt ? (size_t)pt[i] * C + tt[i] : (size_t)tt[i] * C + pt[i]]++;
    long matched = hungarian_max(w, R, C);
    if (matched >= 0)
        acc = (double)matched / n;
out:
    free(pt);
    free(tt);
    free(w);
    return acc;
}

static double choose2(double x)
{
    return x * (x - 1.0) / 2.0;
}

double tt_ari(const int *pred, const int *truth, int n)
{
    if (!pred || !truth || n < 1)
        return NAN;
    int *pt = malloc((size_t)n * sizeof *pt), *tt = malloc((size_t)n * sizeof *tt);
    int *ca = NULL, *cb = NULL;
    ipair *cells = malloc((size_t)n * sizeof *cells);
    double ari = NAN;
    if (!pt || !tt || !cells)
        goto out;
    int kp = dense_ids(pred, n, pt, 1);
    int kt = dense_ids(truth, n, tt, 0);
    if (kp < 0 || kt < 0)
        goto out;
    ca = calloc((size_t)kp, sizeof *ca);
    cb = calloc((size_t)kt, sizeof *cb);
    if (!ca || !cb)
        goto out;
    for (int i = 0; i < n; i++) {
        ca[pt[i]]++;
        cb[tt[i]]++;
        cells[i].a = pt[i];
        cells[i].b = tt[i];
    }
    qsort(cells, (size_t)n, sizeof *cells, cmp_ipair);
    double index = 0.0, sa = 0.0, sb = 0.0;
    for (int s = 0; s < n;) {
        int e = s;
        while (e < n && cells[e].a == cells[s].a && cells[e].b == cells[s].b)
            e++;
        index += choose2(e - s);
        s = e;
    }
    for (int i = 0; i < kp; i++)
        sa += choose2(ca[i]);
    for (int j = 0; j < kt; j++)
        sb += choose2(cb[j]);
    double total = choose2(n);
    double expected = total > 0.0 ? sa * sb / total : 0.0;
    double maxidx = 0.5 * (sa + sb);
    if (maxidx == expected)
        ari = 1.0; /* both trivial in the same way: identical partitions */
    else
        ari = (index - expected) / (maxidx - expected);
out:
    free(pt); free(tt); free(ca); free(cb); free(cells);
    return ari;
}

int tt_best_level(const tt_hierarchy *h, const int *truth, const char *skip, double *acc, double *ari)
{
    int bl = -1;
    double bacc = -1.0, bari = NAN;
    for (int l = 0; l < h->nlevels; l++) {
        if (skip && skip[l])
            continue;
        double a = tt_accuracy(h->labels[l], truth, h->n);
        double r = tt_ari(h->labels[l], truth, h->n);
        if (a > bacc || (a == bacc && r > bari)) {
            bacc = a;
            bari = r;
            bl = l;
        }
    }
    *acc = bacc;
    *ari = bari;
    return bl;
}

double tt_validate_print(FILE *out, const tt_hierarchy *h, const tt_truth *truth, int ntruth)
{
    if (!h || !truth || ntruth < 1)
        return NAN;
    double worst = INFINITY;
    if (out)
        fprintf(out, "%-10s %7s  %-14s %8s %9s %7s\n", "truth", "groups", "best level",
                "clusters", "accuracy", "ARI");
    int *tmp = malloc((size_t)(h->n > 0 ? h->n : 1) * sizeof *tmp);
    for (int t = 0; t < ntruth; t++) {
        double bacc, bari;
        int bl = tt_best_level(h, truth[t].labels, NULL, &bacc, &bari);
        int groups = tmp ? dense_ids(truth[t].labels, h->n, tmp, 0) : -1;
        if (bl < 0)
            bacc = 0.0;
        if (bacc < worst)
            worst = bacc;
        if (out) {
            if (bl >= 0)
                fprintf(out, "%-10s %7d  %-14s %8d %9.3f %7.3f\n", truth[t].name, groups,
                        h->name[bl], h->nclusters[bl], bacc, bari);
            else
                fprintf(out, "%-10s %7d  %-14s %8s %9.3f %7s\n", truth[t].name, groups, "(none)",
                        "-", 0.0, "-");
        }
    }
    free(tmp);
    return worst;
}
