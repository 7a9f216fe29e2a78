/* Automated parameter search (seed thesis sec. 3.3), but choosing without
 * ground truth: every method is run over its parameter range and the run
 * with the best mean silhouette wins.  Silhouette compares each rank's mean
 * distance to its own group with the nearest other group, so it rewards the
 * partition whose groups are both tight and far apart, needs nothing but the
 * distance matrix, and works for every method alike.
 *
 * Ranges (n objects, dmin/dmax = smallest positive/largest distance):
 *   single/average/complete  k = 2 .. n-1 clusters (dendrogram cuts)
 *   kmedoids                 k = 2 .. n/2
 *   dbscan                   eps on a geometric grid dmin .. dmax, minpts fixed
 *   hdbscan                  min_cluster_size = 2 .. n/2, min_samples fixed or = mcs
 *   ssstree                  alpha = 0.5 i/npoints, i = 1..npoints, every depth
 *   components               threshold on a geometric grid dmin .. dmax
 * Geometric grids, unlike the thesis's linear ones, because latencies of
 * successive levels differ by factors.  Integer ranges are exhaustive up to
 * max_int_points values.  If no run reaches min_score (Kaufman & Rousseeuw's
 * "no substantial structure" is below 0.25) the result is one cluster. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_internal.h"

static const char *const method_names[TT_M_COUNT] = {
    "single", "average", "complete", "kmedoids", "dbscan", "hdbscan", "ssstree", "components",
};

const char *tt_method_name(tt_method m)
{
    return (unsigned)m < TT_M_COUNT ? method_names[m] : "?";
}

int tt_method_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int m = 0; m < TT_M_COUNT; m++)
        if (strcmp(name, method_names[m]) == 0)
            return m;
    return -1;
}

double tt_silhouette(const double *D, int n, const int *labels)
{
    if (!D || !labels || n < 2)
        return 0.0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (labels[i] + 1 > k)
            k = labels[i] + 1;
    if (k < 1)
        return 0.0;
    int *size = calloc((size_t)k, sizeof *size);
    double *sum = malloc((size_t)k * sizeof *sum);
    if (!size || !sum) {
        free(size);
        free(sum);
        return NAN;
    }
    int nnoise = 0;
    for (int i = 0; i < n; i++) {
        if (labels[i] >= 0)
            size[labels[i]]++;
        else
            nnoise++;
    }
    int groups = nnoise;
    for (int c = 0; c < k; c++)
        groups += size[c] > 0;
    double total = 0.0;
    if (groups >= 2 && groups < n) {
        for (int i = 0; i < n; i++) {
            int li = labels[i];
            if (li < 0 || size[li] < 2)
                continue; /* singletons (noise too) have silhouette 0 */
            memset(sum, 0, (size_t)k * sizeof *sum);
            const double *row = D + (size_t)i * n;
            double bnoise = INFINITY;
            for (int j = 0; j < n; j++) {
                if (labels[j] >= 0)
                    sum[labels[j]] += row[j];
                else if (row[j] < bnoise)
                    bnoise = row[j];
            }
            double a = sum[li] / (size[li] - 1);
            double b = bnoise;
            for (int c = 0; c < k; c++)
                if (c != li && size[c] > 0 && sum[c] / size[c] < b)
                    b = sum[c] / size[c];
            double mx = a > b ? a : b;
            if (mx > 0.0 && isfinite(b))
                total += (b - a) / mx;
        }
    }
    free(size);
    free(sum);
    return total / n;
}

void tt_search_result_free(tt_search_result *res)
{
    if (!res)
        return;
    free(res->labels);
    free(res->trace);
    res->labels = NULL;
    res->trace = NULL;
    res->ntrace = 0;
}

typedef struct search_ctx {
    const double *D;
    int n;
    tt_search_result *res;
    int cap;
    int *cur;
    int have_best;
    double best_score;
} search_ctx;

/* Scores the clustering in ctx->cur and keeps it if it is the best so far. */
static int consider(search_ctx *s, double param, double param2)
{
    int k = tt_labels_count(s->cur, s->n);
    int noise = tt_labels_noise(s->cur, s->n);
    double score = tt_silhouette(s->D, s->n, s->cur);
    if (isnan(score))
        return -1;
    if (s->res->ntrace == s->cap) {
        int ncap = s->cap ? 2 * s->cap : 64;
        tt_search_point *t = realloc(s->res->trace, (size_t)ncap * sizeof *t);
        if (!t)
            return -1;
        s->res->trace = t;
        s->cap = ncap;
    }
    s->res->trace[s->res->ntrace++] =
        (tt_search_point){.param = param, .param2 = param2, .nclusters = k, .noise = noise,
                          .score = score};
    if (!s->have_best || score > s->best_score) {
        s->have_best = 1;
        s->best_score = score;
        s->res->param = param;
        s->res->param2 = param2;
        s->res->nclusters = k;
        s->res->score = score;
        memcpy(s->res->labels, s->cur, (size_t)s->n * sizeof *s->cur);
    }
    return 0;
}

/* Integer grid lo..hi: every value, or max_pts values spread geometrically. */
static int int_grid(int lo, int hi, int max_pts, int *out)
{
    if (hi < lo)
        return 0;
    int cnt = hi - lo + 1;
    if (cnt <= max_pts) {
        for (int i = 0; i < cnt; i++)
            out[i] = lo + i;
        return cnt;
    }
    int m = 0;
    double r = pow((double)hi / lo, 1.0 / (max_pts - 1));
    double v = lo;
    for (int i = 0; i < max_pts; i++, v *= r) {
        int x = (int)lround(v);
        if (x > hi)
            x = hi;
        if (m == 0 || x > out[m - 1])
            out[m++] = x;
    }
    return m;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double geo_point(double lo, double hi, int i, int npoints)
{
    if (npoints < 2 || !(lo > 0.0))
        return lo + (hi - lo) * i / (npoints > 1 ? npoints - 1 : 1);
    return lo * pow(hi / lo, (double)i / (npoints - 1));
}

int tt_search(const double *D, int n, tt_method m, const tt_search_opts *opts,
              tt_search_result *res)
{
    if (!D || !res || n < 1 || (unsigned)m >= TT_M_COUNT)
        return -1;
    tt_search_opts o = {.npoints = 50, .max_int_points = 512, .min_score = 0.25,
                        .min_samples = 0, .ssstree_min_size = 2, .seed = 1};
    if (opts)
        o = *opts;
    if (o.npoints < 2)
        o.npoints = 2;
    if (o.max_int_points < 2)
        o.max_int_points = 2;
    memset(res, 0, sizeof *res);
    res->method = m;
    res->labels = calloc((size_t)n, sizeof *res->labels);
    search_ctx s = {.D = D, .n = n, .res = res};
    s.cur = malloc((size_t)n * sizeof *s.cur);
    int *grid = malloc((size_t)(n + o.max_int_points + 2) * sizeof *grid);
    int rc = -1;
    if (!res->labels || !s.cur || !grid)
        goto out;
    double dmin, dmax;
    tt_distance_range(D, n, &dmin, &dmax);
    if (n >= 3 && dmax > 0.0) {
        switch (m) {
        case TT_M_SINGLE:
        case TT_M_AVERAGE:
        case TT_M_COMPLETE: {
            tt_dendrogram dg;
            tt_linkage link = m == TT_M_SINGLE    ? TT_LINK_SINGLE
                               : m == TT_M_AVERAGE ? TT_LINK_AVERAGE
                                                    : TT_LINK_COMPLETE;
            if (tt_agglomerative(D, n, link, &dg) != 0)
                goto out;
            int ng = int_grid(2, n - 1, o.max_int_points, grid);
            for (int i = 0; i < ng; i++)
                if (tt_dendrogram_cut_k(&dg, grid[i], s.cur) < 0 || consider(&s, grid[i], 0) < 0) {
                    tt_dendrogram_free(&dg);
                    goto out;
                }
            tt_dendrogram_free(&dg);
            break;
        }
        case TT_M_KMEDOIDS: {
            int ng = int_grid(2, n / 2 >= 2 ? n / 2 : 2, o.max_int_points, grid);
            for (int i = 0; i < ng; i++)
                if (tt_kmedoids(D, n, grid[i], o.seed, s.cur, NULL, NULL) < 0 ||
                    consider(&s, grid[i], 0) < 0)
                    goto out;
            break;
        }
        case TT_M_DBSCAN: {
            int minpts = o.min_samples > 0 ? o.min_samples : 2;
            for (int i = 0; i < o.npoints; i++) {
                double eps = geo_point(dmin, dmax, i, o.npoints);
                if (tt_dbscan(D, n, eps, minpts, s.cur) < 0 || consider(&s, eps, minpts) < 0)
                    goto out;
            }
            break;
        }
        case TT_M_HDBSCAN: {
            /* rows sorted once give every core distance */
            double *sorted = malloc((size_t)n * n * sizeof *sorted);
            double *core = malloc((size_t)n * sizeof *core);
            if (!sorted || !core) {
                free(sorted);
                free(core);
                goto out;
            }
            memcpy(sorted, D, (size_t)n * n * sizeof *sorted);
            for (int i = 0; i < n; i++) {
                sorted[(size_t)i * n + i] = 0.0;
                qsort(sorted + (size_t)i * n, (size_t)n, sizeof *sorted, cmp_double);
            }
            int ng = int_grid(2, n / 2 >= 2 ? n / 2 : 2, o.max_int_points, grid);
            int ok = 1;
            for (int i = 0; i < ng && ok; i++) {
                int ms = o.min_samples > 0 ? o.min_samples : grid[i];
                if (ms > n)
                    ms = n;
                for (int r = 0; r < n; r++)
                    core[r] = sorted[(size_t)r * n + ms - 1];
                ok = tt_hdbscan_core(D, n, core, grid[i], s.cur, NULL) >= 0 &&
                     consider(&s, grid[i], ms) >= 0;
            }
            free(sorted);
            free(core);
            if (!ok)
                goto out;
            break;
        }
        case TT_M_SSSTREE:
            for (int i = 1; i <= o.npoints; i++) {
                double alpha = 0.5 * i / o.npoints;
                tt_ssstree t;
                if (tt_ssstree_build(D, n, alpha, o.ssstree_min_size, &t) != 0)
                    goto out;
                for (int d = 1; d <= t.height; d++)
                    if (tt_ssstree_labels(&t, d, s.cur) < 0 || consider(&s, alpha, d) < 0) {
                        tt_ssstree_free(&t);
                        goto out;
                    }
                tt_ssstree_free(&t);
            }
            break;
        case TT_M_COMPONENTS:
            for (int i = 0; i < o.npoints; i++) {
                /* components link d < threshold: nudge up so dmin itself links */
                double thr = geo_point(dmin, dmax, i, o.npoints) * (1.0 + 1e-9);
                if (tt_components(D, n, thr, s.cur) < 0 || consider(&s, thr, 0) < 0)
                    goto out;
            }
            break;
        default:
            goto out;
        }
    }
    if (!s.have_best || s.best_score < o.min_score) {
        /* no structure worth reporting: one group */
        for (int i = 0; i < n; i++)
            res->labels[i] = 0;
        res->nclusters = 1;
        res->param = NAN;
        res->param2 = NAN;
        res->score = s.have_best ? s.best_score : 0.0;
    }
    rc = 0;
out:
    free(s.cur);
    free(grid);
    if (rc != 0)
        tt_search_result_free(res);
    return rc;
}
