/* Winners, ranges and the selection YAML; see table.h. */
#include "table.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tn_table_pick(const tn_result *const *r, int n, const char *prev, double tie)
{
    int best = -1, def = -1, keep = -1;
    for (int i = 0; i < n; i++) {
        if (r[i]->status != TN_RES_OK || tn_result_score(r[i]) < 0)
            continue;
        if (best < 0 || tn_result_score(r[i]) < tn_result_score(r[best]))
            best = i;
        if (!strcmp(r[i]->spec, "default"))
            def = i;
        if (prev && !strcmp(r[i]->spec, prev))
            keep = i;
    }
    if (best < 0)
        return -1;
    double b = tn_result_score(r[best]);
    /* the MPI library's own broadcast needs no reason to be kept; anything
     * else must beat it by more than the noise */
    if (def >= 0 && (tn_result_score(r[def]) <= b * (1.0 + tie) || tn_result_p25(r[def]) <= tn_result_p75(r[best])))
        return def;
    if (keep >= 0 && tn_result_score(r[keep]) <= b * (1.0 + tie))
        return keep;
    return best;
}

static int cmp_int_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

int tn_table_comm_ranges(const int *sizes, int n, int *out, long *lo, long *hi)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < m; j++)
            dup |= out[j] == sizes[i];
        if (!dup && sizes[i] >= 2)
            out[m++] = sizes[i];
    }
    qsort(out, (size_t)m, sizeof *out, cmp_int_desc);
    for (int i = 0; i < m; i++) {
        hi[i] = i == 0 ? LONG_MAX : lo[i - 1] - 1;
        if (i + 1 < m)
            lo[i] = (long)floor(sqrt((double)out[i] * (double)out[i + 1])) + 1;
        else
            lo[i] = out[i] / 2 > 2 ? out[i] / 2 : 2;
    }
    return m;
}

int tn_table_merge(const size_t *sizes, const char (*winners)[TN_CAND_TEXT], int n, tn_table_comm *out)
{
    out->nranges = 0;
    out->ranges = malloc(sizeof *out->ranges * (size_t)(n > 0 ? n : 1));
    if (!out->ranges)
        return -1;
    for (int i = 0; i < n; i++) {
        size_t lo = 0;
        if (i > 0) {
            double b = floor(sqrt((double)sizes[i - 1] * (double)sizes[i]));
            lo = (size_t)b + 1;
            if (lo <= sizes[i - 1])
                lo = sizes[i - 1] + 1;
            if (lo > sizes[i])
                lo = sizes[i];
        }
        if (out->nranges > 0 && !strcmp(out->ranges[out->nranges - 1].spec, winners[i]))
            continue; /* extends the previous range */
        if (out->nranges > 0)
            out->ranges[out->nranges - 1].hi = lo - 1;
        tn_table_range *r = &out->ranges[out->nranges++];
        r->lo = lo;
        snprintf(r->spec, sizeof r->spec, "%s", winners[i]);
    }
    if (out->nranges > 0)
        out->ranges[out->nranges - 1].hi = SIZE_MAX;
    return 0;
}

void tn_table_free(tn_table *t)
{
    for (int i = 0; i < t->ncomm; i++)
        free(t->comm[i].ranges);
    free(t->comm);
    free(t->rule);
    memset(t, 0, sizeof *t);
}

int tn_table_kind(const tb_shape *s)
{
    return s->nodes == 1 ? TN_KIND_SINGLE_NODE : s->ppn_max == 1 ? TN_KIND_ONE_PER_NODE : TN_KIND_MULTI_NODE;
}

unsigned tn_table_kinds_of_job(const tb_shape *job)
{
    unsigned k = 0;
    if (job->ppn_max >= 2)
        k |= 1u << TN_KIND_SINGLE_NODE;
    if (job->nodes >= 2)
        k |= 1u << TN_KIND_ONE_PER_NODE;
    if (job->nodes >= 2 && job->ppn_max >= 2)
        k |= 1u << TN_KIND_MULTI_NODE;
    return k;
}

/* The shape keys of a kind, and of a class (a kind and the levels). */
static void kind_cond(int kind, tb_shape_cond *c)
{
    tb_shape_cond_any(c);
    if (kind == TN_KIND_SINGLE_NODE)
        c->nodes_lo = c->nodes_hi = 1;
    else if (kind == TN_KIND_ONE_PER_NODE)
        c->ppn_lo = c->ppn_hi = 1;
    else
        c->nodes_lo = 2;
}

/* 0, or -1 when the shape has no class block (levels the configuration
 * does not list; several nodes but some with one rank: the kind's block
 * serves it) */
static int class_cond(const tb_shape *s, tb_shape_cond *c)
{
    int kind = tn_table_kind(s);
    if ((s->levels & TB_SHAPE_LEVEL_OTHER) || s->nodes < 1 || (kind == TN_KIND_MULTI_NODE && s->ppn_min < 2))
        return -1;
    kind_cond(kind, c);
    if (kind == TN_KIND_MULTI_NODE) {
        c->nodes_lo = 0; /* ppn 2-inf says several ranks on each node */
        c->ppn_lo = 2;
    }
    c->has_levels = 1;
    c->levels = s->levels;
    return 0;
}

static const char *kind_text(int kind)
{
    return kind == TN_KIND_SINGLE_NODE   ? "on one node"
           : kind == TN_KIND_ONE_PER_NODE ? "one rank per node"
                                          : "on several nodes, several ranks on some";
}

void tn_count_range(long lo, long hi, char *buf, size_t len)
{
    if (hi == LONG_MAX)
        snprintf(buf, len, "%ld-inf", lo);
    else if (lo == hi)
        snprintf(buf, len, "%ld", lo);
    else
        snprintf(buf, len, "%ld-%ld", lo, hi);
}

typedef struct builder {
    tn_table *t;
    tb_rule *rules;  /* the same rules as the loader will see them, for the shadow check */
    int cap;
    char head[256];  /* the block's comment, for its first rule kept */
    char sub[256];   /* the measured communicator's, for its first rule kept */
} builder;

static void note(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

/* Appends a rule unless the ones before shadow it.  0 or -1. */
static int add_rule(builder *b, long clo, long chi, const tb_shape_cond *c, const tn_table_range *r)
{
    tn_table *t = b->t;
    if (t->nrules == b->cap) {
        int cap = b->cap ? 2 * b->cap : 32;
        tn_table_rule *nr = realloc(t->rule, sizeof *nr * (size_t)cap);
        if (nr)
            t->rule = nr;
        tb_rule *lr = nr ? realloc(b->rules, sizeof *lr * (size_t)cap) : NULL;
        if (!lr)
            return -1;
        b->rules = lr;
        b->cap = cap;
    }
    tb_rule *lr = &b->rules[t->nrules];
    memset(lr, 0, sizeof *lr);
    lr->comm_lo = clo, lr->comm_hi = chi, lr->msg_lo = r->lo, lr->msg_hi = r->hi, lr->shape = *c;
    if (tb_rule_is_shadowed(b->rules, t->nrules))
        return 0;
    tn_table_rule *x = &t->rule[t->nrules++];
    snprintf(x->comment, sizeof x->comment, "%s%s%s", b->head, b->head[0] && b->sub[0] ? "\n" : "", b->sub);
    b->head[0] = b->sub[0] = 0;
    x->clo = clo, x->chi = chi, x->cond = *c, x->lo = r->lo, x->hi = r->hi;
    snprintf(x->spec, sizeof x->spec, "%s", r->spec);
    return 0;
}

/* Whether the communicators in[0..n) of t->comm span several nodes each,
 * several ranks on some (for one rank per node, nodes are the size), and
 * different numbers of nodes: their block is keyed by nodes, which a job
 * of another size keeps (a 64-rank job may be 64 nodes x 1 or 4 x 16),
 * rather than by the communicator's size. */
static int by_nodes(const tn_table *t, const int *in, int n)
{
    for (int i = 0; i < n; i++) {
        if (t->comm[in[i]].shape.nodes < 2 || t->comm[in[i]].shape.ppn_max < 2)
            return 0;
        for (int j = 0; j < i; j++)
            if (t->comm[in[j]].shape.nodes == t->comm[in[i]].shape.nodes)
                return 0;
    }
    return n > 0;
}

/* One block: the communicators in[0..n) of t->comm under keys c, ranged
 * as tn_table_comm_ranges does (down to 2 when fill) by their nodes when
 * by_nodes says so, else by their sizes. */
static int add_block(builder *b, const int *in, int n, const tb_shape_cond *c, int fill, const tb_config *cfg)
{
    tn_table *t = b->t;
    int sizes[TN_MAX_TUNED], out[TN_MAX_TUNED], nodes = by_nodes(t, in, n);
    long lo[TN_MAX_TUNED], hi[TN_MAX_TUNED];
    for (int i = 0; i < n; i++)
        sizes[i] = nodes ? t->comm[in[i]].shape.nodes : t->comm[in[i]].measured;
    int m = tn_table_comm_ranges(sizes, n, out, lo, hi);
    if (fill && m > 0)
        lo[m - 1] = 2;
    for (int k = 0; k < m; k++) {
        int i = 0;
        while (sizes[i] != out[k])
            i++;
        const tn_table_comm *tc = &t->comm[in[i]];
        char shape[256];
        tb_shape_format(&tc->shape, cfg, shape, sizeof shape);
        char range[64];
        tn_count_range(lo[k], hi[k], range, sizeof range);
        note(b->sub, sizeof b->sub, "%s %s: as measured on %s (%s)", nodes ? "nodes" : "comm", range, tc->label,
             shape);
        tb_shape_cond kc = *c;
        if (nodes)
            kc.nodes_lo = lo[k], kc.nodes_hi = hi[k];
        for (int r = 0; r < tc->nranges; r++)
            if (add_rule(b, nodes ? 1 : lo[k], nodes ? LONG_MAX : hi[k], &kc, &tc->ranges[r]) != 0)
                return -1;
        b->sub[0] = 0; /* nothing kept: its note goes too */
    }
    return 0;
}

int tn_table_build(tn_table *t, const tb_config *cfg, unsigned kinds)
{
    builder b = {t, NULL, 0, "", ""};
    int rc = 0, done[TN_MAX_TUNED] = {0}, in[TN_MAX_TUNED];
    free(t->rule);
    t->rule = NULL;
    t->nrules = 0;
    /* 1. one block per measured class, in the order first measured; a kind
     * measured in one class only needs none: its kind's block (2.) then
     * holds the same rules */
    for (int c = 0; c < t->ncomm && rc == 0; c++) {
        tb_shape_cond cc, oc;
        if (done[c] || class_cond(&t->comm[c].shape, &cc) != 0)
            continue;
        int other = 0, kind = tn_table_kind(&t->comm[c].shape);
        for (int d = 0; d < t->ncomm; d++)
            other |= tn_table_kind(&t->comm[d].shape) == kind &&
                     (class_cond(&t->comm[d].shape, &oc) != 0 || !tb_shape_cond_equal(&oc, &cc));
        if (!other)
            continue;
        int n = 0;
        for (int d = c; d < t->ncomm; d++)
            if (!done[d] && class_cond(&t->comm[d].shape, &oc) == 0 && tb_shape_cond_equal(&oc, &cc))
                in[n++] = d, done[d] = 1;
        char keys[256];
        tn_table_cond_keys(&cc, cfg, keys, sizeof keys);
        note(b.head, sizeof b.head, "shape class %s (%s)", keys, kind_text(tn_table_kind(&t->comm[c].shape)));
        rc = add_block(&b, in, n, &cc, 0, cfg);
    }
    /* 2. per kind, every size: the nearest measured of that kind, or of any */
    for (int k = 0; k < TN_KIND_COUNT && rc == 0; k++) {
        if (!(kinds & (1u << k)))
            continue;
        int n = 0;
        for (int c = 0; c < t->ncomm; c++)
            if (tn_table_kind(&t->comm[c].shape) == k)
                in[n++] = c;
        int any = n == 0;
        for (int c = 0; any && c < t->ncomm; c++)
            in[n++] = c;
        tb_shape_cond kc;
        kind_cond(k, &kc);
        char keys[256];
        tn_table_cond_keys(&kc, cfg, keys, sizeof keys);
        note(b.head, sizeof b.head, "every other communicator %s (%s): the nearest measured size%s", kind_text(k),
             keys, any ? " of any shape (none of this kind was measured)" : " of this kind");
        rc = add_block(&b, in, n, &kc, 1, cfg);
    }
    free(b.rules);
    return rc;
}

int tn_table_build_blocks(tn_table *t, const tn_table_block *b, int n, int skip_default)
{
    builder bd = {t, NULL, 0, "", ""};
    int rc = 0;
    free(t->rule);
    t->rule = NULL;
    t->nrules = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        note(bd.head, sizeof bd.head, "%s", b[k].comment);
        for (int r = 0; r < b[k].nr && rc == 0; r++)
            if (!skip_default || strcmp(b[k].r[r].spec, "default") != 0)
                rc = add_rule(&bd, 1, LONG_MAX, &b[k].cond, &b[k].r[r]);
        bd.head[0] = 0; /* nothing kept: its note goes too */
    }
    free(bd.rules);
    return rc;
}

/* Byte counts as people write them: 64K rather than 65536. */
static void size_text(size_t v, char *buf, size_t len)
{
    if (v == SIZE_MAX) {
        snprintf(buf, len, "inf");
        return;
    }
    const char *suf[] = {"", "K", "M", "G"};
    int k = 0;
    while (k < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        k++;
    }
    snprintf(buf, len, "%zu%s", v, suf[k]);
}

/* YAML double-quoted scalar. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int tn_table_cond_keys(const tb_shape_cond *c, const tb_config *cfg, char *buf, size_t len)
{
    tb_shape_cond any;
    tb_shape_cond_any(&any);
    const char(*names)[TB_LEVEL_NAME_MAX];
    int nn = tb_config_level_names(cfg, &names);
    size_t o = 0;
    char r[64];
    buf[0] = 0;
#define PUT(...) (o < len ? (o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__)) : o)
    if (c->nodes_lo != any.nodes_lo || c->nodes_hi != any.nodes_hi) {
        tn_count_range(c->nodes_lo, c->nodes_hi, r, sizeof r);
        PUT("%snodes: %s", o ? ", " : "", r);
    }
    if (c->ppn_lo != any.ppn_lo || c->ppn_hi != any.ppn_hi) {
        tn_count_range(c->ppn_lo, c->ppn_hi, r, sizeof r);
        PUT("%sppn: %s", o ? ", " : "", r);
    }
    if (c->pmax_lo != any.pmax_lo || c->pmax_hi != any.pmax_hi) {
        tn_count_range(c->pmax_lo, c->pmax_hi, r, sizeof r);
        PUT("%sppn_max: %s", o ? ", " : "", r);
    }
    if (c->consecutive >= 0)
        PUT("%sconsecutive: %s", o ? ", " : "", c->consecutive ? "yes" : "no");
    if (c->has_levels) {
        PUT("%slevels: %s", o ? ", " : "", c->levels ? "" : "none");
        for (int l = 0, first = 1; l < nn && l < TB_MAX_LEVELS; l++)
            if (c->levels & (1u << l))
                PUT("%s%s", first ? "" : "/", names[l]), first = 0;
    }
    int g = 0;
    for (int l = 0; l < nn && l < TB_MAX_LEVELS; l++)
        if (c->groups_lo[l] != any.groups_lo[l] || c->groups_hi[l] != any.groups_hi[l]) {
            tn_count_range(c->groups_lo[l], c->groups_hi[l], r, sizeof r);
            PUT("%s%s: %s", g ? ", " : o ? ", groups: {" : "groups: {", names[l], r);
            g++;
        }
    if (g)
        PUT("}");
#undef PUT
    return (int)o;
}

int tn_table_write(FILE *f, const tn_table *t, const tb_config *cfg, const tb_topology *topo, const char *meta)
{
    fputs("# Written by topobcast-tuner: a selection table measured on the machine\n"
          "# (and the topology it used).  Schema: config/README.md.  First match wins;\n"
          "# rules key on the communicator's shape (nodes, ranks per node, levels).\n"
          "topobcast: 2\n",
          f);
    if (meta && *meta)
        fprintf(f, "meta: {%s}\n", meta);
    if (topo && (topo->nleaves > 0 || topo->site) && tb_topology_write(f, topo) != 0)
        return -1;
    fputs("selection:\n", f);
    for (int i = 0; i < t->nrules; i++) {
        const tn_table_rule *r = &t->rule[i];
        for (const char *c = r->comment; *c;) {
            size_t n = strcspn(c, "\n");
            fprintf(f, "  # %.*s\n", (int)n, c);
            c += n + (c[n] == '\n');
        }
        char comm[80] = "", blo[32], bhi[32], keys[256];
        if (r->clo > 1 || r->chi != LONG_MAX) /* rules keyed by nodes (a site's too) have no comm key */
            snprintf(comm, sizeof comm, "comm: %ld-", r->clo);
        if (comm[0] && r->chi == LONG_MAX)
            snprintf(comm + strlen(comm), sizeof comm - strlen(comm), "inf, ");
        else if (comm[0])
            snprintf(comm + strlen(comm), sizeof comm - strlen(comm), "%ld, ", r->chi);
        size_text(r->lo, blo, sizeof blo);
        size_text(r->hi, bhi, sizeof bhi);
        tn_table_cond_keys(&r->cond, cfg, keys, sizeof keys);
        fprintf(f, "  - {%s%s%sbytes: %s-%s, algorithm: ", comm, keys, keys[0] ? ", " : "", blo, bhi);
        put_quoted(f, r->spec);
        fputs("}\n", f);
    }
    fputs(t->site ? "  # every other shape, and every size not above: MPI's own broadcast\n  - {algorithm: default}\n"
                  : "  # communicators of one rank (never broadcast on)\n  - {algorithm: default}\n",
          f);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

int tn_table_verify(const char *path, const tn_table *t, const size_t *sizes, int nsizes, char *err,
                    size_t errlen)
{
    tb_config cfg;
    if (tb_config_load(path, &cfg, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (int c = 0; c < t->ncomm && rc == 0; c++) {
        const tn_table_comm *tc = &t->comm[c];
        for (int i = 0; i < nsizes && rc == 0; i++) {
            const char *want = NULL;
            for (int k = 0; k < tc->nranges; k++)
                if (sizes[i] >= tc->ranges[k].lo && sizes[i] <= tc->ranges[k].hi)
                    want = tc->ranges[k].spec;
            tb_alg_spec ws;
            char perr[256];
            if (!want || tb_alg_spec_parse(want, &ws, perr, sizeof perr) != 0) {
                snprintf(err, errlen, "no valid rule written for %zu bytes on %s", sizes[i], tc->label);
                rc = -1;
                break;
            }
            int idx;
            const tb_rule *r = tb_config_select(&cfg, &tc->shape, sizes[i], &idx);
            if (!r || !tb_alg_spec_equal(&r->spec, &ws)) {
                char got[512];
                if (r)
                    tb_alg_spec_format(&r->spec, got, sizeof got);
                snprintf(err, errlen, "%s selects %s for %zu bytes on %s (%d processes), the tuner chose %s", path,
                         r ? got : "nothing", sizes[i], tc->label, tc->measured, want);
                rc = -1;
            }
        }
    }
    tb_config_free(&cfg);
    return rc;
}
