/* Writing a topology as the YAML the loader reads (config/README.md,
 * format 2): the one writer behind the probe's topology file and the copy
 * the tuner puts into its table, so the two cannot drift apart.  O(P) bytes
 * and time: hosts named once, leaves as integer lists, groups as sorted
 * ranks with runs written A-B, distance classes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

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

/* "a, b-c, d": sorted ranks, runs of three or more as ranges */
static void put_ranks(FILE *out, const int *v, int k)
{
    for (int i = 0; i < k;) {
        int j = i;
        while (j + 1 < k && v[j + 1] == v[j] + 1)
            j++;
        if (j - i >= 2) {
            fprintf(out, "%s%d-%d", i ? ", " : "", v[i], v[j]);
            i = j + 1;
        } else {
            fprintf(out, "%s%d", i ? ", " : "", v[i]);
            i++;
        }
    }
}

int tb_topology_write(FILE *out, const tb_topology *t)
{
    int n = t->nleaves;
    int *start = malloc(((size_t)n + 2) * sizeof *start), *members = malloc(((size_t)n + 1) * sizeof *members);
    char *named = calloc((size_t)t->nhosts + 1, 1);
    if (!start || !members || !named) {
        free(start);
        free(members);
        free(named);
        return -1;
    }
    fprintf(out, "topology:\n  fingerprint: {nprocs: %d, hosts: [", t->nprocs);
    for (int h = 0; h < t->nhosts; h++) {
        fputs(h ? ", " : "", out);
        put_host(out, t->hosts[h]);
    }
    fputs("]}\n  levels: [", out);
    for (int l = 0; l < t->nlevels; l++)
        fprintf(out, "%s%s", l ? ", " : "", t->level_name[l]);
    fputs("]\n  leaves:   # leaf i = calibration rank i: [host, pu, core, package, numa]\n", out);
    for (int i = 0; i < n; i++) {
        const tb_topo_leaf *x = &t->leaves[i];
        fprintf(out, "    - [%d, %d, %d, %d, %d]", x->host, x->pu, x->core, x->package, x->numa);
        if (!named[x->host]) { /* a host's first leaf names it */
            named[x->host] = 1;
            fputs("   # ", out);
            put_host(out, t->hosts[x->host]);
        }
        fputc('\n', out);
    }
    fputs("  groups:\n", out);
    for (int l = 0; l < t->nlevels; l++) {
        /* the members of each group in rank order: a counting sort */
        int ng = t->ngroups[l];
        memset(start, 0, ((size_t)ng + 1) * sizeof *start);
        for (int i = 0; i < n; i++)
            start[t->group[l][i] + 1]++;
        for (int g = 0; g < ng; g++)
            start[g + 1] += start[g];
        for (int i = 0; i < n; i++)
            members[start[t->group[l][i]]++] = i;
        fprintf(out, "    %s: [", t->level_name[l]);
        for (int g = 0, at = 0, printed = 0; g < ng; g++) {
            if (start[g] == at) /* no member (a copy restricted by hand) */
                continue;
            fputs(printed++ ? ", [" : "[", out);
            put_ranks(out, members + at, start[g] - at);
            fputc(']', out);
            at = start[g];
        }
        fputs("]\n", out);
    }
    if (t->dist.given) {
        fprintf(out, "  distance:   # by the coarsest level at which two ranks' groups differ\n");
        fprintf(out, "    unit: %s\n    levels: [", t->dist.unit[0] ? t->dist.unit : "us");
        for (int l = 0; l < t->nlevels; l++)
            fprintf(out, "%s%.6g", l ? ", " : "", t->dist.level[l]);
        fprintf(out, "]\n    within: %.6g\n", t->dist.within);
    }
    free(start);
    free(members);
    free(named);
    return ferror(out) ? -1 : 0;
}
