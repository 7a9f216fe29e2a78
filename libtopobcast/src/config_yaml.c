/* Loading the YAML configuration (schema: config/README.md).
 *
 * Everything is validated here, once, so that the mapping and the dispatch
 * can trust every index and every rule, and so that every mistake is
 * reported where a human would fix it: "FILE:LINE:COLUMN: expected ...",
 * positions 1-based, taken from libyaml's marks.
 *
 * The file is read once through libyaml's event API into a compact tree
 * (ynode, 24 bytes a node, scalars in one text arena).  Lists of plain
 * integers inside the topology (a leaf, a group) are packed: their values go
 * to an int arena, 4 bytes an item and no node, since a topology of P
 * processes has ~(levels + 5) P of them.  An error about a packed item
 * finds its position by parsing the file again up to that event (errors
 * only).  A topology of 65536 processes (3.5 MB of YAML) then loads in
 * ~10 MB; libyaml's document API costs ~170 bytes a node.  Aliases are
 * rejected: nothing in the schema needs them, and an alias can make the
 * document a cyclic or exponentially large graph.  A format-1 per-pair
 * distance matrix is refused as soon as it starts, before its P^2 values
 * are read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "hash.h"

#define MAX_NPROCS (1 << 24)
#define MAX_RULES 1024 /* the unreachable-rule check is cubic in the table */
#define MAX_DEPTH 64
#define FORMAT1_TOPOLOGY                                                                                             \
    "expected a topology of format 2 ('topobcast: 2'); format 1 (one mapping per leaf, a P x P distance matrix) "     \
    "is no longer read: re-run topobcast-probe, or 'topobcast-probe --analyze' on its saved measurements, then "      \
    "topobcast-tuner"

enum { Y_SCALAR = 1, Y_LIST, Y_MAP, Y_INTS };

typedef struct ynode {
    uint32_t line, col; /* 0-based, from libyaml's start mark */
    uint32_t len;       /* scalar: bytes; list: items; mapping: 2 x pairs; ints: items */
    uint32_t first;     /* scalar: offset in text; list/mapping: offset in kids; ints: offset in ints */
    uint32_t ev;        /* index of the event that started it (ints: item i is event ev + 1 + i) */
    unsigned char type;
} ynode;

typedef struct ytree {
    ynode *nodes;
    size_t nnodes, ncap;
    uint32_t *kids; /* children of each collection, contiguous; mapping: key, value, key ... */
    size_t nkids, kcap;
    char *text;     /* scalars, each NUL-terminated */
    size_t ntext, tcap;
    int32_t *ints;  /* items of packed integer lists */
    size_t nints, icap;
} ytree;

typedef struct loader {
    ytree t;
    const char *name; /* file name for messages */
    const char *data; /* the text, to find positions again */
    size_t len;
    char *err;
    size_t errlen;
    tb_config *cfg;
} loader;

static int vfail_at(loader *L, const yaml_mark_t *m, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* user text quoted in the message (a multi-line scalar ...) must not
     * break the one-line warning */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    if (L->err && L->errlen)
        snprintf(L->err, L->errlen, "%s:%lu:%lu: %s", L->name, (unsigned long)m->line + 1,
                 (unsigned long)m->column + 1, msg);
    return -1;
}

static int fail_at(loader *L, const yaml_mark_t *m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(loader *L, const yaml_mark_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(L, m, fmt, ap);
    va_end(ap);
    return -1;
}

static int fail(loader *L, const ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(loader *L, const ynode *n, const char *fmt, ...)
{
    yaml_mark_t m = {0, n->line, n->col};
    va_list ap;
    va_start(ap, fmt);
    vfail_at(L, &m, fmt, ap);
    va_end(ap);
    return -1;
}

static unsigned long line_of(const ynode *n)
{
    return (unsigned long)n->line + 1;
}

static const char *sval(const loader *L, const ynode *n)
{
    return L->t.text + n->first;
}

/* A scalar's text made safe for a one-line message: control characters
 * replaced, long values cut. */
static const char *shown(const loader *L, const ynode *n, char *buf, size_t cap)
{
    if (n->type != Y_SCALAR) {
        snprintf(buf, cap, "%s", n->type == Y_MAP ? "a mapping" : "a list");
        return buf;
    }
    size_t len = n->len, o = 0;
    const unsigned char *v = (const unsigned char *)sval(L, n);
    for (size_t i = 0; i < len && o + 4 < cap; i++)
        buf[o++] = (v[i] < 0x20 || v[i] == 0x7f) ? '?' : (char)v[i];
    if (o + 4 >= cap && len > o) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

static const char *kind(const ynode *n)
{
    switch (n->type) {
    case Y_SCALAR: return "a scalar";
    case Y_LIST:
    case Y_INTS: return "a list";
    case Y_MAP: return "a mapping";
    default: return "nothing";
    }
}

static int is_list(const ynode *n)
{
    return n->type == Y_LIST || n->type == Y_INTS;
}

static int seq_len(const ynode *n)
{
    return (int)n->len;
}

/* Item i of a list that is not packed (packed items are not nodes). */
static ynode *seq_item(loader *L, const ynode *n, int i)
{
    return &L->t.nodes[L->t.kids[n->first + (uint32_t)i]];
}

/* The start mark of event number ev: the file is parsed again up to it.
 * Only errors about packed items need it. */
static yaml_mark_t locate(const loader *L, uint32_t ev)
{
    yaml_mark_t at = {0, 0, 0};
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return at;
    yaml_parser_set_input_string(&p, (const unsigned char *)L->data, L->len);
    for (uint32_t k = 0;;) {
        yaml_event_t e;
        if (!yaml_parser_parse(&p, &e))
            break;
        int end = e.type == YAML_STREAM_END_EVENT, node = e.type == YAML_SCALAR_EVENT ||
                                                        e.type == YAML_SEQUENCE_START_EVENT ||
                                                        e.type == YAML_MAPPING_START_EVENT;
        if (node && k++ == ev)
            at = e.start_mark, end = 1;
        yaml_event_delete(&e);
        if (end)
            break;
    }
    yaml_parser_delete(&p);
    return at;
}

static int fail_item(loader *L, const ynode *list, int i, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* fail() at item i of a list, packed or not. */
static int fail_item(loader *L, const ynode *list, int i, const char *fmt, ...)
{
    yaml_mark_t m;
    if (list->type == Y_INTS) {
        m = locate(L, list->ev + 1 + (uint32_t)i);
    } else {
        const ynode *n = seq_item(L, list, i);
        m = (yaml_mark_t){0, n->line, n->col};
    }
    va_list ap;
    va_start(ap, fmt);
    vfail_at(L, &m, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- scalars ---------------------------------------------------------- */

static int scalar(loader *L, const ynode *n, const char *what, const char **out)
{
    if (n->type != Y_SCALAR)
        return fail(L, n, "expected %s, got %s", what, kind(n));
    if (strlen(sval(L, n)) != n->len)
        return fail(L, n, "expected %s without NUL characters", what);
    *out = sval(L, n);
    return 0;
}

static int get_int(loader *L, const ynode *n, long lo, long hi, const char *what, int *out)
{
    const char *s;
    char buf[64];
    if (scalar(L, n, what, &s) != 0)
        return -1;
    const char *p = s;
    if (*p == '-')
        p++;
    int digits = *p != 0;
    for (const char *q = p; *q; q++)
        digits &= (*q >= '0' && *q <= '9');
    errno = 0;
    long v = digits ? strtol(s, NULL, 10) : 0;
    if (!digits || errno != 0 || v < lo || v > hi)
        return fail(L, n, "expected %s (an integer from %ld to %ld), got '%s'", what, lo, hi,
                    shown(L, n, buf, sizeof buf));
    *out = (int)v;
    return 0;
}

/* Names end up in messages, in "levels=a/b" specs and in fixed-size
 * buffers: keep them short and free of separators. */
static int get_name(loader *L, const ynode *n, const char *what, int level_syntax, char *dst, size_t cap)
{
    const char *s;
    char buf[64];
    if (scalar(L, n, what, &s) != 0)
        return -1;
    size_t len = strlen(s);
    int ok = len > 0 && len < cap;
    for (size_t i = 0; ok && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (level_syntax)
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        else
            ok = c > 0x20 && c != 0x7f;
    }
    if (!ok)
        return fail(L, n, "expected %s (1 to %zu %s), got '%s'", what, cap - 1,
                    level_syntax ? "letters, digits, '_' or '-'" : "printable characters without spaces",
                    shown(L, n, buf, sizeof buf));
    memcpy(dst, s, len + 1);
    return 0;
}

static int get_number(loader *L, const ynode *n, const char *what, double *out)
{
    const char *s;
    char buf[64], *end;
    if (scalar(L, n, what, &s) != 0)
        return -1;
    errno = 0;
    double v = *s ? strtod(s, &end) : NAN;
    if (!*s || *end || errno != 0 || !isfinite(v) || v < 0)
        return fail(L, n, "expected %s (a finite number >= 0), got '%s'", what, shown(L, n, buf, sizeof buf));
    *out = v;
    return 0;
}

/* Item i of a list as an integer from lo to hi: get_int, packed lists too. */
static int list_int(loader *L, const ynode *list, int i, long lo, long hi, const char *what, int *out)
{
    if (list->type != Y_INTS)
        return get_int(L, seq_item(L, list, i), lo, hi, what, out);
    long v = L->t.ints[list->first + (uint32_t)i];
    if (v < lo || v > hi)
        return fail_item(L, list, i, "expected %s (an integer from %ld to %ld), got '%ld'", what, lo, hi, v);
    *out = (int)v;
    return 0;
}

/* Item i of a group: a leaf rank from 0 to max, or a range "A-B" of them
 * (A <= B), into [*lo, *hi]. */
static int list_ranks(loader *L, const ynode *list, int i, int max, int *lo, int *hi)
{
    const char *what = "a leaf rank";
    const ynode *n = list->type == Y_INTS ? NULL : seq_item(L, list, i);
    if (!n || n->type != Y_SCALAR || sval(L, n)[0] == '-' || !strchr(sval(L, n), '-')) {
        if (list_int(L, list, i, 0, max, what, lo) != 0)
            return -1;
        *hi = *lo;
        return 0;
    }
    const char *s;
    char buf[64];
    if (scalar(L, n, what, &s) != 0)
        return -1;
    long a = -1, b = -1;
    int used = -1;
    if (sscanf(s, "%ld-%ld%n", &a, &b, &used) != 2 || used != (int)strlen(s) || s[0] < '0' || s[0] > '9' ||
        strchr(s, ' ') || strchr(s, '+') || strstr(s, "--") || a < 0 || b > max || a > b)
        return fail(L, n, "expected %s (an integer from 0 to %d) or a range A-B of them (A <= B), got '%s'", what,
                    max, shown(L, n, buf, sizeof buf));
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

/* ---- mappings with a fixed set of keys -------------------------------- */

typedef struct field {
    const char *key;
    int required;
    ynode *key_node, *val;
} field;

static int take_fields(loader *L, const ynode *map, field *f, int nf, const char *what)
{
    char buf[64];
    if (map->type != Y_MAP)
        return fail(L, map, "expected %s (a mapping), got %s", what, kind(map));
    for (uint32_t i = 0; i + 1 < map->len; i += 2) {
        ynode *k = &L->t.nodes[L->t.kids[map->first + i]], *v = &L->t.nodes[L->t.kids[map->first + i + 1]];
        const char *ks;
        if (scalar(L, k, "a key", &ks) != 0)
            return -1;
        int j = 0;
        while (j < nf && strcmp(ks, f[j].key) != 0)
            j++;
        if (j == nf) {
            char list[256] = "";
            size_t o = 0;
            for (int q = 0; q < nf && o < sizeof list; q++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", q ? ", " : "", f[q].key);
            return fail(L, k, "expected one of the keys %s in %s, got '%s'", list, what, shown(L, k, buf, sizeof buf));
        }
        if (f[j].val)
            return fail(L, k, "expected each key once in %s: '%s' already appears at line %lu", what, f[j].key,
                        line_of(f[j].key_node));
        f[j].key_node = k;
        f[j].val = v;
    }
    for (int i = 0; i < nf; i++)
        if (f[i].required && !f[i].val)
            return fail(L, map, "expected key '%s' in %s", f[i].key, what);
    return 0;
}

static int expect_list(loader *L, const ynode *n, const char *what)
{
    if (!is_list(n))
        return fail(L, n, "expected %s (a list), got %s", what, kind(n));
    return 0;
}

/* ---- topology ---------------------------------------------------------- */

static int parse_fingerprint(loader *L, const ynode *n, const ynode **hosts_node)
{
    tb_topology *t = &L->cfg->topo;
    field f[] = {{"nprocs", 1, 0, 0}, {"hosts", 1, 0, 0}};
    if (take_fields(L, n, f, 2, "the fingerprint") != 0)
        return -1;
    if (get_int(L, f[0].val, 1, MAX_NPROCS, "the number of processes", &t->nprocs) != 0)
        return -1;
    const ynode *hl = f[1].val;
    *hosts_node = hl;
    if (expect_list(L, hl, "the list of hosts") != 0)
        return -1;
    int nh = seq_len(hl);
    if (nh < 1)
        return fail(L, hl, "expected at least one host");
    if (nh > t->nprocs)
        return fail(L, hl, "expected at most %d hosts (one per process at most), got %d", t->nprocs, nh);
    /* each name once, in one pool: hosts[h] points into hosts[0]'s block */
    size_t pool = 0;
    for (int h = 0; h < nh; h++) {
        ynode *hn = seq_item(L, hl, h);
        char name[256];
        if (get_name(L, hn, "a host name", 0, name, sizeof name) != 0)
            return -1;
        pool += strlen(name) + 1;
    }
    t->hosts = calloc((size_t)nh, sizeof *t->hosts);
    char *text = t->hosts ? malloc(pool) : NULL;
    if (!text)
        return fail(L, hl, "expected a file that fits in memory");
    for (int h = 0, o = 0; h < nh; h++) {
        const char *name = sval(L, seq_item(L, hl, h));
        t->hosts[h] = text + o;
        memcpy(t->hosts[h], name, strlen(name) + 1);
        o += (int)strlen(name) + 1;
    }
    t->nhosts = nh;
    int a = 0, b = 0, rc = tb_topo_index_hosts(t, &a, &b);
    if (rc < 0)
        return fail(L, hl, "expected a file that fits in memory");
    if (rc > 0 && strcmp(t->hosts[a], t->hosts[b]) == 0)
        return fail(L, seq_item(L, hl, b), "expected each host once: '%s' is already listed", t->hosts[b]);
    if (rc > 0)
        return fail(L, seq_item(L, hl, b), "expected host names with distinct hashes: '%s' and '%s' collide (rename one)",
                    t->hosts[a], t->hosts[b]);
    return 0;
}

static int parse_levels(loader *L, const ynode *n)
{
    tb_topology *t = &L->cfg->topo;
    if (expect_list(L, n, "the level names, coarsest first") != 0)
        return -1;
    int nl = seq_len(n);
    if (nl < 1 || nl > TB_MAX_LEVELS)
        return fail(L, n, "expected 1 to %d level names, coarsest first, got %d", TB_MAX_LEVELS, nl);
    t->level_name = calloc((size_t)nl, sizeof *t->level_name);
    t->ngroups = calloc((size_t)nl, sizeof *t->ngroups);
    t->group = calloc((size_t)nl, sizeof *t->group);
    if (!t->level_name || !t->ngroups || !t->group)
        return fail(L, n, "expected a file that fits in memory");
    t->nlevels = nl;
    for (int l = 0; l < nl; l++) {
        ynode *ln = seq_item(L, n, l);
        if (get_name(L, ln, "a level name", 1, t->level_name[l], TB_LEVEL_NAME_MAX) != 0)
            return -1;
        for (int k = 0; k < l; k++)
            if (strcmp(t->level_name[k], t->level_name[l]) == 0)
                return fail(L, ln, "expected each level once: '%s' is already listed", t->level_name[l]);
    }
    return 0;
}

/* leaves: one list per calibration rank, in rank order:
 * [host, pu] or [host, pu, core, package, numa], host an index into the
 * fingerprint's hosts. */
static int parse_leaves(loader *L, const ynode *n, const ynode *hosts_node, const ynode **leaf_nodes)
{
    tb_topology *t = &L->cfg->topo;
    const char *shape = "[host, pu] or [host, pu, core, package, numa] (host: an index into the fingerprint's hosts)";
    if (expect_list(L, n, "the leaves (one per process of the calibration job, in rank order)") != 0)
        return -1;
    int nl = seq_len(n);
    if (nl != t->nprocs)
        return fail(L, n, "expected %d leaves (fingerprint nprocs), got %d", t->nprocs, nl);
    t->leaves = malloc((size_t)nl * sizeof *t->leaves);
    char *used = calloc((size_t)t->nhosts, 1);
    if (!t->leaves || !used) {
        free(used);
        return fail(L, n, "expected a file that fits in memory");
    }
    t->nleaves = nl;
    int rc = 0;
    for (int i = 0; i < nl && rc == 0; i++) {
        ynode *ln = seq_item(L, n, i);
        if (!is_list(ln) || seq_len(ln) < 2 || seq_len(ln) > 5) {
            char buf[64];
            rc = fail(L, ln, "expected the leaf of calibration rank %d as %s, got %s", i, shape,
                      is_list(ln) ? "a list of another length" : shown(L, ln, buf, sizeof buf));
            break;
        }
        int v[5] = {0, -1, -1, -1, -1};
        rc = list_int(L, ln, 0, 0, t->nhosts - 1, "a host index into the fingerprint's hosts", &v[0]);
        for (int k = 1; k < seq_len(ln) && rc == 0; k++)
            rc = list_int(L, ln, k, -1, INT_MAX, "an hwloc logical index or -1", &v[k]);
        t->leaves[i] = (tb_topo_leaf){v[0], v[1], v[2], v[3], v[4]};
        used[v[0]] = 1;
    }
    for (int h = 0; h < t->nhosts && rc == 0; h++)
        if (!used[h])
            rc = fail(L, seq_item(L, hosts_node, h), "expected every fingerprint host to have a leaf; '%s' has none",
                      t->hosts[h]);
    free(used);
    *leaf_nodes = n;
    return rc;
}

static int parse_groups(loader *L, const ynode *n)
{
    tb_topology *t = &L->cfg->topo;
    int nl = t->nlevels, nleaves = t->nleaves, rc = 0;
    field f[TB_MAX_LEVELS];
    for (int l = 0; l < nl; l++)
        f[l] = (field){t->level_name[l], 1, 0, 0};
    if (take_fields(L, n, f, nl, "the groups (one entry per level)") != 0)
        return -1;
    /* the group each leaf was placed in, to point at it on a clash */
    int *placed = malloc((size_t)nleaves * sizeof *placed);
    if (!placed)
        return fail(L, n, "expected a file that fits in memory");
    for (int l = 0; l < nl && rc == 0; l++) {
        const ynode *gl = f[l].val;
        char what[96];
        snprintf(what, sizeof what, "the groups of level '%s' (a list of lists of ranks)", t->level_name[l]);
        if (expect_list(L, gl, what) != 0) {
            rc = -1;
            break;
        }
        t->group[l] = malloc((size_t)nleaves * sizeof **t->group);
        if (!t->group[l]) {
            rc = fail(L, gl, "expected a file that fits in memory");
            break;
        }
        for (int r = 0; r < nleaves; r++)
            t->group[l][r] = -1;
        int ng = seq_len(gl);
        t->ngroups[l] = ng;
        for (int g = 0; g < ng && rc == 0; g++) {
            ynode *gn = seq_item(L, gl, g);
            if (expect_list(L, gn, "a group (a list of ranks)") != 0) {
                rc = -1;
                break;
            }
            if (seq_len(gn) == 0) {
                rc = fail(L, gn, "expected a non-empty group of level '%s'", t->level_name[l]);
                break;
            }
            for (int i = 0; i < seq_len(gn) && rc == 0; i++) {
                int lo = 0, hi = -1;
                if (list_ranks(L, gn, i, nleaves - 1, &lo, &hi) != 0) {
                    rc = -1;
                    break;
                }
                for (int r = lo; r <= hi; r++) {
                    if (t->group[l][r] >= 0) {
                        rc = fail_item(L, gn, i,
                                       "expected each rank in one group of level '%s': rank %d is already in the group at line %lu",
                                       t->level_name[l], r, line_of(seq_item(L, gl, placed[r])));
                        break;
                    }
                    t->group[l][r] = g;
                    placed[r] = g;
                }
            }
        }
        for (int r = 0; r < nleaves && rc == 0; r++)
            if (t->group[l][r] < 0)
                rc = fail(L, gl, "expected the groups of level '%s' to cover every leaf; rank %d is in none",
                          t->level_name[l], r);
        if (rc != 0 || l == 0)
            continue;
        /* Finer levels must nest: a group split across two coarser groups
         * has no single leader at the coarser level. */
        int *parent = malloc((size_t)ng * sizeof *parent), *first = malloc((size_t)ng * sizeof *first);
        if (!parent || !first) {
            free(parent);
            free(first);
            rc = fail(L, gl, "expected a file that fits in memory");
            break;
        }
        for (int g = 0; g < ng; g++)
            parent[g] = -1;
        for (int r = 0; r < nleaves && rc == 0; r++) {
            int g = t->group[l][r], up = t->group[l - 1][r];
            if (parent[g] < 0) {
                parent[g] = up;
                first[g] = r;
            } else if (parent[g] != up) {
                rc = fail(L, seq_item(L, gl, g),
                          "expected each group of level '%s' inside one group of level '%s'; ranks %d and %d are in different ones",
                          t->level_name[l], t->level_name[l - 1], first[g], r);
            }
        }
        free(parent);
        free(first);
    }
    free(placed);
    return rc;
}

/* distance: {unit: us, levels: [one per level, coarsest first], within: x} */
static int parse_distance(loader *L, const ynode *n)
{
    tb_topo_dist *d = &L->cfg->topo.dist;
    const tb_topology *t = &L->cfg->topo;
    field f[] = {{"unit", 0, 0, 0}, {"levels", 1, 0, 0}, {"within", 1, 0, 0}};
    if (take_fields(L, n, f, 3, "the distance classes") != 0)
        return -1;
    snprintf(d->unit, sizeof d->unit, "us");
    if (f[0].val && get_name(L, f[0].val, "a unit such as us", 1, d->unit, sizeof d->unit) != 0)
        return -1;
    const ynode *ll = f[1].val;
    if (expect_list(L, ll, "the distance of each level, coarsest first") != 0)
        return -1;
    if (seq_len(ll) != t->nlevels)
        return fail(L, ll, "expected %d distances, one per level (coarsest first), got %d", t->nlevels, seq_len(ll));
    for (int l = 0; l < t->nlevels; l++)
        if (get_number(L, seq_item(L, ll, l), "a distance", &d->level[l]) != 0)
            return -1;
    if (get_number(L, f[2].val, "a distance", &d->within) != 0)
        return -1;
    /* finer groups are never farther apart: what distance_tree relies on */
    for (int l = 0; l < t->nlevels; l++) {
        int last = l + 1 == t->nlevels;
        double finer = last ? d->within : d->level[l + 1];
        if (d->level[l] < finer)
            return fail(L, last ? f[2].val : seq_item(L, ll, l + 1),
                        "expected distances that do not grow toward finer levels: level '%s' is %g, %s%s%s is %g",
                        t->level_name[l], d->level[l], last ? "within" : "level '",
                        last ? "" : t->level_name[l + 1], last ? "" : "'", finer);
    }
    d->given = 1;
    return 0;
}

static int parse_topology(loader *L, const ynode *n)
{
    field f[] = {{"fingerprint", 1, 0, 0}, {"levels", 1, 0, 0}, {"leaves", 1, 0, 0},
                 {"groups", 1, 0, 0}, {"distance", 0, 0, 0}};
    if (take_fields(L, n, f, 5, "the topology") != 0)
        return -1;
    L->cfg->has_topology = 1;
    const ynode *hosts_node = NULL, *leaves = NULL;
    if (parse_fingerprint(L, f[0].val, &hosts_node) != 0 || parse_levels(L, f[1].val) != 0)
        return -1;
    if (parse_leaves(L, f[2].val, hosts_node, &leaves) != 0 || parse_groups(L, f[3].val) != 0)
        return -1;
    if (f[4].val && parse_distance(L, f[4].val) != 0)
        return -1;
    tb_topology *t = &L->cfg->topo;
    int a = 0, b = 0, rc = tb_topo_index_leaves(t, &a, &b);
    if (rc < 0)
        return fail(L, n, "expected a file that fits in memory");
    /* A running rank is matched to its leaf by (host, PU): two leaves with
     * the same place would make that ambiguous. */
    if (rc > 0)
        return fail(L, seq_item(L, leaves, b), "expected each (host, pu) once: ranks %d and %d are both on %s PU %d", a,
                    b, t->hosts[t->leaves[b].host], t->leaves[b].pu);
    return 0;
}

/* ---- selection --------------------------------------------------------- */

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
static int parse_range(loader *L, const ynode *n, const char *what, const char *units, size_t *lo, size_t *hi)
{
    const char *s;
    char text[72], sh[64];
    if (scalar(L, n, what, &s) != 0)
        return -1;
    if (strlen(s) >= sizeof text)
        return fail(L, n, "expected %s such as 0-16K, 16K-inf or 64, got '%s'", what, shown(L, n, sh, sizeof sh));
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
        return fail(L, n, "expected %s as LO-HI or one value, with sizes like 512, 16K, 4M, 1G and 'inf' as the upper bound, got '%s'",
                    what, shown(L, n, sh, sizeof sh));
    if (*lo > *hi)
        return fail(L, n, "expected a non-empty range (LO <= HI), got '%s'", shown(L, n, sh, sizeof sh));
    if (units && *lo < 1)
        return fail(L, n, "expected %s of at least 1, got '%s'", units, shown(L, n, sh, sizeof sh));
    /* both ends: a lower end past INT_MAX would wrap in the long it is kept in */
    if (units && (*lo > (size_t)INT_MAX || (*hi != SIZE_MAX && *hi > (size_t)INT_MAX)))
        return fail(L, n, "expected %s up to %d or 'inf', got '%s'", units, INT_MAX, shown(L, n, sh, sizeof sh));
    return 0;
}

/* A count range into longs, inf as LONG_MAX. */
static int parse_count_range(loader *L, const ynode *n, const char *what, const char *units, long *lo, long *hi)
{
    size_t a, b;
    if (parse_range(L, n, what, units, &a, &b) != 0)
        return -1;
    *lo = (long)a;
    *hi = b == SIZE_MAX ? LONG_MAX : (long)b;
    return 0;
}

/* ---- shape keys (config/README.md, "Shape keys") ---- */

static int level_of(const loader *L, const char *name)
{
    const char(*names)[TB_LEVEL_NAME_MAX];
    int n = tb_config_level_names(L->cfg, &names);
    for (int l = 0; l < n && l < TB_MAX_LEVELS; l++)
        if (strcmp(names[l], name) == 0)
            return l;
    return -1;
}

static int fail_level(loader *L, const ynode *n, const char *name)
{
    const char(*names)[TB_LEVEL_NAME_MAX];
    int nl = tb_config_level_names(L->cfg, &names);
    char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)] = "", sh[64];
    size_t o = 0;
    for (int l = 0; l < nl && o < sizeof list; l++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", l ? ", " : "", names[l]);
    snprintf(sh, sizeof sh, "%.40s", name);
    return fail(L, n, "expected levels named in the %s (%s), got '%s'",
                L->cfg->has_topology ? "topology" : "zero-configuration hierarchy", nl ? list : "none", sh);
}

/* levels: a/b/c (the exact set of levels of the communicator's hierarchy)
 * or none */
static int parse_levels_key(loader *L, const ynode *n, tb_shape_cond *c)
{
    const char *s;
    if (scalar(L, n, "the levels of the communicator's hierarchy as a/b/c, or none", &s) != 0)
        return -1;
    char text[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 1) + 1];
    c->has_levels = 1;
    c->levels = 0;
    if (strcmp(s, "none") == 0)
        return 0;
    if (!*s || strlen(s) >= sizeof text)
        return fail(L, n, "expected the levels of the communicator's hierarchy as a/b/c, or none, got '%.40s'", s);
    strcpy(text, s);
    for (char *save = NULL, *tok = strtok_r(text, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        int l = level_of(L, tok);
        if (l < 0)
            return fail_level(L, n, tok);
        if (c->levels & (1u << l))
            return fail(L, n, "expected each level once in levels, got '%s' twice", tok);
        c->levels |= 1u << l;
    }
    return 0;
}

/* groups: {level: RANGE, ...} */
static int parse_groups_key(loader *L, const ynode *n, tb_shape_cond *c)
{
    if (n->type != Y_MAP || n->len == 0)
        return fail(L, n, "expected group counts per level as a mapping such as {island: 2, node: 4-inf}, got %s",
                    n->type == Y_MAP ? "an empty mapping" : kind(n));
    unsigned seen = 0;
    for (uint32_t i = 0; i + 1 < n->len; i += 2) {
        ynode *k = &L->t.nodes[L->t.kids[n->first + i]], *v = &L->t.nodes[L->t.kids[n->first + i + 1]];
        const char *name;
        if (scalar(L, k, "a level name", &name) != 0)
            return -1;
        int l = level_of(L, name);
        if (l < 0)
            return fail_level(L, k, name);
        if (seen & (1u << l))
            return fail(L, k, "expected each level once in groups, got '%s' twice", name);
        seen |= 1u << l;
        if (parse_count_range(L, v, "a group-count range", "group counts", &c->groups_lo[l], &c->groups_hi[l]) != 0)
            return -1;
    }
    return 0;
}

static int parse_yes_no(loader *L, const ynode *n, int *out)
{
    const char *s;
    char sh[64];
    if (scalar(L, n, "yes or no", &s) != 0)
        return -1;
    if (!strcmp(s, "yes") || !strcmp(s, "true"))
        *out = 1;
    else if (!strcmp(s, "no") || !strcmp(s, "false"))
        *out = 0;
    else
        return fail(L, n, "expected yes or no, got '%s'", shown(L, n, sh, sizeof sh));
    return 0;
}

static int parse_rule(loader *L, const ynode *n, tb_rule *r)
{
    field f[] = {{"comm", 0, 0, 0},        {"bytes", 0, 0, 0},  {"nodes", 0, 0, 0},  {"ppn", 0, 0, 0},
                 {"consecutive", 0, 0, 0}, {"levels", 0, 0, 0}, {"groups", 0, 0, 0}, {"algorithm", 1, 0, 0}};
    if (take_fields(L, n, f, 8, "a selection rule") != 0)
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
        (f[4].val && parse_yes_no(L, f[4].val, &c->consecutive) != 0) ||
        (f[5].val && parse_levels_key(L, f[5].val, c) != 0) || (f[6].val && parse_groups_key(L, f[6].val, c) != 0))
        return -1;
    const char *text;
    char e[512];
    if (scalar(L, f[7].val, "an algorithm such as default, binomial or pipeline:segment=64K", &text) != 0)
        return -1;
    /* levels= names are checked against the topology parsed above */
    if (tb_config_parse_spec(L->cfg, text, &r->spec, e, sizeof e) != 0)
        return fail(L, f[7].val, "%s%s", strncmp(e, "expected", 8) == 0 ? "" : "expected a valid algorithm: ", e);
    r->line = (int)line_of(n);
    return 0;
}

static int parse_selection(loader *L, const ynode *n)
{
    tb_config *cfg = L->cfg;
    if (expect_list(L, n, "the selection rules") != 0)
        return -1;
    int nr = seq_len(n);
    if (nr < 1)
        return fail(L, n, "expected at least one selection rule, the last one matching everything (e.g. {algorithm: default})");
    if (nr > MAX_RULES)
        return fail(L, n, "expected at most %d selection rules, got %d", MAX_RULES, nr);
    cfg->rules = calloc((size_t)nr, sizeof *cfg->rules);
    if (!cfg->rules)
        return fail(L, n, "expected a file that fits in memory");
    for (int i = 0; i < nr; i++) {
        ynode *rn = seq_item(L, n, i);
        if (parse_rule(L, rn, &cfg->rules[i]) != 0)
            return -1;
        cfg->nrules = i + 1;
        if (i == nr - 1) {
            if (!tb_rule_matches_all(&cfg->rules[i]))
                return fail(L, rn, "expected the last rule to match every communicator and message size "
                                   "(no comm, bytes or shape keys, e.g. {algorithm: default}), so that some rule always "
                                   "applies");
        } else if (tb_rule_is_shadowed(cfg->rules, i)) {
            return fail(L, rn, "expected a rule that can match: every case it covers is already matched by earlier rules "
                               "(first match wins)");
        }
    }
    return 0;
}

/* ---- entry points ------------------------------------------------------ */

static int parse_root(loader *L, const ynode *root)
{
    if (root->type != Y_MAP)
        return fail(L, root, "expected a mapping starting with 'topobcast: 2', got %s", kind(root));
    field f[] = {{"topobcast", 1, 0, 0}, {"topology", 0, 0, 0}, {"selection", 0, 0, 0}, {"meta", 0, 0, 0}};
    if (take_fields(L, root, f, 4, "the top level") != 0)
        return -1;
    const char *version;
    char sh[64];
    if (scalar(L, f[0].val, "format version 2", &version) != 0)
        return -1;
    if (strcmp(version, "1") != 0 && strcmp(version, "2") != 0)
        return fail(L, f[0].val, "expected format version 2 ('topobcast: 2'; 1 for a file without a topology), got '%s'",
                    shown(L, f[0].val, sh, sizeof sh));
    /* format 1 differs in the topology only (config/README.md) */
    if (f[1].val && strcmp(version, "2") != 0)
        return fail(L, f[1].val, FORMAT1_TOPOLOGY);
    if (f[1].val && parse_topology(L, f[1].val) != 0)
        return -1;
    if (f[2].val)
        return parse_selection(L, f[2].val);
    /* A topology-only file (straight from the probe) keeps the built-in
     * table; the topology still serves TOPOBCAST_ALGORITHM. */
    tb_config builtin;
    tb_config_builtin(&builtin);
    L->cfg->rules = builtin.rules;
    L->cfg->nrules = builtin.nrules;
    return 0;
}

/* libyaml reports reader errors (bad encoding) by byte offset only. */
static yaml_mark_t mark_of_offset(const char *data, size_t len, size_t off)
{
    yaml_mark_t m = {0, 0, 0};
    for (size_t i = 0; i < off && i < len; i++) {
        if (data[i] == '\n') {
            m.line++;
            m.column = 0;
        } else {
            m.column++;
        }
    }
    m.index = off;
    return m;
}

static int syntax_error(loader *L, yaml_parser_t *p, const char *data, size_t len)
{
    const char *problem = p->problem ? p->problem : "unknown problem";
    if (p->error == YAML_MEMORY_ERROR) {
        yaml_mark_t m = {0, 0, 0};
        return fail_at(L, &m, "expected a file that fits in memory");
    }
    if (p->error == YAML_READER_ERROR) {
        yaml_mark_t m = mark_of_offset(data, len, p->problem_offset);
        return fail_at(L, &m, "expected valid UTF-8 YAML text: %s", problem);
    }
    if (p->context)
        return fail_at(L, &p->problem_mark, "expected valid YAML: %s (%s started at %lu:%lu)", problem, p->context,
                       (unsigned long)p->context_mark.line + 1, (unsigned long)p->context_mark.column + 1);
    return fail_at(L, &p->problem_mark, "expected valid YAML: %s", problem);
}

/* ---- reading: libyaml events into the compact tree --------------------- */

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *b = realloc(*buf, c * elem);
    if (!b)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

static void tree_free(ytree *t)
{
    free(t->nodes);
    free(t->kids);
    free(t->text);
    free(t->ints);
    memset(t, 0, sizeof *t);
}

static long new_node(ytree *t, int type, const yaml_mark_t *m, uint32_t ev)
{
    if (t->nnodes >= UINT32_MAX || grow((void **)&t->nodes, &t->ncap, t->nnodes + 1, sizeof *t->nodes) != 0)
        return -1;
    ynode *n = &t->nodes[t->nnodes];
    memset(n, 0, sizeof *n);
    n->type = (unsigned char)type;
    n->line = m->line > UINT32_MAX ? UINT32_MAX : (uint32_t)m->line;
    n->col = m->column > UINT32_MAX ? UINT32_MAX : (uint32_t)m->column;
    n->ev = ev;
    return (long)t->nnodes++;
}

static long new_scalar(ytree *t, const char *text, size_t n, const yaml_mark_t *m, uint32_t ev)
{
    long id;
    if (n >= UINT32_MAX || t->ntext + n + 1 >= UINT32_MAX || grow((void **)&t->text, &t->tcap, t->ntext + n + 1, 1) != 0 ||
        (id = new_node(t, Y_SCALAR, m, ev)) < 0)
        return -1;
    memcpy(t->text + t->ntext, text, n);
    t->text[t->ntext + n] = 0;
    t->nodes[id].first = (uint32_t)t->ntext;
    t->nodes[id].len = (uint32_t)n;
    t->ntext += n + 1;
    return id;
}

/* A scalar that a packed list can hold: a plain decimal int32 whose text
 * is exactly what printing the value gives back. */
static int plain_int(const char *s, size_t n, int32_t *out)
{
    size_t i = s[0] == '-';
    if (n == i || n - i > 10 || (s[i] == '0' && n - i > 1) || (i && s[1] == '0'))
        return 0;
    long long v = 0;
    for (size_t k = i; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        v = v * 10 + (s[k] - '0');
    }
    v = i ? -v : v;
    if (v < INT32_MIN || v > INT32_MAX)
        return 0;
    *out = (int32_t)v;
    return 1;
}

/* An open collection.  A list directly inside a list, under the top-level
 * 'topology' (a leaf, a group), is packed while its items are plain
 * integers: they wait on the int stack, and become nodes only if another
 * kind of item follows. */
typedef struct frame {
    size_t node, from; /* its node; where its children start on pending */
    size_t ifrom;      /* where its integers start on the int stack */
    int packing, in_topology;
} frame;

typedef struct pending_int {
    int32_t v;
    uint32_t line, col, ev;
} pending_int;

typedef struct reader {
    uint32_t *pending; /* children of open collections */
    size_t npend, pcap;
    frame *frames;
    size_t nframes, fcap;
    pending_int *ipend;
    size_t nipend, ipcap;
} reader;

static int push_child(reader *R, long id)
{
    if (grow((void **)&R->pending, &R->pcap, R->npend + 1, sizeof *R->pending) != 0)
        return -1;
    R->pending[R->npend++] = (uint32_t)id;
    return 0;
}

/* The top frame stops packing: its waiting integers become scalar nodes. */
static int unpack(ytree *t, reader *R)
{
    frame *f = &R->frames[R->nframes - 1];
    if (!f->packing)
        return 0;
    f->packing = 0;
    for (size_t i = f->ifrom; i < R->nipend; i++) {
        char text[16];
        int n = snprintf(text, sizeof text, "%d", (int)R->ipend[i].v);
        yaml_mark_t m = {0, R->ipend[i].line, R->ipend[i].col};
        long id = new_scalar(t, text, (size_t)n, &m, R->ipend[i].ev);
        if (id < 0 || push_child(R, id) != 0)
            return -1;
    }
    R->nipend = f->ifrom;
    return 0;
}

/* The key whose value the top mapping frame is about to receive, or NULL. */
static const char *value_key(const ytree *t, const reader *R)
{
    const frame *f = &R->frames[R->nframes - 1];
    size_t n = R->npend - f->from;
    if (t->nodes[f->node].type != Y_MAP || n % 2 != 1)
        return NULL;
    const ynode *k = &t->nodes[R->pending[R->npend - 1]];
    return k->type == Y_SCALAR ? t->text + k->first : NULL;
}

/* Builds L->t from the event stream; *root receives the root node or -1
 * for an empty stream.  Collections under construction keep their
 * children on `pending`; at their end the children move, contiguous, to
 * kids (or their integers to ints). */
static int read_tree(loader *L, const char *data, size_t len, long *root)
{
    ytree *t = &L->t;
    yaml_parser_t p;
    yaml_mark_t origin = {0, 0, 0};
    *root = -1;
    if (!yaml_parser_initialize(&p))
        return fail_at(L, &origin, "expected a file that fits in memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    reader R;
    memset(&R, 0, sizeof R);
    int rc = 0, docs = 0, done = 0, format1 = 0;
    uint32_t nev = 0; /* node events so far: scalars, list and mapping starts */
    while (!done && rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(L, &p, data, len);
            break;
        }
        long id = -2;
        frame *top = R.nframes ? &R.frames[R.nframes - 1] : NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = fail_at(L, &ev.start_mark, "expected a single YAML document");
            break;
        case YAML_ALIAS_EVENT: {
            char name[48];
            snprintf(name, sizeof name, "%s", (const char *)ev.data.alias.anchor);
            rc = fail_at(L, &ev.start_mark, "expected no aliases, got '*%s' (anchors and aliases are not supported)",
                         name);
            break;
        }
        case YAML_SCALAR_EVENT: {
            uint32_t e = nev++;
            int32_t v;
            if (top && top->packing &&
                plain_int((const char *)ev.data.scalar.value, ev.data.scalar.length, &v)) {
                if (grow((void **)&R.ipend, &R.ipcap, R.nipend + 1, sizeof *R.ipend) != 0) {
                    rc = fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                    break;
                }
                R.ipend[R.nipend++] = (pending_int){v, (uint32_t)ev.start_mark.line, (uint32_t)ev.start_mark.column, e};
                break;
            }
            if (R.nframes == 1) { /* 'topobcast: 1' before a topology: refused below */
                const char *key = value_key(t, &R);
                if (key && strcmp(key, "topobcast") == 0)
                    format1 = strcmp((const char *)ev.data.scalar.value, "1") == 0;
            }
            if ((top && unpack(t, &R) != 0) ||
                (id = new_scalar(t, (const char *)ev.data.scalar.value, ev.data.scalar.length, &ev.start_mark, e)) < 0)
                rc = fail_at(L, &ev.start_mark, "expected a file that fits in memory");
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            uint32_t e = nev++;
            int is_seq = ev.type == YAML_SEQUENCE_START_EVENT;
            /* libyaml's scanner slows down quadratically with flow
             * nesting (200000 '[' took minutes); the schema needs 4 */
            if (R.nframes >= MAX_DEPTH) {
                rc = fail_at(L, &ev.start_mark, "expected at most %d nested lists or mappings", MAX_DEPTH);
                break;
            }
            const char *key = top ? value_key(t, &R) : NULL;
            int in_topology = top && (top->in_topology || (R.nframes == 1 && key && strcmp(key, "topology") == 0));
            /* a format-1 topology: refused before its leaves are read (the
             * same message parse_root gives when the version comes later) */
            if (format1 && in_topology && R.nframes == 1) {
                rc = fail_at(L, &ev.start_mark, FORMAT1_TOPOLOGY);
                break;
            }
            /* a format-1 P x P matrix: refused before its P^2 values cost
             * memory */
            if (is_seq && in_topology && R.nframes == 2 && key && strcmp(key, "distance") == 0) {
                rc = fail_at(L, &ev.start_mark,
                             "expected the distance classes {unit: us, levels: [...], within: x}; a per-pair distance "
                             "matrix (format 1) is no longer read: re-run topobcast-probe, or 'topobcast-probe "
                             "--analyze' on its saved measurements");
                break;
            }
            long c = -1;
            if ((top && unpack(t, &R) != 0) ||
                (c = new_node(t, is_seq ? Y_LIST : Y_MAP, &ev.start_mark, e)) < 0 ||
                grow((void **)&R.frames, &R.fcap, R.nframes + 1, sizeof *R.frames) != 0) {
                rc = fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                break;
            }
            int packing = is_seq && in_topology && t->nodes[top->node].type == Y_LIST;
            R.frames[R.nframes++] = (frame){(size_t)c, R.npend, R.nipend, packing, in_topology};
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            frame f = R.frames[--R.nframes];
            id = (long)f.node;
            ynode *nd = &t->nodes[id];
            if (f.packing && R.nipend > f.ifrom) {
                size_t n = R.nipend - f.ifrom;
                if (t->nints + n >= UINT32_MAX || grow((void **)&t->ints, &t->icap, t->nints + n, sizeof *t->ints) != 0) {
                    rc = fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                    break;
                }
                for (size_t i = 0; i < n; i++)
                    t->ints[t->nints + i] = R.ipend[f.ifrom + i].v;
                nd->type = Y_INTS;
                nd->first = (uint32_t)t->nints;
                nd->len = (uint32_t)n;
                t->nints += n;
                R.nipend = f.ifrom;
                break;
            }
            size_t n = R.npend - f.from;
            if (t->nkids + n >= UINT32_MAX || grow((void **)&t->kids, &t->kcap, t->nkids + n, sizeof *t->kids) != 0) {
                rc = fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                break;
            }
            if (n)
                memcpy(t->kids + t->nkids, R.pending + f.from, n * sizeof *R.pending);
            nd->first = (uint32_t)t->nkids;
            nd->len = (uint32_t)n;
            t->nkids += n;
            R.npend = f.from;
            break;
        }
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (rc == 0 && id >= 0) {
            if (R.nframes == 0)
                *root = id; /* a document's only node */
            else if (push_child(&R, id) != 0)
                rc = fail_at(L, &origin, "expected a file that fits in memory");
        }
    }
    free(R.pending);
    free(R.frames);
    free(R.ipend);
    yaml_parser_delete(&p);
    return rc;
}

int tb_config_load_buffer(const char *data, size_t len, const char *name, tb_config *cfg, char *err,
                          size_t errlen)
{
    loader L;
    memset(&L, 0, sizeof L);
    memset(cfg, 0, sizeof *cfg);
    L.name = name ? name : "<buffer>";
    L.data = data;
    L.len = len;
    L.err = err;
    L.errlen = errlen;
    L.cfg = cfg;
    if (err && errlen)
        err[0] = 0;
    snprintf(cfg->source, sizeof cfg->source, "%s", L.name);
    cfg->hash = tb_config_hash_bytes(data, len);

    long root;
    int rc = read_tree(&L, data, len, &root);
    if (rc == 0 && root < 0) {
        yaml_mark_t m = {0, 0, 0};
        rc = fail_at(&L, &m, "expected a mapping starting with 'topobcast: 2', the file is empty");
    }
    if (rc == 0)
        rc = parse_root(&L, &L.t.nodes[root]);
    tree_free(&L.t);
    if (rc != 0)
        tb_config_free(cfg);
    return rc;
}

size_t tb_config_max_bytes(int *bad)
{
    const char *v = getenv("TOPOBCAST_CONFIG_MAX_BYTES");
    size_t max;
    int unset = !v || !*v, wrong = !unset && (tb_parse_size(v, &max) != 0 || max == 0);
    if (bad)
        *bad = wrong;
    return unset || wrong ? TB_CONFIG_MAX_BYTES_DEFAULT : max;
}

int tb_config_check_size(const char *path, unsigned long long size, size_t max, char *err, size_t errlen)
{
    if (size <= max)
        return 0;
    snprintf(err, errlen, "%s: expected at most %zu bytes (TOPOBCAST_CONFIG_MAX_BYTES), the file has %llu", path, max,
             size);
    return -1;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

char *tb_config_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *data = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: expected a regular file, this is %s", path, file_kind(st.st_mode));
    } else if (tb_config_check_size(path, (unsigned long long)st.st_size, max, err, errlen) != 0) {
        /* err says why */
    } else if (!(data = malloc((size_t)st.st_size + 1))) {
        snprintf(err, errlen, "%s: out of memory reading %lld bytes", path, (long long)st.st_size);
    } else {
        size_t cap = (size_t)st.st_size + 1, n = 0;
        for (;;) {
            ssize_t got = read(fd, data + n, cap - n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
                free(data), data = NULL;
                break;
            }
            n += (size_t)got;
            if (got == 0)
                break;
            if (n == cap) { /* grew since fstat */
                if (n > max) {
                    snprintf(err, errlen, "%s: expected at most %zu bytes (TOPOBCAST_CONFIG_MAX_BYTES); it grew "
                             "while being read", path, max);
                    free(data), data = NULL;
                    break;
                }
                char *bigger = realloc(data, cap = cap * 2 > max + 1 ? max + 1 : cap * 2);
                if (!bigger) {
                    snprintf(err, errlen, "%s: out of memory", path);
                    free(data), data = NULL;
                    break;
                }
                data = bigger;
            }
        }
        *len = n;
        if (data)
            data[n] = 0;
    }
    close(fd);
    return data;
}

int tb_config_load(const char *path, tb_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    size_t len = 0;
    char *data = tb_config_read_file(path, tb_config_max_bytes(NULL), &len, err, errlen);
    if (!data)
        return -1;
    int rc = tb_config_load_buffer(data, len, path, cfg, err, errlen);
    free(data);
    return rc;
}

void tb_config_free(tb_config *cfg)
{
    tb_topology *t = &cfg->topo;
    if (t->group)
        for (int l = 0; l < t->nlevels; l++)
            free(t->group[l]);
    free(t->group);
    free(t->ngroups);
    free(t->level_name);
    free(t->leaves);
    if (t->hosts)
        free(t->hosts[0]); /* the pool */
    free(t->hosts);
    free(t->host_hash);
    free(t->short_hash);
    free(t->by_hash);
    free(t->by_short);
    free(t->first_leaf);
    free(t->places);
    free(cfg->rules);
    memset(cfg, 0, sizeof *cfg);
}
