/* Distance matrices from PLogP measurements: pair indexing, interpolation
 * of parameters between measured sizes, t(m) = L + (o_s+o_r)/2 + g(m), the
 * Euclidean distance of per-rank parameter vectors, and an end-to-end run
 * from PLogP data to a named level. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "tap.h"

#define US 1e-6

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1e-30);
}

static void test_pair_index(void)
{
    int n = 7, seen[21] = {0}, ok = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            size_t k = tt_pair_index(n, i, j);
            ok &= k < 21 && k == tt_pair_index(n, j, i);
            if (i < j && k < 21)
                seen[k]++;
        }
    for (int k = 0; k < 21; k++)
        ok &= seen[k] == 1;
    TAP_OK(ok, "pair index: bijection of the 21 pairs of 7 ranks onto 0..20, symmetric");
}

static void test_interp(void)
{
    double m[3] = {0, 1024, 4096}, y[3] = {1, 2, 5};
    TAP_OK(close_to(tt_interp_at(m, y, 3, 512, TT_INTERP_PIECEWISE), 1.5) &&
               close_to(tt_interp_at(m, y, 3, 2048, TT_INTERP_PIECEWISE), 3.0) &&
               close_to(tt_interp_at(m, y, 3, 4096, TT_INTERP_PIECEWISE), 5.0),
           "piecewise: 1.5 at 512, 3 at 2048, 5 at 4096");
    TAP_OK(close_to(tt_interp_at(m, y, 3, 8192, TT_INTERP_PIECEWISE), 9.0) &&
               close_to(tt_interp_at(m, y, 3, -5, TT_INTERP_PIECEWISE), 1.0),
           "piecewise: last segment extended above, clamped below");
    double m2[4] = {0, 1024, 2048, 3072}, y2[4] = {1, 2.1, 2.9, 4};
    /* least squares line through (0,1),(1024,2.1),(2048,2.9),(3072,4):
     * slope 0.98/1024, intercept 1.03 */
    TAP_OK(close_to(tt_interp_at(m2, y2, 4, 4096, TT_INTERP_LINFIT), 1.03 + 0.98 * 4),
           "linear fit: %.6f at 4096 (expected 4.95)",
           tt_interp_at(m2, y2, 4, 4096, TT_INTERP_LINFIT));
    TAP_OK(tt_interp_at(m, y, 1, 100, TT_INTERP_PIECEWISE) == 1.0, "single size: constant");
}

static void test_time_matrix(void)
{
    tt_plogp p;
    TAP_OK(tt_plogp_alloc(&p, 3) == 0, "plogp alloc");
    double m[3] = {0, 1024, 65536};
    double os[3] = {0.4 * US, 0.5 * US, 10 * US};
    double orr[3] = {0.2 * US, 0.3 * US, 6 * US};
    double g[3] = {0.1 * US, 0.6 * US, 20 * US};
    double bad_m[2] = {8, 8};
    TAP_OK(tt_plogp_set_pair(&p, 0, 1, 1 * US, 2, bad_m, os, orr, g) == -1,
           "sizes must ascend strictly");
    TAP_OK(tt_plogp_set_pair(&p, 1, 0, 1 * US, 3, m, os, orr, g) == 0 &&
               tt_plogp_set_pair(&p, 0, 2, 2 * US, 3, m, os, orr, g) == 0,
           "set pairs (either order)");
    /* t(1024) = L + (0.5 + 0.3)/2 + 0.6 = 1 + 0.4 + 0.6 = 2 us */
    const tt_plogp_pair *q = &p.pair[tt_pair_index(3, 0, 1)];
    TAP_OK(close_to(tt_plogp_time(q, 1024, TT_INTERP_PIECEWISE), 2.0 * US),
           "t(1024) = L + (o_s+o_r)/2 + g = 2 us");
    /* t(512): o_s 0.45, o_r 0.25, g 0.35 -> 1 + 0.35 + 0.35 = 1.7 us */
    TAP_OK(close_to(tt_plogp_time(q, 512, TT_INTERP_PIECEWISE), 1.7 * US),
           "t(512) interpolated = 1.7 us");
    double D[9];
    tt_distance_time(&p, 1024, TT_INTERP_PIECEWISE, D);
    TAP_OK(close_to(D[1], 2 * US) && close_to(D[3], 2 * US) && close_to(D[2], 3 * US) &&
               D[0] == 0 && isnan(D[5]) && isnan(D[7]),
           "D(1024): symmetric, zero diagonal, unmeasured pair NAN");
    TAP_OK(tt_distance_check(D, 3) == -1, "a matrix with NAN is rejected");
    tt_plogp_set_pair(&p, 1, 2, 1 * US, 3, m, os, orr, g);
    tt_distance_time(&p, 1024, TT_INTERP_PIECEWISE, D);
    TAP_OK(tt_distance_check(D, 3) == 0, "complete matrix accepted");
    tt_plogp_free(&p);

    double A[4] = {0, 1, 2, 0};
    TAP_OK(tt_distance_check(A, 2) == -1, "asymmetric matrix rejected");
    tt_distance_symmetrize(A, 2);
    TAP_OK(A[1] == 1.5 && A[2] == 1.5 && tt_distance_check(A, 2) == 0, "symmetrize averages");
    double B[4] = {0, -1, -1, 0}, C[4] = {1, 1, 1, 0};
    TAP_OK(tt_distance_check(B, 2) == -1 && tt_distance_check(C, 2) == -1,
           "negative entries and non-zero diagonal rejected");
}

static void test_vectors(void)
{
    /* L only (other parameters 0): pairs (0,1)=2, (0,2)=4, (1,2)=6.
     * V0 = [0,2,4], V1 = [2,0,6], V2 = [4,6,0].  Thesis form (all k):
     * d01 = sqrt(4+4+4), d02 = sqrt(16+16+16), d12 = sqrt(4+36+36);
     * third ranks only: d01 = |4-6| = 2, d02 = |2-6| = 4, d12 = |2-4| = 2. */
    tt_plogp p;
    tt_plogp_alloc(&p, 3);
    double m[1] = {0}, z[1] = {0};
    tt_plogp_set_pair(&p, 0, 1, 2, 1, m, z, z, z);
    tt_plogp_set_pair(&p, 0, 2, 4, 1, m, z, z, z);
    tt_plogp_set_pair(&p, 1, 2, 6, 1, m, z, z, z);
    double D[9];
    tt_distance_vectors(&p, 0, TT_INTERP_PIECEWISE, TT_VEC_THESIS_DIAGONAL, D);
    TAP_OK(close_to(D[1], sqrt(12)) && close_to(D[2], sqrt(48)) && close_to(D[5], sqrt(76)) &&
               close_to(D[3], D[1]) && D[4] == 0,
           "thesis vector distance by hand: sqrt(12), sqrt(48), sqrt(76)");
    tt_distance_vectors(&p, 0, TT_INTERP_PIECEWISE, 0, D);
    TAP_OK(close_to(D[1], 2) && close_to(D[2], 4) && close_to(D[5], 2) && close_to(D[7], 2),
           "third-rank vector distance by hand: 2, 4, 2");
    /* standardised: L has sd 2 over the pairs, so everything halves */
    tt_distance_vectors(&p, 0, TT_INTERP_PIECEWISE, TT_VEC_STANDARDIZE | TT_VEC_THESIS_DIAGONAL,
                        D);
    TAP_OK(close_to(D[1], sqrt(3)) && close_to(D[2], sqrt(12)) && close_to(D[5], sqrt(19)),
           "standardised thesis vector distance: sqrt(3), sqrt(12), sqrt(19)");
    tt_plogp_free(&p);
}

/* End to end: 2 nodes x 2 sockets x 3 ranks of PLogP data whose L, o_s,
 * o_r and g grow with the distance class, through D(m) and levels. */
/* which: 0 = D(0) from t(m), 1 = third-rank vectors, 2 = thesis vectors.
 * ok[which]: node and socket levels found and named; node_top[which]: the
 * coarsest level is the node level. */
static void end_to_end(double noise_amp, int *ok, int *node_top)
{
    int n = 12;
    tt_plogp p;
    tt_plogp_alloc(&p, n);
    double m[4] = {0, 1024, 16384, 1 << 20};
    int *node = malloc(n * sizeof(int)), *sock = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        node[i] = i / 6;
        sock[i] = i / 3;
    }
    unsigned s = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            /* farther = higher latency and gap, but lower overheads (large
             * shared-memory copies cost the CPU more than a NIC transfer) */
            double cls = sock[i] == sock[j] ? 1 : node[i] == node[j] ? 2 : 8;
            double os[4], orr[4], g[4];
            for (int k = 0; k < 4; k++) {
                s = s * 1103515245u + 12345u;
                double noise = 1.0 + noise_amp * (((s >> 8) % 1000) / 500.0 - 1.0);
                os[k] = (0.2 + m[k] * 1e-5 / cls) * US * noise;
                orr[k] = (0.1 + m[k] * 1e-5 / cls) * US * noise;
                g[k] = (0.1 * cls + m[k] * 1e-4 * cls) * US * noise;
            }
            tt_plogp_set_pair(&p, i, j, 0.3 * cls * US, 4, m, os, orr, g);
        }
    double *D = malloc((size_t)n * n * sizeof *D);
    static const char *const what[3] = {"time D(0)", "vectors", "thesis vectors"};
    for (int which = 0; which < 3; which++) {
        if (which == 0)
            tt_distance_time(&p, 0, TT_INTERP_PIECEWISE, D);
        else
            tt_distance_vectors(&p, 65536, TT_INTERP_PIECEWISE,
                                TT_VEC_STANDARDIZE | (which == 2 ? TT_VEC_THESIS_DIAGONAL : 0), D);
        tt_dendrogram dg;
        tt_hierarchy h;
        tt_agglomerative(D, n, TT_LINK_AVERAGE, &dg);
        tt_levels_from_dendrogram(&dg, NULL, &h);
        tt_truth truth[2] = {{"node", node}, {"socket", sock}};
        int named = tt_levels_name(&h, truth, 2, 1.0);
        printf("# noise %.1f%% %s: %d levels:", noise_amp * 100, what[which], h.nlevels);
        for (int l = 0; l < h.nlevels; l++)
            printf(" %s(%d, gap %.2f)", h.name[l], h.nclusters[l], h.gap[l]);
        printf("\n");
        ok[which] = h.nlevels == 2 && named == 2 && !strcmp(h.name[0], "node") &&
                    !strcmp(h.name[1], "socket");
        node_top[which] = h.nlevels >= 1 && !strcmp(h.name[0], "node");
        tt_hierarchy_free(&h);
        tt_dendrogram_free(&dg);
    }
    free(D);
    free(node);
    free(sock);
    tt_plogp_free(&p);
}

static void test_end_to_end(void)
{
    int ok[3], top[3];
    end_to_end(0.04, ok, top);
    TAP_OK(ok[0], "4%% noise: PLogP -> D(0) -> average linkage -> levels named node, socket");
    TAP_OK(ok[1], "4%% noise: PLogP -> third-rank vectors at 64 KiB -> levels node, socket");
    /* the thesis form puts the pair's own (higher intra-socket) overheads
     * into the distance: the socket level is lost */
    TAP_OK(top[2] && !ok[2], "4%% noise: thesis vectors find the node level but not the sockets");
}

int main(void)
{
    test_pair_index();
    test_interp();
    test_time_matrix();
    test_vectors();
    test_end_to_end();
    TAP_DONE();
}
