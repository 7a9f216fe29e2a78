/* Tuned library versus PMPI_Bcast; see compare.h. */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../timing/timing.h"
#include "agree.h"
#include "compare_bound.h"
#include "comms.h"
#include "options.h" /* TN_MAX_COMMS */
#include "table.h"
#include "tools.h"
#include "topology.h"
#include "topobcast.h"

typedef struct op_ctx {
    unsigned char *buf;
    size_t bytes;
    int size, rotate, library;
    MPI_Comm comm;
} op_ctx;

static int root_of(const op_ctx *c, int rep)
{
    return c->rotate ? (rep < 0 ? -rep : rep) % c->size : 0;
}

static int bcast_op(void *ctx, int rep)
{
    op_ctx *c = ctx;
    if (c->library) /* what an application calls: the library's dispatch */
        return MPI_Bcast(c->buf, (int)c->bytes, MPI_BYTE, root_of(c, rep), c->comm);
    return PMPI_Bcast(c->buf, (int)c->bytes, MPI_BYTE, root_of(c, rep), c->comm);
}

/* One library broadcast of a pattern from the last rank; 1 on every rank if
 * any rank got wrong bytes, -1 if the call failed. */
static int check_data(op_ctx *c, int me)
{
    int root = c->size - 1;
    for (size_t i = 0; i < c->bytes; i++)
        c->buf[i] = me == root ? (unsigned char)(i * 13 + 5 + i / 241) : 0x5A;
    int rc = MPI_Bcast(c->buf, (int)c->bytes, MPI_BYTE, root, c->comm);
    int bad = rc != MPI_SUCCESS ? 2 : 0, any;
    for (size_t i = 0; i < c->bytes && !bad; i++)
        if (c->buf[i] != (unsigned char)(i * 13 + 5 + i / 241))
            bad = 1;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any == 2 ? -1 : any;
}

/* Median (mean of the root modes' medians) of one side over reps
 * repetitions after warmup. */
static int measure(op_ctx *c, const tn_compare_opts *o, int warmup, int reps, double *median)
{
    double m[2];
    int n = 0;
    for (int mode = 0; mode < 2; mode++) {
        if ((o->root_mode == 0 && mode == 1) || (o->root_mode == 1 && mode == 0))
            continue;
        c->rotate = mode;
        tbtime_stats st;
        int rc = tbtime_measure(c->comm, warmup, reps, bcast_op, c, NULL, &st);
        if (rc != MPI_SUCCESS)
            return rc;
        m[n++] = st.median;
    }
    *median = n == 2 ? (m[0] + m[1]) / 2 : m[0];
    return MPI_SUCCESS;
}

/* Rounds per size: the repetitions are cut into rounds that alternate the
 * two sides (default first in even rounds, the library first in odd
 * ones), so that a machine that slows down or speeds up during the
 * comparison (another job, frequency, the cache) weighs on both alike.  A
 * simulation is deterministic: one round. */
#ifdef SMPI_H
#define COMPARE_ROUNDS 1
#else
#define COMPARE_ROUNDS 5
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The two sides of one size in interleaved rounds: each side's time is
 * the median of its rounds' medians, *sp_lo and *sp_hi the lowest and
 * highest of the rounds' speedups.  lib_too 0: the library calls
 * PMPI_Bcast at this size, one side timed serves both. */
static int measure_pair(op_ctx *c, const tn_compare_opts *o, int lib_too, double *tdef, double *tlib, double *sp_lo,
                        double *sp_hi)
{
    int rounds = o->reps < COMPARE_ROUNDS ? o->reps : COMPARE_ROUNDS;
    double md[COMPARE_ROUNDS], ml[COMPARE_ROUNDS];
    *sp_lo = INFINITY;
    *sp_hi = 0;
    for (int r = 0; r < rounds; r++) {
        int reps = o->reps / rounds + (r < o->reps % rounds), warm = r == 0 ? o->warmup : 1, rc;
        for (int k = 0; k < 2; k++) {
            int lib = (k + r) % 2; /* even rounds: default first */
            if (lib && !lib_too)
                continue;
            c->library = lib;
            if ((rc = measure(c, o, warm, reps, lib ? &ml[r] : &md[r])) != MPI_SUCCESS)
                return rc;
        }
        if (!lib_too)
            ml[r] = md[r];
        double sp = ml[r] > 0 ? md[r] / ml[r] : 0;
        *sp_lo = sp < *sp_lo ? sp : *sp_lo;
        *sp_hi = sp > *sp_hi ? sp : *sp_hi;
    }
    *tdef = median_of(md, rounds);
    *tlib = median_of(ml, rounds);
    return MPI_SUCCESS;
}

static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Why a table chose MPI's own broadcast at every size compared: which rule
 * fired (first_line, at the last size), and which rules choose an
 * algorithm and for which communicator sizes (a table tuned for another
 * process count is the usual cause). */
static void why_all_default(FILE *out, const char *label, int size, const tb_config *cfg, int first_line)
{
    char list[400] = "", range[48];
    size_t len = 0;
    int n = 0, for_size = 0;
    for (int i = 0; i < cfg->nrules; i++) {
        const tb_rule *r = &cfg->rules[i];
        if (r->spec.id == TB_ALG_DEFAULT)
            continue;
        for_size += r->comm_lo <= size && size <= r->comm_hi;
        if (++n > 4 || len >= sizeof list - 1)
            continue;
        tn_count_range(r->comm_lo, r->comm_hi, range, sizeof range);
        len += (size_t)snprintf(list + len, sizeof list - len, "%sline %d (comm %s)", n > 1 ? ", " : "", r->line,
                                range);
    }
    if (n == 0)
        fprintf(out, "# %s: %s chooses MPI's own broadcast for every communicator and size\n", label, cfg->source);
    else if (for_size == 0)
        fprintf(out,
                "# %s: WARNING: no rule of %s that chooses an algorithm is for a communicator of %d processes: %s%s; "
                "tune for this job's process count (topobcast-tuner -o) or add a rule for it\n",
                label, cfg->source, size, list, n > 4 ? ", ..." : "");
    else
        fprintf(out,
                "# %s: the rule at line %d of %s (default) matched first; the rules that choose an algorithm, %s%s, "
                "did not match this communicator (%d processes) at these sizes (their comm, bytes or shape keys)\n",
                label, first_line, cfg->source, list, n > 4 ? ", ..." : "", size);
}

/* One communicator (collective over it); rank 0 of comm (world rank 0)
 * prints and writes csv.  Returns 0, 1 or 2 as tn_compare_run. */
static int compare_one(MPI_Comm comm, const char *label, const int *members, const tn_compare_opts *o, FILE *out,
                       FILE *csv)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    size_t maxb = 1;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > maxb)
            maxb = o->sizes[i];
    unsigned char *buf = tn_agree_buffer(comm, maxb);
    if (!buf)
        return 2;

    /* say plainly when the library is not using the configuration: the
     * comparison would then measure default against default */
    const tb_tool_setup *st = tb_tool_setup_get();
    int cs_usable = 0;
    const tb_hier *ch = size > 1 ? tb_tool_comm_hier(comm, &cs_usable) : NULL;
    const tb_shape *sh = size > 1 ? tb_tool_comm_shape(comm) : NULL;
    int usable = st->config_ok && ch && cs_usable && !st->disabled;
    char keys[256] = "";
    if (sh)
        tb_shape_format(sh, st->config_ok ? st->config : NULL, keys, sizeof keys);
    if (me == 0)
        fprintf(out, "\n# shape %s: %d processes, %s%s\n", label, size, keys,
                usable ? "" : "; configuration NOT IN USE (see the warning above): the library falls back to MPI_Bcast");
    double *bound = calloc((size_t)o->nsizes + 1, sizeof *bound);
    int have_bound = bound && tn_compare_bounds(comm, members, o->platform, o->hostfile, o->costs, o->sizes,
                                                o->nsizes, o->root_mode != 0, bound, out) == 0;
    if (me == 0)
        fprintf(out, "%10s %12s %14s %8s %13s %12s %10s  %s\n", "size", "default_us", "topobcast_us", "speedup",
                "rounds", "bound_us", "efficiency", "algorithm");
    /* warm-up of both paths (connections, the library's communicator state,
     * first touch of the buffer) before anything is timed */
    tbtime_warm_up(comm, buf, maxb, 1);
    int status = 0;
    double logsum = 0, logsum_mid = 0, minsp = INFINITY;
    int nsp = 0, nmid = 0, ndefault = 0, nbig = 0, nbelow = 0;
    double logeff_big = 0;
    size_t minsz = 0;
    int fired_line = 0; /* the table's rule at the last size */
    for (int i = 0; i < o->nsizes; i++) {
        op_ctx c = {buf, o->sizes[i], size, 0, 0, comm};
        char alg[512] = "default";
        topobcast_selected_algorithm(comm, (MPI_Count)c.bytes, MPI_BYTE, alg, sizeof alg);
        if (usable && sh) {
            const tb_rule *r = tb_config_select(st->config, sh, c.bytes, NULL);
            fired_line = r ? r->line : fired_line;
        }
        c.library = 1;
        int bad = check_data(&c, me);
        /* where the table keeps MPI's own broadcast, the library calls
         * PMPI_Bcast: one timing serves both columns (timed twice, the
         * noise between two runs of one call read as speedups of 0.7-2.6x) */
        int is_default = strncmp(alg, "default", 7) == 0;
        double tdef = 0, tlib = 0, sp_lo = 0, sp_hi = 0;
        int rc = measure_pair(&c, o, !is_default, &tdef, &tlib, &sp_lo, &sp_hi);
        if (bad || rc != MPI_SUCCESS)
            status = bad == 1 ? 1 : (status ? status : 2);
        if (me != 0)
            continue;
        double sp = tlib > 0 ? tdef / tlib : 0;
        double bd = have_bound ? bound[i] : NAN, eff = have_bound && tlib > 0 ? bd / tlib : NAN;
        /* a time below the bound is a bug in the bound (or in the timing) */
        int lib_below = have_bound && tlib > 0 && tlib < bd, def_below = have_bound && tdef > 0 && tdef < bd;
        nbelow += lib_below || def_below;
        /* which time is below, named: the flag follows the algorithm column */
        const char *note = bad == 1                        ? "  WRONG DATA"
                           : (bad || rc != MPI_SUCCESS)    ? "  ERROR"
                           : lib_below && def_below        ? "  BOTH TIMES BELOW THE BOUND"
                           : lib_below                     ? "  TOPOBCAST TIME BELOW THE BOUND"
                           : def_below                     ? "  DEFAULT TIME BELOW THE BOUND"
                                                           : "";
        char spread[32];
        snprintf(spread, sizeof spread, "%.2f-%.2f", sp_lo, sp_hi);
        fprintf(out, "%10zu %12.2f %14.2f %8.3f %13s %12.2f %10.3f  %s%s\n", c.bytes, tdef * 1e6, tlib * 1e6, sp, spread,
                bd * 1e6, eff, alg, note);
        fflush(out);
        if (csv) {
            fprintf(csv, "%s,%d,%s,%zu,%.3f,%.3f,%.4f,", label, size, keys, c.bytes, tdef * 1e6, tlib * 1e6, sp);
            csv_quoted(csv, alg);
            if (have_bound)
                fprintf(csv, ",%.3f,%.4f", bd * 1e6, eff);
            else
                fprintf(csv, ",,");
            fprintf(csv, ",%.4f,%.4f\n", sp_lo, sp_hi);
        }
        if (eff > 0 && c.bytes >= 1024 * 1024) {
            logeff_big += log(eff);
            nbig++;
        }
        if (sp > 0) {
            logsum += log(sp);
            nsp++;
            if (c.bytes >= 64 * 1024 && c.bytes <= 8 * 1024 * 1024) {
                logsum_mid += log(sp);
                nmid++;
            }
            if (sp < minsp) {
                minsp = sp;
                minsz = c.bytes;
            }
        }
        ndefault += is_default;
    }
    if (me == 0) {
        if (nsp > 0)
            fprintf(out, "# %s: geometric-mean speedup %.3f over %d sizes; lowest %.3f at %zu bytes\n", label,
                    exp(logsum / nsp), nsp, minsp, minsz);
        if (nmid > 0)
            fprintf(out, "# %s: geometric-mean speedup %.3f over the %d sizes in 64 KiB - 8 MiB\n", label,
                    exp(logsum_mid / nmid), nmid);
        if (usable || ndefault < o->nsizes)
            fprintf(out, "# %s: the table chose default (PMPI_Bcast) at %d of %d sizes%s\n", label, ndefault,
                    o->nsizes, ndefault ? " (timed once, speedup 1: the library calls PMPI_Bcast there)" : "");
        else /* the library fell back: the table's choices were not used */
            fprintf(out, "# %s: the library used default (PMPI_Bcast) at %d of %d sizes: the table is not in use on "
                         "this communicator (said above)\n", label, ndefault, o->nsizes);
        if (usable && ndefault == o->nsizes && !st->forced)
            why_all_default(out, label, size, st->config, fired_line);
        if (nbig > 0)
            fprintf(out, "# %s: efficiency (bound / topobcast time): geometric mean %.3f over the %d sizes >= 1 MiB\n",
                    label, exp(logeff_big / nbig), nbig);
        if (nbelow > 0)
            fprintf(out, "# %s: WARNING: %d sizes measured below the bound: the bound is wrong for this machine\n",
                    label, nbelow);
    }
    free(buf);
    free(bound);
    return status;
}

int tn_compare_run(const tn_compare_opts *o, FILE *out)
{
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    tn_shape_pick picks[TN_MAX_TUNED];
    MPI_Comm comms[TN_MAX_TUNED];
    int n = tn_comms_create(o->shapes, o->comm_sizes, o->ncomm_sizes, NULL, NULL, picks, comms, TN_MAX_TUNED);
    if (n < 0) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: out of memory choosing the communicators\n");
        return 2;
    }
    if (n == 0) { /* as a tuning run says it */
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: nothing to compare on %d process(es) (communicators need >= 2)\n",
                    wsize);
        return 2;
    }
    const tb_tool_setup *st = tb_tool_setup_get();
    /* a configuration the library cannot load leaves nothing to compare
     * (default against default): an error, not a table of 1.00x */
    int loaded = st->config_ok && st->config && st->config->source[0], all_loaded = 0;
    MPI_Allreduce(&loaded, &all_loaded, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_loaded) {
        if (wrank == 0)
            fprintf(stderr, "topobcast-tuner: --compare: the configuration could not be loaded%s (see the warning "
                            "above): nothing to compare\n", loaded ? " on some ranks" : "");
        tn_comms_free(picks, comms, n);
        return 1;
    }
    FILE *csv = NULL;
    int csv_failed = 0;
    if (wrank == 0) {
        fprintf(out, "# topobcast-tuner --compare: %d processes, configuration %s, %d communicator%s:", wsize,
                st->config->source, n, n == 1 ? "" : "s");
        for (int i = 0; i < n; i++)
            fprintf(out, " %s (%d)", picks[i].label, picks[i].size);
        fprintf(out, "\n");
        if (st->forced)
            fprintf(out, "# note: TOPOBCAST_ALGORITHM is set and overrides the table\n");
        fprintf(out, "# %d repetitions (+%d warm-up) per size and side in %d interleaved round%s, root %s; time = max over "
                     "ranks, the median of the rounds' medians; rounds: the lowest and highest of the rounds' speedups\n",
                o->reps, o->warmup, o->reps < COMPARE_ROUNDS ? o->reps : COMPARE_ROUNDS,
                (o->reps < COMPARE_ROUNDS ? o->reps : COMPARE_ROUNDS) == 1 ? "" : "s",
                o->root_mode == 0 ? "0" : o->root_mode == 1 ? "rotating" : "0 and rotating");
        if (o->csv) {
            csv = fopen(o->csv, "w");
            if (!csv) {
                fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", o->csv, strerror(errno));
                csv_failed = 1;
            }
            else
                fprintf(csv, "shape,nprocs,shape_keys,size,default_us,topobcast_us,speedup,algorithm,bound_us,efficiency,"
                             "speedup_lo,speedup_hi\n");
        }
    }
    int status = csv_failed;
    for (int i = 0; i < n; i++) {
        if (comms[i] != MPI_COMM_NULL) {
            int st_i = compare_one(comms[i], picks[i].label, picks[i].members, o, out, csv);
            status = st_i > status ? st_i : status;
        }
        MPI_Barrier(MPI_COMM_WORLD); /* non-members wait here */
    }
    if (csv && tt_out_close(csv, o->csv, "topobcast-tuner") != 0)
        status = status > 1 ? status : 1;
    tn_comms_free(picks, comms, n);
    int all;
    MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}
