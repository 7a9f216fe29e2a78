/* The YAML document's nodes as the configuration readers see them:
 * messages at a node or at a packed item, node access, scalars, and
 * mappings with a fixed set of keys (yaml_tree.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/yaml_node.h"

int tb_yaml_fail(tb_yaml_loader *L, const tb_ynode *n, const char *fmt, ...)
{
    yaml_mark_t m = {0, n->line, n->col};
    va_list ap;
    va_start(ap, fmt);
    tb_yaml_vfail_at(L, &m, fmt, ap);
    va_end(ap);
    return -1;
}

unsigned long tb_yaml_line_of(const tb_ynode *n)
{
    return (unsigned long)n->line + 1;
}

const char *tb_yaml_sval(const tb_yaml_loader *L, const tb_ynode *n)
{
    return L->t.text + n->first;
}

/* A scalar's text made safe for a one-line message: control characters
 * replaced, long values cut. */
const char *tb_yaml_shown(const tb_yaml_loader *L, const tb_ynode *n, char *buf, size_t cap)
{
    if (n->type != Y_SCALAR) {
        snprintf(buf, cap, "%s", n->type == Y_MAP ? "a mapping" : "a list");
        return buf;
    }
    size_t len = n->len, o = 0;
    const unsigned char *v = (const unsigned char *)tb_yaml_sval(L, n);
    for (size_t i = 0; i < len && o + 4 < cap; i++)
        buf[o++] = (v[i] < 0x20 || v[i] == 0x7f) ? '?' : (char)v[i];
    if (o + 4 >= cap && len > o) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

const char *tb_yaml_kind(const tb_ynode *n)
{
    switch (n->type) {
    case Y_SCALAR: return "a scalar";
    case Y_LIST:
    case Y_INTS: return "a list";
    case Y_MAP: return "a mapping";
    default: return "nothing";
    }
}

int tb_yaml_is_list(const tb_ynode *n)
{
    return n->type == Y_LIST || n->type == Y_INTS;
}

int tb_yaml_seq_len(const tb_ynode *n)
{
    return (int)n->len;
}

/* Item i of a list that is not packed (packed items are not nodes). */
tb_ynode *tb_yaml_seq_item(tb_yaml_loader *L, const tb_ynode *n, int i)
{
    return &L->t.nodes[L->t.kids[n->first + (uint32_t)i]];
}

/* The start mark of event number ev: the file is parsed again up to it.
 * Only errors about packed items need it. */
static yaml_mark_t locate(const tb_yaml_loader *L, uint32_t ev)
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

/* tb_yaml_fail() at item i of a list, packed or not. */
int tb_yaml_fail_item(tb_yaml_loader *L, const tb_ynode *list, int i, const char *fmt, ...)
{
    yaml_mark_t m;
    if (list->type == Y_INTS) {
        m = locate(L, list->ev + 1 + (uint32_t)i);
    } else {
        const tb_ynode *n = tb_yaml_seq_item(L, list, i);
        m = (yaml_mark_t){0, n->line, n->col};
    }
    va_list ap;
    va_start(ap, fmt);
    tb_yaml_vfail_at(L, &m, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- scalars ---------------------------------------------------------- */

int tb_yaml_scalar(tb_yaml_loader *L, const tb_ynode *n, const char *what, const char **out)
{
    if (n->type != Y_SCALAR)
        return tb_yaml_fail(L, n, "expected %s, got %s", what, tb_yaml_kind(n));
    if (strlen(tb_yaml_sval(L, n)) != n->len)
        return tb_yaml_fail(L, n, "expected %s without NUL characters", what);
    *out = tb_yaml_sval(L, n);
    return 0;
}

int tb_yaml_get_int(tb_yaml_loader *L, const tb_ynode *n, long lo, long hi, const char *what, int *out)
{
    const char *s;
    char buf[64];
    if (tb_yaml_scalar(L, n, what, &s) != 0)
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
        return tb_yaml_fail(L, n, "expected %s (an integer from %ld to %ld), got '%s'", what, lo, hi,
                    tb_yaml_shown(L, n, buf, sizeof buf));
    *out = (int)v;
    return 0;
}

/* Names end up in messages, in "levels=a/b" specs and in fixed-size
 * buffers: keep them short and free of separators. */
int tb_yaml_get_name(tb_yaml_loader *L, const tb_ynode *n, const char *what, int level_syntax, char *dst, size_t cap)
{
    const char *s;
    char buf[64];
    if (tb_yaml_scalar(L, n, what, &s) != 0)
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
        return tb_yaml_fail(L, n, "expected %s (1 to %zu %s), got '%s'", what, cap - 1,
                    level_syntax ? "letters, digits, '_' or '-'" : "printable characters without spaces",
                    tb_yaml_shown(L, n, buf, sizeof buf));
    memcpy(dst, s, len + 1);
    return 0;
}

int tb_yaml_get_number(tb_yaml_loader *L, const tb_ynode *n, const char *what, double *out)
{
    const char *s;
    char buf[64], *end;
    if (tb_yaml_scalar(L, n, what, &s) != 0)
        return -1;
    errno = 0;
    double v = *s ? strtod(s, &end) : NAN;
    if (!*s || *end || errno != 0 || !isfinite(v) || v < 0)
        return tb_yaml_fail(L, n, "expected %s (a finite number >= 0), got '%s'", what, tb_yaml_shown(L, n, buf, sizeof buf));
    *out = v;
    return 0;
}

/* Item i of a list as an integer from lo to hi: get_int, packed lists too. */
int tb_yaml_list_int(tb_yaml_loader *L, const tb_ynode *list, int i, long lo, long hi, const char *what, int *out)
{
    if (list->type != Y_INTS)
        return tb_yaml_get_int(L, tb_yaml_seq_item(L, list, i), lo, hi, what, out);
    long v = L->t.ints[list->first + (uint32_t)i];
    if (v < lo || v > hi)
        return tb_yaml_fail_item(L, list, i, "expected %s (an integer from %ld to %ld), got '%ld'", what, lo, hi, v);
    *out = (int)v;
    return 0;
}

int tb_yaml_list_ranks(tb_yaml_loader *L, const tb_ynode *list, int i, int max, const char *what, int *lo, int *hi)
{
    const tb_ynode *n = list->type == Y_INTS ? NULL : tb_yaml_seq_item(L, list, i);
    if (!n || n->type != Y_SCALAR || tb_yaml_sval(L, n)[0] == '-' || !strchr(tb_yaml_sval(L, n), '-')) {
        if (tb_yaml_list_int(L, list, i, 0, max, what, lo) != 0)
            return -1;
        *hi = *lo;
        return 0;
    }
    const char *s;
    char buf[64];
    if (tb_yaml_scalar(L, n, what, &s) != 0)
        return -1;
    long a = -1, b = -1;
    int used = -1;
    if (sscanf(s, "%ld-%ld%n", &a, &b, &used) != 2 || used != (int)strlen(s) || s[0] < '0' || s[0] > '9' ||
        strchr(s, ' ') || strchr(s, '+') || strstr(s, "--") || a < 0 || b > max || a > b)
        return tb_yaml_fail(L, n, "expected %s (an integer from 0 to %d) or a range A-B of them (A <= B), got '%s'", what,
                    max, tb_yaml_shown(L, n, buf, sizeof buf));
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

/* ---- mappings with a fixed set of keys -------------------------------- */

int tb_yaml_take_fields(tb_yaml_loader *L, const tb_ynode *map, tb_yaml_field *f, int nf, const char *what)
{
    char buf[64];
    if (map->type != Y_MAP)
        return tb_yaml_fail(L, map, "expected %s (a mapping), got %s", what, tb_yaml_kind(map));
    for (uint32_t i = 0; i + 1 < map->len; i += 2) {
        tb_ynode *k = &L->t.nodes[L->t.kids[map->first + i]], *v = &L->t.nodes[L->t.kids[map->first + i + 1]];
        const char *ks;
        if (tb_yaml_scalar(L, k, "a key", &ks) != 0)
            return -1;
        int j = 0;
        while (j < nf && strcmp(ks, f[j].key) != 0)
            j++;
        if (j == nf) {
            char list[256] = "";
            size_t o = 0;
            for (int q = 0; q < nf && o < sizeof list; q++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", q ? ", " : "", f[q].key);
            return tb_yaml_fail(L, k, "expected one of the keys %s in %s, got '%s'", list, what, tb_yaml_shown(L, k, buf, sizeof buf));
        }
        if (f[j].val)
            return tb_yaml_fail(L, k, "expected each key once in %s: '%s' already appears at line %lu", what, f[j].key,
                        tb_yaml_line_of(f[j].key_node));
        f[j].key_node = k;
        f[j].val = v;
    }
    for (int i = 0; i < nf; i++)
        if (f[i].required && !f[i].val)
            return tb_yaml_fail(L, map, "expected key '%s' in %s", f[i].key, what);
    return 0;
}

int tb_yaml_expect_list(tb_yaml_loader *L, const tb_ynode *n, const char *what)
{
    if (!tb_yaml_is_list(n))
        return tb_yaml_fail(L, n, "expected %s (a list), got %s", what, tb_yaml_kind(n));
    return 0;
}
