/* topobcast-bench --overlap: how much of a non-blocking broadcast hides
 * behind the application's computation, measured as osu_ibcast does:
 *
 *   t_pure  = MPI_Ibcast + MPI_Wait alone
 *   t_cpu   = a computation as long as t_pure, alone
 *   t_total = MPI_Ibcast, the computation, MPI_Wait
 *   overlap = 100 (1 - (t_total - t_cpu) / t_pure), clamped to 0..100
 *
 * Each figure is a median over repetitions of the maximum over ranks
 * (timing/).  The library moves its broadcasts on only inside MPI calls
 * (README, "Non-blocking and persistent broadcasts"): with --tests 0 the
 * computation makes none, so a schedule of several rounds overlaps little
 * beyond its first round; --tests N spreads N MPI_Test calls over it.
 * "default" is MPI's own MPI_Ibcast, "auto" MPI_Ibcast as the application
 * sees it (the library's choice). */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../timing/timing.h"
#include "../topology/topology.h"
#include "bench.h"
#include "topobcast.h"

typedef struct ov_ctx {
    unsigned char *buf;
    size_t bytes;
    int root; /* -1: repetition i uses root i mod np (--root rotate) */
    int np;
    const char *spec;
    double cpu; /* seconds of computation */
    int tests;
} ov_ctx;

static int ibcast(const ov_ctx *c, int root, MPI_Request *req)
{
    if (!strcmp(c->spec, "auto"))
        return MPI_Ibcast(c->buf, (int)c->bytes, MPI_BYTE, root, MPI_COMM_WORLD, req);
    return topobcast_ibcast_algorithm(c->buf, (MPI_Count)c->bytes, MPI_BYTE, root, MPI_COMM_WORLD, c->spec, req);
}

/* Busy for secs: spinning on the clock on a real machine; under SimGrid
 * SMPI, whose clock only moves in MPI calls and simulated sleeps, a
 * simulated sleep. */
static void busy(double secs)
{
    if (secs <= 0)
        return;
#ifdef SMPI_H
    usleep((useconds_t)(secs * 1e6));
#else
    double end = MPI_Wtime() + secs;
    while (MPI_Wtime() < end)
        ;
#endif
}

/* The computation, in tests + 1 slices with an MPI_Test after each but the
 * last (req NULL: no tests). */
static void compute(const ov_ctx *c, MPI_Request *req)
{
    int slices = req ? c->tests + 1 : 1;
    for (int k = 0; k < slices; k++) {
        busy(c->cpu / slices);
        if (req && k < slices - 1 && *req != MPI_REQUEST_NULL) {
            int flag;
            MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        }
    }
}

static int root_of(const ov_ctx *c, int rep)
{
    return tbb_root_at(c->root, c->np, rep);
}

static int op_pure(void *ctx, int rep)
{
    const ov_ctx *c = ctx;
    MPI_Request req;
    int rc = ibcast(c, root_of(c, rep), &req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int op_cpu(void *ctx, int rep)
{
    (void)rep;
    compute(ctx, NULL);
    return MPI_SUCCESS;
}

static int op_total(void *ctx, int rep)
{
    const ov_ctx *c = ctx;
    MPI_Request req;
    int rc = ibcast(c, root_of(c, rep), &req);
    if (rc != MPI_SUCCESS)
        return rc;
    compute(c, &req);
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int run_at(void *ctx, int root)
{
    MPI_Request req;
    int rc = ibcast(ctx, root, &req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int tbb_overlap(const tbb_opts *o)
{
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t maxbytes = 1;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > maxbytes)
            maxbytes = o->sizes[i];
    unsigned char *buf = malloc(maxbytes);
    if (!buf) {
        fprintf(stderr, "topobcast-bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    FILE *csv = NULL;
    if (me == 0 && o->csv) {
        csv = fopen(o->csv, "w");
        if (!csv)
            fprintf(stderr, "topobcast-bench: cannot write %s: %s\n", o->csv, strerror(errno));
        else
            fprintf(csv, "ranks,size_bytes,algorithm,root,tests,reps,pure_us,cpu_us,total_us,overlap_pct,status\n");
    }
    /* the root of the set-up and the data check: o->root, or (rotate) the
     * last rank, as the blocking bench checks */
    int root = o->root < 0 ? np - 1 : o->root;
    char rootdesc[32];
    tbb_root_name(o->root, rootdesc, sizeof rootdesc);
    int width = tbb_alg_width(o);
    if (me == 0) {
        printf("# topobcast-bench --overlap: %d ranks, %d repetitions (+%d warm-up), root %s, %d MPI_Test "
               "call(s) during the computation; times = median of the max over ranks\n",
               np, o->reps, o->warmup, rootdesc, o->tests);
        printf("%10s  %-*s %10s %10s %10s %8s  %s\n", "size", width, "algorithm", "pure_us", "cpu_us", "total_us",
               "overlap%", "status");
    }
    int failed = 0;
    for (int si = 0; si < o->nsizes; si++)
        for (int ai = 0; ai < o->nalgs; ai++) {
            ov_ctx c = {buf, o->sizes[si], o->root, np, o->algs[ai], 0.0, o->tests};
            tbtime_stats pure = {0}, cpu = {0}, total = {0};
            /* a blocking call sets the communicator up for the spec, as the
             * application's MPI_Bcast would for "auto" */
            int rc = strcmp(c.spec, "auto")
                         ? topobcast_bcast_algorithm(buf, (MPI_Count)c.bytes, MPI_BYTE, root, MPI_COMM_WORLD, c.spec)
                         : MPI_Bcast(buf, (int)c.bytes, MPI_BYTE, root, MPI_COMM_WORLD);
            int status = rc == MPI_SUCCESS ? 0 : -1;
            if (status == 0)
                status = tbb_validate(buf, c.bytes, root, run_at, &c);
            if (status == 0 && tbtime_measure(MPI_COMM_WORLD, o->warmup, o->reps, op_pure, &c, NULL, &pure) != MPI_SUCCESS)
                status = -1;
            c.cpu = pure.median; /* the same on every rank */
            if (status == 0 && (tbtime_measure(MPI_COMM_WORLD, 1, o->reps, op_cpu, &c, NULL, &cpu) != MPI_SUCCESS ||
                                tbtime_measure(MPI_COMM_WORLD, o->warmup, o->reps, op_total, &c, NULL, &total) !=
                                    MPI_SUCCESS))
                status = -1;
            failed |= status != 0;
            double ov = 0.0;
            if (status == 0 && pure.median > 0) {
                ov = 100.0 * (1.0 - (total.median - cpu.median) / pure.median);
                ov = ov < 0 ? 0 : ov > 100 ? 100 : ov;
            }
            if (me != 0)
                continue;
            const char *st = status == 0 ? "ok" : status == 1 ? "WRONG-DATA" : "ERROR";
            printf("%10zu  %-*s %10.2f %10.2f %10.2f %8.1f  %s\n", c.bytes, width, c.spec, pure.median * 1e6,
                   cpu.median * 1e6, total.median * 1e6, ov, st);
            fflush(stdout);
            if (csv)
                fprintf(csv, "%d,%zu,\"%s\",%s,%d,%d,%.3f,%.3f,%.3f,%.2f,%s\n", np, c.bytes, c.spec, rootdesc, o->tests,
                        o->reps, pure.median * 1e6, cpu.median * 1e6, total.median * 1e6, ov, st);
        }
    if (csv && tt_out_close(csv, o->csv, "topobcast-bench") != 0)
        failed = 1;
    free(buf);
    return failed ? 1 : 0;
}
