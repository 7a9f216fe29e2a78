/* topobcast-tuner: measures which broadcast algorithm is fastest on this
 * allocation for each communicator size and message size, and writes the
 * selection table (with the topology it used) for TOPOBCAST_CONFIG.
 *
 *   1. costs: the probe's per-pair PLogP measurements, or a quick per-level
 *      ping-pong (calibrate.c); and how many large sends one rank can have
 *      in flight per class of destination (fanout.c);
 *   2. per communicator (the job, its first half and quarter) and message
 *      size: every candidate (candidates.c) is priced by the cost model
 *      (model.c); only those within --factor of the best prediction, plus
 *      default, are timed (all with --exhaustive);
 *   3. timing (timing/timing.c): warm-up, synchronised repetitions, max over
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
#include "compare.h"
#include "config.h"
#include "costs.h"
#include "costs_probe.h"
#include "fanout.h"
#include "model.h"
#include "progress.h"
#include "results.h"
#include "table.h"
#include "../timing/timing.h"
#include "tools.h"

#define MAX_SIZES 128
#define MAX_COMMS 8
/* fan-out test: messages large enough to be bandwidth-bound, to at most 8
 * peers per class */
#define FANOUT_BYTES ((size_t)1 << 20)
#define FANOUT_PEERS 8

typedef struct opts {
    const char *topology, *measurements, *out, *partial, *compare, *csv, *model_csv, *algs;
    size_t sizes[MAX_SIZES];
    int nsizes;
    size_t max_size;
    int comm_sizes[MAX_COMMS], ncomm_sizes;
    int reps, warmup, exhaustive, root_mode, resume, max_timed, verbose, send_variants, dry_run, max_segments;
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
            "                     (default 1.2); default (PMPI_Bcast) is always timed\n"
            "  --max-timed K      of them, only the K best predicted and the best predicted of\n"
            "                     every other algorithm (default 0: no cap)\n"
            "  --max-segments N   segmented candidates cut the message into at most N segments\n"
            "                     (default 0: no limit; a budget for simulators, whose cost\n"
            "                     grows with segments x ranks)\n"
            "  --exhaustive       time every candidate; reports what pruning would have chosen\n"
            "  --algorithms LIST  only these algorithm families (e.g. binomial,pipeline,magpie2)\n"
            "  --send both|nonblocking  send modes of the candidates (default both)\n"
            "  --tie T            default is kept when within (1+T) of the best, or when the\n"
            "                     interquartile ranges overlap (default 0.03)\n"
            "  --partial FILE     partial results, appended as measured (default OUT.partial)\n"
            "  --resume           continue from the partial file (same job size and settings)\n"
            "  --dry-run          model and plan only: print what would be timed, time nothing\n"
            "  --compare CONFIG   time MPI_Bcast with TOPOBCAST_CONFIG=CONFIG against PMPI_Bcast\n"
            "  --csv FILE         with --compare: size,default_us,topobcast_us,speedup,algorithm\n"
            "  --model-csv FILE   comm,bytes,predicted_us,measured_us,kept,spec of every timed\n"
            "                     candidate (model error; with --exhaustive: all of them)\n"
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
    o->factor = 1.2;
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
        if (!strcmp(a, "--dry-run")) {
            o->dry_run = 1;
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
        else if (!strcmp(a, "--model-csv"))
            o->model_csv = v;
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
        } else if (!strcmp(a, "--max-segments")) {
            o->max_segments = (int)strtol(v, &end, 10);
            if (*end || o->max_segments < 0)
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
    char (*spec)[TN_CAND_TEXT];     /* [ntime] */
    double *pred;                   /* [ntime], < 0: none */
    char *pruned;                   /* [ntime]: kept by pruning */
    double best_pred;
    char best_pred_spec[TN_CAND_TEXT];
} plan_item;

typedef struct comm_info {
    int size;
    MPI_Comm comm;                  /* MPI_COMM_NULL on non-members */
    const tb_hier *hier;            /* the library's hierarchy for it */
    double fanout[TB_MAX_LEVELS + 1]; /* per pair class of hier (fanout.h) */
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
    double t, replay; /* prediction; its replay alone orders equal ones */
} pred_rec;

/* By prediction, then by replay: where a shared link's bound decides the
 * prediction, candidates that differ only in segment size or fan-out tie
 * on it, and the replay tells which of them keeps the ranks busier. */
static int cmp_pred(const void *a, const void *b)
{
    const pred_rec *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->replay > y->replay) - (x->replay < y->replay);
}

/* Predictions already made in this item, by schedule signature: candidates
 * with equal signatures run the same messages (model.h), so the replay --
 * most of the planning time at P=512, where thousands of interpipe
 * combinations collapse onto a few hundred schedules -- is done once. */
typedef struct pred_memo {
    uint64_t *sig;
    double *t, *replay;
    size_t cap; /* power of two, 0 = no memo */
} pred_memo;

static int memo_init(pred_memo *m, int n)
{
    m->cap = 16;
    while (m->cap < 2 * (size_t)n)
        m->cap *= 2;
    m->sig = calloc(m->cap, sizeof *m->sig);
    m->t = malloc(m->cap * sizeof *m->t);
    m->replay = malloc(m->cap * sizeof *m->replay);
    if (!m->sig || !m->t || !m->replay) {
        free(m->sig), free(m->t), free(m->replay);
        m->cap = 0;
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        m->t[i] = -2.0; /* empty slot */
    return 0;
}

static void memo_free(pred_memo *m)
{
    free(m->sig);
    free(m->t);
    free(m->replay);
}

/* Slot of sig: the one holding it, or the empty one where it goes. */
static size_t memo_slot(const pred_memo *m, uint64_t sig)
{
    size_t i = (size_t)(sig ^ (sig >> 29)) & (m->cap - 1);
    while (m->t[i] != -2.0 && m->sig[i] != sig)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* Prediction and schedule signature of one candidate (root 0 for the
 * time; roots 0 and size-1 for the signature, since rotating roots use
 * both).  Returns 0, or -1 if it cannot be built for this communicator. */
static int price(const tn_costs *costs, const comm_info *ci, const tb_alg_spec *spec, size_t bytes, pred_memo *memo,
                 double *t, double *replay, uint64_t *sig, char *err, size_t errlen)
{
    const tb_hier *h = ci->hier && ci->hier->size ? ci->hier : NULL; /* as comm_state.c does */
    int roots[2] = {0, ci->size - 1};
    tb_plan p[2];
    *sig = 0;
    *t = -1;
    for (int k = 0; k < 2; k++) {
        if (tb_plan_build(&p[k], ci->size, roots[k], spec, h, err, errlen) != 0) {
            if (k)
                tb_plan_free(&p[0]);
            return -1;
        }
        *sig = *sig * 31 + tn_plan_signature(&p[k], spec, bytes);
    }
    tb_plan_free(&p[1]);
    int rc = 0;
    if (costs) {
        size_t slot = memo->cap ? memo_slot(memo, *sig) : 0;
        if (memo->cap && memo->t[slot] != -2.0)
            *t = memo->t[slot], *replay = memo->replay[slot];
        else
            *t = tn_model_plan_predict(costs, NULL, &p[0], h, ci->fanout, spec, bytes, replay);
        if (memo->cap)
            memo->sig[slot] = *sig, memo->t[slot] = *t, memo->replay[slot] = *replay;
        if (*t < 0) {
            snprintf(err, errlen, "the model cannot replay it");
            rc = -1;
        }
    }
    tb_plan_free(&p[0]);
    return rc;
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
static int plan_one(const opts *o, const tn_costs *costs, const comm_info *ci, plan_item *it, const tn_cand_grid *grid)
{
    tn_cand_list l = {0};
    if (tn_cand_generate(grid, ci->hier, ci->size, it->bytes, &l) < 0)
        return -1;
    int n = 0;
    for (int i = 0; i < l.n; i++) /* family filter, in place */
        if (family_allowed(o->algs, l.v[i].spec.id))
            l.v[n++] = l.v[i];
    l.n = n;
    pred_rec *pr = malloc(sizeof *pr * (size_t)(n ? n : 1));
    sig_rec *sg = malloc(sizeof *sg * (size_t)(n ? n : 1));
    double *tm = malloc(sizeof *tm * (size_t)(n ? n : 1)), *rp = malloc(sizeof *rp * (size_t)(n ? n : 1));
    char *dup = calloc((size_t)(n ? n : 1), 1);
    if (!pr || !sg || !tm || !rp || !dup) {
        free(pr), free(sg), free(tm), free(rp), free(dup);
        tn_cand_list_free(&l);
        return -1;
    }
    int np = 0, ns = 0, def = -1;
    pred_memo memo = {0};
    memo_init(&memo, n); /* without it: every candidate replayed */
    it->best_pred = -1;
    for (int i = 0; i < n; i++) {
        if (l.v[i].spec.id == TB_ALG_DEFAULT) {
            def = i;
            continue;
        }
        char err[256];
        uint64_t sig;
        rp[i] = 0;
        if (price(costs, ci, &l.v[i].spec, it->bytes, &memo, &tm[i], &rp[i], &sig, err, sizeof err) != 0) {
            if (o->verbose)
                fprintf(stderr, "tuner: %s on %d processes: %s\n", l.v[i].text, ci->size, err);
            dup[i] = 1; /* cannot be built or replayed: not a candidate here */
            continue;
        }
        sg[ns++] = (sig_rec){sig, i};
    }
    memo_free(&memo);
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
        pr[np++] = (pred_rec){i, t, rp[i]};
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
        free(pr), free(sg), free(tm), free(rp), free(dup);
        tn_cand_list_free(&l);
        return -1;
    }
    it->ntime = it->nprune = 0;
    if (def >= 0) {
        snprintf(it->spec[0], TN_CAND_TEXT, "%s", l.v[def].text);
        it->pred[0] = -1;
        it->pruned[0] = 1;
        it->ntime = it->nprune = 1;
    }
    int kept = 0;
    char fam_kept[TB_ALG_COUNT] = {0}; /* algorithms with a candidate kept */
    for (int k = 0; k < np; k++) {
        double t = pr[k].t;
        const tb_alg_spec *sp = &l.v[pr[k].idx].spec;
        int keep = !costs || (t >= 0 && t <= o->factor * it->best_pred);
        /* Past the cap, the best predicted of each other algorithm within
         * the factor is still timed: the model's error differs by family
         * (at 4 KiB on P=512, unsegmented trees measure 2-4x their
         * prediction, a segmented interpipe 1.4x), so its order across
         * families is the least trustworthy part. */
        const int first = !fam_kept[sp->id];
        if (keep && o->max_timed > 0 && kept >= o->max_timed && !first)
            keep = 0;
        if (keep)
            fam_kept[sp->id] = 1;
        kept += keep;
        it->nprune += keep;
        if (!keep && !o->exhaustive)
            continue;
        snprintf(it->spec[it->ntime], TN_CAND_TEXT, "%s", l.v[pr[k].idx].text);
        it->pred[it->ntime] = t;
        it->pruned[it->ntime] = (char)keep;
        it->ntime++;
    }
    free(pr), free(sg), free(tm), free(rp), free(dup);
    tn_cand_list_free(&l);
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
    return tb_tool_bcast(c->buf, c->bytes, root, c->comm, &c->spec);
}

/* One broadcast of a pattern from the last rank: 0 right everywhere, 1
 * wrong data somewhere, 2 an error. */
static int validate(op_ctx *c, int me)
{
    int root = c->size - 1;
    for (size_t i = 0; i < c->bytes; i++)
        c->buf[i] = me == root ? (unsigned char)(i * 29 + 3 + i / 253) : 0xC3;
    int rc = tb_tool_bcast(c->buf, c->bytes, root, c->comm, &c->spec);
    int bad = rc != MPI_SUCCESS ? 2 : 0, any;
    for (size_t i = 0; i < c->bytes && !bad; i++)
        if (c->buf[i] != (unsigned char)(i * 29 + 3 + i / 253))
            bad = 1;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any;
}

static void to_root_stats(const tbtime_stats *s, tn_root_stats *r)
{
    *r = (tn_root_stats){s->median, s->p25, s->p75, s->trimmed_mean};
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

static void report_errors(const tn_results *rs, FILE *f)
{
    fam_err fe[TB_ALG_COUNT];
    memset(fe, 0, sizeof fe);
    for (int i = 0; i < rs->n; i++) {
        const tn_result *r = &rs->v[i];
        double s = tn_result_score(r);
        if (r->status != TN_RES_OK || r->predicted <= 0 || s <= 0)
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
                tbtime_quantile(e->ratio, e->n, 0.1), tbtime_quantile(e->ratio, e->n, 0.5),
                tbtime_quantile(e->ratio, e->n, 0.9), ae ? 100 * tbtime_quantile(ae, e->n, 0.5) : 0.0);
        free(ae);
        free(e->ratio);
    }
}

/* ---- the run ------------------------------------------------------------ */

/* Everything one tuning run holds; phases below fill it in order.  Only
 * rank 0 holds costs, plan, results and the partial file. */
typedef struct tuner {
    opts o;
    tb_config topo_cfg;
    int have_topo;
    comm_info comms[MAX_COMMS];
    int ncomm;
    const tb_hier *world_hier;
    tn_costs costs;
    int have_costs;
    plan_item *items;
    int nitems;
    long total_cand, total_distinct, total_prune;
    tn_results rs;
    FILE *pf;
    int prior;
    long new_runs, failed;
    double seconds;
} tuner;

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

/* The job, then its first half and quarter (or --comm-sizes), and the
 * library's hierarchy of each (collective).  Returns 0 or -1. */
static int setup_comms(tuner *T)
{
    int want[MAX_COMMS], nwant = 0;
    if (T->o.ncomm_sizes) {
        for (int k = 0; k < T->o.ncomm_sizes; k++)
            want[nwant++] = T->o.comm_sizes[k];
    } else {
        want[nwant++] = wsize;
        want[nwant++] = wsize / 2;
        want[nwant++] = wsize / 4;
    }
    for (int k = 0; k < nwant; k++) {
        int s = want[k], dup = 0;
        for (int j = 0; j < T->ncomm; j++)
            dup |= T->comms[j].size == s;
        if (s < 2 || s > wsize || dup)
            continue;
        comm_info *ci = &T->comms[T->ncomm++];
        ci->size = s;
        ci->hier = NULL;
        if (s == wsize)
            ci->comm = MPI_COMM_WORLD;
        else
            MPI_Comm_split(MPI_COMM_WORLD, wrank < s ? 0 : MPI_UNDEFINED, wrank, &ci->comm);
    }
    if (T->ncomm == 0) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: nothing to tune on %d process(es) (communicators need >= 2)\n", wsize);
        return -1;
    }
    for (int c = 0; c < T->ncomm; c++) {
        if (T->comms[c].comm == MPI_COMM_NULL)
            continue;
        int usable = 0;
        const tb_hier *ch = tb_tool_comm_hier(T->comms[c].comm, &usable);
        int ok = ch != NULL && (!T->have_topo || usable), all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, T->comms[c].comm);
        if (!all) {
            /* tuning hierarchical algorithms on another hierarchy than the
             * file's would write a table for a machine nobody measured */
            if (wrank == 0)
                fprintf(stderr,
                        "topobcast-tuner: the library cannot use %s on %d processes (see its warning above); "
                        "run where the topology was measured\n",
                        T->o.topology, T->comms[c].size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        T->comms[c].hier = ch;
    }
    /* the job's own hierarchy names the pair classes of the costs */
    const tb_hier *wh = tb_tool_comm_hier(MPI_COMM_WORLD, NULL);
    T->world_hier = wh && wh->size ? wh : NULL;
    return 0;
}

/* Probe measurements if given and taken on this placement, else the
 * quick calibration (collective). */
static void load_costs(tuner *T)
{
    const opts *o = &T->o;
    if (o->measurements) {
        char err[1024] = "";
        char (*hosts)[256] = NULL;
        int ok = 0;
        if (wrank == 0) {
            ok = tn_costs_load_probe(o->measurements, T->have_topo ? &T->topo_cfg.topo : NULL, &T->costs, &hosts, err,
                                     sizeof err) == 0;
            if (ok && T->costs.nprocs != wsize) {
                snprintf(err, sizeof err, "%s was measured with %d processes, this job has %d", o->measurements,
                         T->costs.nprocs, wsize);
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
                if (!all || strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, hosts[r]) != 0) {
                    snprintf(err, sizeof err, "rank %d runs on %s, the probe's rank %d ran on %s", r,
                             all ? all + (size_t)r * MPI_MAX_PROCESSOR_NAME : "?", r, hosts[r]);
                    ok = 0;
                }
        }
        if (wrank == 0 && !ok) {
            tn_costs_free(&T->costs);
            fprintf(stderr, "topobcast-tuner: not using %s: %s; calibrating instead\n", o->measurements, err);
        }
        free(all);
        free(hosts);
        T->have_costs = agree(ok);
    }
    if (!T->have_costs) {
        char err[256] = "";
        int rc = tn_calibrate_quick(MPI_COMM_WORLD, T->world_hier, o->sizes[o->nsizes - 1], 20, &T->costs, err,
                                    sizeof err);
        if (rc != 0 && wrank == 0)
            fprintf(stderr, "topobcast-tuner: %s; timing every candidate\n", err);
        T->have_costs = rc == 0;
        /* even the fastest of 20 round trips took over 100 us: ranks share
         * cores (or the network is broken); pruning on such figures is
         * guesswork, and so are the timings */
        if (rc == 0 && wrank == 0)
            for (int k = 0; k < T->costs.ncurves; k++)
                if (T->costs.L[k] > 100e-6) {
                    fprintf(stderr, "topobcast-tuner: warning: measured latency %.0f us: is the machine "
                                    "oversubscribed? predictions and timings will be unreliable\n",
                            T->costs.L[k] * 1e6);
                    break;
                }
    }
}

/* Fan-out per pair class of every tuned communicator, for the model
 * (collective per communicator; a few large messages from rank 0). */
static void measure_fanout(tuner *T)
{
    for (int c = 0; c < T->ncomm; c++) {
        comm_info *ci = &T->comms[c];
        for (int k = 0; k <= TB_MAX_LEVELS; k++)
            ci->fanout[k] = 1.0;
        const tb_hier *h = ci->hier && ci->hier->size ? ci->hier : NULL;
        if (T->have_costs && ci->comm != MPI_COMM_NULL && (!h || h->nlevels <= TB_MAX_LEVELS) &&
            tn_fanout_measure(ci->comm, h, FANOUT_BYTES, FANOUT_PEERS, 3, ci->fanout) != 0 && wrank == 0)
            fprintf(stderr, "topobcast-tuner: out of memory measuring fan-out; the model assumes 1\n");
    }
}

static void print_setup(const tuner *T)
{
    const opts *o = &T->o;
    printf("# topobcast-tuner: %d processes; %d message sizes %zu..%zu B; %d reps (+%d warm-up); roots %s\n", wsize,
           o->nsizes, o->sizes[0], o->sizes[o->nsizes - 1], o->reps, o->warmup, roots_name(o->root_mode));
    printf("# topology: %s\n", T->have_topo ? o->topology : "none (levels from MPI_COMM_TYPE_SHARED + hwloc)");
    if (T->have_costs) {
        printf("# costs: %s\n", T->costs.source);
        tn_costs_describe(&T->costs, T->world_hier, stdout);
    }
    for (int c = 0; c < T->ncomm; c++) {
        const tb_hier *h = T->comms[c].hier;
        printf("# communicator of %d processes: ", T->comms[c].size);
        int nl = h ? h->nlevels : 0;
        if (nl == 0)
            printf("no levels");
        for (int l = 0; l < nl; l++)
            printf("%s%s (%d groups)", l ? " > " : "", h->level_name[l], h->ngroups[l]);
        if (T->have_costs) {
            printf("; fan-out of rank 0's sends:");
            for (int l = 0; l <= nl; l++)
                printf(" %s%s %.2f", l < nl ? "other " : nl ? "same " : "", nl ? h->level_name[l < nl ? l : nl - 1] : "all",
                       T->comms[c].fanout[l]);
        }
        printf("\n");
    }
    fflush(stdout);
}

/* Rank 0: candidates, predictions and timed sets of every item. */
static void plan_all(tuner *T)
{
    const opts *o = &T->o;
    tn_cand_grid grid;
    tn_cand_grid_default(&grid);
    grid.send_variants = o->send_variants;
    grid.max_segments = o->max_segments;
    tn_progress pp;
    tn_progress_start(&pp, T->nitems, 1);
    for (int c = 0, k = 0; c < T->ncomm; c++)
        for (int s = 0; s < o->nsizes; s++, k++) {
            plan_item *it = &T->items[k];
            it->ci = c;
            it->bytes = o->sizes[s];
            if (plan_one(o, T->have_costs ? &T->costs : NULL, &T->comms[c], it, &grid) != 0) {
                fprintf(stderr, "topobcast-tuner: out of memory while planning\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            T->total_cand += it->ncand;
            T->total_distinct += it->ndistinct;
            T->total_prune += it->nprune;
            char what[96];
            snprintf(what, sizeof what, "modelling: %d processes, %zu B, %d candidates", T->comms[c].size,
                     o->sizes[s], it->ncand);
            tn_progress_add(&pp, 1, what);
        }
    tn_progress_finish(&pp);
    printf("# candidates: %ld (exhaustive), %ld distinct schedules; within %.2fx of the best prediction + "
           "default: %ld%s\n",
           T->total_cand, T->total_distinct, o->factor, T->total_prune,
           o->exhaustive ? "; --exhaustive: timing all distinct" : "");
    fflush(stdout);
}

/* Rank 0: loads the partial file (--resume) and rewrites it whole, so a
 * line cut by an interruption is gone.  Returns 0 or -1 (collective
 * verdict). */
static int open_partial(tuner *T)
{
    const opts *o = &T->o;
    int ok = 1;
    if (wrank == 0) {
        char partial[1024], header[256], err[1024] = "";
        if (o->partial)
            snprintf(partial, sizeof partial, "%s", o->partial);
        else
            snprintf(partial, sizeof partial, "%s.partial", o->out);
        tn_results_header(header, sizeof header, wsize, o->reps, o->warmup, roots_name(o->root_mode));
        if (o->resume && tn_results_load(partial, header, &T->rs, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-tuner: cannot resume: %s\n", err);
            ok = 0;
        }
        T->prior = T->rs.n;
        if (ok && !(T->pf = fopen(partial, "w"))) {
            fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", partial, strerror(errno));
            ok = 0;
        }
        if (ok) {
            fprintf(T->pf, "%s\n", header);
            fprintf(T->pf, "# comm bytes status predicted_s median0 p25_0 p75_0 tmean0 medianR p25R p75R tmeanR spec\n");
            for (int i = 0; i < T->rs.n; i++)
                tn_results_write_line(T->pf, &T->rs.v[i]);
            fflush(T->pf);
            if (o->resume)
                printf("# resuming from %s: %d measurements already there\n", partial, T->prior);
        }
    }
    return agree(ok) ? 0 : -1;
}

/* Members of comm: validates and times every spec rank 0 lists for one
 * item; rank 0 records each result at once. */
static void time_item(tuner *T, int c, plan_item *it, size_t bytes, unsigned char *buf, tn_progress *prog)
{
    const opts *o = &T->o;
    MPI_Comm comm = T->comms[c].comm;
    int me;
    MPI_Comm_rank(comm, &me);
    /* rank 0 says what still needs timing, one spec per line */
    char *list = NULL;
    int len = 0;
    if (wrank == 0) {
        size_t cap = (size_t)it->ntime * TN_CAND_TEXT + 1, n = 0;
        list = malloc(cap);
        for (int j = 0; list && j < it->ntime; j++)
            if (!tn_results_find(&T->rs, T->comms[c].size, bytes, it->spec[j]))
                n += (size_t)snprintf(list + n, cap - n, "%s\n", it->spec[j]);
        len = list ? (int)n : -1;
    }
    MPI_Bcast(&len, 1, MPI_INT, 0, comm);
    if (len < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (wrank != 0 && !(list = malloc((size_t)len + 1)))
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Bcast(list, len, MPI_CHAR, 0, comm);
    list[len] = '\0';
    for (char *save = NULL, *t = strtok_r(list, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
        op_ctx oc = {buf, bytes, T->comms[c].size, 0, comm, {0}};
        char err[256];
        tn_result r;
        memset(&r, 0, sizeof r);
        r.comm = T->comms[c].size;
        r.bytes = bytes;
        snprintf(r.spec, sizeof r.spec, "%s", t);
        r.root0 = r.rotate = (tn_root_stats){-1, -1, -1, -1};
        r.predicted = -1;
        if (tb_alg_spec_parse(t, &oc.spec, err, sizeof err) != 0) {
            r.status = TN_RES_ERROR;
        } else {
            int v = validate(&oc, me);
            r.status = v == 0 ? TN_RES_OK : v == 1 ? TN_RES_WRONG : TN_RES_ERROR;
        }
        for (int mode = 0; mode < 2 && r.status == TN_RES_OK; mode++) {
            if ((o->root_mode == 0 && mode == 1) || (o->root_mode == 1 && mode == 0))
                continue;
            oc.rotate = mode;
            tbtime_stats st;
            if (tbtime_measure(comm, o->warmup, o->reps, bcast_op, &oc, NULL, &st) != MPI_SUCCESS)
                r.status = TN_RES_ERROR;
            else
                to_root_stats(&st, mode ? &r.rotate : &r.root0);
        }
        if (wrank != 0)
            continue;
        int j = 0;
        while (j < it->ntime && strcmp(it->spec[j], t))
            j++;
        if (j < it->ntime)
            r.predicted = it->pred[j];
        tn_results_put(&T->rs, &r);
        tn_results_write_line(T->pf, &r);
        fflush(T->pf);
        T->new_runs++;
        if (r.status != TN_RES_OK) {
            T->failed++;
            fprintf(stderr, "\ntopobcast-tuner: %s at %zu B on %d processes: %s\n", t, r.bytes, r.comm,
                    r.status == TN_RES_WRONG ? "WRONG DATA (never selected)" : "error (never selected)");
        }
        char what[200], hs[32];
        human_size(r.bytes, hs, sizeof hs);
        snprintf(what, sizeof what, "P=%d %s %.60s", r.comm, hs, t);
        tn_progress_add(prog, j < it->ntime ? item_work(o, it, j) : 0, what);
    }
    free(list);
}

/* All ranks: warm-up, then every item of every communicator. */
static int time_all(tuner *T)
{
    const opts *o = &T->o;
    size_t maxb = o->sizes[o->nsizes - 1];
    unsigned char *buf = malloc(maxb);
    int okbuf = buf != NULL, allbuf;
    MPI_Allreduce(&okbuf, &allbuf, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!allbuf) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: out of memory for %zu bytes\n", maxb);
        free(buf);
        return -1;
    }
    memset(buf, 0, maxb);
    /* warm-up: connections, the library's per-communicator state and the
     * first touch of the buffer, so the first candidate timed is not
     * charged for them */
    for (int c = 0; c < T->ncomm; c++) {
        if (T->comms[c].comm == MPI_COMM_NULL)
            continue;
        for (int k = 0; k < 20; k++) {
            PMPI_Bcast(buf, 1, MPI_BYTE, k % T->comms[c].size, T->comms[c].comm);
            PMPI_Bcast(buf, (int)maxb, MPI_BYTE, k % T->comms[c].size, T->comms[c].comm);
        }
        MPI_Barrier(T->comms[c].comm);
    }
    double total_work = 0;
    if (wrank == 0)
        for (int k = 0; k < T->nitems; k++)
            for (int j = 0; j < T->items[k].ntime; j++)
                if (!tn_results_find(&T->rs, T->comms[T->items[k].ci].size, T->items[k].bytes, T->items[k].spec[j]))
                    total_work += item_work(o, &T->items[k], j);
    tn_progress prog;
    tn_progress_start(&prog, total_work, wrank == 0);
    for (int c = 0; c < T->ncomm; c++) {
        if (T->comms[c].comm != MPI_COMM_NULL)
            for (int s = 0; s < o->nsizes; s++)
                time_item(T, c, &T->items[c * o->nsizes + s], o->sizes[s], buf, &prog);
        MPI_Barrier(MPI_COMM_WORLD); /* non-members wait here */
    }
    tn_progress_finish(&prog);
    T->seconds = tn_progress_elapsed(&prog);
    free(buf);
    return 0;
}

/* Rank 0: the winner of every item, the per-communicator report, and the
 * table's ranges; counts how often pruning alone picks the same winner
 * (--exhaustive).  Returns 0 or -1. */
typedef struct prune_check {
    long cases, same, tied; /* same: the same schedule or the same time; tied: within --tie */
    double worst, logsum;   /* time of pruning's winner / exhaustive winner's */
} prune_check;

static int pick_winners(tuner *T, tn_table *t, prune_check *pc)
{
    const opts *o = &T->o;
    int ms[MAX_COMMS], order[MAX_COMMS];
    long clo[MAX_COMMS], chi[MAX_COMMS];
    for (int c = 0; c < T->ncomm; c++)
        ms[c] = T->comms[c].size;
    t->ncomm = tn_table_comm_ranges(ms, T->ncomm, order, clo, chi);
    t->comm = calloc((size_t)t->ncomm, sizeof *t->comm);
    char (*win)[TN_CAND_TEXT] = malloc(sizeof *win * (size_t)o->nsizes);
    if (!t->comm || !win) {
        free(win);
        return -1;
    }
    FILE *mcsv = NULL;
    if (o->model_csv) {
        if (!(mcsv = fopen(o->model_csv, "w")))
            fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", o->model_csv, strerror(errno));
        else
            fprintf(mcsv, "comm,bytes,predicted_us,measured_us,kept,spec\n");
    }
    int rc = 0;
    for (int ti = 0; ti < t->ncomm && rc == 0; ti++) {
        int c = 0;
        while (T->comms[c].size != order[ti])
            c++;
        tn_table_comm *tc = &t->comm[ti];
        tc->measured = order[ti];
        tc->lo = clo[ti];
        tc->hi = chi[ti];
        char hi[32] = "inf";
        if (tc->hi != LONG_MAX)
            snprintf(hi, sizeof hi, "%ld", tc->hi);
        printf("\ncommunicator of %d processes (rules for %ld..%s processes):\n", tc->measured, tc->lo, hi);
        printf("%10s %11s %11s %8s %9s  %s\n", "size", "default_us", "chosen_us", "speedup", "timed/all",
               o->verbose ? "chosen (model's pick)" : "chosen");
        const char *prev = NULL;
        for (int s = 0; s < o->nsizes; s++) {
            plan_item *it = &T->items[c * o->nsizes + s];
            const tn_result **recs = malloc(sizeof *recs * (size_t)(it->ntime ? it->ntime : 1));
            const tn_result **kept = malloc(sizeof *kept * (size_t)(it->ntime ? it->ntime : 1));
            if (!recs || !kept) {
                free(recs);
                free(kept);
                rc = -1;
                break;
            }
            int n = 0, nk = 0;
            const tn_result *def = NULL;
            for (int j = 0; j < it->ntime; j++) {
                /* this run's model, also for results resumed from the partial file */
                if (it->pred[j] >= 0)
                    tn_results_set_predicted(&T->rs, T->comms[c].size, it->bytes, it->spec[j], it->pred[j]);
                const tn_result *r = tn_results_find(&T->rs, T->comms[c].size, it->bytes, it->spec[j]);
                if (!r)
                    continue;
                if (mcsv && r->status == TN_RES_OK)
                    fprintf(mcsv, "%d,%zu,%.6g,%.6g,%d,\"%s\"\n", T->comms[c].size, it->bytes,
                            it->pred[j] >= 0 ? it->pred[j] * 1e6 : NAN, tn_result_score(r) * 1e6, it->pruned[j],
                            it->spec[j]);
                recs[n++] = r;
                if (it->pruned[j])
                    kept[nk++] = r;
                if (!strcmp(r->spec, "default"))
                    def = r;
            }
            int w = tn_table_pick(recs, n, prev, o->tie);
            snprintf(win[s], TN_CAND_TEXT, "%s", w >= 0 ? recs[w]->spec : "default");
            prev = w >= 0 ? recs[w]->spec : NULL;
            if (o->exhaustive) {
                int pw = tn_table_pick(kept, nk, NULL, o->tie), aw = tn_table_pick(recs, n, NULL, o->tie);
                if (pw >= 0 && aw >= 0) {
                    double ratio = tn_result_score(kept[pw]) / tn_result_score(recs[aw]);
                    pc->cases++;
                    /* distinct specs here are distinct schedules; one that
                     * measured exactly the winner's time is as good */
                    int same = !strcmp(kept[pw]->spec, recs[aw]->spec) || ratio <= 1.0 + 1e-9;
                    pc->same += same;
                    pc->tied += !same && ratio <= 1.0 + o->tie;
                    pc->logsum += log(ratio);
                    if (ratio > pc->worst)
                        pc->worst = ratio;
                    if (!same && o->verbose)
                        printf("    pruning would pick %s (%.2f us, %.3fx)\n", kept[pw]->spec,
                               tn_result_score(kept[pw]) * 1e6, ratio);
                }
            }
            double td = def ? tn_result_score(def) : -1, tw = w >= 0 ? tn_result_score(recs[w]) : -1;
            printf("%10zu %11.2f %11.2f %8.3f %4d/%-4d  %s%s%s%s\n", it->bytes, td * 1e6, tw * 1e6,
                   td > 0 && tw > 0 ? td / tw : 0.0, n, it->ncand, win[s], o->verbose ? "  (" : "",
                   o->verbose ? it->best_pred_spec : "", o->verbose ? ")" : "");
            free(recs);
            free(kept);
        }
        if (rc == 0 && tn_table_merge(o->sizes, (const char (*)[TN_CAND_TEXT])win, o->nsizes, tc) != 0)
            rc = -1;
    }
    free(win);
    if (mcsv)
        fclose(mcsv);
    return rc;
}

/* Rank 0: reports, the YAML and its check.  Returns the exit status. */
static int report_and_write(tuner *T)
{
    const opts *o = &T->o;
    int status = 0;
    char elapsed[32];
    tn_progress_duration(T->seconds, elapsed, sizeof elapsed);
    fclose(T->pf);
    T->pf = NULL;
    long timed = 0;
    for (int k = 0; k < T->nitems; k++)
        timed += T->items[k].ntime;
    printf("# timing done in %s: %ld new measurements (%ld from the partial file)%s\n", elapsed, T->new_runs,
           (long)T->prior, T->failed ? "; some candidates failed, see above" : "");
    tn_table t = {0};
    prune_check pc = {0, 0, 0, 1.0, 0.0};
    if (pick_winners(T, &t, &pc) != 0) {
        fprintf(stderr, "topobcast-tuner: out of memory\n");
        tn_table_free(&t);
        return 2;
    }
    if (T->have_costs)
        report_errors(&T->rs, stdout);
    long pruned_runs = o->exhaustive ? T->total_prune : timed;
    printf("\ntimed runs (one algorithm at one size on one communicator): %ld with pruning; exhaustive: %ld "
           "candidates (%.1fx more), %ld distinct schedules (%.1fx more)\n",
           pruned_runs, T->total_cand, pruned_runs ? (double)T->total_cand / (double)pruned_runs : 0.0,
           T->total_distinct, pruned_runs ? (double)T->total_distinct / (double)pruned_runs : 0.0);
    if (o->exhaustive && pc.cases > 0)
        printf("pruning at %.2fx would have timed %ld and chosen the same winner in %ld of %ld cases (%ld more "
               "within the tie of %.0f%%); its choices are %.3fx the exhaustive winners' time on geometric mean, "
               "%.3fx at worst\n",
               o->factor, T->total_prune, pc.same, pc.cases, pc.tied, o->tie * 100, exp(pc.logsum / (double)pc.cases),
               pc.worst);

    char meta[1024], date[64], src[256];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", localtime(&now));
    snprintf(src, sizeof src, "%.200s", T->have_costs ? T->costs.source : "none");
    for (char *q = src; *q; q++) /* it goes inside a double-quoted YAML scalar */
        if (*q == '"' || *q == '\\' || *q == '\n')
            *q = '_';
    snprintf(meta, sizeof meta,
             "written-by: topobcast-tuner, date: \"%s\", nprocs: %d, reps: %d, warmup: %d, roots: %s, "
             "factor: %g, costs: \"%s\"",
             date, wsize, o->reps, o->warmup, roots_name(o->root_mode), o->factor, src);
    FILE *out = fopen(o->out, "w");
    if (!out || tn_table_write(out, &t, T->have_topo ? &T->topo_cfg.topo : NULL, meta) != 0) {
        fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", o->out, strerror(errno));
        status = 2;
    }
    if (out)
        fclose(out);
    if (status == 0) {
        char err[1024];
        int nrules = 1;
        for (int i = 0; i < t.ncomm; i++)
            nrules += t.comm[i].nranges;
        if (tn_table_verify(o->out, &t, o->sizes, o->nsizes, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-tuner: the table does not load as written: %s\n", err);
            status = 1;
        } else {
            printf("table: %s (%d rules%s); it loads and selects every measured winner\n", o->out, nrules,
                   T->have_topo ? ", with the topology" : "");
            printf("use it: TOPOBCAST_CONFIG=%s; check it: topobcast-tuner --compare %s\n", o->out, o->out);
        }
    }
    tn_table_free(&t);
    return status;
}

static void tuner_free(tuner *T)
{
    for (int k = 0; k < T->nitems; k++) {
        free(T->items[k].spec);
        free(T->items[k].pred);
        free(T->items[k].pruned);
    }
    free(T->items);
    tn_costs_free(&T->costs);
    tn_results_free(&T->rs);
    if (T->o.topology)
        tb_config_free(&T->topo_cfg);
    for (int c = 0; c < T->ncomm; c++)
        if (T->comms[c].comm != MPI_COMM_WORLD && T->comms[c].comm != MPI_COMM_NULL)
            MPI_Comm_free(&T->comms[c].comm);
}

int main(int argc, char **argv)
{
    static tuner T; /* large; zeroed */
    int help = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (parse_args(&T.o, argc, argv, &help) != 0 || help) {
        if (wrank == 0) {
            if (!help)
                fprintf(stderr, "topobcast-tuner: bad arguments\n");
            usage(help ? stdout : stderr);
        }
        return finish(help ? 0 : 2);
    }
    /* The library reads its configuration at the first broadcast: point it
     * at the file before anything touches it. */
    if (T.o.compare) {
        setenv("TOPOBCAST_CONFIG", T.o.compare, 1);
        tn_compare_opts co = {T.o.sizes, T.o.nsizes, T.o.reps, T.o.warmup, T.o.root_mode, T.o.csv, T.o.verbose};
        return finish(tn_compare_run(MPI_COMM_WORLD, &co, stdout));
    }
    if (T.o.topology)
        setenv("TOPOBCAST_CONFIG", T.o.topology, 1);
    else if (getenv("TOPOBCAST_CONFIG") && *getenv("TOPOBCAST_CONFIG"))
        T.o.topology = getenv("TOPOBCAST_CONFIG");
    if (T.o.topology) { /* rank 0 copies it into the table */
        char err[1024];
        int ok = tb_config_load(T.o.topology, &T.topo_cfg, err, sizeof err) == 0;
        if (!agree(ok)) {
            if (wrank == 0)
                fprintf(stderr, "topobcast-tuner: %s\n", err);
            return finish(2);
        }
        T.have_topo = T.topo_cfg.has_topology;
    }
    if (setup_comms(&T) != 0)
        return finish(2);
    load_costs(&T);
    measure_fanout(&T);
    T.nitems = T.ncomm * T.o.nsizes;
    T.items = calloc((size_t)T.nitems, sizeof *T.items);
    if (!T.items)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (wrank == 0) {
        print_setup(&T);
        plan_all(&T);
    }
    if (T.o.dry_run) {
        if (wrank == 0)
            for (int k = 0; k < T.nitems; k++) {
                const plan_item *it = &T.items[k];
                printf("P=%d %zu B: %d candidates, %d distinct, %d to time; best predicted %.2f us: %s\n",
                       T.comms[it->ci].size, it->bytes, it->ncand, it->ndistinct, it->ntime, it->best_pred * 1e6,
                       it->best_pred_spec);
                for (int j = 0; T.o.verbose && j < it->ntime; j++)
                    printf("    %10.2f us  %s\n", it->pred[j] * 1e6, it->spec[j]);
            }
        tuner_free(&T);
        return finish(0);
    }
    int status = 2;
    if (open_partial(&T) == 0 && time_all(&T) == 0)
        status = wrank == 0 ? report_and_write(&T) : 0;
    if (wrank == 0 && T.pf)
        fclose(T.pf);
    tuner_free(&T);
    return finish(agree(status));
}
