/* The selection table: first matching rule wins, and the last rule always
 * matches.  A rule matches on the communicator's size and shape (shape.h)
 * and the message size.  Also the built-in table used without
 * TOPOBCAST_CONFIG, and the table checks the loader applies (catch-all,
 * unreachable rules). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static const char zero_config_names[3][TB_LEVEL_NAME_MAX] = {"node", "package", "numa"};

int tb_config_level_names(const tb_config *cfg, const char (**names)[TB_LEVEL_NAME_MAX])
{
    if (cfg && cfg->has_topology) {
        *names = (const char(*)[TB_LEVEL_NAME_MAX])cfg->topo.level_name;
        return cfg->topo.nlevels;
    }
    *names = zero_config_names;
    return (int)(sizeof zero_config_names / sizeof zero_config_names[0]);
}

void tb_shape_cond_any(tb_shape_cond *c)
{
    memset(c, 0, sizeof *c);
    c->nodes_hi = c->ppn_hi = c->pmax_hi = LONG_MAX;
    c->consecutive = -1;
    for (int l = 0; l < TB_MAX_LEVELS; l++)
        c->groups_hi[l] = LONG_MAX;
}

int tb_shape_cond_equal(const tb_shape_cond *a, const tb_shape_cond *b)
{
    int eq = a->nodes_lo == b->nodes_lo && a->nodes_hi == b->nodes_hi && a->ppn_lo == b->ppn_lo &&
             a->ppn_hi == b->ppn_hi && a->pmax_lo == b->pmax_lo && a->pmax_hi == b->pmax_hi &&
             a->consecutive == b->consecutive && a->has_levels == b->has_levels &&
             (!a->has_levels || a->levels == b->levels);
    for (int l = 0; eq && l < TB_MAX_LEVELS; l++)
        eq = a->groups_lo[l] == b->groups_lo[l] && a->groups_hi[l] == b->groups_hi[l];
    return eq;
}

/* ppn_min <= ppn_max, so both lie in the range when these two do */
int tb_shape_cond_matches(const tb_shape_cond *c, const tb_shape *s)
{
    if (s->nodes < c->nodes_lo || s->nodes > c->nodes_hi || s->ppn_min < c->ppn_lo || s->ppn_max > c->ppn_hi ||
        s->ppn_max < c->pmax_lo || s->ppn_max > c->pmax_hi)
        return 0;
    if ((c->consecutive >= 0 && s->consecutive != c->consecutive) || (c->has_levels && s->levels != c->levels))
        return 0;
    for (int l = 0; l < TB_MAX_LEVELS; l++)
        if (s->ngroups[l] < c->groups_lo[l] || s->ngroups[l] > c->groups_hi[l])
            return 0;
    return 1;
}

const tb_rule *tb_config_select(const tb_config *cfg, const tb_shape *shape, size_t bytes, int *index)
{
    for (int i = 0; i < cfg->nrules; i++) {
        const tb_rule *r = &cfg->rules[i];
        if (shape->size >= r->comm_lo && shape->size <= r->comm_hi && bytes >= r->msg_lo && bytes <= r->msg_hi &&
            tb_shape_cond_matches(&r->shape, shape)) {
            if (index)
                *index = i;
            return r;
        }
    }
    if (index)
        *index = -1;
    return NULL;
}

/* The largest B such that 1..B bytes select default on a communicator of
 * `size` ranks whose shape is `shape`, or any shape when shape is NULL.
 * From b = upto + 1 on, the rules that may fire for b are scanned in order
 * up to the first that surely fires (its shape keys accept the shape, or
 * accept every shape); until the next byte count where one of them ends or
 * a skipped rule starts, the same rules apply, so one non-default among
 * them ends the range.  O(rules^2). */
static size_t default_upto(const tb_config *cfg, long size, const tb_shape *shape)
{
    tb_shape_cond any;
    tb_shape_cond_any(&any);
    size_t upto = 0;
    for (;;) {
        size_t b = upto + 1, next = SIZE_MAX;
        for (int i = 0; i < cfg->nrules; i++) {
            const tb_rule *r = &cfg->rules[i];
            if (size < r->comm_lo || size > r->comm_hi || r->msg_hi < b ||
                (shape && !tb_shape_cond_matches(&r->shape, shape)))
                continue;
            if (r->msg_lo > b) { /* may fire from msg_lo on */
                if (r->msg_lo - 1 < next)
                    next = r->msg_lo - 1;
                continue;
            }
            if (r->spec.id != TB_ALG_DEFAULT)
                return upto;
            if (r->msg_hi < next)
                next = r->msg_hi;
            if (shape || tb_shape_cond_equal(&r->shape, &any))
                break; /* fires for b..next whatever follows */
        }
        if (next == SIZE_MAX)
            return SIZE_MAX;
        upto = next;
    }
}

size_t tb_config_default_upto(const tb_config *cfg, const tb_shape *shape)
{
    return default_upto(cfg, shape->size, shape);
}

size_t tb_config_default_upto_any(const tb_config *cfg, long size)
{
    return default_upto(cfg, size, NULL);
}

/* The configuration's level names, "a, b, c", into list; their count. */
static int level_list(const tb_config *cfg, char *list, size_t len)
{
    const char(*level)[TB_LEVEL_NAME_MAX];
    const int nl = tb_config_level_names(cfg, &level);
    size_t o = 0;
    list[0] = 0;
    for (int l = 0; l < nl && o < len; l++)
        o += (size_t)snprintf(list + o, len - o, "%s%s", l ? ", " : "", level[l]);
    return nl;
}

static const char *levels_source(const tb_config *cfg)
{
    return cfg->has_topology ? "topology" : "zero-configuration hierarchy";
}

/* A name in levels= that no level of the configuration carries is a typo,
 * not a level this communicator happens not to split (those the planner
 * skips), so it is refused instead of quietly building a flatter tree. */
static int check_levels(const tb_config *cfg, const tb_alg_spec *spec, char *err, size_t errlen)
{
    const char(*level)[TB_LEVEL_NAME_MAX];
    const int nl = tb_config_level_names(cfg, &level);
    char names[sizeof spec->levels + 1];
    snprintf(names, sizeof names, "%s", spec->levels);
    for (char *save = NULL, *tok = strtok_r(names, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        int found = 0;
        for (int l = 0; l < nl; l++)
            found |= strcmp(level[l], tok) == 0;
        if (!found) {
            char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)];
            level_list(cfg, list, sizeof list);
            snprintf(err, errlen, "expected levels named in the %s (%s), got '%s'", levels_source(cfg),
                     nl ? list : "none", tok);
            return -1;
        }
    }
    return 0;
}

int tb_config_parse_spec(const tb_config *cfg, const char *text, tb_alg_spec *spec, char *err, size_t errlen)
{
    if (tb_alg_spec_parse(text, spec, err, errlen) != 0)
        return -1;
    if (!cfg)
        return 0;
    if (check_levels(cfg, spec, err, errlen) != 0)
        return -1;
    if (spec->levels[0]) /* counted by tb_alg_spec_parse */
        return 0;
    /* every level of the configuration: as many bases as they can use */
    char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)], what[sizeof list + 64];
    const int nl = level_list(cfg, list, sizeof list);
    snprintf(what, sizeof what, "the %s's %d level%s (%s)", levels_source(cfg), nl, nl == 1 ? "" : "s", list);
    return tb_alg_spec_check_bases(spec, nl, what, err, errlen);
}

int tb_rule_matches_all(const tb_rule *r)
{
    tb_shape_cond any;
    tb_shape_cond_any(&any);
    return r->comm_lo <= 1 && r->comm_hi == LONG_MAX && r->msg_lo == 0 && r->msg_hi == SIZE_MAX &&
           tb_shape_cond_equal(&r->shape, &any);
}

/* ---- unreachable rules: does a union of boxes cover a box? ---------------
 * Each key is an axis of unsigned integers, a rule a box (its ranges; a key
 * it does not have spans the whole axis).  Rule i is unreachable when the
 * boxes of rules 0..i-1 cover its box.  Axis by axis, the box is cut into
 * slabs at the earlier boxes' edges; inside a slab the boxes spanning it
 * are the same, so the slab is covered when those boxes cover it on the
 * remaining axes; the last axis (bytes) is an interval-union check.  Axes
 * on which every earlier box spans the rule's range are skipped, so a
 * table keyed on size and bytes alone costs O(i^2) per rule as before. */
enum {
    AX_COMM,
    AX_NODES,
    AX_PPN_MIN,
    AX_PPN_MAX,
    AX_CONSECUTIVE,
    AX_LEVELS,
    AX_GROUPS,
    AX_BYTES = AX_GROUPS + TB_MAX_LEVELS, /* last: the interval-union axis */
    NAXES
};

typedef struct box {
    uint64_t lo[NAXES], hi[NAXES];
} box;

static uint64_t ulong_of(long v)
{
    return v < 0 ? 0 : (uint64_t)v;
}

static void rule_box(const tb_rule *r, box *b)
{
    const tb_shape_cond *c = &r->shape;
    b->lo[AX_COMM] = ulong_of(r->comm_lo), b->hi[AX_COMM] = ulong_of(r->comm_hi);
    b->lo[AX_NODES] = ulong_of(c->nodes_lo), b->hi[AX_NODES] = ulong_of(c->nodes_hi);
    b->lo[AX_PPN_MIN] = ulong_of(c->ppn_lo), b->hi[AX_PPN_MIN] = ulong_of(c->ppn_hi);
    b->lo[AX_PPN_MAX] = ulong_of(c->ppn_lo > c->pmax_lo ? c->ppn_lo : c->pmax_lo);
    b->hi[AX_PPN_MAX] = ulong_of(c->ppn_hi < c->pmax_hi ? c->ppn_hi : c->pmax_hi);
    /* unknown (-1), no, yes -> 0, 1, 2; a rule that wants a node count or
     * ranks per node only meets shapes whose nodes are known, and those
     * know whether they are consecutive */
    b->lo[AX_CONSECUTIVE] = c->consecutive < 0 ? (c->nodes_lo >= 1 || c->ppn_lo >= 1 || c->pmax_lo >= 1)
                                               : (uint64_t)c->consecutive + 1;
    b->hi[AX_CONSECUTIVE] = c->consecutive < 0 ? 2 : (uint64_t)c->consecutive + 1;
    b->lo[AX_LEVELS] = c->has_levels ? c->levels : 0;
    b->hi[AX_LEVELS] = c->has_levels ? c->levels : UINT64_MAX;
    for (int l = 0; l < TB_MAX_LEVELS; l++)
        b->lo[AX_GROUPS + l] = ulong_of(c->groups_lo[l]), b->hi[AX_GROUPS + l] = ulong_of(c->groups_hi[l]);
    b->lo[AX_BYTES] = r->msg_lo, b->hi[AX_BYTES] = r->msg_hi;
}

#define COVER_BUDGET (1L << 20) /* slabs examined per rule before giving up (accepting it) */

typedef struct cover_ctx {
    const box *b;     /* the earlier rules' boxes */
    int axis[NAXES];  /* the axes to cut on, AX_BYTES last */
    int naxes;
    int *idx;         /* [naxes][n]: boxes spanning the current slab, per depth */
    uint64_t *cut;    /* [naxes][2n + 1]: slab edges, per depth */
    int n;
    long budget;
} cover_ctx;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether the boxes in[0..n) (ordered by their lowest byte count, each
 * spanning t on the axes before depth k) cover t: 1, 0, or -1 when the
 * budget ran out. */
static int cover(cover_ctx *x, const box *t, const int *in, int n, int k)
{
    if (--x->budget < 0)
        return -1;
    const int a = x->axis[k];
    if (k == x->naxes - 1) { /* bytes: does the union of intervals hold [lo, hi]? */
        uint64_t cur = t->lo[a];
        for (int i = 0; i < n; i++) {
            const box *e = &x->b[in[i]];
            if (e->hi[a] < cur)
                continue;
            if (e->lo[a] > cur)
                return 0;
            if (e->hi[a] >= t->hi[a])
                return 1;
            cur = e->hi[a] + 1; /* e->hi < t->hi <= UINT64_MAX: no overflow */
        }
        return 0;
    }
    uint64_t *cut = x->cut + (size_t)k * (size_t)(2 * x->n + 1);
    int *sub = x->idx + (size_t)k * (size_t)x->n, nc = 0;
    cut[nc++] = t->lo[a];
    for (int i = 0; i < n; i++) {
        const box *e = &x->b[in[i]];
        if (e->lo[a] > t->lo[a] && e->lo[a] <= t->hi[a])
            cut[nc++] = e->lo[a];
        if (e->hi[a] < t->hi[a] && e->hi[a] >= t->lo[a])
            cut[nc++] = e->hi[a] + 1;
    }
    qsort(cut, (size_t)nc, sizeof *cut, cmp_u64);
    for (int c = 0; c < nc; c++) {
        if (c > 0 && cut[c] == cut[c - 1])
            continue;
        int next = c + 1;
        while (next < nc && cut[next] == cut[c])
            next++;
        box s = *t;
        s.lo[a] = cut[c];
        s.hi[a] = next < nc ? cut[next] - 1 : t->hi[a];
        int m = 0;
        for (int i = 0; i < n; i++) /* order kept: still by lowest byte count */
            if (x->b[in[i]].lo[a] <= s.lo[a] && x->b[in[i]].hi[a] >= s.hi[a])
                sub[m++] = in[i];
        int r = cover(x, &s, sub, m, k + 1);
        if (r != 1)
            return r;
    }
    return 1;
}

typedef struct by_lo {
    uint64_t lo;
    int rule;
} by_lo;

static int cmp_by_lo(const void *a, const void *b)
{
    const by_lo *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->rule > y->rule) - (x->rule < y->rule);
}

int tb_rule_is_shadowed(const tb_rule *rules, int i)
{
    if (i <= 0)
        return 0;
    box t, *b = malloc(sizeof *b * (size_t)i);
    by_lo *order = malloc(sizeof *order * (size_t)i);
    int *in = malloc(sizeof *in * (size_t)i);
    cover_ctx x = {.b = b, .n = i, .budget = COVER_BUDGET};
    x.idx = malloc(sizeof *x.idx * (size_t)NAXES * (size_t)i);
    x.cut = malloc(sizeof *x.cut * (size_t)NAXES * (size_t)(2 * i + 1));
    int shadowed = 0;
    if (!b || !order || !in || !x.idx || !x.cut)
        goto out; /* cannot tell: accept the rule */
    rule_box(&rules[i], &t);
    int n = 0;
    for (int j = 0; j < i; j++) {
        rule_box(&rules[j], &b[j]);
        int meets = 1;
        for (int a = 0; a < NAXES && meets; a++)
            meets = b[j].lo[a] <= t.hi[a] && b[j].hi[a] >= t.lo[a];
        if (meets)
            order[n++] = (by_lo){b[j].lo[AX_BYTES], j};
    }
    qsort(order, (size_t)n, sizeof *order, cmp_by_lo);
    for (int k = 0; k < n; k++)
        in[k] = order[k].rule;
    for (int a = 0; a < AX_BYTES; a++) {
        int spans = 1;
        for (int k = 0; k < n && spans; k++)
            spans = b[in[k]].lo[a] <= t.lo[a] && b[in[k]].hi[a] >= t.hi[a];
        if (!spans)
            x.axis[x.naxes++] = a;
    }
    x.axis[x.naxes++] = AX_BYTES;
    shadowed = cover(&x, &t, in, n, 0) == 1;
out:
    free(b);
    free(order);
    free(in);
    free(x.idx);
    free(x.cut);
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
        tb_shape_cond_any(&r->shape);
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
