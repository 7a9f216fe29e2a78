/* Tuner cost inputs: the probe's measurement file (PLogP and LogGP
 * modes, pairs missing in fast mode filled by class, bad files named with
 * their line), and schedule signatures (equal schedules under different
 * names are recognised, different ones are not). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topology.h"
#include "costs.h"
#include "costs_probe.h"
#include "model.h"
#include "tap.h"

static char path[] = "/tmp/test_tuner_costsXXXXXX";

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* 4 ranks on 2 hosts; pairs (0,1) and (2,3) intra-host, (0,2) inter-host;
 * (0,3), (1,2), (1,3) not measured (fast mode). */
static const char *plogp_file =
    "topobcast-probe-measurements 1\n"
    "mode plogp\n"
    "nprocs 4\n"
    "options reps=8 max-size=1048576 eps=0.05 max-insert=8 min-spacing=32 k-wait=1.3 gsat-max=65536 gsat-cap=1000 "
    "batch-time=0.0001 stat=min prtt-n=8 concurrency=intra fast=0.5 seed=1\n"
    "run pairs=3 rounds=2 elapsed=0.5 wtime-overhead=1e-08\n"
    "rank 0 host=a pu=0 core=0 package=0 numa=0 world=0 group=0 measured=1\n"
    "rank 1 host=a pu=1 core=1 package=0 numa=0 world=1 group=0 measured=0\n"
    "rank 2 host=b pu=0 core=0 package=0 numa=0 world=2 group=2 measured=1\n"
    "rank 3 host=b pu=1 core=1 package=0 numa=0 world=3 group=2 measured=0\n"
    "pair 0 1 L=2e-07 sizes=3\n"
    "s 0 1e-06 1e-07 1e-07 3e-07 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "s 1024 1.2e-06 1e-07 1e-07 5e-07 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "s 1048576 1e-04 1e-07 1e-07 9.9e-05 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "pair 0 2 L=1.5e-06 sizes=2\n"
    "s 0 4e-06 2e-07 2e-07 5e-07 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "s 1048576 2e-04 2e-07 2e-07 1.9e-04 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "pair 2 3 L=3e-07 sizes=2\n"
    "s 0 1e-06 1e-07 1e-07 3e-07 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "s 1048576 1e-04 1e-07 1e-07 1.1e-04 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "end\n";

static void test_plogp(void)
{
    tn_costs c;
    char err[512] = "";
    char (*hosts)[256] = NULL;
    write_file(plogp_file);
    int rc = tn_costs_load_probe(path, NULL, &c, &hosts, err, sizeof err);
    TAP_OK(rc == 0, "PLogP file loads (%s)", err);
    if (rc != 0)
        return;
    TAP_OK(c.nprocs == 4 && hosts && !strcmp(hosts[0], "a") && !strcmp(hosts[3], "b"), "ranks and hosts read");
    tn_edge_cost e;
    tn_costs_edge(&c, 1, 0, 1024, &e);
    TAP_OK(fabs(e.L - 2e-7) < 1e-15 && fabs(e.g - 5e-7) < 1e-15 && fabs(e.os - 1e-7) < 1e-15,
           "pair (0,1) both directions, at a measured size");
    tn_costs_edge(&c, 0, 2, 524288, &e);
    TAP_OK(fabs(e.g - (5e-7 + (1.9e-4 - 5e-7) / 2)) < 1e-12, "interpolated between sizes (%.3g)", e.g);
    /* (1,3): not measured, different hosts -> the inter-host class (0,2) */
    tn_costs_edge(&c, 1, 3, 0, &e);
    TAP_OK(fabs(e.L - 1.5e-6) < 1e-15, "missing inter-host pair takes the inter-host class (L %.3g)", e.L);
    TAP_OK(tn_costs_curve(&c, 1, 2) == tn_costs_curve(&c, 0, 2) && tn_costs_curve(&c, 3, 0) == tn_costs_curve(&c, 0, 2),
           "every missing pair is filled");
    TAP_OK(strstr(c.source, "3 pairs measured") && strstr(c.source, "3 filled"), "source says what was filled (%s)",
           c.source);
    TAP_OK(c.eager_limit == 65536, "PLogP: default eager limit");
    tn_costs_free(&c);
    free(hosts);
}

static void test_loggp(void)
{
    const char *f =
        "topobcast-probe-measurements 1\n"
        "mode loggp\n"
        "nprocs 2\n"
        "options reps=8 max-size=1048576 eps=0.05 max-insert=8 min-spacing=32 k-wait=1.3 gsat-max=65536 "
        "gsat-cap=1000 batch-time=0.0001 stat=min prtt-n=8 concurrency=serial fast=1 seed=1\n"
        "run pairs=1 rounds=1 elapsed=0.1 wtime-overhead=1e-08\n"
        "rank 0 host=a pu=0 core=0 package=0 numa=0 world=0 group=0 measured=1\n"
        "rank 1 host=a pu=1 core=1 package=0 numa=0 world=1 group=0 measured=1\n"
        "pair 0 1 L=1e-06 sizes=2 loggp=1e-06,2e-07,3e-07,1e-10,32768,5e-06,5e-11\n"
        "s 0 1e-06 1e-07 1e-07 3e-07 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
        "s 1048576 1e-04 1e-07 1e-07 9.9e-05 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
        "end\n";
    write_file(f);
    tn_costs c;
    char err[512] = "";
    int rc = tn_costs_load_probe(path, NULL, &c, NULL, err, sizeof err);
    TAP_OK(rc == 0, "LogGP file loads (%s)", err);
    if (rc != 0)
        return;
    tn_edge_cost e;
    tn_costs_edge(&c, 0, 1, 1001, &e);
    TAP_OK(fabs(e.g - (3e-7 + 1000 * 1e-10)) < 1e-13 && fabs(e.os - 2e-7) < 1e-15,
           "below S: g + (m-1) G, o (g %.4g)", e.g);
    tn_costs_edge(&c, 0, 1, 65537, &e);
    TAP_OK(fabs(e.g - (5e-6 + 65536 * 5e-11)) < 1e-12, "above S: g2 + (m-1) G2 (g %.4g)", e.g);
    TAP_OK(c.eager_limit == 32768, "eager limit from the fitted switch (%zu)", c.eager_limit);
    tn_costs_free(&c);
}

static void test_bad_files(void)
{
    tn_costs c;
    char err[512] = "";
    write_file("not a probe file\n");
    TAP_OK(tn_costs_load_probe(path, NULL, &c, NULL, err, sizeof err) == -1 && strstr(err, ":1: expected"),
           "wrong magic: line 1 named (%s)", err);
    char *cut = strdup(plogp_file);
    *strstr(cut, "pair 2 3") = '\0';
    write_file(cut);
    free(cut);
    TAP_OK(tn_costs_load_probe(path, NULL, &c, NULL, err, sizeof err) == -1 && strstr(err, ":16: expected 'end'"),
           "truncated file refused at its last line (%s)", err);
    char *few = strdup(plogp_file);
    char *r3 = strstr(few, "rank 3 ");
    memmove(r3, strchr(r3, '\n') + 1, strlen(strchr(r3, '\n') + 1) + 1);
    write_file(few);
    free(few);
    TAP_OK(tn_costs_load_probe(path, NULL, &c, NULL, err, sizeof err) == -1 &&
               strstr(err, ":9: expected one 'rank' line per process"),
           "a rank line missing: refused like the probe refuses it (%s)", err);
    char *bad = strdup(plogp_file);
    char *s = strstr(bad, "s 1048576 1e-04 1e-07 1e-07 9.9e-05");
    memcpy(s, "s 0000512", 9); /* below the 1024 before it */
    write_file(bad);
    free(bad);
    TAP_OK(tn_costs_load_probe(path, NULL, &c, NULL, err, sizeof err) == -1 && strstr(err, ":13: expected ascending"),
           "sizes out of order: line named (%s)", err);
    unlink(path);
    TAP_OK(tn_costs_load_probe(path, NULL, &c, NULL, err, sizeof err) == -1 && strstr(err, path),
           "missing file named (%s)", err);
}

/* What the probe writes (tt_save_write) is what the tuner reads: a
 * 3-rank LogGP run with pair (1,2) left out, written by the probe's writer
 * and loaded as costs. */
static void test_probe_round_trip(void)
{
    tt_meas m;
    memset(&m, 0, sizeof m);
    tt_meas_opts_default(&m.opt);
    m.opt.mode = TT_MODE_LOGGP;
    m.n = 3;
    m.npairs = 2;
    m.rank = calloc(3, sizeof *m.rank);
    m.pair = calloc(2, sizeof *m.pair);
    tt_size_rec s[2][2] = {{{.m = 0, .rtt = 2e-6}, {.m = 65536, .rtt = 3e-5}},
                           {{.m = 0, .rtt = 4e-6}, {.m = 65536, .rtt = 6e-5}}};
    for (int r = 0; r < 3; r++) {
        snprintf(m.rank[r].host, sizeof m.rank[r].host, "h%d", r == 2);
        m.rank[r].group = r == 2 ? 2 : 0;
        m.rank[r].world_rank = r;
        m.rank[r].measured = 1;
    }
    for (int p = 0; p < 2; p++) {
        tt_pair_rec *q = &m.pair[p];
        q->i = 0;
        q->j = p + 1;
        q->L = 1e-6 * (p + 1);
        q->nsizes = 2;
        q->s = s[p];
        q->lg = (tt_loggp_fit){.L = q->L, .o = 1e-7, .g = 2e-7 * (p + 1), .G = 1e-10 * (p + 1), .S = 0};
    }
    FILE *f = fopen(path, "w");
    int wrc = tt_save_write(&m, f);
    fclose(f);
    free(m.rank);
    free(m.pair);
    tn_costs c;
    char err[512] = "";
    char (*hosts)[256] = NULL;
    int rc = wrc == 0 ? tn_costs_load_probe(path, NULL, &c, &hosts, err, sizeof err) : -1;
    TAP_OK(rc == 0, "a file written by tt_save_write loads (%s)", err);
    if (rc != 0)
        return;
    tn_edge_cost e;
    tn_costs_edge(&c, 2, 0, 1001, &e);
    TAP_OK(fabs(e.L - 2e-6) < 1e-18 && fabs(e.g - (4e-7 + 1000 * 2e-10)) < 1e-18 && fabs(e.os - 1e-7) < 1e-18,
           "pair (0,2) from its fit, both directions (L %.3g g %.4g)", e.L, e.g);
    TAP_OK(tn_costs_curve(&c, 1, 2) == tn_costs_curve(&c, 0, 2) && tn_costs_curve(&c, 0, 1) != tn_costs_curve(&c, 0, 2),
           "unmeasured (1,2) takes the inter-group curve of (0,2)");
    TAP_OK(c.nprocs == 3 && !strcmp(hosts[2], "h1") && c.ncurves == 2 && tn_costs_n(&c, 0) == 3,
           "ranks, hosts and LogGP samples 0, 1, top (%d curves, %d samples)", c.ncurves, tn_costs_n(&c, 0));
    tn_costs_free(&c);
    free(hosts);
}

static uint64_t sig(const char *text, int P, int root, size_t bytes)
{
    tb_alg_spec s;
    tb_plan p;
    char err[256];
    if (tb_alg_spec_parse(text, &s, err, sizeof err) != 0 || tb_plan_build(&p, P, root, &s, NULL, err, sizeof err) != 0)
        return 0;
    uint64_t h = tn_plan_signature(&p, &s, bytes);
    tb_plan_free(&p);
    return h;
}

static void test_signatures(void)
{
    TAP_OK(sig("flat", 2, 0, 64) == sig("binomial", 2, 0, 64) && sig("binary", 2, 0, 64) == sig("knomial:radix=5", 2, 0, 64),
           "P=2: every tree is the same single edge");
    TAP_OK(sig("knomial:radix=8", 6, 0, 64) == sig("flat", 6, 0, 64), "k-nomial with k >= P is the flat tree");
    TAP_OK(sig("binomial", 16, 0, 64) != sig("binary", 16, 0, 64), "binomial and binary differ at P=16");
    TAP_OK(sig("binomial", 16, 0, 64) != sig("binomial", 16, 3, 64), "the root is part of the schedule");
    TAP_OK(sig("pipeline:segment=1M", 8, 0, 4096) == sig("chain", 8, 0, 4096),
           "a segment longer than the message is no segmentation");
    TAP_OK(sig("pipeline:segment=1K", 8, 0, 4096) != sig("chain", 8, 0, 4096), "a real segment differs");
    TAP_OK(sig("binomial:send=blocking", 8, 0, 64) != sig("binomial", 8, 0, 64), "send mode is part of it");
    TAP_OK(sig("scatter_allgather", 8, 0, 4096) != sig("scatter_allgather:allgather=recursive_doubling", 8, 0, 4096),
           "the exchange is part of it");
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    test_plogp();
    test_loggp();
    test_bad_files();
    test_probe_round_trip();
    test_signatures();
    unlink(path);
    TAP_DONE();
}
