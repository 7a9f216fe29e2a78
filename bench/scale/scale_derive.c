/* What the first MPI_Bcast on MPI_COMM_WORLD costs one process, without
 * MPI: the identity records the allgather would deliver (synthetic: rank r
 * on calibration leaf r), the hierarchy derived from them and the loaded
 * topology, and one rank's schedule for the table's algorithm.  Prints the
 * time of derivation + schedule and the memory they add to the process
 * (peak RSS over the RSS after loading; /proc/self/clear_refs resets the
 * peak).  Built against this tree, or with -DSCALE_OLD_API against the
 * library before format 2 (256-byte host names in each identity), for the
 * baseline of bench/scale/run.sh.
 *
 *   scale_derive FILE [SPEC [RANK]]     SPEC default distance_tree */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "schedule.h"
#include "topo/map.h"

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0)
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: scale_derive FILE [SPEC [RANK]]\n");
        return 2;
    }
    tb_config cfg;
    char err[1024], why[512];
    if (tb_config_load(argv[1], &cfg, err, sizeof err) != 0 || !cfg.has_topology) {
        fprintf(stderr, "scale_derive: %s\n", cfg.has_topology ? err : "no topology");
        return 1;
    }
    const tb_topology *t = &cfg.topo;
    int P = t->nleaves, me = argc > 3 ? atoi(argv[3]) : 0;
    tb_alg_spec spec;
    if (tb_config_parse_spec(&cfg, argc > 2 ? argv[2] : "distance_tree", &spec, err, sizeof err) != 0) {
        fprintf(stderr, "scale_derive: %s\n", err);
        return 1;
    }
    FILE *cr = fopen("/proc/self/clear_refs", "w"); /* peak RSS := current */
    if (cr) {
        fputs("5", cr);
        fclose(cr);
    }
    long rss0 = status_kb("VmRSS:");
    double t0 = now();
#ifdef SCALE_OLD_API
    tb_identity *ids = calloc((size_t)P, sizeof *ids); /* 288 bytes a rank */
    for (int r = 0; r < P; r++) {
        snprintf(ids[r].host, sizeof ids[r].host, "%s", t->leaves[r].host);
        ids[r].bound = 1;
        ids[r].pu = t->leaves[r].pu;
        ids[r].package = ids[r].numa = -1;
        ids[r].world_rank = r;
    }
#else
    tb_ident_rec *ids = calloc((size_t)P, sizeof *ids); /* 32 bytes a rank */
    for (int r = 0; r < P; r++) {
        tb_identity id;
        memset(&id, 0, sizeof id);
        snprintf(id.host, sizeof id.host, "%s", t->hosts[t->leaves[r].host]);
        id.bound = 1;
        id.pu = t->leaves[r].pu;
        id.package = id.numa = -1;
        id.world_rank = r;
        ids[r] = tb_ident_rec_of(&id);
    }
#endif
    double t1 = now();
    tb_hier h;
    if (tb_topo_derive(ids, P, tb_config_topology(&cfg), &h, NULL, why, sizeof why) != 0) {
        fprintf(stderr, "scale_derive: %s\n", why);
        return 1;
    }
    double t2 = now();
    long peak_derive = status_kb("VmHWM:");
    tb_schedule s;
    if (tb_schedule_build(&s, P, 0, me, &spec, &h, err, sizeof err) != 0) {
        fprintf(stderr, "scale_derive: %s\n", err);
        return 1;
    }
    double t3 = now();
    long peak = status_kb("VmHWM:");
    char sp[256];
    tb_alg_spec_format(&spec, sp, sizeof sp);
    printf("P=%d levels=%d identities %.3f s, derive %.3f s, schedule(%s) %.3f s; added peak RSS %.1f MB "
           "(identities %.1f MB, after derive %.1f MB)\n",
           P, h.nlevels, t1 - t0, t2 - t1, sp, t3 - t2, (double)(peak - rss0) / 1024.0,
           (double)sizeof *ids * P / 1048576.0, (double)(peak_derive - rss0) / 1024.0);
    tb_schedule_free(&s);
    tb_hier_free(&h);
    free(ids);
    tb_config_free(&cfg);
    return 0;
}
