/* topobcast-probe --check FILE --hosts LIST [--ppn N] [--bound]: what a
 * job on those hosts would get from FILE, without running it.  The ranks'
 * identities are made up (topology/site.h, tt_job_ranks) and go through
 * the library's own derivation (tb_topo_derive), shape (tb_shape_derive)
 * and selection (tb_config_select), so what is printed is what the
 * library would decide on each communicator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "shape.h"
#include "site.h"

/* The largest message size shown. */
#define TOP_BYTES ((size_t)8 << 20)

static void put_size(char *buf, size_t len, size_t v)
{
    if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%zu KiB", v >> 10);
    else
        snprintf(buf, len, "%zu B", v);
}

/* "[0-3] [4, 5]": the sorted members v[0..k), runs of three or more as
 * ranges. */
static void put_members(const int *v, int k)
{
    fputs(" [", stdout);
    for (int i = 0; i < k;) {
        int j = i;
        while (j + 1 < k && v[j + 1] == v[j] + 1)
            j++;
        if (j - i >= 2)
            printf("%s%d-%d", i ? ", " : "", v[i], v[j]);
        else
            printf("%s%d", i ? ", " : "", v[i]);
        i = j - i >= 2 ? j + 1 : i + 1;
    }
    fputc(']', stdout);
}

/* Each level's groups as rank lists (at most 16 groups a level). */
static int print_hier(const tb_hier *h)
{
    int n = h->size;
    int *start = malloc(sizeof(int) * (size_t)(n + 2)), *members = malloc(sizeof(int) * (size_t)(n + 1));
    if (!start || !members) {
        free(start);
        free(members);
        return -1;
    }
    if (h->nlevels == 0)
        printf("  levels: none (every rank alike)\n");
    for (int l = 0; l < h->nlevels; l++) {
        int ng = h->ngroups[l];
        memset(start, 0, sizeof(int) * (size_t)(ng + 1));
        for (int r = 0; r < n; r++)
            start[h->group[l][r] + 1]++;
        for (int g = 0; g < ng; g++)
            start[g + 1] += start[g];
        for (int r = 0; r < n; r++)
            members[start[h->group[l][r]]++] = r;
        printf("  %s", h->level_name[l]);
        for (int i = 0; i < h->nalias; i++)
            if (h->alias_of[i] == l)
                printf(" = %s", h->alias[i]);
        printf(" (%d group%s):", ng, ng == 1 ? "" : "s");
        for (int g = 0, at = 0; g < ng; g++) {
            if (g < 16)
                put_members(members + at, start[g] - at);
            at = start[g];
        }
        printf("%s\n", ng > 16 ? " ..." : "");
    }
    if (h->dclass) {
        printf("  distance classes:");
        for (int l = 0; l < h->nlevels; l++)
            printf(" %s %g,", h->level_name[l], h->dclass[l]);
        printf(" within %g\n", h->dclass[h->nlevels]);
    }
    free(start);
    free(members);
    return 0;
}

/* The rule and algorithm for every size from 1 B to TOP_BYTES: one line
 * per run of sizes between the rules' boundaries that selects one rule. */
static void print_table(const tb_config *cfg, const tb_shape *s)
{
    size_t *b = malloc(sizeof(size_t) * (2 * (size_t)cfg->nrules + 1));
    if (!b)
        return;
    int nb = 0;
    b[nb++] = 1;
    for (int i = 0; i < cfg->nrules; i++) {
        const tb_rule *r = &cfg->rules[i];
        if (r->msg_lo > 1 && r->msg_lo <= TOP_BYTES)
            b[nb++] = r->msg_lo;
        if (r->msg_hi < TOP_BYTES)
            b[nb++] = r->msg_hi + 1;
    }
    for (int i = 1; i < nb; i++) /* insertion sort: a few boundaries */
        for (int j = i; j > 0 && b[j] < b[j - 1]; j--) {
            size_t x = b[j];
            b[j] = b[j - 1];
            b[j - 1] = x;
        }
    printf("  table (%s):\n", cfg->nrules && cfg->rules[0].line == 0 ? "the built-in table" : "rule, line, algorithm");
    for (int i = 0; i < nb;) {
        int idx;
        const tb_rule *r = tb_config_select(cfg, s, b[i], &idx);
        int j = i + 1;
        while (j < nb && (b[j] == b[j - 1] || tb_config_select(cfg, s, b[j], NULL) == r))
            j++;
        size_t hi = j < nb ? b[j] - 1 : TOP_BYTES;
        char lo_s[32], hi_s[32], spec[256] = "MPI_Bcast";
        put_size(lo_s, sizeof lo_s, b[i]);
        put_size(hi_s, sizeof hi_s, hi);
        if (r)
            tb_alg_spec_format(&r->spec, spec, sizeof spec);
        if (r && r->line > 0)
            printf("    %s - %s: rule %d (line %d): %s\n", lo_s, hi_s, idx + 1, r->line, spec);
        else
            printf("    %s - %s: %s\n", lo_s, hi_s, spec);
        i = j;
    }
    free(b);
}

/* One communicator: ranks sel[0..n) of the job. */
static int check_comm(const char *title, const tb_config *cfg, const tb_ident_rec *all, char *const *host, int ppn,
                      const int *sel, int n)
{
    tb_ident_rec *ids = malloc(sizeof *ids * (size_t)n);
    int *node = malloc(sizeof(int) * (size_t)n);
    if (!ids || !node) {
        free(ids);
        free(node);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        ids[i] = all[sel[i]];
        node[i] = sel[i] / ppn; /* its host */
    }
    printf("%s: %d rank%s\n", title, n, n == 1 ? "" : "s");
    int rc = 0;
    tb_hier h;
    char why[1024] = "";
    int unknown = -1;
    if (n < 2) {
        printf("  one rank: the library leaves it to MPI_Bcast\n");
    } else if (tb_topo_derive(ids, n, tb_config_topology(cfg), &h, &unknown, why, sizeof why) != 0) {
        if (unknown >= 0)
            tb_topo_unknown_host_text(why, sizeof why, &cfg->topo, cfg->source, host[sel[unknown] / ppn],
                                      ids[unknown].world_rank);
        printf("topobcast: %s; using MPI_Bcast\n", why);
        rc = 1;
    } else {
        if (why[0])
            printf("  note: %s\n", why);
        tb_shape s;
        char line[512];
        tb_shape_derive(&h, node, n, cfg, &s);
        tb_shape_format(&s, cfg, line, sizeof line);
        print_hier(&h);
        printf("  shape: %s\n", line);
        print_table(cfg, &s);
        tb_hier_free(&h);
    }
    free(ids);
    free(node);
    return rc;
}

int tbp_check_job(const char *path, const char *hosts, int ppn, int bound)
{
    tb_config cfg;
    char err[1024];
    char **names = NULL;
    int nh = 0;
    if (tt_hostlist_expand(hosts, &names, &nh, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: --hosts %s: %s\n", hosts, err);
        return 2;
    }
    if (tb_config_load(path, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        free(names);
        return 1;
    }
    tb_ident_rec *all = NULL;
    int rc = 0;
    if (tt_job_ranks(tb_config_topology(&cfg), names, nh, ppn, bound, stderr, &all, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: --hosts %s --ppn %d%s: %s\n", hosts, ppn, bound ? " --bound" : "", err);
        rc = 2;
        goto out;
    }
    int n = nh * ppn;
    int *sel = malloc(sizeof(int) * (size_t)n);
    if (!sel) {
        rc = 1;
        goto out;
    }
    printf("%s: a job of %d rank%s on %d host%s (%s%s%s), %d per host, %s\n", path, n, n == 1 ? "" : "s", nh,
           nh == 1 ? "" : "s", names[0], nh > 1 ? " ... " : "", nh > 1 ? names[nh - 1] : "", ppn,
           bound ? "bound to the first PUs of their host (its node type's)" : "not bound");
    for (int r = 0; r < n; r++)
        sel[r] = r;
    rc |= check_comm("MPI_COMM_WORLD", &cfg, all, names, ppn, sel, n);
    if (ppn > 1 && nh > 1) {
        for (int j = 0; j < nh; j++)
            sel[j] = j * ppn;
        rc |= check_comm("one rank per host (each host's first)", &cfg, all, names, ppn, sel, nh);
        for (int k = 0; k < ppn; k++)
            sel[k] = k;
        char title[300];
        snprintf(title, sizeof title, "the ranks of host %s", names[0]);
        rc |= check_comm(title, &cfg, all, names, ppn, sel, ppn);
    }
    free(sel);
out:
    free(all);
    free(names);
    tb_config_free(&cfg);
    return rc;
}
