/* Loading the YAML configuration (schema: config/README.md).
 *
 * Everything is validated here, once, so that the mapping and the dispatch
 * can trust every index and every rule, and so that every mistake is
 * reported where a human would fix it: "FILE:LINE:COLUMN: expected ...",
 * positions 1-based, taken from libyaml's marks.
 *
 * libyaml's document API is used: the files are small (a distance matrix
 * for a few hundred ranks at most) and a tree makes the schema checks
 * straightforward.  Anchors/aliases are rejected: nothing in the schema
 * needs them, and an alias can make the document a cyclic or exponentially
 * large graph. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config.h"

#define MAX_NPROCS (1 << 24)
#define MAX_RULES 4096

typedef struct loader {
    yaml_document_t doc;
    const char *name; /* file name for messages */
    char *err;
    size_t errlen;
    tb_config *cfg;
} loader;

static int vfail_at(loader *L, const yaml_mark_t *m, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
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

static int fail(loader *L, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(loader *L, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(L, &n->start_mark, fmt, ap);
    va_end(ap);
    return -1;
}

static unsigned long line_of(const yaml_node_t *n)
{
    return (unsigned long)n->start_mark.line + 1;
}

/* A scalar's text made safe for a one-line message: control characters
 * replaced, long values cut. */
static const char *shown(const yaml_node_t *n, char *buf, size_t cap)
{
    if (n->type != YAML_SCALAR_NODE) {
        snprintf(buf, cap, "%s", n->type == YAML_MAPPING_NODE ? "a mapping" : "a list");
        return buf;
    }
    size_t len = n->data.scalar.length, o = 0;
    for (size_t i = 0; i < len && o + 4 < cap; i++) {
        unsigned char c = n->data.scalar.value[i];
        buf[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (o + 4 >= cap && len > o) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

static const char *kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

static yaml_node_t *node(loader *L, int index)
{
    return yaml_document_get_node(&L->doc, index);
}

static int seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(loader *L, const yaml_node_t *n, int i)
{
    return node(L, n->data.sequence.items.start[i]);
}

/* Every node reachable from the root exactly once: otherwise an alias
 * reuses it.  Iterative, so deep nesting cannot overflow the C stack. */
static int reject_aliases(loader *L, yaml_node_t *root)
{
    int nnodes = (int)(L->doc.nodes.top - L->doc.nodes.start);
    if (nnodes <= 0)
        return 0;
    char *seen = calloc((size_t)nnodes + 1, 1);
    size_t cap = 64, top = 0;
    int *stack = malloc(cap * sizeof *stack);
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return fail(L, root, "expected a file that fits in memory");
    }
    int rc = 0;
    stack[top++] = (int)(root - L->doc.nodes.start) + 1;
    while (top > 0 && rc == 0) {
        int id = stack[--top];
        yaml_node_t *n = node(L, id);
        if (!n)
            continue;
        if (seen[id]) {
            rc = fail(L, n, "expected no anchors or aliases (the node at line %lu is used twice)", line_of(n));
            break;
        }
        seen[id] = 1;
        size_t add = 0;
        if (n->type == YAML_SEQUENCE_NODE)
            add = (size_t)seq_len(n);
        else if (n->type == YAML_MAPPING_NODE)
            add = 2 * (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
        if (top + add > cap) {
            while (top + add > cap)
                cap *= 2;
            int *s = realloc(stack, cap * sizeof *stack);
            if (!s) {
                rc = fail(L, n, "expected a file that fits in memory");
                break;
            }
            stack = s;
        }
        if (n->type == YAML_SEQUENCE_NODE) {
            for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
                stack[top++] = *it;
        } else if (n->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
                stack[top++] = p->key;
                stack[top++] = p->value;
            }
        }
    }
    free(seen);
    free(stack);
    return rc;
}

/* ---- scalars ---------------------------------------------------------- */

static int scalar(loader *L, const yaml_node_t *n, const char *what, const char **out)
{
    if (n->type != YAML_SCALAR_NODE)
        return fail(L, n, "expected %s, got %s", what, kind(n));
    if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
        return fail(L, n, "expected %s without NUL characters", what);
    *out = (const char *)n->data.scalar.value;
    return 0;
}

static int get_int(loader *L, const yaml_node_t *n, long lo, long hi, const char *what, int *out)
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
                    shown(n, buf, sizeof buf));
    *out = (int)v;
    return 0;
}

/* Names end up in messages, in "levels=a/b" specs and in fixed-size
 * buffers: keep them short and free of separators. */
static int get_name(loader *L, const yaml_node_t *n, const char *what, int level_syntax, char *dst, size_t cap)
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
                    shown(n, buf, sizeof buf));
    memcpy(dst, s, len + 1);
    return 0;
}

static int get_number(loader *L, const yaml_node_t *n, const char *what, double *out)
{
    const char *s;
    char buf[64], *end;
    if (scalar(L, n, what, &s) != 0)
        return -1;
    errno = 0;
    double v = *s ? strtod(s, &end) : NAN;
    if (!*s || *end || errno != 0 || !isfinite(v) || v < 0)
        return fail(L, n, "expected %s (a finite number >= 0), got '%s'", what, shown(n, buf, sizeof buf));
    *out = v;
    return 0;
}

/* ---- mappings with a fixed set of keys -------------------------------- */

typedef struct field {
    const char *key;
    int required;
    yaml_node_t *key_node, *val;
} field;

static int take_fields(loader *L, const yaml_node_t *map, field *f, int nf, const char *what)
{
    char buf[64];
    if (map->type != YAML_MAPPING_NODE)
        return fail(L, map, "expected %s (a mapping), got %s", what, kind(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
        if (!k || !v)
            return fail(L, map, "expected %s with complete key/value pairs", what);
        const char *ks;
        if (scalar(L, k, "a key", &ks) != 0)
            return -1;
        int i = 0;
        while (i < nf && strcmp(ks, f[i].key) != 0)
            i++;
        if (i == nf) {
            char list[256] = "";
            size_t o = 0;
            for (int j = 0; j < nf && o < sizeof list; j++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", j ? ", " : "", f[j].key);
            return fail(L, k, "expected one of the keys %s in %s, got '%s'", list, what, shown(k, buf, sizeof buf));
        }
        if (f[i].val)
            return fail(L, k, "expected each key once in %s: '%s' already appears at line %lu", what, f[i].key,
                        line_of(f[i].key_node));
        f[i].key_node = k;
        f[i].val = v;
    }
    for (int i = 0; i < nf; i++)
        if (f[i].required && !f[i].val)
            return fail(L, map, "expected key '%s' in %s", f[i].key, what);
    return 0;
}

static int expect_list(loader *L, const yaml_node_t *n, const char *what)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(L, n, "expected %s (a list), got %s", what, kind(n));
    return 0;
}

/* ---- topology ---------------------------------------------------------- */

static int host_index(const tb_topology *t, const char *host)
{
    for (int h = 0; h < t->nhosts; h++)
        if (strcmp(t->hosts[h], host) == 0)
            return h;
    return -1;
}

static int parse_fingerprint(loader *L, const yaml_node_t *n, const yaml_node_t **hosts_node)
{
    tb_topology *t = &L->cfg->topo;
    field f[] = {{"nprocs", 1, 0, 0}, {"hosts", 1, 0, 0}};
    if (take_fields(L, n, f, 2, "the fingerprint") != 0)
        return -1;
    if (get_int(L, f[0].val, 1, MAX_NPROCS, "the number of processes", &t->nprocs) != 0)
        return -1;
    const yaml_node_t *hl = f[1].val;
    *hosts_node = hl;
    if (expect_list(L, hl, "the list of hosts") != 0)
        return -1;
    int nh = seq_len(hl);
    if (nh < 1)
        return fail(L, hl, "expected at least one host");
    if (nh > t->nprocs)
        return fail(L, hl, "expected at most %d hosts (one per process at most), got %d", t->nprocs, nh);
    t->hosts = calloc((size_t)nh, sizeof *t->hosts);
    if (!t->hosts)
        return fail(L, hl, "expected a file that fits in memory");
    for (int h = 0; h < nh; h++) {
        yaml_node_t *hn = seq_item(L, hl, h);
        if (get_name(L, hn, "a host name", 0, t->hosts[h], sizeof t->hosts[h]) != 0)
            return -1;
        int prev = host_index(t, t->hosts[h]);
        t->nhosts = h + 1;
        if (prev >= 0)
            return fail(L, hn, "expected each host once: '%s' is already listed", t->hosts[h]);
    }
    return 0;
}

static int parse_levels(loader *L, const yaml_node_t *n)
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
        yaml_node_t *ln = seq_item(L, n, l);
        if (get_name(L, ln, "a level name", 1, t->level_name[l], TB_LEVEL_NAME_MAX) != 0)
            return -1;
        for (int k = 0; k < l; k++)
            if (strcmp(t->level_name[k], t->level_name[l]) == 0)
                return fail(L, ln, "expected each level once: '%s' is already listed", t->level_name[l]);
    }
    return 0;
}

typedef struct leaf_key {
    int host, pu, rank;
} leaf_key;

static int cmp_leaf_key(const void *a, const void *b)
{
    const leaf_key *x = a, *y = b;
    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    if (x->pu != y->pu)
        return x->pu < y->pu ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int parse_leaves(loader *L, const yaml_node_t *n, const yaml_node_t *hosts_node)
{
    tb_topology *t = &L->cfg->topo;
    if (expect_list(L, n, "the leaves (one per process of the calibration job)") != 0)
        return -1;
    int nl = seq_len(n);
    if (nl != t->nprocs)
        return fail(L, n, "expected %d leaves (fingerprint nprocs), got %d", t->nprocs, nl);
    t->leaves = calloc((size_t)nl, sizeof *t->leaves);
    yaml_node_t **where = calloc((size_t)nl, sizeof *where);
    int *hidx = calloc((size_t)nl, sizeof *hidx);
    int *used = calloc((size_t)t->nhosts, sizeof *used);
    leaf_key *keys = calloc((size_t)nl, sizeof *keys);
    int rc = 0;
    if (!t->leaves || !where || !hidx || !used || !keys) {
        rc = fail(L, n, "expected a file that fits in memory");
        goto out;
    }
    t->nleaves = nl;
    for (int i = 0; i < nl && rc == 0; i++) {
        yaml_node_t *ln = seq_item(L, n, i);
        field f[] = {{"rank", 1, 0, 0}, {"host", 1, 0, 0}, {"pu", 0, 0, 0},
                     {"core", 0, 0, 0}, {"package", 0, 0, 0}, {"numa", 0, 0, 0}};
        int rank, vals[4] = {-1, -1, -1, -1};
        char host[256];
        if (take_fields(L, ln, f, 6, "a leaf") != 0 ||
            get_int(L, f[0].val, 0, nl - 1, "the leaf's calibration rank", &rank) != 0 ||
            get_name(L, f[1].val, "a host name", 0, host, sizeof host) != 0) {
            rc = -1;
            break;
        }
        for (int k = 0; k < 4 && rc == 0; k++)
            if (f[2 + k].val)
                rc = get_int(L, f[2 + k].val, -1, INT_MAX, "an hwloc logical index or -1", &vals[k]);
        if (rc != 0)
            break;
        if (where[rank]) {
            rc = fail(L, f[0].val, "expected each rank once: rank %d is already listed at line %lu", rank,
                      line_of(where[rank]));
            break;
        }
        int h = host_index(t, host);
        if (h < 0) {
            char buf[64];
            rc = fail(L, f[1].val, "expected a host listed in the fingerprint, got '%s'",
                      shown(f[1].val, buf, sizeof buf));
            break;
        }
        where[rank] = ln;
        hidx[rank] = h;
        used[h] = 1;
        tb_topo_leaf *lf = &t->leaves[rank];
        memcpy(lf->host, host, sizeof lf->host);
        lf->rank = rank;
        lf->pu = vals[0];
        lf->core = vals[1];
        lf->package = vals[2];
        lf->numa = vals[3];
    }
    if (rc != 0)
        goto out;
    for (int h = 0; h < t->nhosts; h++)
        if (!used[h]) {
            rc = fail(L, seq_item(L, hosts_node, h), "expected every fingerprint host to have a leaf; '%s' has none",
                      t->hosts[h]);
            goto out;
        }
    /* A running rank is matched to its leaf by (host, PU): two leaves with
     * the same place would make that ambiguous. */
    int nk = 0;
    for (int r = 0; r < nl; r++)
        if (t->leaves[r].pu >= 0)
            keys[nk++] = (leaf_key){hidx[r], t->leaves[r].pu, r};
    qsort(keys, (size_t)nk, sizeof *keys, cmp_leaf_key);
    for (int k = 1; k < nk; k++)
        if (keys[k].host == keys[k - 1].host && keys[k].pu == keys[k - 1].pu) {
            rc = fail(L, where[keys[k].rank], "expected each (host, pu) once: ranks %d and %d are both on %s PU %d",
                      keys[k - 1].rank, keys[k].rank, t->hosts[keys[k].host], keys[k].pu);
            goto out;
        }
out:
    free(where);
    free(hidx);
    free(used);
    free(keys);
    return rc;
}

static int parse_groups(loader *L, const yaml_node_t *n)
{
    tb_topology *t = &L->cfg->topo;
    int nl = t->nlevels, nleaves = t->nleaves, rc = 0;
    field f[TB_MAX_LEVELS];
    for (int l = 0; l < nl; l++)
        f[l] = (field){t->level_name[l], 1, 0, 0};
    if (take_fields(L, n, f, nl, "the groups (one entry per level)") != 0)
        return -1;
    /* where each leaf was placed, to point at the earlier group on a clash */
    yaml_node_t **placed = calloc((size_t)nleaves, sizeof *placed);
    if (!placed)
        return fail(L, n, "expected a file that fits in memory");
    for (int l = 0; l < nl && rc == 0; l++) {
        const yaml_node_t *gl = f[l].val;
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
        memset(placed, 0, (size_t)nleaves * sizeof *placed);
        int ng = seq_len(gl);
        t->ngroups[l] = ng;
        for (int g = 0; g < ng && rc == 0; g++) {
            yaml_node_t *gn = seq_item(L, gl, g);
            if (expect_list(L, gn, "a group (a list of ranks)") != 0) {
                rc = -1;
                break;
            }
            if (seq_len(gn) == 0) {
                rc = fail(L, gn, "expected a non-empty group of level '%s'", t->level_name[l]);
                break;
            }
            for (int i = 0; i < seq_len(gn); i++) {
                yaml_node_t *rn = seq_item(L, gn, i);
                int r;
                if (get_int(L, rn, 0, nleaves - 1, "a leaf rank", &r) != 0) {
                    rc = -1;
                    break;
                }
                if (t->group[l][r] >= 0) {
                    rc = fail(L, rn, "expected each rank in one group of level '%s': rank %d is already in the group at line %lu",
                              t->level_name[l], r, line_of(placed[r]));
                    break;
                }
                t->group[l][r] = g;
                placed[r] = gn;
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

static int parse_distance(loader *L, const yaml_node_t *n)
{
    tb_topology *t = &L->cfg->topo;
    int np = t->nleaves;
    if (expect_list(L, n, "the distance matrix (a list of rows)") != 0)
        return -1;
    if (seq_len(n) != np)
        return fail(L, n, "expected a distance matrix of %d rows (one per leaf), got %d", np, seq_len(n));
    t->dist = malloc((size_t)np * (size_t)np * sizeof *t->dist);
    if (!t->dist)
        return fail(L, n, "expected a file that fits in memory");
    for (int a = 0; a < np; a++) {
        yaml_node_t *row = seq_item(L, n, a);
        if (expect_list(L, row, "a row of the distance matrix") != 0)
            return -1;
        if (seq_len(row) != np)
            return fail(L, row, "expected %d distances in row %d (one per leaf), got %d", np, a, seq_len(row));
        for (int b = 0; b < np; b++)
            if (get_number(L, seq_item(L, row, b), "a distance", &t->dist[(size_t)a * np + b]) != 0)
                return -1;
    }
    return 0;
}

static int parse_topology(loader *L, const yaml_node_t *n)
{
    field f[] = {{"fingerprint", 1, 0, 0}, {"levels", 1, 0, 0}, {"leaves", 1, 0, 0},
                 {"groups", 1, 0, 0}, {"distance", 0, 0, 0}};
    if (take_fields(L, n, f, 5, "the topology") != 0)
        return -1;
    L->cfg->has_topology = 1;
    const yaml_node_t *hosts_node = NULL;
    if (parse_fingerprint(L, f[0].val, &hosts_node) != 0 || parse_levels(L, f[1].val) != 0)
        return -1;
    if (parse_leaves(L, f[2].val, hosts_node) != 0 || parse_groups(L, f[3].val) != 0)
        return -1;
    if (f[4].val && parse_distance(L, f[4].val) != 0)
        return -1;
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
 * bound (a range "from infinity" matches nothing). */
static int parse_range(loader *L, const yaml_node_t *n, int is_comm, size_t *lo, size_t *hi)
{
    const char *what = is_comm ? "a communicator-size range" : "a message-size range in bytes";
    const char *s;
    char text[72], sh[64];
    if (scalar(L, n, what, &s) != 0)
        return -1;
    if (strlen(s) >= sizeof text)
        return fail(L, n, "expected %s such as 0-16K, 16K-inf or 64, got '%s'", what, shown(n, sh, sizeof sh));
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
                    what, shown(n, sh, sizeof sh));
    if (*lo > *hi)
        return fail(L, n, "expected a non-empty range (LO <= HI), got '%s'", shown(n, sh, sizeof sh));
    if (is_comm && *lo < 1)
        return fail(L, n, "expected communicator sizes of at least 1, got '%s'", shown(n, sh, sizeof sh));
    if (is_comm && *hi != SIZE_MAX && *hi > (size_t)INT_MAX)
        return fail(L, n, "expected communicator sizes up to %d or 'inf', got '%s'", INT_MAX, shown(n, sh, sizeof sh));
    return 0;
}

/* Level names in "levels=a/b" must exist where the spec will be used: in
 * the file's topology, or in the zero-configuration hierarchy. */
static int check_spec_levels(loader *L, const yaml_node_t *n, const tb_alg_spec *spec)
{
    static const char *zero_config[] = {"node", "package", "numa"};
    const tb_topology *t = &L->cfg->topo;
    char names[sizeof spec->levels + 1];
    snprintf(names, sizeof names, "%s", spec->levels);
    for (char *save = NULL, *tok = strtok_r(names, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        int found = 0;
        char list[TB_MAX_LEVELS * (TB_LEVEL_NAME_MAX + 2)] = "";
        size_t o = 0;
        int nl = L->cfg->has_topology ? t->nlevels : 3;
        for (int l = 0; l < nl; l++) {
            const char *name = L->cfg->has_topology ? t->level_name[l] : zero_config[l];
            found |= strcmp(name, tok) == 0;
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", l ? ", " : "", name);
        }
        if (!found)
            return fail(L, n, "expected levels named in the %s (%s), got '%s'",
                        L->cfg->has_topology ? "topology" : "zero-configuration hierarchy", list, tok);
    }
    return 0;
}

static int parse_rule(loader *L, const yaml_node_t *n, tb_rule *r)
{
    field f[] = {{"comm", 0, 0, 0}, {"bytes", 0, 0, 0}, {"algorithm", 1, 0, 0}};
    if (take_fields(L, n, f, 3, "a selection rule") != 0)
        return -1;
    size_t lo = 1, hi = SIZE_MAX;
    if (f[0].val && parse_range(L, f[0].val, 1, &lo, &hi) != 0)
        return -1;
    r->comm_lo = (long)lo;
    r->comm_hi = hi == SIZE_MAX ? LONG_MAX : (long)hi;
    r->msg_lo = 0;
    r->msg_hi = SIZE_MAX;
    if (f[1].val && parse_range(L, f[1].val, 0, &r->msg_lo, &r->msg_hi) != 0)
        return -1;
    const char *text;
    char e[256];
    if (scalar(L, f[2].val, "an algorithm such as default, binomial or pipeline:segment=64K", &text) != 0)
        return -1;
    if (tb_alg_spec_parse(text, &r->spec, e, sizeof e) != 0)
        return fail(L, f[2].val, "%s%s", strncmp(e, "expected", 8) == 0 ? "" : "expected a valid algorithm: ", e);
    if (check_spec_levels(L, f[2].val, &r->spec) != 0)
        return -1;
    r->line = (int)line_of(n);
    return 0;
}

static int parse_selection(loader *L, const yaml_node_t *n)
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
        yaml_node_t *rn = seq_item(L, n, i);
        if (parse_rule(L, rn, &cfg->rules[i]) != 0)
            return -1;
        cfg->nrules = i + 1;
        if (i == nr - 1) {
            if (!tb_rule_matches_all(&cfg->rules[i]))
                return fail(L, rn, "expected the last rule to match every communicator and message size "
                                   "(no comm or bytes, e.g. {algorithm: default}), so that some rule always applies");
        } else if (tb_rule_is_shadowed(cfg->rules, i)) {
            return fail(L, rn, "expected a rule that can match: every case it covers is already matched by earlier rules "
                               "(first match wins)");
        }
    }
    return 0;
}

/* ---- entry points ------------------------------------------------------ */

static int parse_root(loader *L, const yaml_node_t *root)
{
    if (root->type != YAML_MAPPING_NODE)
        return fail(L, root, "expected a mapping starting with 'topobcast: 1', got %s", kind(root));
    field f[] = {{"topobcast", 1, 0, 0}, {"topology", 0, 0, 0}, {"selection", 0, 0, 0}, {"meta", 0, 0, 0}};
    if (take_fields(L, root, f, 4, "the top level") != 0)
        return -1;
    int version;
    if (get_int(L, f[0].val, 1, 1, "format version 1", &version) != 0)
        return -1;
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

uint64_t tb_config_hash_bytes(const void *data, size_t len)
{
    /* FNV-1a: tiny, and equal bytes give equal hashes on every rank */
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

int tb_config_load_buffer(const char *data, size_t len, const char *name, tb_config *cfg, char *err,
                          size_t errlen)
{
    loader L;
    memset(&L, 0, sizeof L);
    memset(cfg, 0, sizeof *cfg);
    L.name = name ? name : "<buffer>";
    L.err = err;
    L.errlen = errlen;
    L.cfg = cfg;
    if (err && errlen)
        err[0] = 0;
    snprintf(cfg->source, sizeof cfg->source, "%s", L.name);
    cfg->hash = tb_config_hash_bytes(data, len);

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        yaml_mark_t m = {0, 0, 0};
        return fail_at(&L, &m, "expected a file that fits in memory");
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    int rc;
    if (!yaml_parser_load(&parser, &L.doc)) {
        rc = syntax_error(&L, &parser, data, len);
        yaml_parser_delete(&parser);
        tb_config_free(cfg);
        return rc;
    }
    yaml_node_t *root = yaml_document_get_root_node(&L.doc);
    if (!root) {
        yaml_mark_t m = {0, 0, 0};
        rc = fail_at(&L, &m, "expected a mapping starting with 'topobcast: 1', the file is empty");
    } else {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            rc = syntax_error(&L, &parser, data, len);
        } else {
            yaml_node_t *extra = yaml_document_get_root_node(&next);
            rc = extra ? fail(&L, extra, "expected a single YAML document") : 0;
            yaml_document_delete(&next);
        }
        if (rc == 0)
            rc = reject_aliases(&L, root);
        if (rc == 0)
            rc = parse_root(&L, root);
    }
    yaml_document_delete(&L.doc);
    yaml_parser_delete(&parser);
    if (rc != 0)
        tb_config_free(cfg);
    return rc;
}

int tb_config_load(const char *path, tb_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *data = malloc(cap);
    while (data) {
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *bigger = realloc(data, cap * 2);
        if (!bigger) {
            free(data);
            data = NULL;
            break;
        }
        data = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!data || bad) {
        snprintf(err, errlen, "%s: expected a readable file: %s", path, data ? "read error" : "out of memory");
        free(data);
        return -1;
    }
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
    free(t->dist);
    free(t->hosts);
    free(cfg->rules);
    memset(cfg, 0, sizeof *cfg);
}
