/* The CSV of topobcast-tuner --compare --csv (tuner/compare.c):
 *   shape,nprocs,shape_keys,size,default_us,topobcast_us,speedup,algorithm,
 *   bound_us,efficiency,speedup_lo,speedup_hi
 * one line per communicator shape and message size (a file without shape
 * columns is one communicator; without bound columns, no bound; without
 * speedup_lo/hi, no spread of the rounds); the algorithm is
 * quoted because specs hold commas; the bound columns are empty when the
 * tuner could not bound.  Columns are found by name, so added ones are
 * ignored; the report only reads the file, so it is strict about the
 * required columns and says which line is wrong. */
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

enum { COL_SIZE, COL_DEFAULT, COL_TOPOBCAST, COL_SPEEDUP, COL_ALG, COL_SHAPE, COL_NPROCS, COL_KEYS, COL_BOUND, COL_EFF,
       COL_SP_LO, COL_SP_HI, NCOLS };
static const char *const col_name[NCOLS] = {"size",       "default_us", "topobcast_us", "speedup",  "algorithm",
                                            "shape",      "nprocs",     "shape_keys",   "bound_us", "efficiency",
                                            "speedup_lo", "speedup_hi"};
#define NREQUIRED 5 /* the first five */
#define MAX_FIELDS 32

/* The shape a row names, added when new.  Returns its index or -1 (too many). */
static int shape_of(tbr_compare *c, const char *label, const char *nprocs, const char *keys)
{
    for (int k = 0; k < c->nshape; k++)
        if (!strcmp(c->shape[k].label, label) && !strcmp(c->shape[k].keys, keys))
            return k;
    if (c->nshape == TBR_MAX_SHAPES)
        return -1;
    tbr_compare_shape *sh = &c->shape[c->nshape];
    snprintf(sh->label, sizeof sh->label, "%s", label);
    snprintf(sh->keys, sizeof sh->keys, "%s", keys);
    double np = 0;
    sh->nprocs = nprocs && number(nprocs, &np) == 0 && np > 0 ? (int)np : 0;
    return c->nshape++;
}

int tbr_compare_parse(const char *text, const char *name, tbr_compare *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    int cap = 0, lineno = 0, col[NCOLS], nheader = 0;
    const char *p = text;
    char (*f)[256] = malloc(sizeof *f * MAX_FIELDS);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
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
        const char *q = line;
        int nf = 0;
        /* a comma before the end of the line leaves an empty last field */
        for (int more = *q != 0; more && nf < MAX_FIELDS;) {
            const char *before = q;
            if (field(&q, f[nf], sizeof f[nf]) != 0)
                break;
            nf++;
            more = *q || (q > before && q[-1] == ',');
        }
        if (nheader == 0) { /* the header: the columns by name */
            for (int k = 0; k < NCOLS; k++) {
                col[k] = -1;
                for (int i = 0; i < nf; i++)
                    if (!strcmp(f[i], col_name[k]))
                        col[k] = i;
            }
            int missing = -1;
            for (int k = 0; k < NREQUIRED && missing < 0; k++)
                if (col[k] < 0)
                    missing = k;
            if (missing >= 0 || *q) {
                snprintf(err, errlen, "%s:%d: expected a header naming the columns size, default_us, topobcast_us, "
                         "speedup, algorithm (and shape, nprocs, shape_keys, bound_us, efficiency); no '%s'", name, lineno,
                         missing >= 0 ? col_name[missing] : "?");
                goto fail;
            }
            nheader = nf;
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
        if (nf != nheader || *q || number(f[col[COL_SIZE]], &r->bytes) || number(f[col[COL_DEFAULT]], &r->default_us) ||
            number(f[col[COL_TOPOBCAST]], &r->topobcast_us) || number(f[col[COL_SPEEDUP]], &r->speedup) ||
            r->bytes < 0) {
            snprintf(err, errlen, "%s:%d: expected %d fields as the header names them, with numbers in size, "
                     "default_us, topobcast_us, speedup", name, lineno, nheader);
            goto fail;
        }
        snprintf(r->alg, sizeof r->alg, "%s", f[col[COL_ALG]]);
        r->shape = shape_of(c, col[COL_SHAPE] >= 0 ? f[col[COL_SHAPE]] : "",
                            col[COL_NPROCS] >= 0 ? f[col[COL_NPROCS]] : NULL, col[COL_KEYS] >= 0 ? f[col[COL_KEYS]] : "");
        if (r->shape < 0) {
            snprintf(err, errlen, "%s:%d: expected at most %d shapes", name, lineno, TBR_MAX_SHAPES);
            goto fail;
        }
        r->bound_us = r->efficiency = NAN;
        if (col[COL_BOUND] >= 0 && col[COL_EFF] >= 0 && (f[col[COL_BOUND]][0] || f[col[COL_EFF]][0])) {
            if (number(f[col[COL_BOUND]], &r->bound_us) || number(f[col[COL_EFF]], &r->efficiency) ||
                !(r->bound_us >= 0)) {
                snprintf(err, errlen, "%s:%d: expected numbers (or nothing) in bound_us, efficiency", name, lineno);
                goto fail;
            }
            c->has_bound = 1;
        }
        r->speedup_lo = r->speedup_hi = NAN;
        if (col[COL_SP_LO] >= 0 && col[COL_SP_HI] >= 0 && f[col[COL_SP_LO]][0] &&
            (number(f[col[COL_SP_LO]], &r->speedup_lo) || number(f[col[COL_SP_HI]], &r->speedup_hi))) {
            snprintf(err, errlen, "%s:%d: expected numbers (or nothing) in speedup_lo, speedup_hi", name, lineno);
            goto fail;
        }
        c->n++;
    }
    if (c->n == 0) {
        snprintf(err, errlen, "%s: no rows", name);
        goto fail;
    }
    free(f);
    return 0;
fail:
    free(f);
    tbr_compare_free(c);
    return -1;
}

tbr_speedups tbr_compare_speedups(const tbr_compare *c, int k)
{
    tbr_speedups v = {0, 0, 0, 0, 0, 0};
    double la = 0, lm = 0;
    for (int i = 0; i < c->n; i++) {
        const tbr_compare_row *r = &c->row[i];
        if ((k >= 0 && r->shape != k) || r->speedup <= 0)
            continue;
        la += log(r->speedup), v.n++;
        if (r->bytes >= 65536 && r->bytes <= 8388608)
            lm += log(r->speedup), v.nmid++;
        if (v.n == 1 || r->speedup < v.lowest)
            v.lowest = r->speedup, v.lowest_bytes = r->bytes;
    }
    v.geomean = v.n ? exp(la / v.n) : 0;
    v.geomean_mid = v.nmid ? exp(lm / v.nmid) : 0;
    return v;
}

int tbr_compare_of_shape(const tbr_compare *c, int k, tbr_compare *out)
{
    memset(out, 0, sizeof *out);
    out->row = malloc(sizeof *out->row * (size_t)(c->n > 0 ? c->n : 1));
    if (!out->row)
        return -1;
    for (int i = 0; i < c->n; i++)
        if (c->row[i].shape == k) {
            out->row[out->n] = c->row[i];
            out->row[out->n++].shape = 0;
            out->has_bound |= !isnan(c->row[i].bound_us);
        }
    out->nshape = 1;
    out->shape[0] = c->shape[k];
    return 0;
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
