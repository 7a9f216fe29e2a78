/* topobcast-tuner: measures which broadcast algorithm is fastest on this
 * allocation for each communicator size and message size, and writes the
 * selection table (with the topology it used) for TOPOBCAST_CONFIG.
 *
 *   1. costs: the probe's per-pair PLogP measurements, or a quick per-level
 *      ping-pong (calibrate.c);
 *   2. per communicator (the job, its first half and quarter) and message
 *      size: every candidate (candidates.c) is priced by the cost model
 *      (model.c); only those within --factor of the best prediction, plus
 *      default, are timed (all with --exhaustive);
 *   3. timing (timing.c): warm-up, synchronised repetitions, max over
 *      ranks, median and trimmed mean, root 0 and rotating roots; each
 *      result is appended to the partial file at once (--resume);
 *   4. winners, ranges and the YAML (table.c), checked by loading it back.
 *
 * --compare CONFIG instead times the library with CONFIG against
 * PMPI_Bcast (compare.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrate.h"
#include "candidates.h"
#include "comm_state.h"
#include "compare.h"
#include "config.h"
#include "costs.h"
#include "costs_probe.h"
#include "dispatch.h"
#include "model.h"
#include "progress.h"
#include "results.h"
#include "table.h"
#include "timing.h"

#define MAX_SIZES 128
#define MAX_COMMS 8

typedef struct opts {
    const char *topology, *measurements, *out, *partial, *compare, *csv, *algs;
    size_t sizes[MAX_SIZES];
    int nsizes;
    size_t max_size;
    int comm_sizes[MAX_COMMS], ncomm_sizes;
    int reps, warmup, exhaustive, root_mode, resume, max_timed, verbose, send_variants;
    double factor, tie;
} opts;

static int wrank, wsize;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: topobcast-tuner [options]            tune: write a selection table\n"
            "       topobcast-tuner --compare CONFIG [--csv FILE] [options]\n"
            "\n"
            "  --topology FILE, --config FILE\n"
            "                     topology YAML (from topobcast-probe -o); the library uses it for\n"
            "                     the hierarchical candidates and it is copied into the table.\n"
            "                     Default: $TOPOBCAST_CONFIG if set, else MPI + hwloc levels\n"
            "  --measurements FILE  probe measurements (topobcast-probe --save) for the cost\n"
            "                     model; default: a quick per-level ping-pong calibration\n"
            "  -o FILE            table to write (default topobcast-table.yaml)\n"
            "  --max-size BYTES   largest message (default 16M); sizes are the powers of two\n"
            "                     from 1 B and the midpoints 3*2^k between them\n"
            "  --sizes LIST       explicit message sizes (e.g. 1,1K,64K,1M) instead\n"
            "  --comm-sizes LIST  communicator sizes to tune (default: the job, half, quarter;\n"
            "                     each measured on the first ranks of the job)\n"
            "  --reps N           timed repetitions (default 20)   --warmup W (default 3)\n"
            "  --roots 0|rotate|both  broadcast roots (default both: the score is the mean of\n"
            "                     the medians for root 0 and for a root rotating over the ranks)\n"
            "  --factor F         time candidates predicted within F x the best prediction\n"
            "                     (default 1.5); default (PMPI_Bcast) is always timed\n"
            "  --max-timed K      and at most the K best predicted of them (default 0: no cap)\n"
            "  --exhaustive       time every candidate; reports what pruning would have chosen\n"
            "  --algorithms LIST  only these algorithm families (e.g. binomial,pipeline,magpie2)\n"
            "  --send both|nonblocking  send modes of the candidates (default both)\n"
            "  --tie T            default is kept when within (1+T) of the best, or when the\n"
            "                     interquartile ranges overlap (default 0.03)\n"
            "  --partial FILE     partial results, appended as measured (default OUT.partial)\n"
            "  --resume           continue from the partial file (same job size and settings)\n"
            "  --compare CONFIG   time MPI_Bcast with TOPOBCAST_CONFIG=CONFIG against PMPI_Bcast\n"
            "  --csv FILE         with --compare: size,default_us,topobcast_us,speedup,algorithm\n"
            "  -v, --verbose      more detail (per-candidate predictions)\n"
            "Times are the maximum over ranks of each synchronised repetition.  Only trust\n"
            "timings from runs with no more ranks than cores.\n");
}

static int parse_size_list(const char *text, size_t *out, int cap)
{
    char *copy = strdup(text), *save = NULL;
    int n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n >= cap || tb_parse_size(t, &out[n]) != 0 || out[n] == 0 || out[n] > (size_t)INT_MAX) {
            n = -1;
            break;
        }
        n++;
    }
    free(copy);
    return n;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Powers of two 1..max and the midpoints 3 * 2^k between them. */
static int default_sizes(size_t max, size_t *out, int cap)
{
    int n = 0;
    for (size_t p = 1; p <= max && n < cap; p *= 2) {
        out[n++] = p;
        if (p >= 2 && p + p / 2 <= max && n < cap && p * 2 > p + p / 2)
            out[n++] = p + p / 2;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_size);
    return n;
}

static int parse_args(opts *o, int argc, char **argv, int *help)
{
    memset(o, 0, sizeof *o);
    o->out = "topobcast-table.yaml";
    o->max_size = 16u << 20;
    o->reps = 20;
    o->warmup = 3;
    o->root_mode = 2;
    o->factor = 1.5;
    o->tie = 0.03;
    o->send_variants = 2;
    *help = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
            return 0;
        }
        if (!strcmp(a, "--exhaustive")) {
            o->exhaustive = 1;
            continue;
        }
        if (!strcmp(a, "--resume")) {
            o->resume = 1;
            continue;
        }
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose++;
            continue;
        }
        if (!v) {
            fprintf(stderr, "topobcast-tuner: %s needs a value\n", a);
            return -1;
        }
        i++;
        char *end = NULL;
        if (!strcmp(a, "--topology") || !strcmp(a, "--config"))
            o->topology = v;
        else if (!strcmp(a, "--measurements"))
            o->measurements = v;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
            o->out = v;
        else if (!strcmp(a, "--partial"))
            o->partial = v;
        else if (!strcmp(a, "--compare"))
            o->compare = v;
        else if (!strcmp(a, "--csv"))
            o->csv = v;
        else if (!strcmp(a, "--algorithms"))
            o->algs = v;
        else if (!strcmp(a, "--max-size")) {
            if (tb_parse_size(v, &o->max_size) != 0 || o->max_size < 1 || o->max_size > (size_t)INT_MAX)
                return -1;
        } else if (!strcmp(a, "--sizes")) {
            if ((o->nsizes = parse_size_list(v, o->sizes, MAX_SIZES)) <= 0)
                return -1;
        } else if (!strcmp(a, "--comm-sizes")) {
            size_t tmp[MAX_COMMS];
            int n = parse_size_list(v, tmp, MAX_COMMS);
            if (n <= 0)
                return -1;
            for (int k = 0; k < n; k++)
                o->comm_sizes[k] = (int)tmp[k];
            o->ncomm_sizes = n;
        } else if (!strcmp(a, "--reps")) {
            o->reps = (int)strtol(v, &end, 10);
            if (*end || o->reps < 1)
                return -1;
        } else if (!strcmp(a, "--warmup")) {
            o->warmup = (int)strtol(v, &end, 10);
            if (*end || o->warmup < 0)
                return -1;
        } else if (!strcmp(a, "--max-timed")) {
            o->max_timed = (int)strtol(v, &end, 10);
            if (*end || o->max_timed < 0)
                return -1;
        } else if (!strcmp(a, "--factor")) {
            o->factor = strtod(v, &end);
            if (*end || !(o->factor >= 1.0))
                return -1;
        } else if (!strcmp(a, "--tie")) {
            o->tie = strtod(v, &end);
            if (*end || !(o->tie >= 0.0))
                return -1;
        } else if (!strcmp(a, "--roots")) {
            if (!strcmp(v, "0"))
                o->root_mode = 0;
            else if (!strcmp(v, "rotate"))
                o->root_mode = 1;
            else if (!strcmp(v, "both"))
                o->root_mode = 2;
            else
                return -1;
        } else if (!strcmp(a, "--send")) {
            if (!strcmp(v, "both"))
                o->send_variants = 2;
            else if (!strcmp(v, "nonblocking"))
                o->send_variants = 1;
            else
                return -1;
        } else {
            fprintf(stderr, "topobcast-tuner: unknown option %s\n", a);
            return -1;
        }
    }
    if (o->nsizes == 0)
        o->nsizes = default_sizes(o->max_size, o->sizes, MAX_SIZES);
    else
        qsort(o->sizes, (size_t)o->nsizes, sizeof o->sizes[0], cmp_size);
    return 0;
}

static const char *roots_name(int mode)
{
    return mode == 0 ? "0" : mode == 1 ? "rotate" : "both";
}

/* ---- the plan: what to time per (communicator, size) ------------------- */

typedef struct plan_item {
    int ci;
    size_t bytes;
    int ncand;                      /* candidates that build here (exhaustive) */
    int ndistinct;                  /* of those, with distinct schedules */
    int nprune;                     /* how many pruning keeps (within factor, + default) */
    int ntime;                      /* timed in this run's mode */
    char (*spec)[TB_CAND_TEXT];     /* [ntime] */
    double *pred;                   /* [ntime], < 0: none */
    char *pruned;                   /* [ntime]: kept by pruning */
    double best_pred;
    char best_pred_spec[TB_CAND_TEXT];
} plan_item;

typedef struct comm_info {
    int size;
    MPI_Comm comm;                  /* MPI_COMM_NULL on non-members */
    const tb_hier *hier;            /* the library's hierarchy for it */
} comm_info;

static int family_allowed(const char *algs, tb_alg_id id)
{
    if (!algs || id == TB_ALG_DEFAULT)
        return 1;
    const char *name = tb_alg_name(id);
    size_t nl = strlen(name);
    for (const char *p = algs; *p;) {
        size_t len = strcspn(p, ",");
        if (len == nl && !strncmp(p, name, nl))
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

typedef struct pred_rec {
    int idx;
    double t;
} pred_rec;

static int cmp_pred(const void *a, const void *b)
{
    const pred_rec *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* Prediction and schedule signature of one candidate (root 0 for the
 * time; roots 0 and size-1 for the signature, since rotating roots use
 * both).  Returns 0, or -1 if it cannot be built for this communicator. */
static int price(const tb_costs *costs, const comm_info *ci, const tb_alg_spec *spec, size_t bytes, double *t,
                 uint64_t *sig, char *err, size_t errlen)
{
    const tb_hier *h = ci->hier && ci->hier->size ? ci->hier : NULL; /* as comm_state.c does */
    int roots[2] = {0, ci->size - 1};
    *sig = 0;
    *t = -1;
    for (int k = 0; k < 2; k++) {
        tb_plan p;
        if (tb_plan_build(&p, ci->size, roots[k], spec, h, err, errlen) != 0)
            return -1;
        *sig = *sig * 31 + tb_plan_signature(&p, spec, bytes);
        if (k == 0 && costs) {
            *t = tb_model_plan_time(costs, NULL, &p, spec, bytes);
            if (*t < 0) {
                snprintf(err, errlen, "the model cannot replay it");
                tb_plan_free(&p);
                return -1;
            }
        }
        tb_plan_free(&p);
    }
    return 0;
}

typedef struct sig_rec {
    uint64_t sig;
    int idx;
} sig_rec;

static int cmp_sig(const void *a, const void *b)
{
    const sig_rec *x = a, *y = b;
    if (x->sig != y->sig)
        return x->sig < y->sig ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Rank 0: candidates, predictions and the timed set for one item.
 * Candidates that run exactly the same schedule as an earlier one (a
 * k-nomial tree with k >= P is flat, every tree is one edge at P = 2 ...)
 * are timed once, under the first name generated. */
static int plan_one(const opts *o, const tb_costs *costs, const comm_info *ci, plan_item *it, const tb_cand_grid *grid)
{
    tb_cand_list l = {0};
    if (tb_cand_generate(grid, ci->hier, ci->size, it->bytes, &l) < 0)
        return -1;
    int n = 0;
    for (int i = 0; i < l.n; i++) /* family filter, in place */
        if (family_allowed(o->algs, l.v[i].spec.id))
            l.v[n++] = l.v[i];
    l.n = n;
    pred_rec *pr = malloc(sizeof *pr * (size_t)(n ? n : 1));
    sig_rec *sg = malloc(sizeof *sg * (size_t)(n ? n : 1));
    double *tm = malloc(sizeof *tm * (size_t)(n ? n : 1));
    char *dup = calloc((size_t)(n ? n : 1), 1);
    if (!pr || !sg || !tm || !dup) {
        free(pr), free(sg), free(tm), free(dup);
        tb_cand_list_free(&l);
        return -1;
    }
    int np = 0, ns = 0, def = -1;
    it->best_pred = -1;
    for (int i = 0; i < n; i++) {
        if (l.v[i].spec.id == TB_ALG_DEFAULT) {
            def = i;
            continue;
        }
        char err[256];
        uint64_t sig;
        if (price(costs, ci, &l.v[i].spec, it->bytes, &tm[i], &sig, err, sizeof err) != 0) {
            if (o->verbose)
                fprintf(stderr, "tuner: %s on %d processes: %s\n", l.v[i].text, ci->size, err);
            dup[i] = 1; /* cannot be built or replayed: not a candidate here */
            continue;
        }
        sg[ns++] = (sig_rec){sig, i};
    }
    qsort(sg, (size_t)ns, sizeof *sg, cmp_sig);
    for (int k = 1; k < ns; k++)
        if (sg[k].sig == sg[k - 1].sig)
            dup[sg[k].idx] = 1;
    it->ndistinct = 0;
    for (int i = 0; i < n; i++) {
        if (i == def || dup[i])
            continue;
        it->ndistinct++;
        double t = tm[i];
        pr[np++] = (pred_rec){i, t};
        if (t >= 0 && (it->best_pred < 0 || t < it->best_pred)) {
            it->best_pred = t;
            snprintf(it->best_pred_spec, sizeof it->best_pred_spec, "%s", l.v[i].text);
        }
    }
    it->ncand = ns + (def >= 0);
    it->ndistinct += def >= 0;
    qsort(pr, (size_t)np, sizeof *pr, cmp_pred);
    int cap = np + 1;
    it->spec = malloc(sizeof *it->spec * (size_t)cap);
    it->pred = malloc(sizeof *it->pred * (size_t)cap);
    it->pruned = malloc((size_t)cap);
    if (!it->spec || !it->pred || !it->pruned) {
        free(pr), free(sg), free(tm), free(dup);
        tb_cand_list_free(&l);
        return -1;
    }
    it->ntime = it->nprune = 0;
    if (def >= 0) {
        snprintf(it->spec[0], TB_CAND_TEXT, "%s", l.v[def].text);
        it->pred[0] = -1;
        it->pruned[0] = 1;
        it->ntime = it->nprune = 1;
    }
    int kept = 0;
    for (int k = 0; k < np; k++) {
        double t = pr[k].t;
        int keep = !costs || (t >= 0 && t <= o->factor * it->best_pred);
        if (keep && o->max_timed > 0 && kept >= o->max_timed)
            keep = 0;
        kept += keep;
        it->nprune += keep;
        if (!keep && !o->exhaustive)
            continue;
        snprintf(it->spec[it->ntime], TB_CAND_TEXT, "%s", l.v[pr[k].idx].text);
        it->pred[it->ntime] = t;
        it->pruned[it->ntime] = (char)keep;
        it->ntime++;
    }
    free(pr), free(sg), free(tm), free(dup);
    tb_cand_list_free(&l);
    return 0;
}

/* ---- timing ------------------------------------------------------------- */

typedef struct op_ctx {
    unsigned char *buf;
    size_t bytes;
    int size, rotate;
    MPI_Comm comm;
    tb_alg_spec spec;
} op_ctx;

static int bcast_op(void *ctx, int rep)
{
    op_ctx *c = ctx;
    int root = c->rotate ? (rep < 0 ? -rep : rep) % c->size : 0;
    /* the library's own dispatch with a parsed spec: what an application
     * gets when the table selects it, without parsing text per call */
    return tb_bcast(c->buf, (MPI_Count)c->bytes, MPI_BYTE, root, c->comm, &c->spec);
}

/* One broadcast of a pattern from the last rank: 0 right everywhere, 1
 * wrong data somewhere, 2 an error. */
static int validate(op_ctx *c, int me)
{
    int root = c->size - 1;
    for (size_t i = 0; i < c->bytes; i++)
        c->buf[i] = me == root ? (unsigned char)(i * 29 + 3 + i / 253) : 0xC3;
    int rc = tb_bcast(c->buf, (MPI_Count)c->bytes, MPI_BYTE, root, c->comm, &c->spec);
    int bad = rc != MPI_SUCCESS ? 2 : 0, any;
    for (size_t i = 0; i < c->bytes && !bad; i++)
        if (c->buf[i] != (unsigned char)(i * 29 + 3 + i / 253))
            bad = 1;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any;
}

static void to_root_stats(const tb_timing_stats *s, tb_root_stats *r)
{
    *r = (tb_root_stats){s->median, s->p25, s->p75, s->trimmed_mean};
}

/* Work units for the ETA: seconds the timed calls should take, plus a
 * fixed cost per call (barrier, validation). */
static double item_work(const opts *o, const plan_item *it, int k)
{
    double t = it->pred[k] >= 0 ? it->pred[k] : (it->best_pred >= 0 ? it->best_pred : 1e-5);
    int modes = o->root_mode == 2 ? 2 : 1;
    return (double)(o->reps + o->warmup) * modes * (t + 2e-5);
}

/* ---- reporting ---------------------------------------------------------- */

static void human_size(size_t v, char *buf, size_t len)
{
    if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(buf, len, "%zuM", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%zuK", v >> 10);
    else
        snprintf(buf, len, "%zu", v);
}

typedef struct fam_err {
    int n;
    double *ratio; /* measured / predicted */
} fam_err;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report_errors(const tb_results *rs, FILE *f)
{
    fam_err fe[TB_ALG_COUNT];
    memset(fe, 0, sizeof fe);
    for (int i = 0; i < rs->n; i++) {
        const tb_result *r = &rs->v[i];
        double s = tb_result_score(r);
        if (r->status != TB_RES_OK || r->predicted <= 0 || s <= 0)
            continue;
        tb_alg_spec sp;
        char err[256];
        if (tb_alg_spec_parse(r->spec, &sp, err, sizeof err) != 0)
            continue;
        fam_err *e = &fe[sp.id];
        if (e->n % 256 == 0) {
            double *nr = realloc(e->ratio, sizeof(double) * (size_t)(e->n + 256));
            if (!nr)
                continue;
            e->ratio = nr;
        }
        e->ratio[e->n++] = s / r->predicted;
    }
    fprintf(f, "\nmodel error by algorithm family (timed candidates; ratio = measured / predicted):\n");
    fprintf(f, "  %-18s %6s %10s %10s %10s %14s\n", "family", "n", "p10", "median", "p90", "median |error|");
    for (int id = 0; id < TB_ALG_COUNT; id++) {
        fam_err *e = &fe[id];
        if (e->n == 0)
            continue;
        qsort(e->ratio, (size_t)e->n, sizeof(double), cmp_double);
        double *ae = malloc(sizeof(double) * (size_t)e->n);
        if (ae) {
            for (int k = 0; k < e->n; k++)
                ae[k] = fabs(e->ratio[k] - 1.0);
            qsort(ae, (size_t)e->n, sizeof(double), cmp_double);
        }
        fprintf(f, "  %-18s %6d %10.2f %10.2f %10.2f %13.0f%%\n", tb_alg_name((tb_alg_id)id), e->n,
                tb_timing_quantile(e->ratio, e->n, 0.1), tb_timing_quantile(e->ratio, e->n, 0.5),
                tb_timing_quantile(e->ratio, e->n, 0.9), ae ? 100 * tb_timing_quantile(ae, e->n, 0.5) : 0.0);
        free(ae);
        free(e->ratio);
    }
}

/* ---- main --------------------------------------------------------------- */

static int finish(int rc)
{
    MPI_Finalize();
    return rc;
}

/* Same decision on every rank: rank 0's. */
static int agree(int v)
{
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v;
}

static int run_compare(const opts *o)
{
    tb_compare_opts co = {o->sizes, o->nsizes, o->reps, o->warmup, o->root_mode, o->csv, o->verbose};
    int rc = tb_compare_run(MPI_COMM_WORLD, &co, stdout);
    return finish(rc);
}

int main(int argc, char **argv)
{
    opts o;
    int help = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (parse_args(&o, argc, argv, &help) != 0 || help) {
        if (wrank == 0) {
            if (!help)
                fprintf(stderr, "topobcast-tuner: bad arguments\n");
            usage(help ? stdout : stderr);
        }
        return finish(help ? 0 : 2);
    }
    /* The library reads its configuration at the first broadcast: point it
     * at the file before anything else touches it. */
    if (o.compare) {
        setenv("TOPOBCAST_CONFIG", o.compare, 1);
        return run_compare(&o);
    }
    if (o.topology)
        setenv("TOPOBCAST_CONFIG", o.topology, 1);
    else if (getenv("TOPOBCAST_CONFIG") && *getenv("TOPOBCAST_CONFIG"))
        o.topology = getenv("TOPOBCAST_CONFIG");

    /* the topology (rank 0 copies it into the table) */
    tb_config topo_cfg;
    int have_topo = 0;
    memset(&topo_cfg, 0, sizeof topo_cfg);
    if (o.topology) {
        char err[1024];
        int ok = tb_config_load(o.topology, &topo_cfg, err, sizeof err) == 0;
        if (!agree(ok)) {
            if (wrank == 0)
                fprintf(stderr, "topobcast-tuner: %s\n", err);
            return finish(2);
        }
        have_topo = topo_cfg.has_topology;
    }

    /* communicators: the job, then its first half and quarter */
    comm_info comms[MAX_COMMS];
    int ncomm = 0;
    int want[MAX_COMMS], nwant = 0;
    if (o.ncomm_sizes) {
        for (int k = 0; k < o.ncomm_sizes; k++)
            want[nwant++] = o.comm_sizes[k];
    } else {
        want[nwant++] = wsize;
        want[nwant++] = wsize / 2;
        want[nwant++] = wsize / 4;
    }
    for (int k = 0; k < nwant; k++) {
        int s = want[k], dup = 0;
        for (int j = 0; j < ncomm; j++)
            dup |= comms[j].size == s;
        if (s < 2 || s > wsize || dup)
            continue;
        comms[ncomm].size = s;
        comms[ncomm].hier = NULL;
        if (s == wsize)
            comms[ncomm].comm = MPI_COMM_WORLD;
        else
            MPI_Comm_split(MPI_COMM_WORLD, wrank < s ? 0 : MPI_UNDEFINED, wrank, &comms[ncomm].comm);
        ncomm++;
    }
    if (ncomm == 0) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: nothing to tune on %d process(es) (communicators need >= 2)\n", wsize);
        return finish(2);
    }
    /* every member derives the library's hierarchy (collective) */
    for (int c = 0; c < ncomm; c++) {
        if (comms[c].comm == MPI_COMM_NULL)
            continue;
        tb_comm_state *cs = tb_comm_state_get(comms[c].comm);
        int ok = cs != NULL && (!have_topo || cs->usable), all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comms[c].comm);
        if (!all) {
            if (wrank == 0)
                fprintf(stderr,
                        "topobcast-tuner: the library cannot use %s on %d processes (see its warning above); "
                        "run where the topology was measured\n",
                        o.topology, comms[c].size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        comms[c].hier = &cs->hier;
    }

    /* the job's own hierarchy names the pair classes of the costs */
    tb_comm_state *wcs = tb_comm_state_get(MPI_COMM_WORLD);
    const tb_hier *world_hier = wcs && wcs->hier.size ? &wcs->hier : NULL;

    /* costs for the model */
    tb_costs costs;
    int have_costs = 0;
    memset(&costs, 0, sizeof costs);
    if (o.measurements) {
        char err[1024] = "";
        char (*hosts)[256] = NULL;
        int ok = 0;
        if (wrank == 0) {
            ok = tb_costs_load_probe(o.measurements, have_topo ? &topo_cfg.topo : NULL, &costs, &hosts, err,
                                     sizeof err) == 0;
            if (ok && costs.nprocs != wsize) {
                snprintf(err, sizeof err, "%s was measured with %d processes, this job has %d", o.measurements,
                         costs.nprocs, wsize);
                ok = 0;
            }
        }
        /* the pairs are by probe rank: this job must have the probe's placement */
        char name[MPI_MAX_PROCESSOR_NAME] = "";
        int len;
        MPI_Get_processor_name(name, &len);
        char *all = wrank == 0 ? malloc((size_t)wsize * MPI_MAX_PROCESSOR_NAME) : NULL;
        MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (wrank == 0 && ok) {
            for (int r = 0; r < wsize && ok; r++)
                if (strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, hosts[r]) != 0) {
                    snprintf(err, sizeof err, "rank %d runs on %s, the probe's rank %d ran on %s", r,
                             all + (size_t)r * MPI_MAX_PROCESSOR_NAME, r, hosts[r]);
                    ok = 0;
                }
            if (!ok)
                tb_costs_free(&costs);
        }
        free(all);
        free(hosts);
        if (wrank == 0 && !ok)
            fprintf(stderr, "topobcast-tuner: not using %s: %s; calibrating instead\n", o.measurements, err);
        have_costs = agree(ok);
    }
    if (!have_costs) {
        char err[256] = "";
        size_t cmax = o.sizes[o.nsizes - 1];
        int rc = tb_calibrate_quick(MPI_COMM_WORLD, world_hier, cmax, 10, &costs, err, sizeof err);
        if (rc != 0 && wrank == 0)
            fprintf(stderr, "topobcast-tuner: %s; timing every candidate\n", err);
        have_costs = rc == 0;
    }
    if (wrank == 0) {
        printf("# topobcast-tuner: %d processes; %d message sizes %zu..%zu B; %d reps (+%d warm-up); roots %s\n", wsize,
               o.nsizes, o.sizes[0], o.sizes[o.nsizes - 1], o.reps, o.warmup, roots_name(o.root_mode));
        printf("# topology: %s\n", have_topo ? o.topology : "none (levels from MPI_COMM_TYPE_SHARED + hwloc)");
        if (have_costs) {
            printf("# costs: %s\n", costs.source);
            tb_costs_describe(&costs, world_hier, stdout);
        }
        for (int c = 0; c < ncomm; c++) {
            const tb_hier *h = comms[c].hier;
            printf("# communicator of %d processes: ", comms[c].size);
            if (!h || h->nlevels == 0)
                printf("no levels");
            for (int l = 0; h && l < h->nlevels; l++)
                printf("%s%s (%d groups)", l ? " > " : "", h->level_name[l], h->ngroups[l]);
            printf("\n");
        }
        fflush(stdout);
    }

    /* plan (rank 0) */
    tb_cand_grid grid;
    tb_cand_grid_default(&grid);
    grid.send_variants = o.send_variants;
    int nitems = ncomm * o.nsizes;
    plan_item *items = calloc((size_t)nitems, sizeof *items);
    long total_cand = 0, total_distinct = 0, total_prune = 0, total_time = 0;
    if (wrank == 0) {
        tb_progress pp;
        tb_progress_start(&pp, nitems, 1);
        for (int c = 0, k = 0; c < ncomm; c++)
            for (int s = 0; s < o.nsizes; s++, k++) {
                items[k].ci = c;
                items[k].bytes = o.sizes[s];
                if (plan_one(&o, have_costs ? &costs : NULL, &comms[c], &items[k], &grid) != 0) {
                    fprintf(stderr, "topobcast-tuner: out of memory while planning\n");
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
                total_cand += items[k].ncand;
                total_distinct += items[k].ndistinct;
                total_prune += items[k].nprune;
                total_time += items[k].ntime;
                char what[96];
                snprintf(what, sizeof what, "modelling: %d processes, %zu B, %d candidates", comms[c].size,
                         o.sizes[s], items[k].ncand);
                tb_progress_add(&pp, 1, what);
            }
        tb_progress_finish(&pp);
        printf("# candidates: %ld (exhaustive), %ld distinct schedules; within %.2fx of the best prediction + "
               "default: %ld%s\n",
               total_cand, total_distinct, o.factor, total_prune, o.exhaustive ? "; --exhaustive: timing all distinct" : "");
        fflush(stdout);
    }

    /* partial results */
    char partial[1024], header[256];
    snprintf(partial, sizeof partial, "%s", o.partial ? o.partial : "");
    if (!o.partial)
        snprintf(partial, sizeof partial, "%s.partial", o.out);
    tb_results_header(header, sizeof header, wsize, o.reps, o.warmup, roots_name(o.root_mode));
    tb_results rs = {0};
    FILE *pf = NULL;
    int prior = 0;
    if (wrank == 0) {
        char err[1024] = "";
        int ok = 1;
        if (o.resume && tb_results_load(partial, header, &rs, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-tuner: cannot resume: %s\n", err);
            ok = 0;
        }
        prior = rs.n;
        /* rewritten whole, so a line cut by an interruption is gone */
        if (ok && !(pf = fopen(partial, "w"))) {
            fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", partial, strerror(errno));
            ok = 0;
        }
        if (ok) {
            fprintf(pf, "%s\n", header);
            fprintf(pf, "# comm bytes status predicted_s median0 p25_0 p75_0 tmean0 medianR p25R p75R tmeanR spec\n");
            for (int i = 0; i < rs.n; i++)
                tb_results_write_line(pf, &rs.v[i]);
            fflush(pf);
            if (o.resume)
                printf("# resuming from %s: %d measurements already there\n", partial, prior);
        }
        if (agree(ok) == 0)
            return finish(2);
    } else if (agree(0) == 0) {
        return finish(2);
    }

    /* time */
    size_t maxb = o.sizes[o.nsizes - 1];
    unsigned char *buf = malloc(maxb);
    int okbuf = buf != NULL, allbuf;
    MPI_Allreduce(&okbuf, &allbuf, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!allbuf) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: out of memory for %zu bytes\n", maxb);
        return finish(2);
    }
    memset(buf, 0, maxb);
    /* warm-up: connections, the library's per-communicator state and the
     * first-touch of the buffer, so the first candidate timed is not
     * charged for them */
    for (int c = 0; c < ncomm; c++) {
        if (comms[c].comm == MPI_COMM_NULL)
            continue;
        for (int k = 0; k < 20; k++) {
            PMPI_Bcast(buf, 1, MPI_BYTE, k % comms[c].size, comms[c].comm);
            PMPI_Bcast(buf, (int)maxb, MPI_BYTE, k % comms[c].size, comms[c].comm);
        }
        MPI_Barrier(comms[c].comm);
    }
    tb_progress prog;
    double total_work = 0;
    if (wrank == 0)
        for (int k = 0; k < nitems; k++)
            for (int j = 0; j < items[k].ntime; j++)
                if (!tb_results_find(&rs, comms[items[k].ci].size, items[k].bytes, items[k].spec[j]))
                    total_work += item_work(&o, &items[k], j);
    tb_progress_start(&prog, total_work, wrank == 0);
    long new_runs = 0, wrong = 0;
    for (int c = 0; c < ncomm; c++) {
        MPI_Comm comm = comms[c].comm;
        if (comm != MPI_COMM_NULL) {
            int me;
            MPI_Comm_rank(comm, &me);
            for (int s = 0; s < o.nsizes; s++) {
                plan_item *it = &items[c * o.nsizes + s];
                /* rank 0 says what still needs timing, one spec per line */
                char *list = NULL;
                int len = 0;
                if (wrank == 0) {
                    size_t cap = (size_t)it->ntime * TB_CAND_TEXT + 1, o2 = 0;
                    list = malloc(cap);
                    for (int j = 0; list && j < it->ntime; j++)
                        if (!tb_results_find(&rs, comms[c].size, o.sizes[s], it->spec[j]))
                            o2 += (size_t)snprintf(list + o2, cap - o2, "%s\n", it->spec[j]);
                    len = list ? (int)o2 : -1;
                }
                MPI_Bcast(&len, 1, MPI_INT, 0, comm);
                if (len < 0)
                    MPI_Abort(MPI_COMM_WORLD, 2);
                if (wrank != 0)
                    list = malloc((size_t)len + 1);
                MPI_Bcast(list, len, MPI_CHAR, 0, comm);
                list[len] = '\0';
                for (char *save = NULL, *t = strtok_r(list, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
                    op_ctx oc = {buf, o.sizes[s], comms[c].size, 0, comm, {0}};
                    char err[256];
                    tb_result r;
                    memset(&r, 0, sizeof r);
                    r.comm = comms[c].size;
                    r.bytes = o.sizes[s];
                    snprintf(r.spec, sizeof r.spec, "%s", t);
                    r.root0 = r.rotate = (tb_root_stats){-1, -1, -1, -1};
                    r.predicted = -1;
                    if (tb_alg_spec_parse(t, &oc.spec, err, sizeof err) != 0) {
                        r.status = TB_RES_ERROR;
                    } else {
                        int v = validate(&oc, me);
                        r.status = v == 0 ? TB_RES_OK : v == 1 ? TB_RES_WRONG : TB_RES_ERROR;
                    }
                    for (int mode = 0; mode < 2 && r.status == TB_RES_OK; mode++) {
                        if ((o.root_mode == 0 && mode == 1) || (o.root_mode == 1 && mode == 0))
                            continue;
                        oc.rotate = mode;
                        tb_timing_stats st;
                        if (tb_timing_measure(comm, o.warmup, o.reps, bcast_op, &oc, NULL, &st) != MPI_SUCCESS)
                            r.status = TB_RES_ERROR;
                        else
                            to_root_stats(&st, mode ? &r.rotate : &r.root0);
                    }
                    if (wrank == 0) {
                        int j = 0;
                        while (j < it->ntime && strcmp(it->spec[j], t))
                            j++;
                        if (j < it->ntime)
                            r.predicted = it->pred[j];
                        tb_results_put(&rs, &r);
                        tb_results_write_line(pf, &r);
                        fflush(pf);
                        new_runs++;
                        if (r.status != TB_RES_OK) {
                            wrong++;
                            fprintf(stderr, "\ntopobcast-tuner: %s at %zu B on %d processes: %s\n", t, r.bytes, r.comm,
                                    r.status == TB_RES_WRONG ? "WRONG DATA (never selected)" : "error (never selected)");
                        }
                        char what[200];
                        char hs[32];
                        human_size(r.bytes, hs, sizeof hs);
                        snprintf(what, sizeof what, "P=%d %s %.60s", r.comm, hs, t);
                        tb_progress_add(&prog, j < it->ntime ? item_work(&o, it, j) : 0, what);
                    }
                }
                free(list);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    tb_progress_finish(&prog);
    free(buf);

    /* winners, table, reports */
    int status = 0;
    if (wrank == 0) {
        char elapsed[32];
        tb_progress_duration(tb_progress_elapsed(&prog), elapsed, sizeof elapsed);
        fclose(pf);
        long timed = 0;
        for (int k = 0; k < nitems; k++)
            timed += items[k].ntime;
        printf("# timing done in %s: %ld new measurements (%ld from the partial file)%s\n", elapsed, new_runs,
               (long)prior, wrong ? "; some candidates failed, see above" : "");
        int ms[MAX_COMMS], order[MAX_COMMS];
        long clo[MAX_COMMS], chi[MAX_COMMS];
        for (int c = 0; c < ncomm; c++)
            ms[c] = comms[c].size;
        tb_table t = {0};
        t.ncomm = tb_table_comm_ranges(ms, ncomm, order, clo, chi);
        t.comm = calloc((size_t)t.ncomm, sizeof *t.comm);
        char (*win)[TB_CAND_TEXT] = malloc(sizeof *win * (size_t)o.nsizes);
        long same_winner = 0, cases = 0;
        for (int ti = 0; ti < t.ncomm; ti++) {
            int c = 0;
            while (comms[c].size != order[ti])
                c++;
            tb_table_comm *tc = &t.comm[ti];
            tc->measured = order[ti];
            tc->lo = clo[ti];
            tc->hi = chi[ti];
            char hi[32] = "inf";
            if (tc->hi != LONG_MAX)
                snprintf(hi, sizeof hi, "%ld", tc->hi);
            printf("\ncommunicator of %d processes (rules for %ld..%s processes):\n", tc->measured, tc->lo, hi);
            printf("%10s %11s %11s %8s %9s  %s\n", "size", "default_us", "chosen_us", "speedup", "timed/all",
                   o.verbose ? "chosen (model's pick)" : "chosen");
            const char *prev = NULL;
            for (int s = 0; s < o.nsizes; s++) {
                plan_item *it = &items[c * o.nsizes + s];
                int n = 0, np = 0;
                const tb_result *def = NULL;
                const tb_result **recs = malloc(sizeof *recs * (size_t)(it->ntime ? it->ntime : 1));
                if (!recs) {
                    fprintf(stderr, "topobcast-tuner: out of memory\n");
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
                for (int j = 0; j < it->ntime; j++) {
                    const tb_result *r = tb_results_find(&rs, comms[c].size, it->bytes, it->spec[j]);
                    if (!r)
                        continue;
                    recs[n++] = r;
                    if (!strcmp(r->spec, "default"))
                        def = r;
                }
                int w = tb_table_pick(recs, n, prev, o.tie);
                snprintf(win[s], TB_CAND_TEXT, "%s", w >= 0 ? recs[w]->spec : "default");
                prev = w >= 0 ? recs[w]->spec : NULL;
                if (o.exhaustive) {
                    /* what pruning alone would have picked */
                    const tb_result **pr = malloc(sizeof *pr * (size_t)(n ? n : 1));
                    for (int j = 0, q = 0; pr && j < it->ntime; j++) {
                        const tb_result *r = tb_results_find(&rs, comms[c].size, it->bytes, it->spec[j]);
                        if (r && it->pruned[j])
                            pr[q++] = r, np = q;
                    }
                    int pw = pr ? tb_table_pick(pr, np, NULL, o.tie) : -1;
                    int aw = tb_table_pick(recs, n, NULL, o.tie);
                    cases++;
                    same_winner += pw >= 0 && aw >= 0 && !strcmp(pr[pw]->spec, recs[aw]->spec);
                    free(pr);
                }
                double td = def ? tb_result_score(def) : -1, tw = w >= 0 ? tb_result_score(recs[w]) : -1;
                printf("%10zu %11.2f %11.2f %8.3f %4d/%-4d  %s%s%s%s\n", it->bytes, td * 1e6, tw * 1e6,
                       td > 0 && tw > 0 ? td / tw : 0.0, n, it->ncand, win[s], o.verbose ? "  (" : "",
                       o.verbose ? it->best_pred_spec : "", o.verbose ? ")" : "");
                free(recs);
            }
            if (tb_table_merge(o.sizes, (const char (*)[TB_CAND_TEXT])win, o.nsizes, tc) != 0) {
                fprintf(stderr, "topobcast-tuner: out of memory\n");
                status = 2;
            }
        }
        free(win);
        if (have_costs)
            report_errors(&rs, stdout);
        long pruned_runs = o.exhaustive ? total_prune : timed;
        printf("\ntimed runs (one algorithm at one size on one communicator): %ld with pruning; exhaustive: %ld "
               "candidates (%.1fx more), %ld distinct schedules (%.1fx more)\n",
               pruned_runs, total_cand, pruned_runs ? (double)total_cand / (double)pruned_runs : 0.0, total_distinct,
               pruned_runs ? (double)total_distinct / (double)pruned_runs : 0.0);
        if (o.exhaustive)
            printf("pruning at %.2fx would have timed %ld and chosen the same winner in %ld of %ld cases\n", o.factor,
                   total_prune, same_winner, cases);

        /* the table */
        char meta[1024];
        time_t now = time(NULL);
        char date[64];
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", localtime(&now));
        snprintf(meta, sizeof meta,
                 "written-by: topobcast-tuner, date: \"%s\", nprocs: %d, reps: %d, warmup: %d, roots: %s, "
                 "factor: %g, costs: \"%.200s\"",
                 date, wsize, o.reps, o.warmup, roots_name(o.root_mode), o.factor,
                 have_costs ? costs.source : "none");
        for (char *q = meta; *q; q++)
            if (*q == '\n')
                *q = ' ';
        FILE *out = fopen(o.out, "w");
        if (!out || tb_table_write(out, &t, have_topo ? &topo_cfg.topo : NULL, meta) != 0) {
            fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", o.out, strerror(errno));
            status = 2;
        }
        if (out)
            fclose(out);
        if (status == 0) {
            char err[1024];
            int nrules = 1;
            for (int i = 0; i < t.ncomm; i++)
                nrules += t.comm[i].nranges;
            if (tb_table_verify(o.out, &t, o.sizes, o.nsizes, err, sizeof err) != 0) {
                fprintf(stderr, "topobcast-tuner: the table does not load as written: %s\n", err);
                status = 1;
            } else {
                printf("table: %s (%d rules%s); it loads and selects every measured winner\n", o.out, nrules,
                       have_topo ? ", with the topology" : "");
                printf("use it: TOPOBCAST_CONFIG=%s; check it: topobcast-tuner --compare %s\n", o.out, o.out);
            }
        }
        tb_table_free(&t);
        tb_results_free(&rs);
    }
    for (int k = 0; k < nitems; k++) {
        free(items[k].spec);
        free(items[k].pred);
        free(items[k].pruned);
    }
    free(items);
    tb_costs_free(&costs);
    if (have_topo || o.topology)
        tb_config_free(&topo_cfg);
    for (int c = 0; c < ncomm; c++)
        if (comms[c].comm != MPI_COMM_WORLD && comms[c].comm != MPI_COMM_NULL)
            MPI_Comm_free(&comms[c].comm);
    status = agree(status);
    return finish(status);
}
