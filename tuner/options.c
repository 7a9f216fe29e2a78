/* The tuner's command line; see options.h. */
#include "options.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "shapes.h"

void tn_options_usage(FILE *f)
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
            "  --shapes LIST      communicators to tune: job, one-per-node, one-node, rows (the\n"
            "                     first row of a 2D grid in rank order), half-nodes, or all\n"
            "                     (default; each where the job has it; tuner/README.md)\n"
            "  --comm-sizes LIST  also (or, without --shapes, only) the first N ranks of the job\n"
            "  --reps N           timed repetitions (default 20)   --warmup W (default 3)\n"
            "  --roots 0|rotate|both  broadcast roots (default both: the score is the mean of\n"
            "                     the medians for root 0 and for a root rotating over the ranks)\n"
            "  --factor F         time candidates predicted within F x the best prediction\n"
            "                     (plans with feeds=F: within F x theirs; default 1.2; up to\n"
            "                     4 KiB also the best predicted of every algorithm); default\n"
            "                     (PMPI_Bcast) is always timed\n"
            "  --max-timed K      of them, only the K best predicted without feeds=F and the K\n"
            "                     best with, and the best predicted of every other algorithm,\n"
            "                     feeds=F plans apart (default 0: no cap)\n"
            "  --top K            a strict budget instead: only the K best predicted without\n"
            "                     feeds=F and the K best with (and default), no other algorithm\n"
            "                     (for large simulated machines, where each candidate costs\n"
            "                     minutes of wall; not with --max-timed or --exhaustive)\n"
            "  --max-segments N   segmented candidates cut the message into at most N segments\n"
            "                     (default 0: no limit; a budget for simulators, whose cost\n"
            "                     grows with segments x ranks)\n"
            "  --exhaustive       time every candidate; reports what pruning would have chosen\n"
            "  --algorithms LIST  only these algorithm families (e.g. binomial,pipeline,magpie2);\n"
            "                     shm (the shared-memory stage: alone, and as the finest level's\n"
            "                     base of magpie2/interpipe; offered where a node holds 2+ ranks of\n"
            "                     the communicator, never under SMPI) only if the list names it\n"
            "  --send both|nonblocking  send modes of the candidates (default both)\n"
            "  --tie T            default is kept when within (1+T) of the best, or when the\n"
            "                     interquartile ranges overlap (default 0.03)\n"
            "  --partial FILE     partial results, appended as measured (default OUT.partial)\n"
            "  --resume           continue from the partial file (same job size and settings)\n"
            "  --dry-run          model and plan only: print what would be timed, time nothing\n"
            "  --site             a site table: run in one allocation covering a partition; times\n"
            "                     communicators of representative shapes (nodes, ranks per node,\n"
            "                     placement), prices the others with the model, and writes rules\n"
            "                     keyed on nodes, ppn and bytes for every job (tuner/README.md,\n"
            "                     \"Site table\"); default sizes 1,16,256,4K,16K,64K,128K ... 16M\n"
            "  --site-shapes N    with --site: shapes timed, at most (default 24, up to 64)\n"
            "  --site-small R     with --site: also time the grid's shapes of at most R ranks\n"
            "                     (one, half or all ranks per node), to 64 shapes in all\n"
            "                     (default 64; 0: none)\n"
            "  --site-top K       with --site: candidates timed per shape and size, the K best\n"
            "                     predicted within --factor (+ default; default 3 up to 64\n"
            "                     ranks, 2 up to 1024, 1 above; it stands for --max-timed)\n"
            "  --site-margin F    with --site: a shape not timed gets an algorithm only where it\n"
            "                     is estimated F times faster than default (default 0: from the\n"
            "                     model's measured error)\n"
            "  --compare CONFIG   time MPI_Bcast with TOPOBCAST_CONFIG=CONFIG against PMPI_Bcast\n"
            "  --csv FILE         with --compare: shape,nprocs,shape_keys,size,default_us,\n"
            "                     topobcast_us,speedup,algorithm,bound_us,efficiency (rows per\n"
            "                     shape and size; efficiency = bound / topobcast time, see --platform)\n"
            "  --platform FILE.xml --hostfile FILE\n"
            "                     under SimGrid SMPI: the run's platform and hostfile, the machine\n"
            "                     of the lower bound (--compare) and of the model's shared links\n"
            "                     and memories; otherwise both come from --measurements (with\n"
            "                     --compare too) and the measured fan-out\n"
            "  --model-csv FILE   shape,comm,bytes,predicted_us,measured_us,kept,spec of every\n"
            "                     timed candidate (model error; with --exhaustive: all of them)\n"
            "  -v, --verbose      more detail (per-candidate predictions)\n"
            "  --version          the version, and the MPI it was built for\n"
            "Times are the maximum over ranks of each synchronised repetition.  Only trust\n"
            "timings from runs with no more ranks than cores.\n");
}

static int parse_size_list(const char *text, size_t *out, int cap)
{
    size_t len = strlen(text);
    if (!len || text[0] == ',' || text[len - 1] == ',' || strstr(text, ",,")) /* an empty item: a typo */
        return -1;
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

/* A site calibration's default sizes: 1, 16, 256, 4K, 16K, then powers of
 * 2 from 64K up to max (and max): the latency-bound sizes sparsely, the
 * large ones, where the algorithms' gains lie, densely, so that a decision
 * there stands for sizes within a factor sqrt(2) of its measurement (its
 * margin grows with that factor: site.c). */
static int site_sizes(size_t max, size_t *out, int cap)
{
    int n = 0;
    for (size_t p = 1; p <= max && n < cap; p *= p < 4096 ? 16 : p < 65536 ? 4 : 2)
        out[n++] = p;
    if (n < cap && out[n - 1] < max)
        out[n++] = max;
    return n;
}

/* Options that do not go with --site (or only with it).  0, or -1 with err. */
static int site_conflict(const tn_opts *o, int argc, char **argv, char *err, size_t errlen)
{
    int site_only = 0;
    for (int i = 1; i < argc; i++)
        site_only |= !strncmp(argv[i], "--site-", 7);
    if (!o->site && site_only) {
        snprintf(err, errlen, "--site-shapes, --site-small, --site-top and --site-margin go with --site");
        return -1;
    }
    if (o->site && o->site_margin > 0 && o->site_margin < 1) {
        snprintf(err, errlen, "--site-margin: invalid value '%g' (expected a factor of 1 or more, or 0 (from the "
                              "model's error))", o->site_margin);
        return -1;
    }
    if (o->top && (o->site || o->max_timed || o->exhaustive)) {
        snprintf(err, errlen, "--top is a budget of its own: not with --site (its budget is --site-top), --max-timed "
                              "or --exhaustive");
        return -1;
    }
    if (o->site && (o->shapes >= 0 || o->ncomm_sizes || o->compare || o->exhaustive)) {
        snprintf(err, errlen, "--site chooses its own communicators and times a budget of candidates: not with "
                              "--shapes, --comm-sizes, --compare or --exhaustive");
        return -1;
    }
    return 0;
}

/* Options without a value: set to 1, or counted (-v). */
static int *flag_option(tn_opts *o, const char *a)
{
    if (!strcmp(a, "--exhaustive"))
        return &o->exhaustive;
    if (!strcmp(a, "--resume"))
        return &o->resume;
    if (!strcmp(a, "--dry-run"))
        return &o->dry_run;
    if (!strcmp(a, "--site"))
        return &o->site;
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
        return &o->verbose;
    return NULL;
}

/* Options whose value is a file name or a list kept as text. */
static const char **text_option(tn_opts *o, const char *a)
{
    static const char *const names[] = {"--topology", "--config",  "--measurements", "-o",          "--output",
                                        "--partial",  "--compare", "--csv",          "--model-csv", "--algorithms",
                                        "--platform", "--hostfile"};
    const char **vals[] = {&o->topology, &o->topology, &o->measurements, &o->out,      &o->out,
                           &o->partial,  &o->compare,  &o->csv,          &o->model_csv, &o->algs,
                           &o->platform, &o->hostfile};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(a, names[k]))
            return vals[k];
    return NULL;
}

/* Numeric options: an int (i) or a double (d), at least min; expect says
 * what a bad value should have been. */
typedef struct num_option {
    int *i;
    double *d;
    double min;
    const char *expect;
} num_option;

static int num_option_of(tn_opts *o, const char *a, num_option *n)
{
    static const char *const names[] = {"--reps",        "--warmup",   "--max-segments", "--max-timed",  "--factor",
                                        "--tie",         "--site-shapes", "--site-top",  "--site-margin",
                                        "--site-small",  "--top"};
    const num_option opts[] = {{&o->reps, NULL, 1, "a whole number of repetitions, at least 1"},
                               {&o->warmup, NULL, 0, "a whole number of warm-up repetitions, 0 or more"},
                               {&o->max_segments, NULL, 0, "a whole number of segments, 0 (no limit) or more"},
                               {&o->max_timed, NULL, 0, "a whole number of candidates, 0 (no cap) or more"},
                               {NULL, &o->factor, 1.0, "a factor of at least 1"},
                               {NULL, &o->tie, 0.0, "a fraction of 0 or more"},
                               {&o->site_shapes, NULL, 1, "a whole number of shapes, at least 1"},
                               {&o->site_top, NULL, 1, "a whole number of candidates, at least 1"},
                               {NULL, &o->site_margin, 0.0, "a factor of 1 or more, or 0 (from the model's error)"},
                               {&o->site_small, NULL, 0, "a whole number of ranks, 0 (none) or more"},
                               {&o->top, NULL, 1, "a whole number of candidates, at least 1"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(a, names[k])) {
            *n = opts[k];
            return 1;
        }
    return 0;
}

/* Returns 0, or -1 if v is not a number of the option's kind >= its min. */
static int parse_number(const num_option *n, const char *v)
{
    char *end = NULL;
    if (n->i)
        return tb_parse_int(v, (long)n->min, INT_MAX, n->i);
    *n->d = strtod(v, &end);
    return end == v || *end || !(*n->d >= n->min) ? -1 : 0;
}

/* The value options parse_other parses, and what each expects: an option
 * is its index here. */
enum { OTHER_MAX_SIZE, OTHER_SIZES, OTHER_COMM_SIZES, OTHER_SHAPES, OTHER_ROOTS, OTHER_SEND, OTHER_NONE };
static const char *const other_names[OTHER_NONE] = {"--max-size", "--sizes", "--comm-sizes",
                                                    "--shapes",   "--roots", "--send"};
static const char *const other_expect[OTHER_NONE] = {
    "a size from 1 B to 2G-1, K/M/G suffixes allowed",
    "a comma-separated list of sizes from 1 B to 2G-1, K/M/G suffixes allowed",
    "a comma-separated list of process counts, at least 1 each",
    "a comma-separated list of job, one-per-node, one-node, rows, half-nodes, all",
    "0, rotate or both",
    "both or nonblocking",
};

/* a's index among other_names, or OTHER_NONE. */
static int other_option(const char *a)
{
    int k = 0;
    while (k < OTHER_NONE && strcmp(a, other_names[k]))
        k++;
    return k;
}

/* Every name in the comma-separated list is an algorithm family. */
static int valid_families(const char *list)
{
    char name[64];
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof name)
            return 0;
        memcpy(name, p, len);
        name[len] = 0;
        if (tb_alg_lookup(name) < 0)
            return 0;
        if (!p[len])
            return 1;
        p += len + 1;
    }
}

/* Option k of other_names with value v.  Returns 0 or -1. */
static int parse_other(tn_opts *o, int k, const char *v)
{
    switch (k) {
    case OTHER_MAX_SIZE:
        return tb_parse_size(v, &o->max_size) != 0 || o->max_size < 1 || o->max_size > (size_t)INT_MAX ? -1 : 0;
    case OTHER_SIZES:
        return (o->nsizes = parse_size_list(v, o->sizes, TN_MAX_SIZES)) <= 0 ? -1 : 0;
    case OTHER_COMM_SIZES: {
        size_t tmp[TN_MAX_COMMS];
        int n = parse_size_list(v, tmp, TN_MAX_COMMS);
        if (n <= 0)
            return -1;
        for (int j = 0; j < n; j++)
            o->comm_sizes[j] = (int)tmp[j];
        o->ncomm_sizes = n;
        return 0;
    }
    case OTHER_SHAPES:
        return (o->shapes = tn_shapes_parse(v)) < 0 ? -1 : 0;
    case OTHER_ROOTS:
        for (int m = 0; m < 3; m++)
            if (!strcmp(v, tn_roots_name(m))) {
                o->root_mode = m;
                return 0;
            }
        return -1;
    default: /* OTHER_SEND */
        if (!strcmp(v, "both"))
            o->send_variants = 2;
        else if (!strcmp(v, "nonblocking"))
            o->send_variants = 1;
        else
            return -1;
        return 0;
    }
}

/* Whether a is any option of the tuner (flag or value). */
static int is_option(tn_opts *o, const char *a)
{
    num_option num;
    return !strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "--version") || flag_option(o, a) || text_option(o, a) ||
           num_option_of(o, a, &num) || other_option(a) != OTHER_NONE;
}

int tn_options_parse(tn_opts *o, int argc, char **argv, int *help, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->prog = argc > 0 && argv[0] && strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1
              : argc > 0 && argv[0] && argv[0][0]       ? argv[0]
                                                        : "topobcast-tuner";
    static const char default_out[] = "topobcast-table.yaml";
    o->out = default_out;
    o->max_size = 16u << 20;
    o->reps = 20;
    o->warmup = 3;
    o->root_mode = 2;
    o->factor = 1.2;
    o->tie = 0.03;
    o->send_variants = 2;
    o->shapes = -1;
    o->site_shapes = TN_SITE_SHAPES;
    o->site_small = TN_SITE_SMALL;
    *help = 0;
    err[0] = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
            return 0;
        }
        if (!strcmp(a, "--version")) {
            *help = 2;
            return 0;
        }
        int *flag = flag_option(o, a);
        if (flag) {
            *flag = flag == &o->verbose ? *flag + 1 : 1;
            continue;
        }
        const char **text = text_option(o, a);
        num_option num = {0};
        int is_num = !text && num_option_of(o, a, &num);
        const int other = text || is_num ? OTHER_NONE : other_option(a);
        if (!text && !is_num && other == OTHER_NONE) {
            snprintf(err, errlen, "%s '%s' (--help lists the options)",
                     a[0] == '-' ? "unknown option" : "unexpected argument", a);
            return -1;
        }
        /* "--topology --dry-run": the value was forgotten, not a file
         * called --dry-run */
        if (!v) {
            snprintf(err, errlen, "%s needs a value", a);
            return -1;
        }
        if (v[0] == '-' && is_option(o, v)) {
            snprintf(err, errlen, "%s needs a value ('%s' is an option)", a, v);
            return -1;
        }
        i++;
        if (text) {
            if (text == &o->algs && !valid_families(v)) {
                snprintf(err, errlen,
                         "%s: invalid value '%s' (expected algorithm names such as binomial,pipeline,magpie2)", a,
                         v);
                return -1;
            }
            *text = v;
        } else if (is_num ? parse_number(&num, v) != 0 : parse_other(o, other, v) != 0) {
            snprintf(err, errlen, "%s: invalid value '%s' (expected %s)", a, v,
                     is_num ? num.expect : other_expect[other]);
            return -1;
        }
        if (text == &o->topology)
            o->topology_opt = a;
    }
    if (!o->platform != !o->hostfile) {
        snprintf(err, errlen, "--platform and --hostfile go together");
        return -1;
    }
    /* options that would be taken and do nothing */
    if (o->csv && !o->compare) {
        snprintf(err, errlen, "--csv goes with --compare (a tuning run writes its table with -o)");
        return -1;
    }
    if (o->compare && (o->topology || o->out != default_out || o->partial || o->resume || o->model_csv)) {
        snprintf(err, errlen, "--compare times the table it names: --topology, -o, --partial, --resume and "
                              "--model-csv are for a tuning run");
        return -1;
    }
    if (site_conflict(o, argc, argv, err, errlen) != 0)
        return -1;
    if (o->nsizes == 0 && o->site)
        o->nsizes = site_sizes(o->max_size, o->sizes, TN_MAX_SIZES);
    else if (o->nsizes == 0)
        o->nsizes = default_sizes(o->max_size, o->sizes, TN_MAX_SIZES);
    else
        qsort(o->sizes, (size_t)o->nsizes, sizeof o->sizes[0], cmp_size);
    return 0;
}

unsigned tn_opts_shapes(const tn_opts *o)
{
    return o->shapes >= 0 ? (unsigned)o->shapes : o->ncomm_sizes ? 0u : (1u << TN_SHAPE_COUNT) - 1;
}

int tn_opts_site_top(const tn_opts *o, int P)
{
    if (o->site_top > 0)
        return o->site_top;
    return P <= 64 ? 3 : P <= 1024 ? 2 : 1;
}

const char *tn_roots_name(int mode)
{
    return mode == 0 ? "0" : mode == 1 ? "rotate" : "both";
}
