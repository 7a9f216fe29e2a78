/* The selection table: first matching rule wins, and the last rule always
 * matches.  Also the built-in table used without TOPOBCAST_CONFIG, and the
 * table checks the loader applies (catch-all, unreachable rules). */
#include <limits.h>
#include <stdint.h>
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

size_t tb_config_default_upto(const tb_config *cfg, int comm_size)
{
    size_t upto = 0;
    for (;;) {
        const tb_rule *r = tb_config_select(cfg, comm_size, upto + 1, NULL);
        if (!r || r->spec.id != TB_ALG_DEFAULT)
            return upto;
        if (r->msg_hi == SIZE_MAX)
            return SIZE_MAX;
        upto = r->msg_hi; /* rule r covers upto + 1 .. msg_hi */
    }
}

/* A name in levels= that no level of the configuration carries is a typo,
 * not a level this communicator happens not to split (those the planner
 * skips), so it is refused instead of quietly building a flatter tree. */
static int check_levels(const tb_config *cfg, const tb_alg_spec *spec, char *err, size_t errlen)
{
    static const char *zero_config[] = {"node", "package", "numa"};
    const int nl = cfg->has_topology ? cfg->topo.nlevels : (int)(sizeof zero_config / sizeof zero_config[0]);
    char names[sizeof spec->levels + 1];
    snprintf(names, sizeof names, "%s", spec->levels);
    for (char *save = NULL, *tok = strtok_r(names, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        int found = 0;
        char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)] = "";
        size_t o = 0;
        for (int l = 0; l < nl; l++) {
            const char *name = cfg->has_topology ? cfg->topo.level_name[l] : zero_config[l];
            found |= strcmp(name, tok) == 0;
            if (o < sizeof list)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", l ? ", " : "", name);
        }
        if (!found) {
            snprintf(err, errlen, "expected levels named in the %s (%s), got '%s'",
                     cfg->has_topology ? "topology" : "zero-configuration hierarchy", nl ? list : "none", tok);
            return -1;
        }
    }
    return 0;
}

int tb_config_parse_spec(const tb_config *cfg, const char *text, tb_alg_spec *spec, char *err, size_t errlen)
{
    if (tb_alg_spec_parse(text, spec, err, errlen) != 0)
        return -1;
    return cfg ? check_levels(cfg, spec, err, errlen) : 0;
}

int tb_rule_matches_all(const tb_rule *r)
{
    return r->comm_lo <= 1 && r->comm_hi == LONG_MAX && r->msg_lo == 0 && r->msg_hi == SIZE_MAX;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* qsort has no context: the sort key travels with the index */
typedef struct by_lo {
    size_t lo;
    int rule;
} by_lo;

static int cmp_by_lo(const void *a, const void *b)
{
    const by_lo *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->rule > y->rule) - (x->rule < y->rule);
}

/* Whether the rules in `order` (sorted by msg_lo) that contain comm size c
 * cover bytes [lo, hi] together. */
static int covered_at(const tb_rule *rules, const by_lo *order, int n, long c, size_t lo, size_t hi)
{
    size_t cur = lo;
    for (int k = 0; k < n; k++) {
        const tb_rule *e = &rules[order[k].rule];
        if (e->comm_lo > c || c > e->comm_hi)
            continue;
        if (e->msg_lo > cur)
            return 0;
        if (e->msg_hi >= hi)
            return 1;
        if (e->msg_hi >= cur)
            cur = e->msg_hi + 1; /* e->msg_hi < hi <= SIZE_MAX: no overflow */
    }
    return 0;
}

/* Rule i is unreachable when every (comm, bytes) it matches is matched by
 * an earlier rule.  The comm axis is cut into slabs at the earlier rules'
 * edges; inside a slab the covering rules are the same, so one comm value
 * per slab decides, and the bytes axis is then an interval-union check.
 * O(i^2) per rule, hence the loader's cap on the number of rules. */
int tb_rule_is_shadowed(const tb_rule *rules, int i)
{
    const tb_rule *r = &rules[i];
    if (i == 0)
        return 0;
    long *cut = malloc(sizeof *cut * (size_t)(2 * i + 1));
    by_lo *order = malloc(sizeof *order * (size_t)i);
    if (!cut || !order) {
        free(cut);
        free(order);
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
        order[j] = (by_lo){e->msg_lo, j};
    }
    qsort(cut, (size_t)nc, sizeof *cut, cmp_long);
    qsort(order, (size_t)i, sizeof *order, cmp_by_lo);
    int shadowed = 1;
    for (int c = 0; c < nc && shadowed; c++)
        if (c == 0 || cut[c] != cut[c - 1])
            shadowed = covered_at(rules, order, i, cut[c], r->msg_lo, r->msg_hi);
    free(cut);
    free(order);
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
