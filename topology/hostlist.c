/* Slurm-style host lists ("n[001-032],m07"), as administrators name the
 * hosts of a node type (topobcast-probe --node-type NAME=LIST) and a job's
 * hosts (--check --hosts LIST).  An item is literal text and bracket sets
 * of numbers and ranges; a range's width is its first number's (leading
 * zeros pad), as in Slurm; several sets expand leftmost slowest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site.h"

#define EXPECT "expected a host list such as n[001-032],m07"

/* One part of an item: literal text, or a bracket set of ranges. */
typedef struct part {
    const char *text; /* literal: its start; set: NULL */
    int len;          /* literal: its length */
    int nr;           /* set: ranges */
    long lo[64], hi[64];
    int width[64];
    long count; /* set: numbers in it */
} part;

#define MAX_PARTS 16

/* A growing pool of names, NUL-terminated one after the other. */
typedef struct pool {
    char *text;
    size_t len, cap;
    int n;
} pool;

static int pool_add(pool *p, const char *s, size_t len)
{
    if (p->len + len + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < p->len + len + 1)
            cap *= 2;
        char *t = realloc(p->text, cap);
        if (!t)
            return -1;
        p->text = t;
        p->cap = cap;
    }
    memcpy(p->text + p->len, s, len);
    p->text[p->len + len] = 0;
    p->len += len + 1;
    p->n++;
    return 0;
}

/* A number of 1 to 9 digits at s (up to end); *digits its length. */
static int number(const char *s, const char *end, long *v, int *digits)
{
    int k = 0;
    *v = 0;
    while (s + k < end && s[k] >= '0' && s[k] <= '9' && k < 10)
        *v = *v * 10 + (s[k++] - '0');
    *digits = k;
    return k >= 1 && k <= 9 ? 0 : -1;
}

/* The set between '[' and ']' (s .. end): "A", "A-B", comma-separated. */
static int parse_set(const char *s, const char *end, part *p, char *err, size_t errlen)
{
    p->text = NULL;
    p->nr = 0;
    p->count = 0;
    const char *q = s;
    while (q < end) {
        const char *c = memchr(q, ',', (size_t)(end - q));
        const char *e = c ? c : end;
        long lo, hi;
        int dl, dh = 0;
        if (p->nr == 64 || number(q, e, &lo, &dl) != 0) {
            snprintf(err, errlen, EXPECT ": '[%.*s]' holds '%.*s', not a number or a range A-B of 1 to 9 digits",
                     (int)(end - s), s, (int)(e - q), q);
            return -1;
        }
        hi = lo;
        if (q + dl < e && q[dl] == '-' && number(q + dl + 1, e, &hi, &dh) != 0)
            dl = -1;
        if (dl < 0 || q + dl + (dh ? dh + 1 : 0) != e || hi < lo) {
            snprintf(err, errlen, EXPECT ": '[%.*s]' holds '%.*s', not a number or a range A-B with A <= B",
                     (int)(end - s), s, (int)(e - q), q);
            return -1;
        }
        p->lo[p->nr] = lo;
        p->hi[p->nr] = hi;
        p->width[p->nr++] = dl;
        p->count += hi - lo + 1;
        q = c ? c + 1 : end;
        if (c && q == end) {
            snprintf(err, errlen, EXPECT ": '[%.*s]' ends with a comma", (int)(end - s), s);
            return -1;
        }
    }
    if (p->nr == 0) {
        snprintf(err, errlen, EXPECT ": an empty '[]'");
        return -1;
    }
    return 0;
}

/* The k-th number of a set (0-based) and its width. */
static long set_at(const part *p, long k, int *width)
{
    for (int r = 0; r < p->nr; r++) {
        long n = p->hi[r] - p->lo[r] + 1;
        if (k < n) {
            *width = p->width[r];
            return p->lo[r] + k;
        }
        k -= n;
    }
    *width = 1;
    return 0;
}

/* One item (s .. end, no top-level comma): its names into the pool. */
static int expand_item(const char *s, const char *end, pool *out, char *err, size_t errlen)
{
    part parts[MAX_PARTS];
    int np = 0;
    long total = 1;
    for (const char *q = s; q < end;) {
        if (np == MAX_PARTS) {
            snprintf(err, errlen, EXPECT ": '%.*s' has more than %d parts", (int)(end - s), s, MAX_PARTS);
            return -1;
        }
        if (*q == '[') {
            const char *close = memchr(q, ']', (size_t)(end - q));
            if (!close) {
                snprintf(err, errlen, EXPECT ": '%.*s' opens a '[' it does not close", (int)(end - s), s);
                return -1;
            }
            if (parse_set(q + 1, close, &parts[np], err, errlen) != 0)
                return -1;
            total *= parts[np++].count;
            if (total > TT_HOSTLIST_MAX) {
                snprintf(err, errlen, EXPECT ": '%.*s' names more than %d hosts", (int)(end - s), s, TT_HOSTLIST_MAX);
                return -1;
            }
            q = close + 1;
        } else {
            const char *e = q;
            while (e < end && *e != '[' && *e != ']')
                e++;
            if (e < end && *e == ']') {
                snprintf(err, errlen, EXPECT ": '%.*s' closes a ']' it did not open", (int)(end - s), s);
                return -1;
            }
            parts[np++] = (part){.text = q, .len = (int)(e - q)};
            q = e;
        }
    }
    if (np == 0) {
        snprintf(err, errlen, EXPECT ": an empty item");
        return -1;
    }
    if (out->n + total > TT_HOSTLIST_MAX) {
        snprintf(err, errlen, EXPECT ": it names more than %d hosts", TT_HOSTLIST_MAX);
        return -1;
    }
    /* an odometer over the sets, the leftmost slowest */
    long idx[MAX_PARTS] = {0};
    char name[1024];
    for (long k = 0; k < total; k++) {
        size_t len = 0;
        for (int i = 0; i < np; i++) {
            int w;
            if (parts[i].text) {
                if (len + (size_t)parts[i].len >= sizeof name)
                    goto too_long;
                memcpy(name + len, parts[i].text, (size_t)parts[i].len);
                len += (size_t)parts[i].len;
            } else {
                long v = set_at(&parts[i], idx[i], &w);
                int c = snprintf(name + len, sizeof name - len, "%0*ld", w, v);
                if (c < 0 || len + (size_t)c >= sizeof name)
                    goto too_long;
                len += (size_t)c;
            }
        }
        if (len == 0 || len >= 256)
            goto too_long;
        if (pool_add(out, name, len) != 0) {
            snprintf(err, errlen, "out of memory expanding the host list");
            return -1;
        }
        for (int i = np - 1; i >= 0; i--) {
            if (parts[i].text)
                continue;
            if (++idx[i] < parts[i].count)
                break;
            idx[i] = 0;
        }
    }
    return 0;
too_long:
    snprintf(err, errlen, EXPECT ": '%.*s' makes a name of more than 255 characters", (int)(end - s), s);
    return -1;
}

int tt_hostlist_expand(const char *list, char ***names, int *n, char *err, size_t errlen)
{
    pool p = {0};
    *names = NULL;
    *n = 0;
    for (const char *c = list; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
            snprintf(err, errlen, EXPECT ": '%.80s' holds a space or a control character", list);
            return -1;
        }
    const char *s = list;
    int depth = 0;
    for (const char *q = list;; q++) {
        if (*q == '[')
            depth++;
        else if (*q == ']')
            depth--;
        if ((*q == ',' && depth == 0) || *q == 0) {
            if (q == s) {
                snprintf(err, errlen, EXPECT ": '%.80s' has an empty item", list);
                free(p.text);
                return -1;
            }
            if (expand_item(s, q, &p, err, errlen) != 0) {
                free(p.text);
                return -1;
            }
            if (*q == 0)
                break;
            s = q + 1;
        }
    }
    /* the names' pointers, then their text, in one allocation */
    char **v = malloc(sizeof(char *) * (size_t)p.n + p.len);
    if (!v) {
        free(p.text);
        snprintf(err, errlen, "out of memory expanding the host list");
        return -1;
    }
    char *text = (char *)(v + p.n);
    memcpy(text, p.text, p.len);
    for (int i = 0, o = 0; i < p.n; i++) {
        v[i] = text + o;
        o += (int)strlen(text + o) + 1;
    }
    free(p.text);
    *names = v;
    *n = p.n;
    return 0;
}
