/* Bufe graph view: switches found as equal-latency cliques, virtual
 * switch-to-switch edges removed, edge latencies fitted by least squares,
 * DOT and TGF output well-formed. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "tap.h"
#include "test_cluster_rng.h"

#define US 1e-6

static uint64_t rng_state = 777;
static double urand(void)
{
    return xorshift_unit(&rng_state);
}

/* Latency matrix of a tree given per object its switch and the switch
 * distance matrix: leaf + switch path + leaf, times (1 +- noise). */
static double *tree_latency(int n, const int *sw, const double *swdist, int nsw, double leaf,
                            double noise)
{
    double *L = calloc((size_t)n * n, sizeof *L);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double v = 2 * leaf + swdist[sw[i] * nsw + sw[j]];
            v *= 1.0 + noise * (2 * urand() - 1);
            L[i * n + j] = L[j * n + i] = v * US;
        }
    return L;
}

static int count_edges(const tt_graph *g, int kind_u_switch, int kind_v_switch)
{
    int c = 0;
    for (int e = 0; e < g->nedges; e++) {
        int su = g->edge[e].u >= g->nobj, sv = g->edge[e].v >= g->nobj;
        if ((su == kind_u_switch && sv == kind_v_switch) ||
            (su == kind_v_switch && sv == kind_u_switch))
            c++;
    }
    return c;
}

/* every object has exactly one edge, to a switch */
static int objects_are_leaves(const tt_graph *g)
{
    for (int v = 0; v < g->nobj; v++) {
        int deg = 0, to_sw = 0;
        for (int e = 0; e < g->nedges; e++)
            if (g->edge[e].u == v || g->edge[e].v == v) {
                deg++;
                to_sw += (g->edge[e].u == v ? g->edge[e].v : g->edge[e].u) >= g->nobj;
            }
        if (deg != 1 || to_sw != 1)
            return 0;
    }
    return 1;
}

static int edges_within(const tt_graph *g, int switches, double expect, double tol)
{
    for (int e = 0; e < g->nedges; e++) {
        int ss = g->edge[e].u >= g->nobj && g->edge[e].v >= g->nobj;
        if (ss == switches && fabs(g->edge[e].lat - expect * US) > tol * expect * US) {
            printf("# link %d-%d: %.4f us, expected %.4f +- %.0f%%\n", g->edge[e].u, g->edge[e].v,
                   g->edge[e].lat / US, expect, tol * 100);
            return 0;
        }
    }
    return 1;
}

static void test_star(void)
{
    int n = 5, sw[5] = {0, 0, 0, 0, 0};
    double swd[1] = {0};
    double *L = tree_latency(n, sw, swd, 1, 1.0, 0.02);
    tt_graph g;
    TAP_OK(tt_graph_build(L, n, NULL, &g) == 0, "star: graph builds");
    TAP_OK(tt_graph_switches(&g) == 1 && g.nedges == 5 && objects_are_leaves(&g),
           "star of 5 with 2%% noise: one switch, 5 links (switches %d, edges %d)",
           tt_graph_switches(&g), g.nedges);
    TAP_OK(tt_graph_fit(&g, L) == 0 && !g.rank_deficient, "star: least squares fit");
    TAP_OK(edges_within(&g, 0, 1.0, 0.05), "star: every link fitted to 1us +-5%%");
    tt_graph_free(&g);
    free(L);
}

static void test_two_switches(void)
{
    int n = 6, sw[6] = {0, 0, 0, 1, 1, 1};
    double swd[4] = {0, 3, 3, 0};
    /* 1% noise on 2-5 us moves a leaf estimate by up to ~3% */
    double *L = tree_latency(n, sw, swd, 2, 1.0, 0.01);
    tt_graph g;
    tt_graph_build(L, n, NULL, &g);
    TAP_OK(tt_graph_switches(&g) == 2 && count_edges(&g, 1, 1) == 1 && objects_are_leaves(&g),
           "two switches (2us inside, 5us across, 1%% noise): 2 switches, 1 switch link (switches %d, "
           "switch links %d)",
           tt_graph_switches(&g), count_edges(&g, 1, 1));
    TAP_OK(tt_graph_fit(&g, L) == 0, "two switches: fit");
    TAP_OK(edges_within(&g, 0, 1.0, 0.05) && edges_within(&g, 1, 3.0, 0.05),
           "two switches: leaf links 1us, switch link 3us (+-5%%), R^2 %.4f", g.r2);
    TAP_OK(g.r2 > 0.99, "two switches: R^2 > 0.99");
    FILE *f = tmpfile();
    const char *names[6] = {"a", "b", "c", "node \"d\"", "e", "f"};
    TAP_OK(tt_graph_write_dot(&g, names, f) == 0, "DOT written");
    rewind(f);
    char line[512];
    int lines = 0, links = 0, vertices = 0, quotes_ok = 1, first_ok = 0, last_close = 0;
    while (fgets(line, sizeof line, f)) {
        if (lines == 0)
            first_ok = strcmp(line, "graph topology {\n") == 0;
        last_close = strcmp(line, "}\n") == 0;
        if (strstr(line, " -- "))
            links++;
        if (strstr(line, "shape="))
            vertices++;
        int q = 0;
        for (char *p = line; *p; p++)
            if (*p == '"' && (p == line || p[-1] != '\\'))
                q++;
        quotes_ok &= q % 2 == 0;
        lines++;
    }
    fclose(f);
    TAP_OK(first_ok && last_close && links == g.nedges && vertices == g.nvert && quotes_ok,
           "DOT well-formed: header, %d vertices, %d links, balanced quotes, closing brace",
           vertices, links);
    f = tmpfile();
    TAP_OK(tt_graph_write_tgf(&g, NULL, f) == 0, "TGF written");
    rewind(f);
    int phase = 0, nv = 0, ne = 0, ok = 1;
    while (fgets(line, sizeof line, f)) {
        if (strcmp(line, "#\n") == 0) {
            ok &= phase == 0;
            phase = 1;
            continue;
        }
        int a, b;
        double l;
        if (phase == 0) {
            ok &= sscanf(line, "%d", &a) == 1 && a == nv + 1;
            nv++;
        } else {
            ok &= sscanf(line, "%d %d l: %lfus", &a, &b, &l) == 3 && a >= 1 && a <= g.nvert &&
                  b >= 1 && b <= g.nvert && a != b && l > 0;
            ne++;
        }
    }
    fclose(f);
    TAP_OK(ok && phase == 1 && nv == g.nvert && ne == g.nedges,
           "TGF well-formed: %d vertices numbered 1.., '#', %d edges with latencies", nv, ne);
    tt_graph_free(&g);
    free(L);
}

/* Bufe table 2.2: three groups of three at 2, 4 between groups. */
static void test_bufe_example(void)
{
    int n = 9;
    double L[81];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            L[i * n + j] = i == j ? 0 : (i / 3 == j / 3 ? 2 : 4) * US;
    tt_graph g;
    tt_graph_build(L, n, NULL, &g);
    TAP_OK(tt_graph_switches(&g) == 4 && g.nedges == 12 && objects_are_leaves(&g) &&
               count_edges(&g, 1, 1) == 3,
           "Bufe table 2.2: 3 group switches + 1 joining them (switches %d, edges %d)",
           tt_graph_switches(&g), g.nedges);
    tt_graph_fit(&g, L);
    TAP_OK(edges_within(&g, 0, 1.0, 1e-9) && edges_within(&g, 1, 1.0, 1e-9) && fabs(g.r2 - 1) < 1e-9,
           "Bufe table 2.2: every link exactly 1 after the fit");
    tt_graph_free(&g);
}

/* Bufe fig. 2.13: four switches in a cycle; the diagonals are virtual. */
static void test_cycle(void)
{
    int n = 12, sw[12];
    for (int i = 0; i < n; i++)
        sw[i] = i / 3;
    double swd[16];
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            int d = abs(a - b);
            swd[a * 4 + b] = 2.0 * (d == 3 ? 1 : d);
        }
    double *L = tree_latency(n, sw, swd, 4, 1.0, 0.0);
    tt_graph g;
    tt_graph_build(L, n, NULL, &g);
    int cyc = 1;
    for (int e = 0; e < g.nedges; e++)
        if (g.edge[e].u >= n && g.edge[e].v >= n)
            cyc &= fabs(g.edge[e].lat - 2 * US) < 1e-12;
    TAP_OK(tt_graph_switches(&g) == 4 && count_edges(&g, 1, 1) == 4 && cyc &&
               objects_are_leaves(&g),
           "cycle of 4 switches: 4 switch links of 2us, diagonals removed (switches %d, switch "
           "links %d)",
           tt_graph_switches(&g), count_edges(&g, 1, 1));
    tt_graph_fit(&g, L);
    TAP_OK(fabs(g.r2 - 1) < 1e-9 && edges_within(&g, 1, 2.0, 1e-6), "cycle: exact fit, R^2 1");
    tt_graph_free(&g);
    free(L);
}

/* The clustering test machine: 2 islands x 4 nodes x 2 sockets x 4 ranks,
 * 0.3/0.6/2/4 us.  Expected: 16 socket + 8 node + 2 island + 1 top switch. */
static void test_hierarchy(int islands, int nodes, double noise, int expect_ok)
{
    int sockets = 2, ranks = 4, n = islands * nodes * sockets * ranks;
    double *L = malloc((size_t)n * n * sizeof *L);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double b = i / ranks == j / ranks           ? 0.3
                       : i / (ranks * sockets) == j / (ranks * sockets) ? 0.6
                       : i / (ranks * sockets * nodes) == j / (ranks * sockets * nodes) ? 2.0
                                                                          : 4.0;
            double v = i == j ? 0 : b * US * (1 + noise * (2 * urand() - 1));
            L[i * n + j] = L[j * n + i] = v;
        }
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    tt_graph g;
    tt_graph_build(L, n, NULL, &g);
    int fit = tt_graph_fit(&g, L);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    /* two island switches link directly: no top switch (a pair only becomes
     * a switch when a third vertex sees both alike) */
    int expect_sw = islands * nodes * sockets + islands * nodes + islands + (islands > 2);
    printf("# hierarchy %d ranks noise %.0f%%: %d switches, %d links, R^2 %.4f, %.3fs CPU\n", n,
           noise * 100, tt_graph_switches(&g), g.nedges, g.r2,
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    if (expect_ok) {
        TAP_OK(tt_graph_switches(&g) == expect_sw && objects_are_leaves(&g) &&
                   g.nedges == n + expect_sw - 1,
               "%d ranks (%.0f%% noise): a tree of %d switches (got %d switches, %d links)", n,
               noise * 100, expect_sw, tt_graph_switches(&g), g.nedges);
        TAP_OK(fit == 0 && g.r2 > 0.98, "%d ranks: fit R^2 %.4f > 0.98", n, g.r2);
    }
    tt_graph_free(&g);
    free(L);
}

int main(int argc, char **argv)
{
    int small = argc > 1 && !strcmp(argv[1], "--small");
    test_star();
    test_two_switches();
    test_bufe_example();
    test_cycle();
    test_hierarchy(2, 4, 0.0, 1);
    test_hierarchy(2, 4, 0.02, 1);
    if (!small)
        test_hierarchy(4, 8, 0.02, 1);
    TAP_DONE();
}
