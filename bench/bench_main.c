/* topobcast-bench: times broadcasts of chosen algorithms and sizes, with
 * PMPI_Bcast ("default") measured in the same run under the same
 * conditions, so every number has a baseline next to it.  A benchmark, not a
 * test: it only checks that each algorithm delivered the right bytes once
 * per size (a fast wrong answer is not a result). */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "../timing/timing.h"
#include "../topology/topology.h"
#include "bench.h"
#include "tools.h"
#include "topobcast.h"


typedef struct bench_ctx {
    unsigned char *buf;
    size_t bytes;
    int root, size;
    const char *spec;
} bench_ctx;

static int wrank, wsize;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: topobcast-bench [-a spec,spec,...] [-s sizes] [-r reps] [-w warmup]\n"
            "                       [--root R|rotate] [--csv FILE] [--overlap] [--tests N]\n"
            "  -a   algorithm specs \"name[:key=value,...]\" separated by commas; an item\n"
            "       with '=' but no ':' continues the previous spec's parameters\n"
            "       (binomial:segment=8K,send=blocking,knomial:radix=3).  May be repeated.\n"
            "       \"default\" (PMPI_Bcast) is always measured.  \"auto\" times MPI_Bcast as\n"
            "       an application sees it (the library's own choice).\n"
            "       Default: flat,chain,binary,split_binary,binomial,knomial,pipeline,scatter_allgather\n"
            "  -s   message sizes in bytes, K/M/G suffixes (default 1,1K,64K,1M)\n"
            "  -r   timed repetitions per size and algorithm (default 50)\n"
            "  -w   untimed warm-up repetitions (default 5)\n"
            "  --root R|rotate  broadcast root (default 0; rotate: repetition i uses i mod size)\n"
            "  --csv FILE       also write the results as CSV\n"
            "  --overlap        non-blocking broadcasts instead: how much of MPI_Ibcast\n"
            "                   hides behind computation (osu_ibcast's overlap %%)\n"
            "  --tests N        with --overlap: MPI_Test calls spread over the computation\n"
            "                   (default 0: the application calls MPI only to start and wait)\n"
            "  --version        the version, and the MPI it was built for\n"
            "Each repetition starts after MPI_Barrier; its time is the maximum over ranks.\n"
            "Table columns: median, min, 25th and 75th percentile in microseconds, and\n"
            "speedup = median(default) / median(algorithm).\n");
}


static int add_alg(tbb_opts *o, const char *spec)
{
    for (int i = 0; i < o->nalgs; i++)
        if (!strcmp(o->algs[i], spec))
            return 0;
    if (o->nalgs >= TBB_MAX_ALGS || strlen(spec) >= TBB_SPEC_LEN)
        return -1;
    snprintf(o->algs[o->nalgs++], TBB_SPEC_LEN, "%s", spec);
    return 0;
}

/* Spec parameters contain commas themselves, so "k=v" items without a
 * name belong to the spec before them. */
static int parse_algs(tbb_opts *o, const char *list)
{
    char *copy = strdup(list), *save = NULL, cur[TBB_SPEC_LEN] = "";
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        if (strchr(t, '=') && !strchr(t, ':')) {
            if (!cur[0] || strlen(cur) + strlen(t) + 2 > sizeof cur) {
                rc = -1;
                break;
            }
            strcat(cur, strchr(cur, ':') ? "," : ":"); /* "binomial,segment=8K": binomial's first */
            strcat(cur, t);
            continue;
        }
        if (cur[0])
            rc = add_alg(o, cur);
        snprintf(cur, sizeof cur, "%s", t);
    }
    if (!rc && cur[0])
        rc = add_alg(o, cur);
    free(copy);
    return rc;
}

static int parse_sizes(tbb_opts *o, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    o->nsizes = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->nsizes >= TBB_MAX_SIZES || tb_parse_size(t, &o->sizes[o->nsizes]) != 0 ||
            o->sizes[o->nsizes] > (size_t)INT32_MAX) {
            rc = -1;
            break;
        }
        o->nsizes++;
    }
    free(copy);
    return rc || o->nsizes == 0 ? -1 : 0;
}

/* What parse_args refused, for the message. */
static char bad_arg[256];

static int bad(const char *a, const char *v, const char *why)
{
    snprintf(bad_arg, sizeof bad_arg, "%s%s%s: %s", a, v ? " " : "", v ? v : "", why);
    return -1;
}

static int parse_args(tbb_opts *o, int argc, char **argv, int *help)
{
    int algs_given = 0;
    memset(o, 0, sizeof *o);
    o->reps = 50;
    o->warmup = 5;
    parse_sizes(o, "1,1K,64K,1M");
    *help = 0;
    for (int i = 1; i < argc; i += 2) { /* every option but --overlap takes one value */
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
            return 0;
        }
        if (!strcmp(a, "--version")) {
            *help = 2;
            return 0;
        }
        if (!strcmp(a, "--overlap")) {
            o->overlap = 1;
            i--;
            continue;
        }
        /* the option is known first, so an unknown one last is not "needs
         * a value"; its index picks the case */
        static const char *const valued[] = {"-a", "-s", "-r", "-w", "--root", "--csv", "--tests"};
        enum { OPT_A, OPT_S, OPT_R, OPT_W, OPT_ROOT, OPT_CSV, OPT_TESTS, OPT_NONE };
        int opt = 0;
        while (opt < OPT_NONE && strcmp(a, valued[opt]))
            opt++;
        if (opt == OPT_NONE)
            return bad(a, NULL, a[0] == '-' ? "unknown option" : "unexpected argument");
        if (!v)
            return bad(a, NULL, "needs a value");
        switch (opt) {
        case OPT_A:
            add_alg(o, "default");
            if (parse_algs(o, v))
                return bad(a, v, "not a list of algorithm specs");
            algs_given = 1;
            break;
        case OPT_S:
            if (parse_sizes(o, v))
                return bad(a, v, "not a list of sizes (bytes, K/M/G suffixes, at most 2^31-1 each)");
            break;
        case OPT_R:
            if (tb_parse_int(v, 1, INT32_MAX, &o->reps) != 0)
                return bad(a, v, "expected a whole number of repetitions, at least 1");
            break;
        case OPT_W:
            if (tb_parse_int(v, 0, INT32_MAX, &o->warmup) != 0)
                return bad(a, v, "expected a whole number of warm-up repetitions, 0 or more");
            break;
        case OPT_ROOT:
            if (!strcmp(v, "rotate"))
                o->root = -1;
            else if (tb_parse_int(v, 0, INT32_MAX, &o->root) != 0)
                return bad(a, v, "expected a rank or 'rotate'");
            break;
        case OPT_CSV:
            o->csv = v;
            break;
        default: /* OPT_TESTS */
            if (tb_parse_int(v, 0, 1000000, &o->tests) != 0)
                return bad(a, v, "expected 0 to 1000000 MPI_Test calls");
        }
    }
    if (!algs_given) {
        add_alg(o, "default");
        parse_algs(o, "flat,chain,binary,split_binary,binomial,knomial,pipeline,scatter_allgather");
    }
    return 0;
}

static int root_of(const bench_ctx *c, int rep)
{
    return tbb_root_at(c->root, c->size, rep);
}

static int bcast_at(void *ctx, int root);

static int bcast_op(void *ctx, int rep)
{
    return bcast_at(ctx, root_of(ctx, rep));
}

static int bcast_at(void *ctx, int root)
{
    bench_ctx *c = ctx;
    if (!strcmp(c->spec, "auto"))
        return MPI_Bcast(c->buf, (int)c->bytes, MPI_BYTE, root, MPI_COMM_WORLD);
    return topobcast_bcast_algorithm(c->buf, (MPI_Count)c->bytes, MPI_BYTE, root, MPI_COMM_WORLD, c->spec);
}

typedef struct result {
    tbtime_stats st;
    int status; /* 0 ok, 1 wrong data, -1 error */
} result;

static const char *status_text(int s)
{
    return s == 0 ? "ok" : s == 1 ? "WRONG-DATA" : "ERROR";
}

int main(int argc, char **argv)
{
    tbb_opts o;
    int help = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (parse_args(&o, argc, argv, &help) != 0 || help) {
        if (wrank == 0 && help == 2) {
            tb_tool_version(stdout, "topobcast-bench");
        } else if (wrank == 0) {
            if (!help)
                fprintf(stderr, "topobcast-bench: %s\n", bad_arg[0] ? bad_arg : "bad arguments");
            usage(help ? stdout : stderr);
        }
        MPI_Finalize();
        return help ? 0 : 2;
    }
    if (o.root >= wsize) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-bench: root %d out of range for %d ranks\n", o.root, wsize);
        MPI_Finalize();
        return 2;
    }

    /* Say why a spec will show ERROR before spending time on the others. */
    if (wrank == 0)
        for (int ai = 0; ai < o.nalgs; ai++) {
            char err[256];
            if (strcmp(o.algs[ai], "auto") && topobcast_spec_check(o.algs[ai], err, sizeof err))
                fprintf(stderr, "topobcast-bench: %s: %s\n", o.algs[ai], err);
        }

    /* an unwritable --csv is said before anything is measured */
    if (o.csv) {
        int writable = 1;
        if (wrank == 0) {
            FILE *f = fopen(o.csv, "w");
            writable = f != NULL;
            if (f)
                fclose(f);
            else
                fprintf(stderr, "topobcast-bench: cannot write %s: %s\n", o.csv, strerror(errno));
        }
        MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!writable) {
            MPI_Finalize();
            return 2;
        }
    }

    /* more ranks than cores on a host: every timing is the scheduler's */
    int crowd_ranks, crowd_cores;
    if (tbtime_crowded(MPI_COMM_WORLD, &crowd_ranks, &crowd_cores) && wrank == 0)
        fprintf(stderr,
                "topobcast-bench: warning: %d ranks run on a host with %d cores: MPI busy-polls, so ranks wait "
                "for a core and the timings are noise; run at most one rank per core\n",
                crowd_ranks, crowd_cores);

    if (o.overlap) {
        int rc = tbb_overlap(&o);
        MPI_Finalize();
        return rc;
    }

    FILE *csv = NULL;
    if (wrank == 0 && o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv)
            fprintf(stderr, "topobcast-bench: cannot write %s: %s\n", o.csv, strerror(errno));
        else
            fprintf(csv, "ranks,size_bytes,algorithm,root,reps,median_us,min_us,p25_us,p75_us,"
                         "p90_us,max_us,mean_us,trimmed_mean_us,speedup_vs_default,status\n");
    }
    size_t maxbytes = 1;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxbytes)
            maxbytes = o.sizes[i];
    unsigned char *buf = malloc(maxbytes);
    result *res = calloc((size_t)o.nalgs, sizeof *res);
    if (!buf || !res) {
        fprintf(stderr, "topobcast-bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char rootdesc[32];
    tbb_root_name(o.root, rootdesc, sizeof rootdesc);
    int width = tbb_alg_width(&o); /* the algorithm column fits the longest spec */
    if (wrank == 0) {
        printf("# topobcast-bench: %d ranks, %d repetitions (+%d warm-up), root %s; "
               "time per repetition = max over ranks\n",
               wsize, o.reps, o.warmup, rootdesc);
        printf("%10s  %-*s %10s %10s %10s %10s %8s  %s\n", "size", width, "algorithm", "median_us",
               "min_us", "p25_us", "p75_us", "speedup", "status");
    }
    int def = 0, failed = 0; /* "default" is always algs[0] */
    for (int si = 0; si < o.nsizes; si++) {
        for (int ai = 0; ai < o.nalgs; ai++) {
            bench_ctx c = {buf, o.sizes[si], o.root, wsize, o.algs[ai]};
            if (wrank == 0)
                fprintf(stderr, "topobcast-bench: size %zu: %s (%d/%d)\n", o.sizes[si], o.algs[ai],
                        si * o.nalgs + ai + 1, o.nsizes * o.nalgs);
            res[ai].status = tbb_validate(buf, c.bytes, o.root < 0 ? wsize - 1 : o.root, bcast_at, &c);
            memset(&res[ai].st, 0, sizeof res[ai].st);
            if (res[ai].status >= 0 &&
                tbtime_measure(MPI_COMM_WORLD, o.warmup, o.reps, bcast_op, &c, NULL,
                                  &res[ai].st) != MPI_SUCCESS)
                res[ai].status = -1;
            failed |= res[ai].status != 0;
        }
        if (wrank != 0)
            continue;
        for (int ai = 0; ai < o.nalgs; ai++) {
            const tbtime_stats *s = &res[ai].st;
            double speedup = res[ai].status == 0 && res[def].status == 0 && s->median > 0
                                 ? res[def].st.median / s->median
                                 : 0.0;
            printf("%10zu  %-*s %10.2f %10.2f %10.2f %10.2f %8.2f  %s\n", o.sizes[si], width, o.algs[ai],
                   s->median * 1e6, s->min * 1e6, s->p25 * 1e6, s->p75 * 1e6, speedup,
                   status_text(res[ai].status));
            if (csv)
                fprintf(csv, "%d,%zu,\"%s\",%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%s\n",
                        wsize, o.sizes[si], o.algs[ai], rootdesc, o.reps, s->median * 1e6,
                        s->min * 1e6, s->p25 * 1e6, s->p75 * 1e6, s->p90 * 1e6, s->max * 1e6,
                        s->mean * 1e6, s->trimmed_mean * 1e6, speedup, status_text(res[ai].status));
        }
        fflush(stdout);
    }
    if (csv && tt_out_close(csv, o.csv, "topobcast-bench") != 0)
        failed = 1;
    free(buf);
    free(res);
    MPI_Finalize();
    return failed ? 1 : 0;
}
