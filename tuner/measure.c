/* Timing the planned candidates, and the partial-results file; see
 * measure.h. */
#include "measure.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../timing/timing.h"
#include "agree.h"
#include "candidates.h"
#include "progress.h"
#include "tools.h"

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
static double item_work(const tn_opts *o, const tn_item *it, int k)
{
    double t = it->pred[k] >= 0 ? it->pred[k] : (it->best_pred >= 0 ? it->best_pred : 1e-5);
    int modes = o->root_mode == 2 ? 2 : 1;
    return (double)(o->reps + o->warmup) * modes * (t + 2e-5);
}

static void human_size(size_t v, char *buf, size_t len)
{
    if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(buf, len, "%zuM", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%zuK", v >> 10);
    else
        snprintf(buf, len, "%zu", v);
}

char *tn_measure_partial_path(const tn_opts *o, char *path, size_t len)
{
    if (o->partial)
        snprintf(path, len, "%s", o->partial);
    else
        snprintf(path, len, "%s.partial", o->out);
    return path;
}

int tn_measure_open_partial(tn_run *T)
{
    const tn_opts *o = &T->o;
    int ok = 1;
    if (T->wrank == 0) {
        char partial[1024], header[4096], comms[3072] = "", err[8400] = "";
        for (int c = 0, o2 = 0; c < T->ncomm && o2 < (int)sizeof comms; c++)
            o2 += snprintf(comms + o2, sizeof comms - (size_t)o2, "%s%s:%d", c ? "," : "", T->comms[c].label,
                           T->comms[c].size);
        tn_measure_partial_path(o, partial, sizeof partial);
        tn_results_header(header, sizeof header, T->wsize, o->reps, o->warmup, tn_roots_name(o->root_mode), comms);
        if (o->resume && tn_results_load(partial, header, &T->rs, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-tuner: cannot resume: %s\n", err);
            ok = 0;
        }
        T->prior = T->rs.n;
        /* a fresh run keeps an earlier run's measurements aside, never
         * silently over them */
        struct stat sb;
        if (ok && !o->resume && stat(partial, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            char old[1040];
            snprintf(old, sizeof old, "%s.old", partial);
            if (rename(partial, old) == 0)
                printf("# %s of an earlier run kept as %s (--resume would have continued it)\n", partial, old);
        }
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
    return tn_agree(ok) ? 0 : -1;
}

/* Rank 0: the fastest candidate measured at the previous size of the same
 * communicator joins this item's timed set when pruning left it out.  The
 * model's order across families is least trustworthy where a family it
 * flatters takes every slot within the factor (FRAM P=32 one rank per
 * node, 128 KiB: only a scatter-allgather predicted 1.5x too fast was
 * timed, at 1.04x against 1.74x for the split-binary tree that won at 64
 * and 256 KiB); one more run per size keeps the winners continuous. */
static void add_previous_winner(tn_run *T, int c, tn_item *it, const tn_item *prev)
{
    const tn_result *best = NULL;
    for (int j = 0; prev && j < prev->ntime; j++) {
        const tn_result *r = tn_results_find(&T->rs, c + 1, prev->bytes, prev->spec[j]);
        if (r && r->status == TN_RES_OK && strcmp(r->spec, "default") != 0 && tn_result_score(r) >= 0 &&
            (!best || tn_result_score(r) < tn_result_score(best)))
            best = r;
    }
    if (!best)
        return;
    /* a winner in small segments at the previous size would cut this one
     * into more pieces than --max-segments lets any candidate have (FRAM
     * P=512: 8 KiB segments carried from 2 to 4 and 8 MiB, minutes of
     * simulation per call): it is carried with its segments doubled until
     * the message fits (an interpipe winning at 4 MiB in 64 KiB segments
     * is timed at 8 MiB in 128 KiB ones, not dropped) */
    tb_alg_spec bs;
    char err[128], text[TN_CAND_TEXT];
    if (tb_alg_spec_parse(best->spec, &bs, err, sizeof err) != 0)
        return;
    tn_cand_fit_pieces(&bs, it->bytes, T->o.max_segments);
    tb_alg_spec_format(&bs, text, sizeof text);
    for (int j = 0; j < it->ntime; j++)
        if (!strcmp(it->spec[j], text))
            return;
    char (*spec)[TN_CAND_TEXT] = realloc(it->spec, sizeof *spec * (size_t)(it->ntime + 1));
    if (spec)
        it->spec = spec;
    double *pred = spec ? realloc(it->pred, sizeof *pred * (size_t)(it->ntime + 1)) : NULL;
    if (pred)
        it->pred = pred;
    char *pruned = pred ? realloc(it->pruned, (size_t)it->ntime + 1) : NULL;
    if (!pruned)
        return; /* out of memory: time what pruning chose */
    it->pruned = pruned;
    snprintf(it->spec[it->ntime], TN_CAND_TEXT, "%s", text);
    it->pred[it->ntime] = -1;
    it->pruned[it->ntime] = 1;
    it->ntime++;
    it->nprune++;
    T->total_prune++;
}

/* Rank 0: the index in it->spec of the next candidate to time, from
 * *cursor on (those with a result are skipped: resumed, or timed under
 * another name), or -1 when none is left. */
static int next_candidate(tn_run *T, int c, tn_item *it, int *cursor)
{
    for (; *cursor < it->ntime; ++*cursor)
        if (!tn_results_find(&T->rs, c + 1, it->bytes, it->spec[*cursor]))
            return (*cursor)++;
    return -1;
}

/* Members of comm: validates and times the candidates of one item, one at
 * a time as rank 0 names them (prev: the same communicator's previous
 * size, or NULL); rank 0 records each result at once, and what the timing
 * cost in MPI_Wtime and wall time. */
static void time_item(tn_run *T, int c, tn_item *it, const tn_item *prev, size_t bytes, unsigned char *buf,
                      tn_progress *prog)
{
    const tn_opts *o = &T->o;
    MPI_Comm comm = T->comms[c].comm;
    int me, cursor = 0;
    MPI_Comm_rank(comm, &me);
    if (T->wrank == 0 && !o->exhaustive)
        add_previous_winner(T, c, it, prev);
    for (;;) {
        /* rank 0 names the next candidate; an empty name ends the item */
        char t[TN_CAND_TEXT] = "";
        int j = -1;
        if (T->wrank == 0 && (j = next_candidate(T, c, it, &cursor)) >= 0)
            snprintf(t, sizeof t, "%s", it->spec[j]);
        MPI_Bcast(t, (int)sizeof t, MPI_CHAR, 0, comm);
        if (!t[0])
            break;
        const double w0 = tn_progress_now(), s0 = MPI_Wtime();
        op_ctx oc = {buf, bytes, T->comms[c].size, 0, comm, {0}};
        char err[256];
        tn_result r;
        memset(&r, 0, sizeof r);
        r.comm = c + 1;
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
        if (T->wrank != 0)
            continue;
        it->sim_seconds += MPI_Wtime() - s0;
        it->wall_seconds += tn_progress_now() - w0;
        it->nrun++;
        r.predicted = it->pred[j];
        tn_results_put(&T->rs, &r);
        tn_results_write_line(T->pf, &r);
        fflush(T->pf);
        T->new_runs++;
        if (r.status != TN_RES_OK) {
            T->failed++;
            fprintf(stderr, "\ntopobcast-tuner: %s at %zu B on %s (%d processes): %s\n", t, r.bytes, T->comms[c].label,
                    T->comms[c].size,
                    r.status == TN_RES_WRONG ? "WRONG DATA (never selected)" : "error (never selected)");
        }
        char what[200], hs[32];
        human_size(r.bytes, hs, sizeof hs);
        snprintf(what, sizeof what, "%s P=%d %s %.60s", T->comms[c].label, T->comms[c].size, hs, t);
        tn_progress_add(prog, item_work(o, it, j), what);
        if (o->verbose)
            fprintf(stderr, "tuner: timed %s P=%d %zu B %s: %.2f us, predicted %.2f us; %.3f s simulated, %.1f s wall\n",
                    T->comms[c].label, T->comms[c].size, bytes, t, tn_result_score(&r) * 1e6, it->pred[j] * 1e6,
                    MPI_Wtime() - s0, tn_progress_now() - w0);
    }
}

/* All ranks: warm-up, then every item of every communicator. */
int tn_measure_all(tn_run *T)
{
    const tn_opts *o = &T->o;
    size_t maxb = o->sizes[o->nsizes - 1];
    unsigned char *buf = tn_agree_buffer(MPI_COMM_WORLD, maxb);
    if (!buf)
        return -1;
    /* warm-up: connections, the library's per-communicator state and the
     * first touch of the buffer, so the first candidate timed is not
     * charged for them */
    for (int c = 0; c < T->ncomm; c++) {
        if (T->comms[c].comm == MPI_COMM_NULL)
            continue;
        tbtime_warm_up(T->comms[c].comm, buf, maxb, 0);
        MPI_Barrier(T->comms[c].comm);
    }
    double total_work = 0;
    if (T->wrank == 0)
        for (int k = 0; k < T->nitems; k++)
            for (int j = 0; j < T->items[k].ntime; j++)
                if (!tn_results_find(&T->rs, T->items[k].ci + 1, T->items[k].bytes, T->items[k].spec[j]))
                    total_work += item_work(o, &T->items[k], j);
    tn_progress prog;
    tn_progress_start(&prog, total_work, T->wrank == 0);
    double w0 = MPI_Wtime();
    for (int c = 0; c < T->ncomm; c++) {
        if (T->comms[c].comm != MPI_COMM_NULL)
            for (int s = 0; s < o->nsizes; s++)
                time_item(T, c, &T->items[c * o->nsizes + s], s ? &T->items[c * o->nsizes + s - 1] : NULL,
                          o->sizes[s], buf, &prog);
        MPI_Barrier(MPI_COMM_WORLD); /* non-members wait here */
    }
    tn_progress_finish(&prog);
    T->seconds = tn_progress_elapsed(&prog);
    T->wtime_seconds = MPI_Wtime() - w0;
    free(buf);
    return 0;
}
