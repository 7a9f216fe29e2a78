/* The library's per-process start-up work at a given P, in one process and
 * without MPI ranks (bench/scale/README.md):
 *
 *   startup none   FILE   nothing (the process's own footprint)
 *   startup load   FILE   tb_config_load(FILE)
 *   startup derive FILE   load, then what the first MPI_Bcast on
 *                         MPI_COMM_WORLD does after the identity exchange:
 *                         tb_topo_derive from every rank's identity (taken
 *                         from the file's leaves: host, PU as the topology
 *                         says), then one schedule per algorithm and rank
 *
 * Prints one line of key=value figures: CPU seconds by clock_gettime
 * (derive and schedules: the median of REPS calls, default 5); MB of resident
 * memory from /proc/self/status.  What derive adds is measured from a clean
 * start: after the load, free memory goes back to the system (malloc_trim)
 * and the peak is reset (clear_refs), so pages the load freed cannot hide
 * what derive touches.  bench/scale/startup.sh wraps each run in
 * /usr/bin/time -v.  MPI is linked (libtopobcast.a calls PMPI) but never
 * initialised. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "schedule.h"
#include "topo_map.h"

/* CPU seconds of this process: on a shared box wall time measures the
 * other jobs too; the phases are single-threaded, so on an idle machine
 * wall = CPU. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* VmRSS or VmHWM (peak) of this process, MB; -1 if unreadable. */
static double status_mb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1024;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            kb = atof(line + n + 1);
    if (f)
        fclose(f);
    return kb / 1024.0;
}

/* Restarts the peak at the current RSS (also what the kernel reports as
 * the process's maximum at exit: /usr/bin/time's figure of a derive run
 * is that of its last phase). */
static void peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define REPS_MAX 99
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Every rank's identity as the exchange would deliver it: comm rank r is
 * calibration rank r, on its leaf's host and PU; node = lowest rank on the
 * same host. */
static tb_identity *identities(const tb_topology *t)
{
    tb_identity *ids = calloc((size_t)t->nleaves, sizeof *ids);
    int *first = malloc(sizeof(int) * (size_t)t->nhosts);
    if (!ids || !first) {
        free(ids);
        free(first);
        return NULL;
    }
    for (int h = 0; h < t->nhosts; h++)
        first[h] = -1;
    for (int r = 0; r < t->nleaves; r++) {
        const tb_topo_leaf *l = &t->leaves[r];
        tb_identity *id = &ids[r];
        int h = 0;
        while (h < t->nhosts && strcmp(t->hosts[h], l->host) != 0)
            h++;
        if (h < t->nhosts && first[h] < 0)
            first[h] = r;
        snprintf(id->host, sizeof id->host, "%s", l->host);
        id->bound = l->pu >= 0;
        id->pu = l->pu;
        id->core = l->core;
        id->package = l->package;
        id->numa = l->numa;
        id->node = h < t->nhosts ? first[h] : r;
        id->world_rank = r;
    }
    free(first);
    return ids;
}

/* Milliseconds to build rank me's schedule of spec (root 0), median of
 * reps builds; -1 on error. */
static double schedule_ms(const char *spec_text, int size, int me, const tb_hier *h, int reps)
{
    tb_alg_spec spec;
    tb_schedule s;
    char err[256];
    if (tb_alg_spec_parse(spec_text, &spec, err, sizeof err) != 0) {
        fprintf(stderr, "startup: %s: %s\n", spec_text, err);
        return -1;
    }
    double ms[REPS_MAX];
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        if (tb_schedule_build(&s, size, 0, me, &spec, h, err, sizeof err) != 0) {
            fprintf(stderr, "startup: %s at rank %d: %s\n", spec_text, me, err);
            return -1;
        }
        ms[i] = (now() - t0) * 1e3;
        tb_schedule_free(&s);
    }
    return median(ms, reps);
}

int main(int argc, char **argv)
{
    int reps = argc == 4 ? atoi(argv[3]) : 5;
    if (argc < 3 || argc > 4 || reps < 1 || reps > REPS_MAX ||
        (strcmp(argv[1], "none") && strcmp(argv[1], "load") && strcmp(argv[1], "derive"))) {
        fprintf(stderr, "usage: startup none|load|derive FILE [REPS]\n");
        return 2;
    }
    const char *phase = argv[1], *file = argv[2];
    printf("phase=%s base_MB=%.1f", phase, status_mb("VmHWM"));
    if (!strcmp(phase, "none")) {
        printf("\n");
        return 0;
    }
    static tb_config cfg;
    char err[1024];
    double t0 = now();
    if (tb_config_load(file, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "startup: %s\n", err);
        return 1;
    }
    printf(" load_s=%.4f load_peak_MB=%.1f", now() - t0, status_mb("VmHWM"));
    malloc_trim(0);
    double kept = status_mb("VmRSS");
    printf(" kept_MB=%.1f", kept);
    if (!strcmp(phase, "load") || !cfg.has_topology) {
        printf("%s\n", cfg.has_topology ? "" : " (no topology)");
        tb_config_free(&cfg);
        return 0;
    }
    peak_reset();
    /* the identity exchange's result, then the derivation from it */
    int p = cfg.topo.nleaves;
    tb_identity *ids = identities(&cfg.topo);
    if (!ids) {
        fprintf(stderr, "startup: out of memory\n");
        return 1;
    }
    tb_hier h;
    char why[512];
    double sec[REPS_MAX];
    for (int i = 0; i < reps; i++) {
        t0 = now();
        if (tb_topo_derive(ids, p, p, &cfg, &h, why, sizeof why) != 0) {
            fprintf(stderr, "startup: tb_topo_derive: %s\n", why);
            return 1;
        }
        sec[i] = now() - t0;
        if (i < reps - 1)
            tb_hier_free(&h);
    }
    printf(" ids_MB=%.1f derive_s=%.4f derive_add_MB=%.1f levels=%d", (double)p * sizeof *ids / 1048576.0,
           median(sec, reps), status_mb("VmHWM") - kept, h.nlevels);
    static const char *const algs[] = {"magpie", "binomial"};
    for (int a = 0; a < 2; a++)
        printf(" %s_ms=%.2f/%.2f", algs[a], schedule_ms(algs[a], p, 0, &h, reps),
               schedule_ms(algs[a], p, p - 1, &h, reps));
    printf(" total_add_MB=%.1f\n", status_mb("VmHWM") - kept);
    tb_hier_free(&h);
    free(ids);
    tb_config_free(&cfg);
    return 0;
}
