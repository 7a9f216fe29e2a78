/* The measurement file (--save, --analyze): line-oriented text, one
 * keyword per line, so it can be read with grep and awk as well as by the
 * probe.  Values used by the analysis are printed with 17 significant
 * digits, which reproduces every double exactly: --analyze on a saved run
 * gives the same topology as the run itself.  Format: probe/README.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "topology.h"

#define MAGIC "topobcast-probe-measurements"
#define VERSION 1

int tt_save_write(const tt_meas *m, FILE *out)
{
    const tt_meas_opts *o = &m->opt;
    fprintf(out, "%s %d\n", MAGIC, VERSION);
    fprintf(out, "mode %s\n", o->mode == TT_MODE_LOGGP ? "loggp" : "plogp");
    fprintf(out, "nprocs %d\n", m->n);
    fprintf(out,
            "options reps=%d max-size=%ld eps=%.17g max-insert=%d min-spacing=%d k-wait=%.17g gsat-max=%ld "
            "gsat-cap=%d batch-time=%.17g stat=%s prtt-n=%d concurrency=%s fast=%.17g seed=%lu agree=%.17g "
            "max-reps=%d rep-budget=%.17g sample=%d\n",
            o->reps, o->max_size, o->eps, o->max_insert, o->min_spacing, o->k_wait, o->gsat_max, o->gsat_cap,
            o->batch_time, o->use_min ? "min" : "median", o->prtt_n, tt_concurrency_name(o->conc), o->fast,
            o->seed, o->agree, o->max_reps, o->rep_budget, o->sample);
    fprintf(out, "run pairs=%d rounds=%d elapsed=%.17g wtime-overhead=%.17g\n", m->npairs, m->nrounds,
            m->elapsed, m->wtime_overhead);
    for (int r = 0; r < m->n; r++) {
        const tt_rank_info *k = &m->rank[r];
        fprintf(out, "rank %d host=%s pu=%d core=%d package=%d numa=%d world=%d group=%d measured=%d\n", r,
                k->host, k->pu, k->core, k->package, k->numa, k->world_rank, k->group, k->measured);
    }
    /* hwloc's summary of each host: on its first rank, and again where it
     * changes from one rank to the next (hosts are usually contiguous) */
    for (int r = 0; r < m->n; r++) {
        const tt_rank_info *k = &m->rank[r], *p = r ? &m->rank[r - 1] : NULL;
        if (k->hwloc[0] && (!p || strcmp(p->host, k->host) != 0 || strcmp(p->hwloc, k->hwloc) != 0))
            fprintf(out, "hwloc %d %s\n", r, k->hwloc);
    }
    for (int p = 0; p < m->npairs; p++) {
        const tt_pair_rec *q = &m->pair[p];
        fprintf(out, "pair %d %d L=%.17g sizes=%d", q->i, q->j, q->L, q->nsizes);
        if (o->mode == TT_MODE_LOGGP)
            fprintf(out, " loggp=%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", q->lg.L, q->lg.o, q->lg.g, q->lg.G,
                    q->lg.S, q->lg.g2, q->lg.G2);
        fputc('\n', out);
        for (int k = 0; k < q->nsizes; k++) {
            const tt_size_rec *s = &q->s[k];
            fprintf(out, "s %.17g %.17g %.17g %.17g %.17g %d", s->m, s->rtt, s->o_s, s->o_r, s->g, s->gsat);
            for (int a = 0; a < TT_NQ; a++)
                for (int b = 0; b < 5; b++)
                    fprintf(out, " %.9g", s->q[a][b]);
            fputc('\n', out);
        }
    }
    fprintf(out, "end\n");
    return ferror(out) ? -1 : 0;
}

/* ---- reading -------------------------------------------------------------- */

typedef struct reader {
    FILE *in;
    const char *name;
    int line;
    char *buf;
    size_t cap;
    char *err;
    size_t errlen;
} reader;

static int fail(reader *R, const char *what)
{
    snprintf(R->err, R->errlen, "%s:%d: expected %s", R->name, R->line, what);
    return -1;
}

static int next_line(reader *R)
{
    ssize_t len = getline(&R->buf, &R->cap, R->in);
    if (len < 0)
        return -1;
    R->line++;
    while (len > 0 && (R->buf[len - 1] == '\n' || R->buf[len - 1] == '\r'))
        R->buf[--len] = 0;
    return 0;
}

/* Value of key=VALUE in the current line (a token), or NULL. */
static const char *value_of(const char *line, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += kl) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " ");
            if (n >= cap)
                return NULL;
            memcpy(out, v, n);
            out[n] = 0;
            return out;
        }
    }
    return NULL;
}

/* key=NUMBER on the current line, the whole token a number: an integer
 * (strtol) when l is given, else a double (strtod). */
static int get_number(reader *R, const char *key, double *d, long *l)
{
    char v[64], *end;
    if (!value_of(R->buf, key, v, sizeof v))
        return fail(R, key);
    errno = 0;
    if (l)
        *l = strtol(v, &end, 10);
    else
        *d = strtod(v, &end);
    if (*end || errno || v[0] == 0)
        return fail(R, key);
    return 0;
}

static int get_num(reader *R, const char *key, double *out)
{
    return get_number(R, key, out, NULL);
}

static int get_long(reader *R, const char *key, long *out)
{
    return get_number(R, key, NULL, out);
}

static int get_int(reader *R, const char *key, int *out)
{
    long v;
    if (get_long(R, key, &v) != 0)
        return -1;
    if (v < -1 || v > 1L << 30)
        return fail(R, key);
    *out = (int)v;
    return 0;
}

static int read_options(reader *R, tt_meas_opts *o)
{
    char v[64];
    long x;
    if (get_int(R, "reps", &o->reps) || get_long(R, "max-size", &o->max_size) || get_num(R, "eps", &o->eps) ||
        get_int(R, "max-insert", &o->max_insert) || get_int(R, "min-spacing", &o->min_spacing) ||
        get_num(R, "k-wait", &o->k_wait) || get_long(R, "gsat-max", &o->gsat_max) ||
        get_int(R, "gsat-cap", &o->gsat_cap) || get_num(R, "batch-time", &o->batch_time) ||
        get_int(R, "prtt-n", &o->prtt_n) || get_num(R, "fast", &o->fast) || get_long(R, "seed", &x))
        return -1;
    o->seed = (unsigned long)x;
    /* agree= came later: files without it stopped no batch early */
    o->agree = 0;
    if (value_of(R->buf, "agree", v, sizeof v) && get_num(R, "agree", &o->agree) != 0)
        return -1;
    /* so did max-reps= and rep-budget=: before them, R batches at most */
    o->max_reps = o->reps;
    o->rep_budget = 0;
    if ((value_of(R->buf, "max-reps", v, sizeof v) && get_int(R, "max-reps", &o->max_reps) != 0) ||
        (value_of(R->buf, "rep-budget", v, sizeof v) && get_num(R, "rep-budget", &o->rep_budget) != 0))
        return -1;
    /* and sample=: before it, every run measured all pairs or fast mode's */
    o->sample = 0;
    if (value_of(R->buf, "sample", v, sizeof v) && get_int(R, "sample", &o->sample) != 0)
        return -1;
    if (!value_of(R->buf, "stat", v, sizeof v) || (strcmp(v, "min") && strcmp(v, "median")))
        return fail(R, "stat=min or stat=median");
    o->use_min = strcmp(v, "min") == 0;
    int c;
    if (!value_of(R->buf, "concurrency", v, sizeof v) || (c = tt_concurrency_from_name(v)) < 0)
        return fail(R, "concurrency=serial|intra|groups|ranks");
    o->conc = (tt_concurrency)c;
    return 0;
}

static int read_rank(reader *R, tt_meas *m)
{
    int r;
    char host[TT_HOST_MAX];
    if (sscanf(R->buf, "rank %d", &r) != 1 || r < 0 || r >= m->n)
        return fail(R, "'rank R' with 0 <= R < nprocs");
    tt_rank_info *k = &m->rank[r];
    if (k->host[0])
        return fail(R, "each rank once");
    if (!value_of(R->buf, "host", host, sizeof host) || !host[0])
        return fail(R, "host=NAME");
    memcpy(k->host, host, sizeof host);
    if (get_int(R, "pu", &k->pu) || get_int(R, "core", &k->core) || get_int(R, "package", &k->package) ||
        get_int(R, "numa", &k->numa) || get_int(R, "world", &k->world_rank) || get_int(R, "group", &k->group) ||
        get_int(R, "measured", &k->measured))
        return -1;
    if (k->group < 0 || k->group >= m->n)
        return fail(R, "group=G with 0 <= G < nprocs");
    return 0;
}

/* "hwloc R TEXT": hwloc's summary of rank R's host (between the rank and
 * the pair lines; files written before it have none). */
static int read_hwloc(reader *R, tt_meas *m)
{
    int r, at = 0;
    if (sscanf(R->buf, "hwloc %d %n", &r, &at) != 1 || at == 0 || r < 0 || r >= m->n)
        return fail(R, "'hwloc R SUMMARY' with 0 <= R < nprocs");
    const char *text = R->buf + at;
    if (!*text || strlen(text) >= sizeof m->rank[r].hwloc) {
        char what[64];
        snprintf(what, sizeof what, "hwloc's summary of a host, 1 to %d characters", TT_HWLOC_MAX - 1);
        return fail(R, what);
    }
    memcpy(m->rank[r].hwloc, text, strlen(text) + 1);
    return 0;
}

static int read_pair(reader *R, tt_meas *m, tt_pair_rec *p)
{
    memset(p, 0, sizeof *p);
    if (sscanf(R->buf, "pair %d %d", &p->i, &p->j) != 2 || p->i < 0 || p->j <= p->i || p->j >= m->n)
        return fail(R, "'pair I J' with 0 <= I < J < nprocs");
    if (get_num(R, "L", &p->L) || get_int(R, "sizes", &p->nsizes))
        return -1;
    if (p->nsizes < 1 || p->nsizes > 1 << 20)
        return fail(R, "sizes=N with N >= 1");
    if (m->opt.mode == TT_MODE_LOGGP) {
        char v[512];
        tt_loggp_fit *f = &p->lg;
        if (!value_of(R->buf, "loggp", v, sizeof v) ||
            sscanf(v, "%lg,%lg,%lg,%lg,%lg,%lg,%lg", &f->L, &f->o, &f->g, &f->G, &f->S, &f->g2, &f->G2) != 7)
            return fail(R, "loggp=L,o,g,G,S,g2,G2");
    }
    p->s = calloc((size_t)p->nsizes, sizeof *p->s);
    if (!p->s)
        return fail(R, "a file that fits in memory");
    for (int k = 0; k < p->nsizes; k++) {
        if (next_line(R) != 0 || strncmp(R->buf, "s ", 2) != 0)
            return fail(R, "a size line 's M RTT O_S O_R G GSAT Q...'");
        tt_size_rec *s = &p->s[k];
        char *c = R->buf + 2, *end;
        double v[TT_SIZE_REC_LEN];
        for (int x = 0; x < TT_SIZE_REC_LEN; x++) {
            errno = 0;
            v[x] = strtod(c, &end);
            if (end == c || errno)
                return fail(R, "21 numbers on a size line");
            c = end;
        }
        while (*c == ' ')
            c++;
        if (*c)
            return fail(R, "21 numbers on a size line");
        tt_size_rec_unpack(s, v);
        if (!(s->m >= 0) || (k > 0 && !(s->m > p->s[k - 1].m)))
            return fail(R, "ascending message sizes >= 0");
        for (int x = 1; x < 5; x++)
            if (!isfinite(v[x]))
                return fail(R, "finite times");
    }
    return 0;
}

int tt_save_read(FILE *in, const char *name, tt_meas *m, char *err, size_t errlen)
{
    reader R = {.in = in, .name = name, .err = err, .errlen = errlen};
    memset(m, 0, sizeof *m);
    tt_meas_opts_default(&m->opt);
    int rc = -1, version = 0, npairs_decl = -1;
    char mode[16];
    if (next_line(&R) != 0 || sscanf(R.buf, MAGIC " %d", &version) != 1 || version != VERSION) {
        fail(&R, "'" MAGIC " 1' (a file written by topobcast-probe --save)");
        goto out;
    }
    if (next_line(&R) != 0 || sscanf(R.buf, "mode %15s", mode) != 1 ||
        (strcmp(mode, "plogp") && strcmp(mode, "loggp"))) {
        fail(&R, "'mode plogp' or 'mode loggp'");
        goto out;
    }
    m->opt.mode = strcmp(mode, "loggp") == 0 ? TT_MODE_LOGGP : TT_MODE_PLOGP;
    if (next_line(&R) != 0 || sscanf(R.buf, "nprocs %d", &m->n) != 1 || m->n < 1 || m->n > 1 << 20) {
        fail(&R, "'nprocs N' with N >= 1");
        goto out;
    }
    if (next_line(&R) != 0 || strncmp(R.buf, "options ", 8) != 0 || read_options(&R, &m->opt) != 0) {
        if (strncmp(R.buf, "options ", 8) != 0)
            fail(&R, "an 'options' line");
        goto out;
    }
    double x;
    if (next_line(&R) != 0 || strncmp(R.buf, "run ", 4) != 0) {
        fail(&R, "a 'run' line");
        goto out;
    }
    if (get_int(&R, "pairs", &npairs_decl) || get_int(&R, "rounds", &m->nrounds) || get_num(&R, "elapsed", &x))
        goto out;
    m->elapsed = x;
    if (get_num(&R, "wtime-overhead", &m->wtime_overhead))
        goto out;
    m->rank = calloc((size_t)m->n, sizeof *m->rank);
    int capn = npairs_decl > 0 ? npairs_decl : 1;
    m->pair = calloc((size_t)capn, sizeof *m->pair);
    if (!m->rank || !m->pair) {
        fail(&R, "a file that fits in memory");
        goto out;
    }
    for (int r = 0; r < m->n; r++)
        if (next_line(&R) != 0 || strncmp(R.buf, "rank ", 5) != 0 || read_rank(&R, m) != 0) {
            if (strncmp(R.buf, "rank ", 5) != 0)
                fail(&R, "one 'rank' line per process");
            goto out;
        }
    for (;;) {
        if (next_line(&R) != 0) {
            fail(&R, "'end' (the file is cut short)");
            goto out;
        }
        if (strcmp(R.buf, "end") == 0)
            break;
        if (strncmp(R.buf, "hwloc ", 6) == 0 && m->npairs == 0) {
            if (read_hwloc(&R, m) != 0)
                goto out;
            continue;
        }
        if (strncmp(R.buf, "pair ", 5) != 0) {
            fail(&R, m->npairs ? "a 'pair' line or 'end'" : "an 'hwloc' line, a 'pair' line or 'end'");
            goto out;
        }
        if (m->npairs == capn) {
            fail(&R, "no more pairs than the 'run' line declares");
            goto out;
        }
        if (read_pair(&R, m, &m->pair[m->npairs]) != 0) {
            tt_pair_rec_free(&m->pair[m->npairs]);
            goto out;
        }
        m->npairs++;
    }
    if (m->npairs != npairs_decl) {
        fail(&R, "as many pairs as the 'run' line declares");
        goto out;
    }
    if (tt_meas_sort_pairs(m) != 0) {
        snprintf(err, errlen, "%s: a pair appears twice", name);
        goto out;
    }
    rc = 0;
out:
    free(R.buf);
    if (rc != 0)
        tt_meas_free(m);
    return rc;
}

int tt_save_load(const char *path, tt_meas *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        snprintf(err, errlen, "%s: expected a measurement file, this is %s", path,
                 S_ISDIR(st.st_mode) ? "a directory" : "a device or socket");
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = tt_save_read(f, path, m, err, errlen);
    fclose(f);
    return rc;
}
