/* Measured records and the partial-results file; see results.h. */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hash.h"

static uint64_t key_hash(int comm, size_t bytes, const char *spec)
{
    uint64_t h = tb_hash_u64(TB_FNV_BASIS, (uint64_t)comm);
    return tb_hash_str(tb_hash_u64(h, (uint64_t)bytes), spec);
}

static int same_key(const tn_result *r, int comm, size_t bytes, const char *spec)
{
    return r->comm == comm && r->bytes == bytes && strcmp(r->spec, spec) == 0;
}

static long slot_of(const tn_results *rs, int comm, size_t bytes, const char *spec)
{
    if (!rs->icap)
        return -1;
    size_t j = key_hash(comm, bytes, spec) & (rs->icap - 1);
    while (rs->index[j]) {
        if (same_key(&rs->v[rs->index[j] - 1], comm, bytes, spec))
            return (long)j;
        j = (j + 1) & (rs->icap - 1);
    }
    return (long)j;
}

static int reindex(tn_results *rs, size_t icap)
{
    int *idx = calloc(icap, sizeof *idx);
    if (!idx)
        return -1;
    free(rs->index);
    rs->index = idx;
    rs->icap = icap;
    for (int i = 0; i < rs->n; i++) {
        long j = slot_of(rs, rs->v[i].comm, rs->v[i].bytes, rs->v[i].spec);
        rs->index[j] = i + 1;
    }
    return 0;
}

int tn_results_put(tn_results *rs, const tn_result *r)
{
    if ((size_t)(rs->n + 1) * 2 > rs->icap && reindex(rs, rs->icap ? rs->icap * 2 : 256) != 0)
        return -1;
    long j = slot_of(rs, r->comm, r->bytes, r->spec);
    if (rs->index[j]) {
        rs->v[rs->index[j] - 1] = *r;
        return 0;
    }
    tn_result *nv = tn_array_room(rs->v, rs->n, &rs->cap, sizeof *nv, 256);
    if (!nv)
        return -1;
    rs->v = nv;
    rs->v[rs->n] = *r;
    rs->index[j] = ++rs->n;
    return 0;
}

const tn_result *tn_results_find(const tn_results *rs, int comm, size_t bytes, const char *spec)
{
    long j = slot_of(rs, comm, bytes, spec);
    return j >= 0 && rs->index[j] ? &rs->v[rs->index[j] - 1] : NULL;
}

int tn_results_set_predicted(tn_results *rs, int comm, size_t bytes, const char *spec, double predicted)
{
    long j = slot_of(rs, comm, bytes, spec);
    if (j < 0 || !rs->index[j])
        return -1;
    rs->v[rs->index[j] - 1].predicted = predicted;
    return 0;
}

void tn_results_free(tn_results *rs)
{
    free(rs->v);
    free(rs->index);
    memset(rs, 0, sizeof *rs);
}

static double mean_of(double a, double b)
{
    if (a >= 0 && b >= 0)
        return (a + b) / 2;
    return a >= 0 ? a : b;
}

double tn_result_score(const tn_result *r)
{
    return mean_of(r->root0.median, r->rotate.median);
}

double tn_result_p25(const tn_result *r)
{
    return mean_of(r->root0.median >= 0 ? r->root0.p25 : -1, r->rotate.median >= 0 ? r->rotate.p25 : -1);
}

double tn_result_p75(const tn_result *r)
{
    return mean_of(r->root0.median >= 0 ? r->root0.p75 : -1, r->rotate.median >= 0 ? r->rotate.p75 : -1);
}

void tn_results_header(char *buf, size_t len, int nprocs, int reps, int warmup, const char *roots, const char *comms)
{
    snprintf(buf, len, "# topobcast-tuner partial results v2 nprocs=%d reps=%d warmup=%d roots=%s comms=%s", nprocs,
             reps, warmup, roots, comms);
}

static void put_num(FILE *f, double v)
{
    if (v < 0 || !isfinite(v))
        fputs(" nan", f);
    else
        fprintf(f, " %.9g", v);
}

int tn_results_write_line(FILE *f, const tn_result *r)
{
    fprintf(f, "%d %zu %d", r->comm, r->bytes, r->status);
    put_num(f, r->predicted);
    const tn_root_stats *s[2] = {&r->root0, &r->rotate};
    for (int k = 0; k < 2; k++) {
        int have = s[k]->median >= 0;
        put_num(f, have ? s[k]->median : -1);
        put_num(f, have ? s[k]->p25 : -1);
        put_num(f, have ? s[k]->p75 : -1);
        put_num(f, have ? s[k]->trimmed_mean : -1);
    }
    fprintf(f, " %s\n", r->spec);
    return ferror(f) ? -1 : 0;
}

static int get_num(char **p, double *out)
{
    char *end;
    while (**p == ' ')
        (*p)++;
    if (!strncmp(*p, "nan", 3) && ((*p)[3] == ' ' || (*p)[3] == '\0')) {
        *out = -1.0;
        *p += 3;
        return 0;
    }
    errno = 0;
    double v = strtod(*p, &end);
    if (end == *p || errno || (*end != ' ' && *end != '\0') || v < 0)
        return -1;
    *out = v;
    *p = end;
    return 0;
}

int tn_results_parse_line(const char *line, tn_result *r)
{
    char buf[1024];
    size_t len = strlen(line);
    if (len == 0 || len >= sizeof buf || line[0] == '#')
        return -1;
    memcpy(buf, line, len + 1);
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
    memset(r, 0, sizeof *r);
    char *p = buf, *end;
    long comm = strtol(p, &end, 10);
    if (end == p || *end != ' ' || comm < 1)
        return -1;
    p = end;
    unsigned long long bytes = strtoull(p, &end, 10);
    if (end == p || *end != ' ')
        return -1;
    p = end;
    long status = strtol(p, &end, 10);
    if (end == p || *end != ' ' || status < 0 || status > 2)
        return -1;
    p = end;
    double v[9];
    for (int i = 0; i < 9; i++)
        if (get_num(&p, &v[i]) != 0)
            return -1;
    while (*p == ' ')
        p++;
    if (!*p || strchr(p, ' ') || strlen(p) >= sizeof r->spec)
        return -1;
    r->comm = (int)comm;
    r->bytes = (size_t)bytes;
    r->status = (int)status;
    r->predicted = v[0];
    r->root0 = (tn_root_stats){v[1], v[2], v[3], v[4]};
    r->rotate = (tn_root_stats){v[5], v[6], v[7], v[8]};
    snprintf(r->spec, sizeof r->spec, "%s", p);
    return 0;
}

int tn_results_load(const char *path, const char *header, tn_results *rs, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096]; /* a header names every communicator */
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        int complete = len > 0 && line[len - 1] == '\n';
        if (lineno == 1) {
            line[strcspn(line, "\r\n")] = '\0';
            if (strcmp(line, header) != 0) {
                snprintf(err, errlen, "%s was written by a different run:\n  file: %s\n  this: %s", path, line,
                         header);
                rc = -1;
                break;
            }
            continue;
        }
        if (line[0] == '#' || line[0] == '\n')
            continue;
        tn_result r;
        if (!complete)
            break; /* the interrupted last write */
        if (tn_results_parse_line(line, &r) != 0) {
            snprintf(err, errlen, "%s:%d: not a result line", path, lineno);
            rc = -1;
            break;
        }
        if (tn_results_put(rs, &r) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}
