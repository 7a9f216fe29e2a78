/* The configuration's selection table (schema: config/README.md,
 * "selection"): rules with size, byte and shape keys and an algorithm,
 * the last matching everything, none unreachable (config/select.c). */
#include "config/read_selection.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config/yaml_node.h"

#define MAX_RULES 1024 /* the unreachable-rule check is cubic in the table */

static void trim(char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
    char *e = *s + strlen(*s);
    while (e > *s && (e[-1] == ' ' || e[-1] == '\t'))
        *--e = 0;
}

/* "LO-HI" or a single value; sizes with K/M/G; "inf" only as the upper
 * bound (a range "from infinity" matches nothing).  what names the range
 * in messages; counts (communicator sizes, nodes, ranks, groups: units
 * names them, NULL for bytes) start at 1 and fit an int. */
static int parse_range(tb_yaml_loader *L, const tb_ynode *n, const char *what, const char *units, size_t *lo, size_t *hi)
{
    const char *s;
    char text[72], sh[64];
    if (tb_yaml_scalar(L, n, what, &s) != 0)
        return -1;
    if (strlen(s) >= sizeof text)
        return tb_yaml_fail(L, n, "expected %s such as 0-16K, 16K-inf or 64, got '%s'", what, tb_yaml_shown(L, n, sh, sizeof sh));
    strcpy(text, s);
    char *a = text, *b = strchr(text, '-');
    if (b)
        *b++ = 0;
    else
        b = text;
    trim(&a);
    trim(&b);
    int ok = *a && *b && strcmp(a, "inf") != 0 && tb_parse_size(a, lo) == 0;
    if (ok && strcmp(b, "inf") == 0)
        *hi = SIZE_MAX;
    else
        ok = ok && tb_parse_size(b, hi) == 0;
    if (!ok)
        return tb_yaml_fail(L, n, "expected %s as LO-HI or one value, with sizes like 512, 16K, 4M, 1G and 'inf' as the upper bound, got '%s'",
                    what, tb_yaml_shown(L, n, sh, sizeof sh));
    if (*lo > *hi)
        return tb_yaml_fail(L, n, "expected a non-empty range (LO <= HI), got '%s'", tb_yaml_shown(L, n, sh, sizeof sh));
    if (units && *lo < 1)
        return tb_yaml_fail(L, n, "expected %s of at least 1, got '%s'", units, tb_yaml_shown(L, n, sh, sizeof sh));
    /* both ends: a lower end past INT_MAX would wrap in the long it is kept in */
    if (units && (*lo > (size_t)INT_MAX || (*hi != SIZE_MAX && *hi > (size_t)INT_MAX)))
        return tb_yaml_fail(L, n, "expected %s up to %d or 'inf', got '%s'", units, INT_MAX, tb_yaml_shown(L, n, sh, sizeof sh));
    return 0;
}

/* A count range into longs, inf as LONG_MAX. */
static int parse_count_range(tb_yaml_loader *L, const tb_ynode *n, const char *what, const char *units, long *lo, long *hi)
{
    size_t a, b;
    if (parse_range(L, n, what, units, &a, &b) != 0)
        return -1;
    *lo = (long)a;
    *hi = b == SIZE_MAX ? LONG_MAX : (long)b;
    return 0;
}

/* ---- shape keys (config/README.md, "Shape keys") ---- */

static int level_of(const tb_yaml_loader *L, const char *name)
{
    const char(*names)[TB_LEVEL_NAME_MAX];
    int n = tb_config_level_names(L->cfg, &names);
    for (int l = 0; l < n && l < TB_MAX_LEVELS; l++)
        if (strcmp(names[l], name) == 0)
            return l;
    return -1;
}

static int fail_level(tb_yaml_loader *L, const tb_ynode *n, const char *name)
{
    const char(*names)[TB_LEVEL_NAME_MAX];
    int nl = tb_config_level_names(L->cfg, &names);
    char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)] = "", sh[64];
    size_t o = 0;
    for (int l = 0; l < nl && o < sizeof list; l++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", l ? ", " : "", names[l]);
    snprintf(sh, sizeof sh, "%.40s", name);
    return tb_yaml_fail(L, n, "expected levels named in the %s (%s), got '%s'",
                L->cfg->has_topology ? "topology" : "zero-configuration hierarchy", nl ? list : "none", sh);
}

/* levels: a/b/c (the exact set of levels of the communicator's hierarchy)
 * or none */
static int parse_levels_key(tb_yaml_loader *L, const tb_ynode *n, tb_shape_cond *c)
{
    const char *s;
    if (tb_yaml_scalar(L, n, "the levels of the communicator's hierarchy as a/b/c, or none", &s) != 0)
        return -1;
    char text[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 1) + 1];
    c->has_levels = 1;
    c->levels = 0;
    if (strcmp(s, "none") == 0)
        return 0;
    if (!*s || strlen(s) >= sizeof text)
        return tb_yaml_fail(L, n, "expected the levels of the communicator's hierarchy as a/b/c, or none, got '%.40s'", s);
    strcpy(text, s);
    for (char *save = NULL, *tok = strtok_r(text, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        int l = level_of(L, tok);
        if (l < 0)
            return fail_level(L, n, tok);
        if (c->levels & (1u << l))
            return tb_yaml_fail(L, n, "expected each level once in levels, got '%s' twice", tok);
        c->levels |= 1u << l;
    }
    return 0;
}

/* groups: {level: RANGE, ...} */
static int parse_groups_key(tb_yaml_loader *L, const tb_ynode *n, tb_shape_cond *c)
{
    if (n->type != Y_MAP || n->len == 0)
        return tb_yaml_fail(L, n, "expected group counts per level as a mapping such as {island: 2, node: 4-inf}, got %s",
                    n->type == Y_MAP ? "an empty mapping" : tb_yaml_kind(n));
    unsigned seen = 0;
    for (uint32_t i = 0; i + 1 < n->len; i += 2) {
        tb_ynode *k = &L->t.nodes[L->t.kids[n->first + i]], *v = &L->t.nodes[L->t.kids[n->first + i + 1]];
        const char *name;
        if (tb_yaml_scalar(L, k, "a level name", &name) != 0)
            return -1;
        int l = level_of(L, name);
        if (l < 0)
            return fail_level(L, k, name);
        if (seen & (1u << l))
            return tb_yaml_fail(L, k, "expected each level once in groups, got '%s' twice", name);
        seen |= 1u << l;
        if (parse_count_range(L, v, "a group-count range", "group counts", &c->groups_lo[l], &c->groups_hi[l]) != 0)
            return -1;
    }
    return 0;
}

static int parse_yes_no(tb_yaml_loader *L, const tb_ynode *n, int *out)
{
    const char *s;
    char sh[64];
    if (tb_yaml_scalar(L, n, "yes or no", &s) != 0)
        return -1;
    if (!strcmp(s, "yes") || !strcmp(s, "true"))
        *out = 1;
    else if (!strcmp(s, "no") || !strcmp(s, "false"))
        *out = 0;
    else
        return tb_yaml_fail(L, n, "expected yes or no, got '%s'", tb_yaml_shown(L, n, sh, sizeof sh));
    return 0;
}

static int parse_rule(tb_yaml_loader *L, const tb_ynode *n, tb_rule *r)
{
    tb_yaml_field f[] = {{"comm", 0, 0, 0},   {"bytes", 0, 0, 0},   {"nodes", 0, 0, 0},
                         {"ppn", 0, 0, 0},    {"ppn_max", 0, 0, 0}, {"consecutive", 0, 0, 0},
                         {"levels", 0, 0, 0}, {"groups", 0, 0, 0},  {"algorithm", 1, 0, 0}};
    if (tb_yaml_take_fields(L, n, f, 9, "a selection rule") != 0)
        return -1;
    r->comm_lo = 1;
    r->comm_hi = LONG_MAX;
    if (f[0].val && parse_count_range(L, f[0].val, "a communicator-size range", "communicator sizes", &r->comm_lo, &r->comm_hi) != 0)
        return -1;
    r->msg_lo = 0;
    r->msg_hi = SIZE_MAX;
    if (f[1].val && parse_range(L, f[1].val, "a message-size range in bytes", NULL, &r->msg_lo, &r->msg_hi) != 0)
        return -1;
    tb_shape_cond *c = &r->shape;
    tb_shape_cond_any(c);
    if ((f[2].val && parse_count_range(L, f[2].val, "a node-count range", "node counts", &c->nodes_lo, &c->nodes_hi) != 0) ||
        (f[3].val && parse_count_range(L, f[3].val, "a ranks-per-node range", "ranks per node", &c->ppn_lo, &c->ppn_hi) != 0) ||
        (f[4].val && parse_count_range(L, f[4].val, "the fullest node's ranks-per-node range", "ranks per node",
                                       &c->pmax_lo, &c->pmax_hi) != 0) ||
        (f[5].val && parse_yes_no(L, f[5].val, &c->consecutive) != 0) ||
        (f[6].val && parse_levels_key(L, f[6].val, c) != 0) || (f[7].val && parse_groups_key(L, f[7].val, c) != 0))
        return -1;
    const char *text;
    char e[512];
    if (tb_yaml_scalar(L, f[8].val, "an algorithm such as default, binomial or pipeline:segment=64K", &text) != 0)
        return -1;
    /* levels= names are checked against the topology parsed above */
    if (tb_config_parse_spec(L->cfg, text, &r->spec, e, sizeof e) != 0)
        return tb_yaml_fail(L, f[8].val, "%s%s", strncmp(e, "expected", 8) == 0 ? "" : "expected a valid algorithm: ", e);
    r->line = (int)tb_yaml_line_of(n);
    return 0;
}

int tb_yaml_read_selection(tb_yaml_loader *L, const tb_ynode *n)
{
    tb_config *cfg = L->cfg;
    if (tb_yaml_expect_list(L, n, "the selection rules") != 0)
        return -1;
    int nr = tb_yaml_seq_len(n);
    if (nr < 1)
        return tb_yaml_fail(L, n, "expected at least one selection rule, the last one matching everything (e.g. {algorithm: default})");
    if (nr > MAX_RULES)
        return tb_yaml_fail(L, n, "expected at most %d selection rules, got %d", MAX_RULES, nr);
    cfg->rules = calloc((size_t)nr, sizeof *cfg->rules);
    if (!cfg->rules)
        return tb_yaml_fail(L, n, "expected a file that fits in memory");
    for (int i = 0; i < nr; i++) {
        tb_ynode *rn = tb_yaml_seq_item(L, n, i);
        if (parse_rule(L, rn, &cfg->rules[i]) != 0)
            return -1;
        cfg->nrules = i + 1;
        if (i == nr - 1) {
            if (!tb_rule_matches_all(&cfg->rules[i]))
                return tb_yaml_fail(L, rn, "expected the last rule to match every communicator and message size "
                                   "(no comm, bytes or shape keys, e.g. {algorithm: default}), so that some rule always "
                                   "applies");
        } else if (tb_rule_is_shadowed(cfg->rules, i)) {
            return tb_yaml_fail(L, rn, "expected a rule that can match: every case it covers is already matched by earlier rules "
                               "(first match wins)");
        }
    }
    return 0;
}
