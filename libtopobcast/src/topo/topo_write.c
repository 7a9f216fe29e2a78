/* Writing a topology as the YAML the loader reads (config/README.md,
 * format 2, a job's or a site's form): the one writer behind the probe's
 * topology file and the copy the tuner puts into its table, so the two
 * cannot drift apart.  Bytes and time linear in the topology: hosts named
 * once (with hwloc's summary of each when known), leaves or node types'
 * PUs as integer lists, groups as sorted members with runs written A-B,
 * distance classes. */
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

/* The groups of one level over n members (group[m] each), one list per
 * group in member order: a counting sort into start/members. */
static void put_groups(FILE *out, const char *indent, const char *name, const int *group, int ng, int n, int *start,
                       int *members)
{
    memset(start, 0, ((size_t)ng + 1) * sizeof *start);
    for (int i = 0; i < n; i++)
        start[group[i] + 1]++;
    for (int g = 0; g < ng; g++)
        start[g + 1] += start[g];
    for (int i = 0; i < n; i++)
        members[start[group[i]]++] = i;
    fprintf(out, "%s%s: [", indent, name);
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

/* A site topology's node types: name, hwloc, hosts, PUs, groups. */
static void put_types(FILE *out, const tb_topology *t, int *start, int *members)
{
    fputs("  node_types:   # the levels below the hosts', measured on one host of each type\n", out);
    for (int k = 0; k < t->ntypes; k++) {
        const tb_topo_type *ty = &t->types[k];
        fprintf(out, "    - name: %s\n", ty->name);
        if (ty->hwloc[0]) {
            fputs("      hwloc: ", out);
            put_host(out, ty->hwloc);
            fputc('\n', out);
        }
        int n = 0;
        for (int h = 0; h < t->nhosts; h++)
            if (t->host_type[h] == k)
                members[n++] = h;
        fputs("      hosts: [", out);
        put_ranks(out, members, n);
        fputs("]\n      pus:   # [pu, core, package, numa]\n", out);
        for (int i = 0; i < ty->npus; i++)
            fprintf(out, "        - [%d, %d, %d, %d]\n", ty->pus[i].pu, ty->pus[i].core, ty->pus[i].package,
                    ty->pus[i].numa);
        if (t->nlevels > t->nhost_levels) {
            fputs("      groups:\n", out);
            for (int l = t->nhost_levels; l < t->nlevels; l++)
                put_groups(out, "        ", t->level_name[l], ty->group[l - t->nhost_levels], ty->ngroups[l - t->nhost_levels],
                           ty->npus, start, members);
        }
    }
}

int tb_topology_write(FILE *out, const tb_topology *t)
{
    /* members: the largest list a group or a type's hosts can be */
    int n = t->site ? t->nhosts : t->nleaves;
    for (int k = 0; t->site && k < t->ntypes; k++)
        if (t->types[k].npus > n)
            n = t->types[k].npus;
    int maxg = 0;
    for (int l = 0; l < t->nlevels; l++)
        if (t->ngroups[l] > maxg)
            maxg = t->ngroups[l];
    int *start = malloc(((size_t)(n > maxg ? n : maxg) + 2) * sizeof *start);
    int *members = malloc(((size_t)n + 1) * sizeof *members);
    char *named = calloc((size_t)t->nhosts + 1, 1);
    if (!start || !members || !named) {
        free(start);
        free(members);
        free(named);
        return -1;
    }
    if (t->site)
        fputs("topology:   # a site's: any job on these hosts\n  fingerprint: {hosts: [", out);
    else
        fprintf(out, "topology:\n  fingerprint: {nprocs: %d, hosts: [", t->nprocs);
    for (int h = 0; h < t->nhosts; h++) {
        fputs(h ? ", " : "", out);
        put_host(out, t->hosts[h]);
    }
    if (t->host_hwloc) { /* hwloc's summary of each host, in the same order */
        fputs("],\n                hwloc: [", out);
        for (int h = 0; h < t->nhosts; h++) {
            fputs(h ? ", " : "", out);
            put_host(out, t->host_hwloc[h]);
        }
    }
    fputs("]}\n  levels: [", out);
    for (int l = 0; l < t->nlevels; l++)
        fprintf(out, "%s%s", l ? ", " : "", t->level_name[l]);
    fputs("]\n", out);
    if (t->site) {
        fputs("  groups:   # of host indexes\n", out);
        for (int l = 0; l < t->nhost_levels; l++)
            put_groups(out, "    ", t->level_name[l], t->group[l], t->ngroups[l], t->nhosts, start, members);
        if (t->ntypes)
            put_types(out, t, start, members);
    } else {
        fputs("  leaves:   # leaf i = calibration rank i: [host, pu, core, package, numa]\n", out);
        for (int i = 0; i < t->nleaves; i++) {
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
        for (int l = 0; l < t->nlevels; l++)
            put_groups(out, "    ", t->level_name[l], t->group[l], t->ngroups[l], t->nleaves, start, members);
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
