/* The topology YAML (schema: config/README.md), loadable by the library's
 * tb_config_load.  Leaves carry the recorded identity of each calibration
 * rank so that a later job can be mapped onto them by (host, PU); groups
 * and distances are what the probe measured.  Everything printed derives
 * from the saved measurements and the analysis options, so a run and
 * --analyze of its save file write identical files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/* Host names are printable without blanks (the loader checks); quote
 * anything beyond the plain-scalar-safe characters. */
static void put_host(FILE *out, const char *s)
{
    int plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
                *p == '_' || (*p == '-' && p != s);
    if (plain) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', out);
        fputc((unsigned char)*p < 0x20 ? ' ' : *p, out);
    }
    fputc('"', out);
}

int tt_topo_write(FILE *out, const tt_meas *m, const tt_analysis *a, int with_distance)
{
    int n = m->n;
    const tt_hierarchy *h = &a->h;
    int *lab = malloc((size_t)n * sizeof *lab);
    if (!lab)
        return -1;
    fprintf(out, "# Topology measured by topobcast-probe (schema: config/README.md).\n");
    fprintf(out, "topobcast: 1\n");
    fprintf(out, "meta: {written-by: topobcast-probe, mode: %s, nprocs: %d, pairs-measured: %d, "
                 "pairs-extended: %d, rounds: %d, measure-seconds: %.6g, distance-unit: microseconds, analysis: ",
            m->opt.mode == TT_MODE_LOGGP ? "loggp" : "plogp", n, m->npairs, a->extended, m->nrounds, m->elapsed);
    put_string(out, a->desc);
    fprintf(out, "}\n");
    fprintf(out, "topology:\n");
    fprintf(out, "  fingerprint: {nprocs: %d, hosts: [", n);
    int nh = 0;
    for (int r = 0; r < n; r++) {
        int q = 0;
        while (q < r && strcmp(m->rank[q].host, m->rank[r].host) != 0)
            q++;
        if (q == r) {
            fputs(nh++ ? ", " : "", out);
            put_host(out, m->rank[r].host);
        }
    }
    fprintf(out, "]}\n");
    fprintf(out, "  levels: [");
    for (int l = 0; l < h->nlevels; l++)
        fprintf(out, "%s%s", l ? ", " : "", h->name[l]);
    fprintf(out, "]\n");
    fprintf(out, "  leaves:\n");
    for (int r = 0; r < n; r++) {
        const tt_rank_info *k = &m->rank[r];
        fprintf(out, "    - {rank: %d, host: ", r);
        put_host(out, k->host);
        fprintf(out, ", pu: %d, core: %d, package: %d, numa: %d}\n", k->pu, k->core, k->package, k->numa);
    }
    fprintf(out, "  groups:\n");
    for (int l = 0; l < h->nlevels; l++) {
        memcpy(lab, h->labels[l], (size_t)n * sizeof *lab);
        int k = tt_labels_canonical(lab, n);
        fprintf(out, "    %s: [", h->name[l]);
        for (int g = 0; g < k; g++) {
            fprintf(out, "%s[", g ? ", " : "");
            int first = 1;
            for (int r = 0; r < n; r++)
                if (lab[r] == g) {
                    fprintf(out, first ? "%d" : ", %d", r);
                    first = 0;
                }
            fputc(']', out);
        }
        fprintf(out, "]\n");
    }
    if (with_distance) {
        fprintf(out, "  distance:\n");
        for (int i = 0; i < n; i++) {
            fprintf(out, "    - [");
            for (int j = 0; j < n; j++)
                fprintf(out, j ? ", %.6g" : "%.6g", a->T[(size_t)i * n + j] * 1e6);
            fprintf(out, "]\n");
        }
    }
    free(lab);
    return ferror(out) ? -1 : 0;
}
