/* The CSV of topobcast-tuner --compare --csv (tuner/compare.c):
 *   size,default_us,topobcast_us,speedup,algorithm
 * one line per message size; the algorithm is quoted because specs hold
 * commas.  The report only reads it, so it is strict about the columns and
 * says which line is wrong. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int cap = 0, lineno = 0;
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
            if (strncmp(line, "size,default_us,topobcast_us,speedup,algorithm", 46) != 0) {
                snprintf(err, errlen, "%s:%d: expected the header 'size,default_us,topobcast_us,speedup,algorithm'",
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
        char f[5][256];
        const char *q = line;
        int nf = 0;
        while (nf < 5 && *q && field(&q, f[nf], sizeof f[nf]) == 0)
            nf++;
        if (nf != 5 || *q || number(f[0], &r->bytes) || number(f[1], &r->default_us) ||
            number(f[2], &r->topobcast_us) || number(f[3], &r->speedup) || r->bytes < 0) {
            snprintf(err, errlen, "%s:%d: expected size,default_us,topobcast_us,speedup,\"algorithm\"", name,
                     lineno);
            goto fail;
        }
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
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            text = t;
        }
        memcpy(text + len, chunk, got);
        len += got;
    }
    fclose(f);
    if (!text) {
        snprintf(err, errlen, "%s: empty file", path);
        return -1;
    }
    text[len] = 0;
    int rc = tbr_compare_parse(text, path, c, err, errlen);
    free(text);
    return rc;
}
