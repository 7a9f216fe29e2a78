/* The end of a tuning run: reports, the table file and its check; see
 * output.h. */
#include "output.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agree.h"
#include "measure.h"
#include "model_error.h"
#include "progress.h"
#include "setup.h"
#include "site.h"
#include "table.h"
#include "topology.h"
#include "winners.h"

/* The timed runs per communicator, and against exhaustive. */
static void print_counts(const tn_run *T, const tn_prune_check *pc)
{
    const tn_opts *o = &T->o;
    long timed = 0;
    for (int k = 0; k < T->nitems; k++)
        timed += T->items[k].ntime;
    printf("\ntimed runs per communicator (shape):\n");
    for (int c = 0; c < T->ncomm; c++) {
        long tc = 0, pc_ = 0, cand = 0, dist = 0;
        for (int k = 0; k < T->nitems; k++)
            if (T->items[k].ci == c) {
                tc += T->items[k].ntime;
                pc_ += T->items[k].nprune;
                cand += T->items[k].ncand;
                dist += T->items[k].ndistinct;
            }
        printf("  %-14s %5d processes: %6ld timed%s (%ld kept by pruning), of %ld candidates, %ld distinct\n",
               T->comms[c].label, T->comms[c].size, tc, o->exhaustive ? " (exhaustive)" : "", pc_, cand, dist);
    }
    long pruned_runs = o->exhaustive ? T->total_prune : timed;
    printf("\ntimed runs (one algorithm at one size on one communicator): %ld with pruning; exhaustive: %ld "
           "candidates (%.1fx more), %ld distinct schedules (%.1fx more)\n",
           pruned_runs, T->total_cand, pruned_runs ? (double)T->total_cand / (double)pruned_runs : 0.0,
           T->total_distinct, pruned_runs ? (double)T->total_distinct / (double)pruned_runs : 0.0);
    if (o->exhaustive && pc->cases > 0)
        printf("pruning at %.2fx would have timed %ld and chosen the same winner in %ld of %ld cases (%ld more "
               "within the tie of %.0f%%); its choices are %.3fx the exhaustive winners' time on geometric mean, "
               "%.3fx at worst\n",
               o->factor, T->total_prune, pc->same, pc->cases, pc->tied, o->tie * 100,
               exp(pc->logsum / (double)pc->cases), pc->worst);
}

/* The timing cost of count items from T->items[first] on, stride apart. */
typedef struct item_cost {
    int runs;
    double wtime, wall;
} item_cost;

static item_cost cost_of(const tn_run *T, int first, int stride, int count)
{
    item_cost sum = {0, 0, 0};
    for (int i = 0; i < count; i++) {
        const tn_item *it = &T->items[first + i * stride];
        sum.runs += it->nrun, sum.wtime += it->sim_seconds, sum.wall += it->wall_seconds;
    }
    return sum;
}

/* What the timing cost: per size (every communicator) and per
 * communicator, the candidates timed in this run, their MPI_Wtime (the
 * simulated time under SMPI: what the same timings take on a machine of
 * this size) and their wall time here; then the run's wall time by phase. */
static void print_cost(const tn_run *T)
{
    const tn_opts *o = &T->o;
    printf("\ntiming cost of this run (wtime: MPI_Wtime of the timed calls with their barriers and data checks, "
           "simulated under SMPI: what the same timings take on a machine of this size; wall: here):\n");
    printf("  %10s %7s %13s %10s\n", "size", "timed", "wtime_s", "wall_s");
    for (int s = 0; s < o->nsizes; s++) { /* items are per communicator, then per size */
        item_cost k = cost_of(T, s, o->nsizes, T->ncomm);
        printf("  %10zu %7d %13.4f %10.1f\n", o->sizes[s], k.runs, k.wtime, k.wall);
    }
    item_cost all = cost_of(T, 0, 1, T->nitems);
    printf("  %10s %7d %13.4f %10.1f\n", "all", all.runs, all.wtime, all.wall);
    for (int c = 0; c < T->ncomm; c++) {
        item_cost k = cost_of(T, c * o->nsizes, 1, o->nsizes);
        printf("  %-14s %5d processes: %5d timed, %10.4f s wtime, %8.1f s wall\n", T->comms[c].label,
               T->comms[c].size, k.runs, k.wtime, k.wall);
    }
    char a[32], b[32], c[32], d[32];
    tn_progress_duration(T->setup_seconds, a, sizeof a);
    tn_progress_duration(T->plan_seconds, b, sizeof b);
    tn_progress_duration(T->seconds, c, sizeof c);
    tn_progress_duration(tn_progress_now() - T->start, d, sizeof d);
    printf("wall time: set-up %s, pricing %s, timing %s (of it %.1f s in the candidates, the rest warm-up and "
           "waits), %s in all\n",
           a, b, c, all.wall, d);
}

/* --site: the grid's decisions as t's rules and check entries (t->comm
 * replaced by the grid's points); the cost of the calibration.  0 or -1. */
static int site_table(tn_run *T, tn_table *t)
{
    tn_site_grid g;
    for (int i = 0; i < t->ncomm; i++)
        free(t->comm[i].ranges);
    free(t->comm);
    t->comm = NULL;
    t->ncomm = 0;
    if (tn_site_decide(T, tn_shape_config(), &g) != 0) {
        tn_site_grid_free(&g);
        return -1;
    }
    tn_site_print(T, &g, stdout);
    int rc = tn_site_rules(&g, T->o.sizes, T->o.nsizes, tn_shape_config(), t) == 0 &&
                     tn_site_table_comms(&g, T->o.sizes, T->o.nsizes, t) == 0
                 ? 0
                 : -1;
    long runs = 0;
    for (int k = 0; k < T->nitems; k++)
        runs += T->items[k].ntime;
    char wall[32];
    tn_progress_duration(T->seconds, wall, sizeof wall);
    printf("\nsite calibration cost: %d shapes timed, %d sizes, %ld candidates timed (%ld timed runs of %d "
           "repetitions + %d warm-up, roots %s), %.2f s of MPI_Wtime timing (simulated under SMPI), %s wall; %d "
           "cells priced from %ld shapes built as data (%ld predictions) in %.1f s\n",
           T->ncomm, T->o.nsizes, runs, runs * (T->o.root_mode == 2 ? 2 : 1), T->o.reps, T->o.warmup,
           tn_roots_name(T->o.root_mode), T->wtime_seconds, wall, g.ncell, g.points, g.priced, g.seconds);
    tn_site_grid_free(&g);
    return rc;
}

/* The table file: written with the topology, loaded back and checked.
 * Returns the exit status. */
static int write_table(tn_run *T, const tn_table *t)
{
    const tn_opts *o = &T->o;
    int status = 0;
    char meta[1024], date[64], src[256];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", localtime(&now));
    snprintf(src, sizeof src, "%.200s", T->have_costs ? T->costs.source : "none");
    for (char *q = src; *q; q++) /* it goes inside a double-quoted YAML scalar */
        if (*q == '"' || *q == '\\' || *q == '\n')
            *q = '_';
    snprintf(meta, sizeof meta,
             "written-by: topobcast-tuner, date: \"%s\", nprocs: %d, reps: %d, warmup: %d, roots: %s, "
             "factor: %g, costs: \"%s\"%s",
             date, T->wsize, o->reps, o->warmup, tn_roots_name(o->root_mode), o->factor, src,
             o->site ? ", site: yes" : "");
    FILE *out = fopen(o->out, "w");
    if (!out) {
        fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", o->out, strerror(errno));
        status = 2;
    } else {
        int werr = tn_table_write(out, t, tn_shape_config(), T->have_topo ? &T->topo_cfg.topo : NULL, meta);
        if (tt_out_close(out, o->out, "topobcast-tuner") != 0 || werr != 0) /* closed either way */
            status = 2;
    }
    if (status == 0) {
        char err[1024];
        int nrules = t->nrules + 1;
        if (tn_table_verify(o->out, t, o->sizes, o->nsizes, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-tuner: the table does not load as written: %s\n", err);
            status = 1;
        } else {
            printf("table: %s (%d rules%s); it loads and selects every %s\n", o->out, nrules,
                   T->have_topo ? ", with the topology" : "",
                   o->site ? "decision at every shape priced (timed or built as data)" : "measured winner");
            printf("use it: TOPOBCAST_CONFIG=%s; check it: %s --compare %s\n", o->out, o->prog, o->out);
        }
    }
    return status;
}

/* Rank 0: reports, the YAML and its check.  Returns the exit status. */
int tn_output_write(tn_run *T)
{
    const tn_opts *o = &T->o;
    int status = 0;
    char elapsed[32];
    tn_progress_duration(T->seconds, elapsed, sizeof elapsed);
    char partial[1024];
    if (tt_out_close(T->pf, tn_measure_partial_path(o, partial, sizeof partial), "topobcast-tuner") != 0)
        T->lost_writes = 1;
    T->pf = NULL;
    printf("# timing done in %s: %ld new measurements (%ld from the partial file)%s\n", elapsed, T->new_runs,
           (long)T->prior, T->failed ? "; some candidates failed, see above" : "");
    tn_table t = {0};
    tn_prune_check pc = {0, 0, 0, 1.0, 0.0};
    if (tn_winners_pick(T, &t, &pc) != 0 ||
        (!o->site && tn_table_build(&t, tn_shape_config(), tn_table_kinds_of_job(&T->world_shape)) != 0)) {
        fprintf(stderr, "topobcast-tuner: out of memory\n");
        tn_table_free(&t);
        return 2;
    }
    if (T->have_costs)
        tn_model_error_report(&T->rs, stdout);
    print_counts(T, &pc);
    print_cost(T);
    if (o->site && site_table(T, &t) != 0) {
        fprintf(stderr, "topobcast-tuner: out of memory\n");
        tn_table_free(&t);
        return 2;
    }
    status = write_table(T, &t);
    if (status == 0 && T->lost_writes)
        status = 1; /* the table is whole; a file beside it is not (said above) */
    tn_table_free(&t);
    return status;
}

/* Rank 0: whether path can be written, without changing it; says why not. */
static int can_write(const char *what, const char *path)
{
    struct stat sb;
    int existed = stat(path, &sb) == 0;
    if (existed && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "topobcast-tuner: cannot write %s %s: it is a directory; nothing measured\n", what, path);
        return 0;
    }
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "topobcast-tuner: cannot write %s %s: %s; nothing measured\n", what, path, strerror(errno));
        return 0;
    }
    fclose(f);
    if (!existed)
        unlink(path);
    return 1;
}

int tn_output_check(const tn_run *T)
{
    const tn_opts *o = &T->o;
    int ok = 1;
    if (T->wrank == 0) {
        char partial[1024];
        tn_measure_partial_path(o, partial, sizeof partial);
        ok = can_write("the table (-o)", o->out) && can_write("the partial results", partial) &&
             (!o->model_csv || can_write("--model-csv", o->model_csv));
        if (ok && strcmp(partial, o->out) == 0) {
            fprintf(stderr, "topobcast-tuner: --partial %s is the table (-o) too; name another file\n", partial);
            ok = 0;
        }
    }
    return tn_agree(ok) ? 0 : -1;
}
