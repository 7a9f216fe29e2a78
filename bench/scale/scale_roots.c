/* What a broadcast from a new root costs one process once its
 * communicator's schedule cache (16 (root, algorithm) pairs) is full, as in
 * a loop over every root: per call, in microseconds, the median of 5
 * batches of calls from rotating roots.
 *
 *   built    tb_schedule_build: the whole plan for that root, one rank's
 *            part kept (what every such call cost before the root-0 plans)
 *   rotated  tb_schedule_rotated from the kept plan for root 0 (what the
 *            library does for the algorithms whose plan rotates with the
 *            root); "-" for the topology-aware ones, which are built
 *
 * Ranks are placed as on betzy-nps4 (16 ranks per NUMA domain, 64 per
 * socket, 128 per node, 1024 per group), so the topology-aware plans see
 * four levels.  A benchmark, not a test (`make bench-scale`).
 *
 * Usage: scale_roots P [SPEC ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hier.h"
#include "schedule.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over 5 batches of n calls of one way (rotated or not) to get
 * rank me's schedule for rotating roots, in microseconds per call; -1 on
 * an error. */
static double per_call(int P, const tb_alg_spec *spec, const tb_hier *h, const tb_plan *p0, int n)
{
    double t[5];
    char err[256];
    int me = P / 3;
    for (int b = 0; b < 5; b++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
            int root = (int)(((long)(b * n + i) * 977) % P);
            tb_schedule s;
            int rc = p0 ? tb_schedule_rotated(&s, p0, root, me, spec)
                        : tb_schedule_build(&s, P, root, me, spec, h, err, sizeof err);
            if (rc != 0)
                return -1;
            tb_schedule_free(&s);
        }
        t[b] = 1e6 * (now() - t0) / n;
    }
    qsort(t, 5, sizeof t[0], cmp_double);
    return t[2];
}

int main(int argc, char **argv)
{
    if (argc < 2 || atoi(argv[1]) < 2) {
        fprintf(stderr, "usage: scale_roots P [SPEC ...]\n");
        return 2;
    }
    int P = atoi(argv[1]);
    static const char *const dflt[] = {"binomial", "dbt", "scatter_allgather", "bine", "circulant",
                                       "interpipe:segment=32K,levels=node/socket/numa,base=dbt,leaders=2",
                                       "distance_tree"};
    const char *const *specs = argc > 2 ? (const char *const *)argv + 2 : dflt;
    int nspecs = argc > 2 ? argc - 2 : (int)(sizeof dflt / sizeof dflt[0]);
    tb_hier h;
    static const int per[4] = {1024, 128, 64, 16};
    static const char *const names[4] = {"group", "node", "socket", "numa"};
    if (tb_hier_alloc(&h, P, 4) != 0)
        return 1;
    for (int l = 0; l < 4; l++) {
        snprintf(h.level_name[l], TB_LEVEL_NAME_MAX, "%s", names[l]);
        for (int r = 0; r < P; r++)
            h.group[l][r] = r / per[l];
        h.ngroups[l] = (P + per[l] - 1) / per[l];
    }
    for (int i = 0; i < nspecs; i++) {
        tb_alg_spec spec;
        char err[256];
        if (tb_alg_spec_parse(specs[i], &spec, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", specs[i], err);
            return 1;
        }
        int n = P >= 16384 ? 20 : 50;
        double built = per_call(P, &spec, &h, NULL, n), rotated = -1;
        if (tb_plan_rotates(&spec)) {
            tb_plan p0;
            if (tb_plan_build(&p0, P, 0, &spec, &h, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", specs[i], err);
                return 1;
            }
            rotated = per_call(P, &spec, &h, &p0, 50 * n);
            tb_plan_free(&p0);
        }
        char rot[32] = "-";
        if (rotated >= 0)
            snprintf(rot, sizeof rot, "%.2f", rotated);
        printf("%6d  %-66s %10.1f %10s\n", P, specs[i], built, rot);
    }
    tb_hier_free(&h);
    return 0;
}
