/* The selection table: first matching rule wins, and the last rule always
 * matches.  Also the built-in table used without TOPOBCAST_CONFIG, and the
 * table checks the loader applies (catch-all, unreachable rules). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

const tb_rule *tb_config_select(const tb_config *cfg, int comm_size, size_t bytes, int *index)
{
    for (int i = 0; i < cfg->nrules; i++) {
        const tb_rule *r = &cfg->rules[i];
        if (comm_size >= r->comm_lo && comm_size <= r->comm_hi && bytes >= r->msg_lo && bytes <= r->msg_hi) {
            if (index)
                *index = i;
            return r;
        }
    }
    if (index)
        *index = -1;
    return NULL;
}

int tb_rule_matches_all(const tb_rule *r)
{
    return r->comm_lo <= 1 && r->comm_hi == LONG_MAX && r->msg_lo == 0 && r->msg_hi == SIZE_MAX;
}

typedef struct span {
    size_t lo, hi; /* inclusive */
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Whether the union of spans covers [lo, hi]; sorts the spans. */
static int spans_cover(span *s, int n, size_t lo, size_t hi)
{
    qsort(s, (size_t)n, sizeof *s, cmp_span);
    size_t cur = lo;
    for (int k = 0; k < n; k++) {
        if (s[k].lo > cur)
            return 0;
        if (s[k].hi >= hi)
            return 1;
        if (s[k].hi >= cur)
            cur = s[k].hi + 1; /* s[k].hi < hi <= SIZE_MAX: no overflow */
    }
    return 0;
}

/* Rule i is unreachable when every (comm, bytes) it matches is matched by
 * an earlier rule.  The comm axis is cut into slabs at the earlier rules'
 * edges; inside a slab the covering rules are the same, so one comm value
 * per slab decides, and the bytes axis is then an interval-union check. */
int tb_rule_is_shadowed(const tb_rule *rules, int i)
{
    const tb_rule *r = &rules[i];
    if (i == 0)
        return 0;
    long *cut = malloc(sizeof *cut * (size_t)(2 * i + 1));
    span *s = malloc(sizeof *s * (size_t)i);
    if (!cut || !s) {
        free(cut);
        free(s);
        return 0; /* cannot tell: accept the rule */
    }
    int nc = 0;
    cut[nc++] = r->comm_lo;
    for (int j = 0; j < i; j++) {
        const tb_rule *e = &rules[j];
        if (e->comm_lo > r->comm_lo && e->comm_lo <= r->comm_hi)
            cut[nc++] = e->comm_lo;
        if (e->comm_hi < r->comm_hi && e->comm_hi >= r->comm_lo)
            cut[nc++] = e->comm_hi + 1;
    }
    qsort(cut, (size_t)nc, sizeof *cut, cmp_long);
    int shadowed = 1;
    for (int c = 0; c < nc && shadowed; c++) {
        if (c > 0 && cut[c] == cut[c - 1])
            continue;
        int ns = 0;
        for (int j = 0; j < i; j++)
            if (rules[j].comm_lo <= cut[c] && cut[c] <= rules[j].comm_hi)
                s[ns++] = (span){rules[j].msg_lo, rules[j].msg_hi};
        shadowed = spans_cover(s, ns, r->msg_lo, r->msg_hi);
    }
    free(cut);
    free(s);
    return shadowed;
}

/* The built-in table is a single catch-all `default` (PMPI_Bcast).
 * Why not more: the MPI library's own broadcast already switches between
 * binomial, scatter-allgather and pipelined trees by size, and MPICH's is
 * node-aware; the seed work beat it only with a measured topology and a
 * tuned table, and lost where placement differed from the calibration.
 * Without measurements there is no message or communicator size where we
 * know that one of our algorithms wins on an unknown machine, so the only
 * safe claim is "use the MPI library".  The zero-configuration hierarchy is
 * still derived and used when TOPOBCAST_ALGORITHM names an algorithm;
 * topobcast-tuner writes a measured table for anything better. */
static const struct {
    long comm_lo, comm_hi;
    size_t msg_lo, msg_hi;
    const char *spec;
} builtin_rules[] = {
    {1, LONG_MAX, 0, SIZE_MAX, "default"},
};

void tb_config_builtin(tb_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->source, sizeof cfg->source, "<built-in>");
    int n = (int)(sizeof builtin_rules / sizeof builtin_rules[0]);
    cfg->rules = calloc((size_t)n, sizeof *cfg->rules);
    if (!cfg->rules)
        return; /* nrules = 0: tb_config_select returns NULL, callers fall back to PMPI_Bcast */
    /* hash the table's meaning, so that a library with a different table
     * never agrees with this one */
    char text[4096] = "topobcast builtin table";
    size_t o = strlen(text);
    for (int i = 0; i < n; i++) {
        tb_rule *r = &cfg->rules[i];
        char e[128];
        r->comm_lo = builtin_rules[i].comm_lo;
        r->comm_hi = builtin_rules[i].comm_hi;
        r->msg_lo = builtin_rules[i].msg_lo;
        r->msg_hi = builtin_rules[i].msg_hi;
        if (tb_alg_spec_parse(builtin_rules[i].spec, &r->spec, e, sizeof e) != 0)
            tb_alg_spec_default(&r->spec, TB_ALG_DEFAULT);
        r->line = 0;
        if (o < sizeof text)
            o += (size_t)snprintf(text + o, sizeof text - o, "|%ld-%ld,%zu-%zu,%s", r->comm_lo, r->comm_hi, r->msg_lo,
                                  r->msg_hi, builtin_rules[i].spec);
    }
    cfg->nrules = n;
    cfg->hash = tb_config_hash_bytes(text, strlen(text));
}
