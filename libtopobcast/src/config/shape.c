/* A communicator's shape (shape.h): nodes, ranks per node, whether each
 * node's ranks are consecutive, the levels of its hierarchy and their group
 * counts.  Pure functions of data every rank holds identically. */
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

void tb_shape_unknown(tb_shape *s, int size)
{
    memset(s, 0, sizeof *s);
    s->size = size;
    s->consecutive = -1;
    s->levels = TB_SHAPE_LEVEL_OTHER;
}

static int level_index(const char (*names)[TB_LEVEL_NAME_MAX], int n, const char *name)
{
    for (int l = 0; l < n && l < TB_MAX_LEVELS; l++)
        if (strcmp(names[l], name) == 0)
            return l;
    return -1;
}

int tb_shape_derive(const tb_hier *h, const int *node_of, int size, const struct tb_config *cfg, tb_shape *s)
{
    tb_shape_unknown(s, size);
    if (size < 1 || !node_of || (h && h->size && h->size != size))
        return -1;
    int *order = malloc(sizeof *order * (size_t)size);
    if (!order || tb_sort_ranks_by_keys(node_of, 1, size, order) != 0) {
        free(order);
        return -1;
    }
    /* ranks grouped by node, ascending inside a node (ties by index) */
    int nodes = 0, ppn_min = 0, ppn_max = 0, consecutive = 1;
    for (int i = 0; i < size;) {
        int j = i;
        while (j + 1 < size && node_of[order[j + 1]] == node_of[order[i]])
            j++;
        int n = j - i + 1;
        consecutive &= order[j] - order[i] + 1 == n;
        ppn_min = nodes == 0 || n < ppn_min ? n : ppn_min;
        ppn_max = n > ppn_max ? n : ppn_max;
        nodes++;
        i = j + 1;
    }
    free(order);
    s->nodes = nodes;
    s->ppn_min = ppn_min;
    s->ppn_max = ppn_max;
    s->consecutive = consecutive;
    s->levels = 0;
    const char(*names)[TB_LEVEL_NAME_MAX];
    int nnames = tb_config_level_names((const tb_config *)cfg, &names);
    for (int l = 0; h && h->size && l < h->nlevels; l++) {
        int k = level_index(names, nnames, h->level_name[l]);
        if (k < 0) {
            s->levels |= TB_SHAPE_LEVEL_OTHER;
            continue;
        }
        s->levels |= 1u << k;
        s->ngroups[k] = h->ngroups[l];
    }
    return 0;
}

int tb_shape_format(const tb_shape *s, const struct tb_config *cfg, char *buf, size_t len)
{
    const char(*names)[TB_LEVEL_NAME_MAX];
    int nnames = tb_config_level_names((const tb_config *)cfg, &names);
    char part[5][160] = {"", "", "", "", ""};
    if (s->nodes > 0)
        snprintf(part[0], sizeof part[0], " nodes=%d", s->nodes);
    if (s->ppn_min > 0 && s->ppn_min == s->ppn_max)
        snprintf(part[1], sizeof part[1], " ppn=%d", s->ppn_min);
    else if (s->ppn_min > 0)
        snprintf(part[1], sizeof part[1], " ppn=%d-%d", s->ppn_min, s->ppn_max);
    if (s->consecutive >= 0)
        snprintf(part[2], sizeof part[2], " consecutive=%s", s->consecutive ? "yes" : "no");
    if (!(s->levels & TB_SHAPE_LEVEL_OTHER)) {
        size_t a = (size_t)snprintf(part[3], sizeof part[3], " levels=%s", s->levels ? "" : "none");
        size_t g = s->levels ? (size_t)snprintf(part[4], sizeof part[4], " groups=") : 0;
        int first = 1;
        for (int l = 0; l < nnames && l < TB_MAX_LEVELS; l++) {
            if (!(s->levels & (1u << l)))
                continue;
            if (a < sizeof part[3])
                a += (size_t)snprintf(part[3] + a, sizeof part[3] - a, "%s%s", first ? "" : "/", names[l]);
            if (g < sizeof part[4])
                g += (size_t)snprintf(part[4] + g, sizeof part[4] - g, "%s%d", first ? "" : "/", s->ngroups[l]);
            first = 0;
        }
    }
    return snprintf(buf, len, "size=%d%s%s%s%s%s", s->size, part[0], part[1], part[2], part[3], part[4]);
}

static int parse_int(const char *v, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || x < 0 || x > 1 << 30)
        return -1;
    *out = (int)x;
    return (int)(end - v);
}

/* "N" or "N-M" (the whole value) */
static int parse_pair(const char *v, int *lo, int *hi)
{
    int n = parse_int(v, lo);
    if (n < 0)
        return -1;
    *hi = *lo;
    if (v[n] == '-') {
        int m = parse_int(v + n + 1, hi);
        if (m < 0)
            return -1;
        n += 1 + m;
    }
    return v[n] == 0 && *lo <= *hi ? 0 : -1;
}

int tb_shape_parse(const char *text, const struct tb_config *cfg, tb_shape *s, char *err, size_t errlen)
{
    const char(*names)[TB_LEVEL_NAME_MAX];
    int nnames = tb_config_level_names((const tb_config *)cfg, &names);
    tb_shape_unknown(s, 0);
    char copy[512], seen[6] = {0}, groups[160] = "";
    static const char *const keys[6] = {"size", "nodes", "ppn", "consecutive", "levels", "groups"};
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *v = strchr(w, '=');
        int k = 0;
        if (v)
            *v++ = 0;
        while (k < 6 && (!v || strcmp(w, keys[k]) != 0))
            k++;
        if (k == 6 || seen[k]) {
            snprintf(err, errlen, "expected words size=, nodes=, ppn=, consecutive=, levels=, groups= (each once), got '%s'", w);
            return -1;
        }
        seen[k] = 1;
        int ok = 1, lo, hi;
        switch (k) {
        case 0: ok = parse_pair(v, &lo, &hi) == 0 && lo == hi && lo > 0, s->size = lo; break;
        case 1: ok = parse_pair(v, &lo, &hi) == 0 && lo == hi && lo > 0, s->nodes = lo; break;
        case 2: ok = parse_pair(v, &s->ppn_min, &s->ppn_max) == 0 && s->ppn_min > 0; break;
        case 3: ok = !strcmp(v, "yes") || !strcmp(v, "no"), s->consecutive = !strcmp(v, "yes"); break;
        case 4:
            s->levels = 0;
            if (strcmp(v, "none") == 0)
                break;
            for (char *sv = NULL, *n = strtok_r(v, "/", &sv); n && ok; n = strtok_r(NULL, "/", &sv)) {
                int l = level_index(names, nnames, n);
                ok = l >= 0 && !(s->levels & (1u << l));
                if (ok)
                    s->levels |= 1u << l;
            }
            break;
        default: snprintf(groups, sizeof groups, "%s", v); break;
        }
        if (!ok) {
            snprintf(err, errlen, "expected a valid value of %s, got '%s'", keys[k], v ? v : "");
            return -1;
        }
    }
    if (!seen[0]) {
        snprintf(err, errlen, "expected size=N in the shape");
        return -1;
    }
    /* groups: one count per level present, coarsest first */
    int l = 0;
    for (char *sv = NULL, *g = groups[0] ? strtok_r(groups, "/", &sv) : NULL; g; g = strtok_r(NULL, "/", &sv)) {
        while (l < TB_MAX_LEVELS && !(s->levels & (1u << l)))
            l++;
        int lo, hi;
        if (l == TB_MAX_LEVELS || (s->levels & TB_SHAPE_LEVEL_OTHER) || parse_pair(g, &lo, &hi) != 0 || lo != hi) {
            snprintf(err, errlen, "expected one group count per level in groups=");
            return -1;
        }
        s->ngroups[l++] = lo;
    }
    return 0;
}
