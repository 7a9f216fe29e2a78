/* k-medoids by FasterPAM (Schubert & Rousseeuw, "Fast and eager k-medoids
 * clustering", 2021).  Medoids are real ranks, so a single bad measurement
 * moves a point at most to the wrong side of one pair instead of dragging a
 * centroid; the eager swap loop is O(n^2) per pass, which is what makes a
 * search over every k affordable at P = 512. */
#include <math.h>
#include <stdlib.h>

#include "cluster.h"
#include "cluster_internal.h"

typedef struct pam {
    const double *D;
    int n, k;
    int *med;       /* [k] object index of each medoid slot */
    int *nearest;   /* [n] slot of the nearest medoid */
    int *second;    /* [n] slot of the second nearest medoid (-1 if k == 1) */
    double *dn, *ds;
    double *loss;   /* [k] removal loss of each slot */
    double *delta;  /* [k] scratch */
} pam;

#define DIST(p, i, j) ((p)->D[(size_t)(i) * (p)->n + (j)])

/* Nearest and second nearest slot of object o by a full scan. */
static void scan_point(pam *p, int o)
{
    int b1 = -1, b2 = -1;
    double d1 = INFINITY, d2 = INFINITY;
    for (int s = 0; s < p->k; s++) {
        double d = DIST(p, o, p->med[s]);
        if (d < d1) {
            b2 = b1; d2 = d1;
            b1 = s; d1 = d;
        } else if (d < d2) {
            b2 = s; d2 = d;
        }
    }
    p->nearest[o] = b1;
    p->dn[o] = d1;
    p->second[o] = b2;
    p->ds[o] = d2;
}

/* Second nearest slot of o excluding slot `not` (its nearest). */
static void rescan_second(pam *p, int o, int not)
{
    int b = -1;
    double bd = INFINITY;
    for (int s = 0; s < p->k; s++) {
        if (s == not)
            continue;
        double d = DIST(p, o, p->med[s]);
        if (d < bd) {
            bd = d;
            b = s;
        }
    }
    p->second[o] = b;
    p->ds[o] = bd;
}

static void compute_loss(pam *p)
{
    for (int s = 0; s < p->k; s++)
        p->loss[s] = 0.0;
    for (int o = 0; o < p->n; o++)
        if (p->second[o] >= 0)
            p->loss[p->nearest[o]] += p->ds[o] - p->dn[o];
}

/* Replaces the medoid in slot s by object x and repairs nearest/second. */
static void do_swap(pam *p, int s, int x)
{
    p->med[s] = x;
    const double *row = p->D + (size_t)x * p->n;
    for (int o = 0; o < p->n; o++) {
        double dx = row[o];
        if (p->nearest[o] == s) {
            if (dx <= p->ds[o]) {
                p->dn[o] = dx; /* slot s is still nearest, second unchanged */
            } else {
                /* old second becomes nearest; the new medoid may be second */
                p->nearest[o] = p->second[o];
                p->dn[o] = p->ds[o];
                rescan_second(p, o, p->nearest[o]);
            }
        } else if (dx < p->dn[o]) {
            p->second[o] = p->nearest[o];
            p->ds[o] = p->dn[o];
            p->nearest[o] = s;
            p->dn[o] = dx;
        } else if (p->second[o] == s) {
            if (dx <= p->ds[o])
                p->ds[o] = dx;
            else
                rescan_second(p, o, p->nearest[o]);
        } else if (dx < p->ds[o]) {
            p->second[o] = s;
            p->ds[o] = dx;
        }
    }
    compute_loss(p);
}

/* k-medoids++ seeding: the next medoid is drawn with probability
 * proportional to the distance to the nearest medoid chosen so far. */
static void seed_medoids(pam *p, uint64_t *rng)
{
    int n = p->n;
    double *mind = p->dn; /* scratch */
    int first = (int)(tt_rng_unit(rng) * n);
    if (first >= n)
        first = n - 1;
    p->med[0] = first;
    for (int o = 0; o < n; o++)
        mind[o] = DIST(p, o, first);
    for (int s = 1; s < p->k; s++) {
        double total = 0.0;
        for (int o = 0; o < n; o++)
            total += mind[o];
        int pick = -1;
        if (total > 0.0) {
            double r = tt_rng_unit(rng) * total;
            for (int o = 0; o < n; o++) {
                if (mind[o] <= 0.0)
                    continue;
                pick = o;
                r -= mind[o];
                if (r < 0.0)
                    break;
            }
        }
        if (pick < 0) {
            /* all remaining points coincide with medoids: take any non-medoid */
            for (int o = 0; o < n && pick < 0; o++) {
                int used = 0;
                for (int t = 0; t < s; t++)
                    used |= p->med[t] == o;
                if (!used)
                    pick = o;
            }
        }
        p->med[s] = pick;
        for (int o = 0; o < n; o++) {
            double d = DIST(p, o, pick);
            if (d < mind[o])
                mind[o] = d;
        }
    }
}

int tt_kmedoids(const double *D, int n, int k, unsigned long seed, int *labels, int *medoids,
                double *cost)
{
    if (!D || !labels || n < 1 || k < 1 || k > n)
        return -1;
    pam p = {.D = D, .n = n, .k = k};
    p.med = malloc((size_t)k * sizeof *p.med);
    p.nearest = malloc((size_t)n * sizeof *p.nearest);
    p.second = malloc((size_t)n * sizeof *p.second);
    p.dn = malloc((size_t)n * sizeof *p.dn);
    p.ds = malloc((size_t)n * sizeof *p.ds);
    p.loss = malloc((size_t)k * sizeof *p.loss);
    p.delta = malloc((size_t)k * sizeof *p.delta);
    char *is_med = calloc((size_t)n, 1);
    int rc = -1;
    if (!p.med || !p.nearest || !p.second || !p.dn || !p.ds || !p.loss || !p.delta || !is_med)
        goto out;
    uint64_t rng = (uint64_t)seed * 0x2545F4914F6CDD1DULL + 1;
    seed_medoids(&p, &rng);
    for (int s = 0; s < k; s++)
        is_med[p.med[s]] = 1;
    for (int o = 0; o < n; o++)
        scan_point(&p, o);
    compute_loss(&p);

    if (k == 1) {
        /* one medoid: the object with the smallest distance sum */
        int best = 0;
        double bsum = INFINITY;
        for (int x = 0; x < n; x++) {
            double sum = 0.0;
            for (int o = 0; o < n; o++)
                sum += DIST(&p, o, x);
            if (sum < bsum) {
                bsum = sum;
                best = x;
            }
        }
        p.med[0] = best;
        for (int o = 0; o < n; o++)
            scan_point(&p, o);
    } else if (k < n) {
        /* Eager swaps: visit candidates cyclically, apply the best swap for
         * a candidate as soon as it helps, stop after n candidates in a row
         * without one. */
        double td = 0.0;
        for (int o = 0; o < n; o++)
            td += p.dn[o];
        int since = 0, x = 0;
        long guard = (long)n * 1000;
        while (since < n && guard-- > 0) {
            if (!is_med[x]) {
                double add = 0.0;
                for (int s = 0; s < k; s++)
                    p.delta[s] = p.loss[s];
                const double *row = D + (size_t)x * n; /* symmetric: row, not column */
                for (int o = 0; o < n; o++) {
                    double d = row[o];
                    if (d < p.dn[o]) {
                        add += d - p.dn[o];
                        p.delta[p.nearest[o]] += p.dn[o] - p.ds[o];
                    } else if (d < p.ds[o]) {
                        p.delta[p.nearest[o]] += d - p.ds[o];
                    }
                }
                int bs = 0;
                for (int s = 1; s < k; s++)
                    if (p.delta[s] < p.delta[bs])
                        bs = s;
                double change = p.delta[bs] + add;
                /* a relative threshold keeps rounding from swapping forever */
                if (change < -1e-12 * td) {
                    is_med[p.med[bs]] = 0;
                    is_med[x] = 1;
                    do_swap(&p, bs, x);
                    td += change;
                    since = 0;
                } else {
                    since++;
                }
            } else {
                since++;
            }
            x = (x + 1) % n;
        }
    }
    /* Label by nearest medoid, medoids ordered by object index so labels do
     * not depend on the slot order. */
    for (int o = 0; o < n; o++)
        labels[o] = p.med[p.nearest[o]];
    for (int s = 0; s < k; s++)
        labels[p.med[s]] = p.med[s];
    rc = tt_labels_canonical(labels, n);
    if (medoids) {
        /* slot order sorted ascending for a stable interface */
        for (int s = 0; s < k; s++)
            medoids[s] = p.med[s];
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && medoids[j - 1] > medoids[j]; j--) {
                int t = medoids[j];
                medoids[j] = medoids[j - 1];
                medoids[j - 1] = t;
            }
    }
    if (cost) {
        double c = 0.0;
        for (int o = 0; o < n; o++)
            c += DIST(&p, o, p.med[p.nearest[o]]);
        *cost = c;
    }
out:
    free(p.med); free(p.nearest); free(p.second); free(p.dn); free(p.ds); free(p.loss);
    free(p.delta); free(is_med);
    return rc;
}
