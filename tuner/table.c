/* Winners, ranges and the selection YAML; see table.h. */
#include "table.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tn_table_pick(const tn_result *const *r, int n, const char *prev, double tie)
{
    int best = -1, def = -1, keep = -1;
    for (int i = 0; i < n; i++) {
        if (r[i]->status != TN_RES_OK || tn_result_score(r[i]) < 0)
            continue;
        if (best < 0 || tn_result_score(r[i]) < tn_result_score(r[best]))
            best = i;
        if (!strcmp(r[i]->spec, "default"))
            def = i;
        if (prev && !strcmp(r[i]->spec, prev))
            keep = i;
    }
    if (best < 0)
        return -1;
    double b = tn_result_score(r[best]);
    /* the MPI library's own broadcast needs no reason to be kept; anything
     * else must beat it by more than the noise */
    if (def >= 0 && (tn_result_score(r[def]) <= b * (1.0 + tie) || tn_result_p25(r[def]) <= tn_result_p75(r[best])))
        return def;
    if (keep >= 0 && tn_result_score(r[keep]) <= b * (1.0 + tie))
        return keep;
    return best;
}

static int cmp_int_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

int tn_table_comm_ranges(const int *sizes, int n, int *out, long *lo, long *hi)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < m; j++)
            dup |= out[j] == sizes[i];
        if (!dup && sizes[i] >= 2)
            out[m++] = sizes[i];
    }
    qsort(out, (size_t)m, sizeof *out, cmp_int_desc);
    for (int i = 0; i < m; i++) {
        hi[i] = i == 0 ? LONG_MAX : lo[i - 1] - 1;
        if (i + 1 < m)
            lo[i] = (long)floor(sqrt((double)out[i] * (double)out[i + 1])) + 1;
        else
            lo[i] = out[i] / 2 > 2 ? out[i] / 2 : 2;
    }
    return m;
}

int tn_table_merge(const size_t *sizes, const char (*winners)[TN_CAND_TEXT], int n, tn_table_comm *out)
{
    out->nranges = 0;
    out->ranges = malloc(sizeof *out->ranges * (size_t)(n > 0 ? n : 1));
    if (!out->ranges)
        return -1;
    for (int i = 0; i < n; i++) {
        size_t lo = 0;
        if (i > 0) {
            double b = floor(sqrt((double)sizes[i - 1] * (double)sizes[i]));
            lo = (size_t)b + 1;
            if (lo <= sizes[i - 1])
                lo = sizes[i - 1] + 1;
            if (lo > sizes[i])
                lo = sizes[i];
        }
        if (out->nranges > 0 && !strcmp(out->ranges[out->nranges - 1].spec, winners[i]))
            continue; /* extends the previous range */
        if (out->nranges > 0)
            out->ranges[out->nranges - 1].hi = lo - 1;
        tn_table_range *r = &out->ranges[out->nranges++];
        r->lo = lo;
        snprintf(r->spec, sizeof r->spec, "%s", winners[i]);
    }
    if (out->nranges > 0)
        out->ranges[out->nranges - 1].hi = SIZE_MAX;
    return 0;
}

void tn_table_free(tn_table *t)
{
    for (int i = 0; i < t->ncomm; i++)
        free(t->comm[i].ranges);
    free(t->comm);
    memset(t, 0, sizeof *t);
}

/* Byte counts as people write them: 64K rather than 65536. */
static void size_text(size_t v, char *buf, size_t len)
{
    if (v == SIZE_MAX) {
        snprintf(buf, len, "inf");
        return;
    }
    const char *suf[] = {"", "K", "M", "G"};
    int k = 0;
    while (k < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        k++;
    }
    snprintf(buf, len, "%zu%s", v, suf[k]);
}

/* YAML double-quoted scalar. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int tn_table_write(FILE *f, const tn_table *t, const tb_topology *topo, const char *meta)
{
    fputs("# Written by topobcast-tuner: a selection table measured on the machine\n"
          "# (and the topology it used).  Schema: config/README.md.  First match wins.\n"
          "topobcast: 2\n",
          f);
    if (meta && *meta)
        fprintf(f, "meta: {%s}\n", meta);
    if (topo && topo->nleaves > 0 && tb_topology_write(f, topo) != 0)
        return -1;
    fputs("selection:\n", f);
    for (int c = 0; c < t->ncomm; c++) {
        const tn_table_comm *tc = &t->comm[c];
        char clo[32], chi[32];
        snprintf(clo, sizeof clo, "%ld", tc->lo);
        if (tc->hi == LONG_MAX)
            snprintf(chi, sizeof chi, "inf");
        else
            snprintf(chi, sizeof chi, "%ld", tc->hi);
        fprintf(f, "  # measured on %d processes\n", tc->measured);
        for (int i = 0; i < tc->nranges; i++) {
            char blo[32], bhi[32];
            size_text(tc->ranges[i].lo, blo, sizeof blo);
            size_text(tc->ranges[i].hi, bhi, sizeof bhi);
            fprintf(f, "  - {comm: %s-%s, bytes: %s-%s, algorithm: ", clo, chi, blo, bhi);
            put_quoted(f, tc->ranges[i].spec);
            fputs("}\n", f);
        }
    }
    fputs("  - {algorithm: default}\n", f);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

int tn_table_verify(const char *path, const tn_table *t, const size_t *sizes, int nsizes, char *err,
                    size_t errlen)
{
    tb_config cfg;
    if (tb_config_load(path, &cfg, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (int c = 0; c < t->ncomm && rc == 0; c++) {
        const tn_table_comm *tc = &t->comm[c];
        long probes[3] = {tc->measured, tc->lo, tc->hi == LONG_MAX ? 4 * (long)tc->measured : tc->hi};
        for (int pi = 0; pi < 3 && rc == 0; pi++) {
            for (int i = 0; i < nsizes && rc == 0; i++) {
                const char *want = NULL;
                for (int k = 0; k < tc->nranges; k++)
                    if (sizes[i] >= tc->ranges[k].lo && sizes[i] <= tc->ranges[k].hi)
                        want = tc->ranges[k].spec;
                tb_alg_spec ws;
                char perr[256];
                if (!want || tb_alg_spec_parse(want, &ws, perr, sizeof perr) != 0) {
                    snprintf(err, errlen, "no valid rule written for %zu bytes on %d processes", sizes[i],
                             tc->measured);
                    rc = -1;
                    break;
                }
                int idx;
                const tb_rule *r = tb_config_select(&cfg, (int)probes[pi], sizes[i], &idx);
                if (!r || !tb_alg_spec_equal(&r->spec, &ws)) {
                    char got[512];
                    if (r)
                        tb_alg_spec_format(&r->spec, got, sizeof got);
                    snprintf(err, errlen, "%s selects %s for %zu bytes on %ld processes, the tuner chose %s", path,
                             r ? got : "nothing", sizes[i], probes[pi], want);
                    rc = -1;
                }
            }
        }
    }
    tb_config_free(&cfg);
    return rc;
}
