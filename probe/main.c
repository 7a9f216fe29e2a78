/* topobcast-probe: measure PLogP (or LogGP) between all pairs of ranks and
 * write the topology they reveal.
 *
 *   mpiexec -n P topobcast-probe [options] -o topo.yaml [--save run.txt]
 *   topobcast-probe --analyze run.txt [options] -o topo.yaml   (no MPI)
 *   topobcast-probe --compose NET.yaml --node-pass NAME=NODE.yaml ... -o site.yaml
 *   topobcast-probe --merge A.yaml B.yaml ... -o site.yaml
 *   topobcast-probe --check FILE [--hosts LIST [--ppn N] [--bound]]
 *
 * --help, --analyze, --compose, --merge and --check are handled before
 * MPI_Init, so none needs an MPI launcher (commands.h). */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../timing/timing.h"
#include "commands.h"
#include "topology.h"
#include "config.h"
#include "harness.h"
#include "plogp.h"
#include "sample_plan.h"
#include "tools.h"

typedef struct cli {
    tt_meas_opts meas;
    tt_analysis_opts an;
    const char *save, *output, *analyze, *truth, *graph, *groups, *check, *hosts;
    int validate, quiet, no_distance, ppn, bound;
    tbp_progress_mode progress;
} cli;

static void usage(FILE *out)
{
    fprintf(out,
"usage: mpiexec -n P topobcast-probe [options]        measure and analyse\n"
"       topobcast-probe --analyze FILE [options]      re-analyse a saved run, no MPI\n"
"       topobcast-probe --compose NET.yaml [--node-pass NAME=NODE.yaml]...\n"
"                       [--node-type NAME=HOSTLIST]... -o SITE.yaml\n"
"       topobcast-probe --merge A.yaml B.yaml [...] [--node-type NAME=HOSTLIST]... -o SITE.yaml\n"
"       topobcast-probe --check FILE [--hosts HOSTLIST [--ppn N] [--bound]]\n"
"\n"
"Measurement (every pair i<j of ranks, sender i):\n"
"  --mode plogp|loggp      PLogP after Kielmann et al. (default) or LogGP by\n"
"                          Hoefler's PRTT(n,d,s)\n"
"  -M, --max-size SIZE     largest message, sizes 0,1,2,4..SIZE (default 1M;\n"
"                          K/M/G suffixes are binary)\n"
"  -R, --reps N            batches per measurement (default 8)\n"
"  --max-reps N            cheap measurements take more batches, up to N\n"
"                          (default 32; N <= R turns this off) ...\n"
"  --rep-budget US         ... while they have taken less than US microseconds\n"
"                          and their batches spread over more than --eps\n"
"                          (default 500)\n"
"  --stat median|min       statistic over the batches (default median)\n"
"  --eps X                 relative tolerance of interpolation and saturation\n"
"                          (default 0.05)\n"
"  --max-insert N          extra sizes per pair where interpolation misses\n"
"                          (default 12; 0 = none), never closer than 32 bytes\n"
"  --k X                   o_r: wait X*RTT(m) before the timed receive (1.3)\n"
"  --gsat-max SIZE         g(m) by saturation up to SIZE (default 64K), above\n"
"                          from (RTT(m) - RTT(0))/2 + g(0)\n"
"  --gsat-cap N            longest saturation burst (default 256)\n"
"  --batch-time US         a batch lasts at least US microseconds (default 10)\n"
"  --agree X               RTT, o_s, o_r: stop after 3 or more batches once they\n"
"                          agree within X relative (default 0.001; 0 = always R)\n"
"  --prtt-n N              LogGP: n of PRTT(n,d,s) (default 8)\n"
"\n"
"Harness:\n"
"  --concurrency MODE      which pairs run at the same time (default intra):\n"
"                          serial  one pair at a time\n"
"                          intra   pairs inside different groups together,\n"
"                                  pairs between groups one at a time\n"
"                          groups  pairs on disjoint sets of groups together\n"
"                                  (assumes a non-blocking fabric)\n"
"                          ranks   any pairs of distinct ranks together\n"
"  --serial                same as --concurrency serial\n"
"  --groups FILE[:LEVEL]   groups from a topology YAML (its LEVEL, default the\n"
"                          finest) instead of hosts\n"
"  --fast F|auto           between groups measure only a fraction F of each\n"
"                          group's ranks; the others take the measurements of\n"
"                          their closest measured rank in the group.  auto:\n"
"                          as many as keep the inter-group pairs within the\n"
"                          rounds the intra-group pairs take, at least one\n"
"                          (default 1 = all); auto picks --sample instead\n"
"                          when that would measure more than 4 pairs per rank\n"
"                          (the choice for large jobs)\n"
"  --sample                sample mode: pairs chosen phase by phase by pivots\n"
"                          from the times measured so far; one rank per group\n"
"                          between groups (probe/README.md, \"Sample mode\")\n"
"  --seed S                seed of fast and sample modes' choices (default 1)\n"
"\n"
"Output and analysis:\n"
"  --save FILE             write the measurements (format: probe/README.md)\n"
"  -o, --output FILE       write the topology YAML (config/README.md)\n"
"  --no-distance-matrix    leave the distance classes out of the YAML\n"
"  --distance time|vectors D(m) = t(m) = L + (o_s+o_r)/2 + g(m) (default), or\n"
"                          Euclidean distance of the ranks' parameter vectors\n"
"  --at SIZE               the message size m of D(m) (default 0)\n"
"  --interp piecewise|linfit  parameters between measured sizes\n"
"  --method NAME           average (default), single, complete: levels at the\n"
"                          jumps of the dendrogram; kmedoids, dbscan, hdbscan,\n"
"                          ssstree, components: one level, parameters searched\n"
"  --rel-gap X             relative merge-distance jump making a level (0.25)\n"
"  --name-accuracy X       a level is named node/socket/... when it matches that\n"
"                          ground truth with at least this accuracy (0.95)\n"
"  --truth FILE            more ground truth: lines 'HOST name=value ...'\n"
"  --validate              print accuracy against the ground truth\n"
"  --graph FILE            Bufe's graph view: DOT to FILE, TGF to FILE.tgf\n"
"  --progress MODE         auto (default: redrawn when stderr is a terminal,\n"
"                          plain lines otherwise), tty, plain or none\n"
"  -q, --quiet             no progress or summary\n"
"  --check FILE            load FILE with the library's loader and print what\n"
"                          it holds (no MPI); exit status 1 if it does not load\n""  --hosts HOSTLIST        with --check: what a job on these hosts (Slurm's form,\n"
"                          n[001-004],m07) would get: levels and groups of each\n"
"                          communicator, its shape, the table's rule and algorithm\n"
"                          from 1 B to 8 MiB; exit status 1 if it would fall back\n"
"  --ppn N                 with --hosts: ranks per host (default 1)\n"
"  --bound                 with --hosts: ranks bound to their node type's first PUs\n"
"\n"
"Site calibration (no MPI; probe/README.md, \"Site calibration\"):\n"
"  --compose NET.yaml      a network pass (one rank per node) and node passes into\n"
"                          a site's topology, written to -o\n"
"  --node-pass NAME=FILE   a node pass (every core of one node, bound): node type\n"
"                          NAME's levels and PUs\n"
"  --node-type NAME=HOSTLIST  the hosts of type NAME (else the pass's own host and\n"
"                          the hosts whose hwloc summary equals the pass's)\n"
"  --merge A.yaml B.yaml ...  passes or site files whose hosts overlap into one\n"
"                          site's topology, written to -o (a node added later)\n"
"\n"
"  -h, --help              this text\n"
"  --version               the version, and the MPI it was built for\n");
}

/* The library's size syntax (tb_parse_size), within what the probe's
 * message sizes hold. */
static int parse_size(const char *s, long *out)
{
    size_t v;
    if (tb_parse_size(s, &v) != 0 || v > 2147483647u)
        return -1;
    *out = (long)v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* The options that take a number, a size or a path, one line each: where
 * the value goes (an offset into cli) and the range it must lie in. */
typedef enum {
    V_INT,    /* int in [lo, hi] */
    V_REAL,   /* double in [lo, hi] */
    V_MICROS, /* microseconds in [lo, hi], stored in seconds */
    V_SIZE,   /* long: a size (K/M/G suffixes) of at least lo */
    V_PATH    /* const char *: taken as it is */
} value_kind;

typedef struct value_opt {
    const char *name, *alias; /* alias may be NULL */
    value_kind kind;
    double lo, hi;
    size_t off;
} value_opt;

#define AT(field) offsetof(cli, field)
static const value_opt value_opts[] = {
    {"--max-size", "-M", V_SIZE, 1, 0, AT(meas.max_size)},
    {"--reps", "-R", V_INT, 1, 100000, AT(meas.reps)},
    {"--max-reps", NULL, V_INT, 1, 100000, AT(meas.max_reps)},
    {"--rep-budget", NULL, V_MICROS, 0, 1e9, AT(meas.rep_budget)},
    {"--eps", NULL, V_REAL, 1e-6, 10, AT(meas.eps)},
    {"--max-insert", NULL, V_INT, 0, 10000, AT(meas.max_insert)},
    {"--k", NULL, V_REAL, 1.0, 100, AT(meas.k_wait)},
    {"--gsat-max", NULL, V_SIZE, 0, 0, AT(meas.gsat_max)},
    {"--gsat-cap", NULL, V_INT, 8, 1 << 24, AT(meas.gsat_cap)},
    {"--batch-time", NULL, V_MICROS, 0, 1e6, AT(meas.batch_time)},
    {"--prtt-n", NULL, V_INT, 2, 100000, AT(meas.prtt_n)},
    {"--agree", NULL, V_REAL, 0, 1, AT(meas.agree)},
    {"--rel-gap", NULL, V_REAL, 1e-6, 1e6, AT(an.rel_gap)},
    {"--name-accuracy", NULL, V_REAL, 0, 1, AT(an.name_accuracy)},
    {"--groups", NULL, V_PATH, 0, 0, AT(groups)},
    {"--save", NULL, V_PATH, 0, 0, AT(save)},
    {"--output", "-o", V_PATH, 0, 0, AT(output)},
    {"--check", NULL, V_PATH, 0, 0, AT(check)},
    {"--hosts", NULL, V_PATH, 0, 0, AT(hosts)},
    {"--ppn", NULL, V_INT, 1, 1 << 20, AT(ppn)},
    {"--analyze", NULL, V_PATH, 0, 0, AT(analyze)},
    {"--truth", NULL, V_PATH, 0, 0, AT(truth)},
    {"--graph", NULL, V_PATH, 0, 0, AT(graph)},
};
#undef AT

static const value_opt *find_value_opt(const char *name)
{
    for (size_t k = 0; k < sizeof value_opts / sizeof value_opts[0]; k++)
        if (strcmp(name, value_opts[k].name) == 0 || (value_opts[k].alias && strcmp(name, value_opts[k].alias) == 0))
            return &value_opts[k];
    return NULL;
}

/* Stores val as o says; returns 0, or -1 if it is not a valid value. */
static int set_value(cli *c, const value_opt *o, const char *val)
{
    void *to = (char *)c + o->off;
    double d;
    long l;
    switch (o->kind) {
    case V_INT:
        return tb_parse_int(val, (long)o->lo, (long)o->hi, to);
    case V_REAL:
        return parse_double(val, o->lo, o->hi, to);
    case V_MICROS:
        if (parse_double(val, o->lo, o->hi, &d) != 0)
            return -1;
        *(double *)to = d * 1e-6;
        return 0;
    case V_SIZE:
        if (parse_size(val, &l) != 0 || l < o->lo)
            return -1;
        *(long *)to = l;
        return 0;
    case V_PATH:
        *(const char **)to = val;
        return 0;
    }
    return -1;
}

/* What o's value must be, for the message of a bad one. */
static void value_expect(const value_opt *o, char *buf, size_t len)
{
    switch (o->kind) {
    case V_INT:
        snprintf(buf, len, "a whole number from %g to %g", o->lo, o->hi);
        break;
    case V_REAL:
        snprintf(buf, len, "a number from %g to %g", o->lo, o->hi);
        break;
    case V_MICROS:
        snprintf(buf, len, "microseconds from %g to %g", o->lo, o->hi);
        break;
    default:
        snprintf(buf, len, "a size from %g B to 2G-1 (2147483647 B), K/M/G suffixes binary", o->lo);
        break;
    }
}

/* Index of val in names[0..n), or -1. */
static int word_index(const char *val, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(val, names[k]) == 0)
            return k;
    return -1;
}

/* Returns 0, or -1 with a message in err. */
static int parse_args(int argc, char **argv, cli *c, char *err, size_t errlen)
{
    static const char *const modes[] = {"plogp", "loggp"};             /* tt_mode */
    static const char *const stats[] = {"median", "min"};              /* use_min */
    static const char *const dists[] = {"time", "vectors"};            /* tt_dist_kind */
    static const char *const interps[] = {"piecewise", "linfit"};      /* tt_interp */
    static const char *const progress[] = {"none", "plain", "tty", "auto"}; /* tbp_progress_mode */
    memset(c, 0, sizeof *c);
    tt_meas_opts_default(&c->meas);
    tt_analysis_opts_default(&c->an);
    c->progress = TBP_PROGRESS_AUTO;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *val = NULL, name[64];
        if (a[0] != '-') {
            snprintf(err, errlen, "unexpected argument '%s' (see --help)", a);
            return -1;
        }
        snprintf(name, sizeof name, "%s", a);
        char *eq = strchr(name, '=');
        if (eq && name[1] == '-') {
            *eq = 0;
            val = a + (eq - name) + 1;
        }
#define IS(s) (strcmp(name, s) == 0)
#define NEEDVAL()                                                                                  \
    do {                                                                                           \
        if (!val) {                                                                                \
            if (i + 1 >= argc) {                                                                   \
                snprintf(err, errlen, "%s needs a value", name);                                   \
                return -1;                                                                         \
            }                                                                                      \
            val = argv[++i];                                                                       \
        }                                                                                          \
    } while (0)
#define BAD()                                                                                      \
    do {                                                                                           \
        snprintf(err, errlen, "%s: invalid value '%s' (see --help)", name, val);                   \
        return -1;                                                                                 \
    } while (0)
/* an option whose value is one of the words of list: k is its index */
#define WORD(list)                                                                                 \
    do {                                                                                           \
        NEEDVAL();                                                                                 \
        if ((k = word_index(val, list, (int)(sizeof list / sizeof list[0]))) < 0)                  \
            BAD();                                                                                 \
    } while (0)
        const value_opt *vo;
        long l;
        int k;
        if (IS("-h") || IS("--help") || IS("--version")) {
            continue;
        } else if (IS("--validate")) {
            c->validate = 1;
        } else if (IS("-q") || IS("--quiet")) {
            c->quiet = 1;
        } else if (IS("--serial")) {
            c->meas.conc = TT_CONC_SERIAL;
        } else if (IS("--sample")) {
            c->meas.sample = 1;
        } else if (IS("--no-distance-matrix")) {
            c->no_distance = 1;
        } else if (IS("--bound")) {
            c->bound = 1;
        } else if ((vo = find_value_opt(name)) != NULL) {
            NEEDVAL();
            if (set_value(c, vo, val) != 0) {
                char expect[128];
                value_expect(vo, expect, sizeof expect);
                snprintf(err, errlen, "%s: invalid value '%s' (expected %s)", name, val, expect);
                return -1;
            }
        } else if (IS("--mode")) {
            WORD(modes);
            c->meas.mode = (tt_mode)k;
        } else if (IS("--stat")) {
            WORD(stats);
            c->meas.use_min = k;
        } else if (IS("--concurrency")) {
            NEEDVAL();
            if ((k = tt_concurrency_from_name(val)) < 0)
                BAD();
            c->meas.conc = (tt_concurrency)k;
        } else if (IS("--fast")) {
            NEEDVAL();
            c->meas.fast_auto = strcmp(val, "auto") == 0;
            if (!c->meas.fast_auto && parse_double(val, 1e-9, 1, &c->meas.fast) != 0)
                BAD();
            if (c->meas.fast_auto)
                c->meas.fast = 1.0;
        } else if (IS("--seed")) {
            NEEDVAL();
            char *end;
            errno = 0;
            unsigned long s = strtoul(val, &end, 10);
            if (end == val || *end || errno)
                BAD();
            c->meas.seed = s;
            c->an.seed = s;
        } else if (IS("--progress")) {
            WORD(progress);
            c->progress = (tbp_progress_mode)k;
        } else if (IS("--distance")) {
            WORD(dists);
            c->an.dist = (tt_dist_kind)k;
        } else if (IS("--at")) {
            NEEDVAL();
            if (parse_size(val, &l) != 0)
                BAD();
            c->an.at = (double)l;
        } else if (IS("--interp")) {
            WORD(interps);
            c->an.interp = (tt_interp)k;
        } else if (IS("--method")) {
            NEEDVAL();
            if ((k = tt_method_from_name(val)) < 0)
                BAD();
            c->an.method = (tt_method)k;
        } else {
            snprintf(err, errlen, "unknown option '%s' (see --help)", a);
            return -1;
        }
#undef WORD
#undef BAD
#undef NEEDVAL
#undef IS
    }
    if (c->meas.gsat_max > c->meas.max_size)
        c->meas.gsat_max = c->meas.max_size;
    if ((c->ppn || c->bound) && !c->hosts) {
        snprintf(err, errlen, "%s needs --hosts HOSTLIST (and --check FILE)", c->ppn ? "--ppn" : "--bound");
        return -1;
    }
    if (c->hosts && !c->check) {
        snprintf(err, errlen, "--hosts needs --check FILE: the configuration to check the job against");
        return -1;
    }
    if (!c->ppn)
        c->ppn = 1;
    /* an output over another output or the file --analyze reads */
    const char *outs[] = {c->output, c->save, c->graph}, *names[] = {"-o", "--save", "--graph"};
    for (int x = 0; x < 3; x++)
        for (int y = x + 1; y < 4; y++)
            if (y < 3 ? tt_same_file(outs[x], outs[y]) : tt_same_file(outs[x], c->analyze)) {
                snprintf(err, errlen, "%s %s is also %s: name another file", names[x], outs[x],
                         y < 3 ? names[y] : "the file --analyze reads");
                return -1;
            }
    return 0;
}

static FILE *open_out(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

static void print_levels(FILE *out, const tt_analysis *a)
{
    fprintf(out, "probe: %d level%s found (%s):", a->h.nlevels, a->h.nlevels == 1 ? "" : "s", a->desc);
    for (int l = 0; l < a->h.nlevels; l++)
        fprintf(out, "%s %s (%d groups)", l ? "," : "", a->h.name[l], a->h.nclusters[l]);
    fputc('\n', out);
}

/* The accuracy table.  Besides the levels written, a topology implies two
 * partitions nobody writes down: the whole job (one group) and the ranks
 * themselves (below the last level); a truth such as "node" with one rank
 * per node, or "island" on a single island, is matched by those. */
static void validate(const tt_hierarchy *h, const tt_truth *tt, int nt)
{
    int n = h->n;
    int add_job = h->nlevels == 0 || h->nclusters[0] > 1;
    int add_rank = h->nlevels == 0 || h->nclusters[h->nlevels - 1] < n;
    tt_hierarchy v;
    if (tt_hierarchy_alloc(&v, n, h->nlevels + add_job + add_rank) != 0) {
        tt_validate_print(stdout, h, tt, nt);
        return;
    }
    int l = 0;
    if (add_job) {
        snprintf(v.name[l], TT_NAME_MAX, "(job)");
        v.nclusters[l++] = 1; /* labels are zero */
    }
    for (int k = 0; k < h->nlevels; k++, l++) {
        memcpy(v.labels[l], h->labels[k], (size_t)n * sizeof *v.labels[l]);
        v.nclusters[l] = h->nclusters[k];
        memcpy(v.name[l], h->name[k], TT_NAME_MAX);
    }
    if (add_rank) {
        snprintf(v.name[l], TT_NAME_MAX, "(ranks)");
        for (int r = 0; r < n; r++)
            v.labels[l][r] = r;
        v.nclusters[l] = n;
    }
    tt_validate_print(stdout, &v, tt, nt);
    tt_hierarchy_free(&v);
}

/* Everything after the measurement: save, analyse, write, validate. */
static int finish(tt_meas *m, const cli *c)
{
    char err[512];
    int rc = 0;
    if (c->save) {
        FILE *f = open_out(c->save);
        if (!f || tt_save_write(m, f) != 0 || tt_out_close(f, c->save, NULL) != 0) {
            fprintf(stderr, "topobcast-probe: %s: cannot write the measurements\n", c->save);
            return 1;
        }
    }
    tt_truthset truth;
    if (tt_truth_build(m, c->truth, &truth, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        return 1;
    }
    tt_analysis a;
    if (tt_analyze(m, &c->an, &truth, &a, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        tt_truth_free(&truth);
        return 1;
    }
    if (!c->quiet)
        print_levels(stdout, &a);
    if (c->output) {
        FILE *f = open_out(c->output);
        if (!f || tt_topo_write(f, m, &a, !c->no_distance) != 0 || tt_out_close(f, c->output, NULL) != 0) {
            fprintf(stderr, "topobcast-probe: %s: cannot write the topology\n", c->output);
            rc = 1;
        } else if (strcmp(c->output, "-") != 0) {
            /* the file is only useful if the library accepts it */
            tb_config cfg;
            if (tb_config_load(c->output, &cfg, err, sizeof err) != 0) {
                fprintf(stderr, "topobcast-probe: the topology written does not load: %s\n", err);
                rc = 1;
            } else {
                tb_config_free(&cfg);
            }
        }
    }
    if (c->validate) {
        tt_truth tt[TT_MAX_TRUTH];
        for (int k = 0; k < truth.ntruth; k++)
            tt[k] = (tt_truth){.name = truth.name[k], .labels = truth.labels[k]};
        printf("validation against the recorded ground truth (%d ranks):\n", m->n);
        validate(&a.h, tt, truth.ntruth);
    }
    if (c->graph) {
        char tgfname[4096];
        const char *dot = strrchr(c->graph, '.');
        if (dot && strcmp(dot, ".dot") == 0)
            snprintf(tgfname, sizeof tgfname, "%.*s.tgf", (int)(dot - c->graph), c->graph);
        else
            snprintf(tgfname, sizeof tgfname, "%s.tgf", c->graph);
        FILE *fd = fopen(c->graph, "w"), *ft = fopen(tgfname, "w");
        int bad = !fd || !ft || tt_graph_files(m, &a, fd, ft, err, sizeof err) != 0;
        if (!bad)
            snprintf(err, sizeof err, "cannot write it (a full disk?)");
        /* a write that failed on the way (a full disk) shows at the close */
        if (fd && tt_out_close(fd, c->graph, NULL) != 0)
            bad = 1;
        if (ft && tt_out_close(ft, tgfname, NULL) != 0)
            bad = 1;
        if (bad) {
            fprintf(stderr, "topobcast-probe: %s: %s\n", c->graph, fd && ft ? err : "cannot write");
            rc = 1;
        }
    }
    tt_analysis_free(&a);
    tt_truth_free(&truth);
    return rc;
}

/* What tb_config_load makes of a file: the same view the library gets. */
static int check_file(const char *path)
{
    tb_config cfg;
    char err[512];
    if (tb_config_load(path, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        return 1;
    }
    if (!cfg.has_topology) {
        printf("%s: loads; no topology, %d selection rules\n", path, cfg.nrules);
    } else {
        const tb_topology *t = &cfg.topo;
        if (t->site)
            printf("%s: loads; a site's topology of %d host%s, %d node type%s, levels:", path, t->nhosts,
                   t->nhosts == 1 ? "" : "s", t->ntypes, t->ntypes == 1 ? "" : "s");
        else
            printf("%s: loads; topology of %d leaves on %d host%s, levels:", path, t->nleaves, t->nhosts,
                   t->nhosts == 1 ? "" : "s");
        for (int l = 0; l < t->nlevels; l++)
            printf(" %s(%d)", t->level_name[l], t->ngroups[l]);
        printf("; distance classes %s; %d selection rule%s%s\n", t->dist.given ? "yes" : "no", cfg.nrules,
               cfg.nrules == 1 ? "" : "s", cfg.nrules && !cfg.rules[0].line ? " (the built-in table)" : "");
    }
    tb_config_free(&cfg);
    return 0;
}

static int analyze_offline(const cli *c)
{
    tt_meas m;
    char err[512];
    int rc = tt_save_load(c->analyze, &m, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        return 1;
    }
    cli cc = *c;
    cc.save = NULL;
    rc = finish(&m, &cc);
    tt_meas_free(&m);
    return rc;
}

/* Independence groups from a topology file: LEVEL, or its finest level. */
static int groups_from_file(const char *spec, int n, int *group, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", spec);
    char *colon = strrchr(path, ':'), *level = NULL;
    if (colon && !strchr(colon, '/')) {
        *colon = 0;
        level = colon + 1;
    }
    tb_config cfg;
    if (tb_config_load(path, &cfg, err, errlen) != 0)
        return -1;
    int rc = -1;
    if (!cfg.has_topology) {
        snprintf(err, errlen, "%.200s: no topology", path);
    } else if (cfg.topo.nleaves != n) {
        snprintf(err, errlen, "%.200s: topology of %d ranks, this job has %d", path, cfg.topo.nleaves, n);
    } else {
        int l = cfg.topo.nlevels - 1;
        if (level) {
            for (l = cfg.topo.nlevels - 1; l >= 0 && strcmp(cfg.topo.level_name[l], level) != 0; l--)
                ;
        }
        if (l < 0) {
            snprintf(err, errlen, "%.200s: no level '%.40s'", path, level);
        } else {
            for (int r = 0; r < n; r++)
                group[r] = cfg.topo.group[l][r];
            rc = 0;
        }
    }
    tb_config_free(&cfg);
    return rc;
}

/* Whether path can be written: opened for appending (created, then
 * removed, when it did not exist), so an existing file is not cut short.
 * errno says why not. */
static int writable_path(const char *path)
{
    int existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "a");
    if (!f)
        return 0;
    fclose(f);
    if (!existed)
        remove(path);
    return 1;
}

static int measure(const cli *c)
{
    int me, size;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    if (size < 2) {
        if (me == 0)
            fprintf(stderr, "topobcast-probe: needs at least 2 ranks (run it under mpiexec)\n");
        MPI_Comm_free(&comm);
        return 2;
    }
    /* more ranks than cores on a host: the pairs' times are the scheduler's,
     * and so is the topology clustered from them */
    int crowd_ranks, crowd_cores;
    if (tbtime_crowded(comm, &crowd_ranks, &crowd_cores) && me == 0)
        fprintf(stderr,
                "topobcast-probe: warning: %d ranks run on a host with %d cores: MPI busy-polls, so ranks wait for "
                "a core and the measured times (and the topology found in them) are noise; run at most one rank "
                "per core\n",
                crowd_ranks, crowd_cores);
    /* the files rank 0 will write, tried before anything is measured (a
     * probe of a large allocation must not end in "cannot write") */
    int writable = 1;
    const char *outs[3] = {c->save, c->output, c->graph};
    for (int k = 0; me == 0 && k < 3; k++)
        if (outs[k] && strcmp(outs[k], "-") != 0 && !writable_path(outs[k])) {
            fprintf(stderr, "topobcast-probe: %s: cannot write it (%s); nothing measured\n", outs[k], strerror(errno));
            writable = 0;
        }
    MPI_Bcast(&writable, 1, MPI_INT, 0, comm);
    if (!writable) {
        MPI_Comm_free(&comm);
        return 1;
    }
    tt_meas m;
    memset(&m, 0, sizeof m);
    m.opt = c->meas;
    m.n = size;
    int *group = malloc((size_t)size * sizeof *group), *measured = malloc((size_t)size * sizeof *measured);
    if (!group || !measured || tbp_identity_gather(comm, &m.rank, group) != MPI_SUCCESS)
        MPI_Abort(comm, 1);
    int nhosts = 0;
    for (int r = 0; r < size; r++)
        if (group[r] + 1 > nhosts)
            nhosts = group[r] + 1;
    if (c->groups) {
        char err[512];
        int ok = groups_from_file(c->groups, size, group, err, sizeof err) == 0, all_ok;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
        if (!all_ok) {
            /* the file is the same for every rank: the lowest failing rank says why */
            int first = ok ? size : me, lowest;
            MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, comm);
            if (me == lowest)
                fprintf(stderr, "topobcast-probe: --groups %s\n", err);
            MPI_Comm_free(&comm);
            free(group);
            free(measured);
            tt_meas_free(&m);
            return 2;
        }
    }
    /* --fast auto: sample mode when fast mode would measure many pairs
     * per rank (the same decision on every rank) */
    if (c->meas.fast_auto && tbp_sample_auto(size, group))
        m.opt.sample = 1;
    if (m.opt.sample) {
        m.opt.fast = 1.0;
        for (int r = 0; r < size; r++)
            measured[r] = 1; /* rank 0 learns the leaders from the sampler */
    } else {
        if (c->meas.fast_auto)
            m.opt.fast = tbp_fast_auto(size, group); /* the same on every rank */
        tbp_fast_select(size, group, m.opt.fast, c->meas.seed, measured);
    }
    int ngroups = 0;
    for (int r = 0; r < size; r++)
        if (group[r] + 1 > ngroups)
            ngroups = group[r] + 1;

    tbp_rounds s;
    memset(&s, 0, sizeof s);
    if (!m.opt.sample) {
        if (me == 0 && tbp_rounds_build(size, group, measured, c->meas.conc, &s) != 0) {
            fprintf(stderr, "topobcast-probe: out of memory building the schedule\n");
            MPI_Abort(comm, 1);
        }
        tbp_rounds_bcast(&s, 0, comm);
    }
    long all_pairs = (long)size * (size - 1) / 2;
    if (me == 0 && !c->quiet) {
        printf("probe: %d ranks on %d host%s, %d independence group%s; %s, M=%ld, R=%d\n", size, nhosts,
               nhosts == 1 ? "" : "s", ngroups, ngroups == 1 ? "" : "s",
               c->meas.mode == TT_MODE_LOGGP ? "LogGP" : "PLogP", c->meas.max_size, c->meas.reps);
        if (m.opt.sample)
            printf("probe: schedule: sample mode%s, phases planned from the times measured, concurrency %s "
                   "(seed %lu)\n",
                   c->meas.fast_auto ? " (fast auto)" : "", tt_concurrency_name(c->meas.conc), c->meas.seed);
        else
            printf("probe: schedule: %d pairs (of P(P-1)/2 = %ld) in %d rounds, concurrency %s", s.npairs,
                   all_pairs, s.nrounds, tt_concurrency_name(c->meas.conc));
        if (!m.opt.sample && (m.opt.fast < 1 || c->meas.fast_auto))
            printf(", fast %s%g (seed %lu)", c->meas.fast_auto ? "auto = " : "", m.opt.fast, c->meas.seed);
        if (!m.opt.sample)
            printf("\n");
        fflush(stdout);
    }

    tbp_measure_ctx ctx;
    if (tbp_measure_init(&ctx, &m.opt) != 0)
        MPI_Abort(comm, 1);
    /* the largest MPI_Wtime overhead (a gather: SMPI's reduce is as slow
     * as its gather, gather.c) */
    char *wt = NULL;
    size_t nwt = 0;
    if (tbp_gather_bytes(comm, &ctx.wtime, sizeof ctx.wtime, &wt, &nwt) != MPI_SUCCESS)
        MPI_Abort(comm, 1);
    for (size_t k = 0; me == 0 && k < nwt / sizeof(double); k++) {
        double w;
        memcpy(&w, wt + k * sizeof w, sizeof w);
        if (k == 0 || w > m.wtime_overhead)
            m.wtime_overhead = w;
    }
    free(wt);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    tbp_progress_mode progress = c->quiet ? TBP_PROGRESS_NONE : c->progress;
    tbp_sample_stats st = {0};
    int rc;
    if (m.opt.sample) {
        tbp_sample_opts so = {.conc = c->meas.conc, .rel_gap = c->an.rel_gap > 0 ? c->an.rel_gap : 0.25,
                              .seed = c->meas.seed, .at = c->an.at, .interp = c->an.interp, .progress = progress};
        rc = tbp_sample_run(comm, group, &so, &ctx, measured, &st);
    } else {
        rc = tbp_harness_run(comm, &s, tbp_measure_pair, &ctx, progress);
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "topobcast-probe: rank %d: MPI error %d during the measurement\n", me, rc);
        MPI_Abort(comm, 1);
    }
    for (int r = 0; me == 0 && r < size; r++) {
        m.rank[r].group = group[r];
        m.rank[r].measured = measured[r];
    }
    MPI_Barrier(comm);
    m.elapsed = MPI_Wtime() - t0;
    m.nrounds = m.opt.sample ? (int)st.rounds : s.nrounds;
    int expect = m.opt.sample ? (int)st.pairs : s.npairs;
    tbp_results_gather(comm, &ctx, &m);
    tbp_measure_free(&ctx);
    int status = 0;
    if (me == 0) {
        if (tt_meas_sort_pairs(&m) != 0 || m.npairs != expect) {
            fprintf(stderr, "topobcast-probe: internal error: %d results for %d pairs\n", m.npairs, expect);
            status = 1;
        } else {
            if (!c->quiet && m.opt.sample)
                printf("probe: sample: %d pairs (of P(P-1)/2 = %ld) in %d rounds over %d phases\n", m.npairs,
                       all_pairs, m.nrounds, st.phases);
            if (!c->quiet) {
#if defined(SMPI_H)
                printf("probe: measured %d pairs in %d rounds in %.3f s of simulated time\n", m.npairs, m.nrounds,
                       m.elapsed);
#else
                printf("probe: measured %d pairs in %d rounds in %.3f s\n", m.npairs, m.nrounds, m.elapsed);
#endif
                fflush(stdout);
            }
            status = finish(&m, c);
        }
    }
    PMPI_Bcast(&status, 1, MPI_INT, 0, comm);
    tbp_rounds_free(&s);
    tt_meas_free(&m);
    free(group);
    free(measured);
    MPI_Comm_free(&comm);
    return status;
}

/* Rank 0 as the launcher announces it (MPICH/Hydra, PMIx, Open MPI,
 * Slurm), or no launcher at all. */
static int is_first_rank(void)
{
    static const char *vars[] = {"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        if (v)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int help = 0, version = 0;
    for (int i = 1; i < argc; i++) {
        help |= strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0;
        version |= strcmp(argv[i], "--version") == 0;
    }
    if (help || version) { /* --help wins, as it did; once per job under a launcher */
        if (is_first_rank() && help)
            usage(stdout);
        else if (is_first_rank())
            tb_tool_version(stdout, "topobcast-probe");
        return 0;
    }
    if (tbp_is_site_command(argc, argv))
        return tbp_site_command(argc, argv);
    cli c;
    char err[512];
    int bad = parse_args(argc, argv, &c, err, sizeof err) != 0;
    if (bad) {
        /* before MPI_Init, so a typo costs no MPI start-up; one message per
         * job where the launcher tells the rank */
        if (is_first_rank())
            fprintf(stderr, "topobcast-probe: %s\n", err);
        return 2;
    }
    if (c.check)
        return c.hosts ? tbp_check_job(c.check, c.hosts, c.ppn, c.bound) : check_file(c.check);
    if (c.analyze)
        return analyze_offline(&c);
    /* the probe measures the machine: no table of the library's plays a
     * part, and the site's configuration (read when TOPOBCAST_CONFIG is
     * unset) may not know the hosts being measured */
    if (!getenv("TOPOBCAST_CONFIG"))
        setenv("TOPOBCAST_CONFIG", "", 1);
    MPI_Init(&argc, &argv);
    int rc = measure(&c);
    MPI_Finalize();
    return rc;
}
