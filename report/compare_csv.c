/* The CSV of topobcast-tuner --compare --csv (tuner/compare.c):
 *   size,default_us,topobcast_us,speedup,algorithm[,bound_us,efficiency]
 * one line per message size; the algorithm is quoted because specs hold
 * commas; the bound columns are there when the tuner had a machine (empty
 * when it could not bound).  The report only reads it, so it is strict
 * about the columns and says which line is wrong. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "report.h"

void tbr_compare_free(tbr_compare *c)
{
    if (!c)
        return;
    free(c->row);
    memset(c, 0, sizeof *c);
}

/* Next field of a CSV line at *p (moved past the field and its comma). */
static int field(const char **p, char *out, size_t cap)
{
    const char *s = *p;
    size_t o = 0;
    if (*s == '"') {
        s++;
        for (;;) {
            if (*s == 0)
                return -1; /* unterminated quote */
            if (*s == '"') {
                if (s[1] == '"') {
                    s += 2;
                    if (o + 1 < cap)
                        out[o++] = '"';
                    continue;
                }
                s++;
                break;
            }
            if (o + 1 < cap)
                out[o++] = *s;
            s++;
        }
    } else {
        while (*s && *s != ',') {
            if (o + 1 < cap)
                out[o++] = *s;
            s++;
        }
    }
    out[o] = 0;
    if (*s == ',')
        s++;
    else if (*s != 0)
        return -1;
    *p = s;
    return 0;
}

static int number(const char *text, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return (end == text || *end || errno) ? -1 : 0;
}

int tbr_compare_parse(const char *text, const char *name, tbr_compare *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    int cap = 0, lineno = 0, ncols = 5;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[2048];
        if (len >= sizeof line) {
            snprintf(err, errlen, "%s:%d: line too long", name, lineno + 1);
            goto fail;
        }
        memcpy(line, p, len);
        line[len] = 0;
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = 0;
        p = eol ? eol + 1 : p + len;
        lineno++;
        if (len == 0 || line[0] == '#')
            continue;
        if (lineno == 1 || strncmp(line, "size,", 5) == 0) {
            if (strcmp(line, "size,default_us,topobcast_us,speedup,algorithm") == 0)
                ncols = 5;
            else if (strcmp(line, "size,default_us,topobcast_us,speedup,algorithm,bound_us,efficiency") == 0)
                ncols = 7;
            else {
                snprintf(err, errlen,
                         "%s:%d: expected the header 'size,default_us,topobcast_us,speedup,algorithm' (and "
                         "',bound_us,efficiency')",
                         name, lineno);
                goto fail;
            }
            continue;
        }
        if (c->n == cap) {
            cap = cap ? 2 * cap : 32;
            tbr_compare_row *r = realloc(c->row, (size_t)cap * sizeof *r);
            if (!r) {
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
            c->row = r;
        }
        tbr_compare_row *r = &c->row[c->n];
        char f[7][256];
        const char *q = line;
        int nf = 0;
        /* an empty last field leaves q at the end after its comma */
        while (nf < ncols && (*q || (nf > 0 && q[-1] == ',')) && field(&q, f[nf], sizeof f[nf]) == 0)
            nf++;
        r->bound_us = r->efficiency = NAN;
        int bad = nf != ncols || *q || number(f[0], &r->bytes) || number(f[1], &r->default_us) ||
                  number(f[2], &r->topobcast_us) || number(f[3], &r->speedup) || r->bytes < 0;
        if (!bad && ncols == 7 && (f[5][0] || f[6][0]))
            bad = number(f[5], &r->bound_us) || number(f[6], &r->efficiency) || !(r->bound_us >= 0);
        if (bad) {
            snprintf(err, errlen, "%s:%d: expected size,default_us,topobcast_us,speedup,\"algorithm\"%s", name,
                     lineno, ncols == 7 ? ",bound_us,efficiency" : "");
            goto fail;
        }
        c->has_bound |= !isnan(r->bound_us);
        snprintf(r->alg, sizeof r->alg, "%s", f[4]);
        c->n++;
    }
    if (c->n == 0) {
        snprintf(err, errlen, "%s: no rows", name);
        goto fail;
    }
    return 0;
fail:
    tbr_compare_free(c);
    return -1;
}

int tbr_compare_load(const char *path, tbr_compare *c, char *err, size_t errlen)
{
    char *text = tt_read_text(path, err, errlen);
    if (!text)
        return -1;
    int rc = tbr_compare_parse(text, path, c, err, errlen);
    free(text);
    return rc;
}
