/* The topology YAML (schema: config/README.md, format 2), loadable by the
 * library's tb_config_load.  O(P) bytes: each host named once, leaves as
 * short integer lists referring to their host by index, groups as rank
 * ranges, distances as one class per level (the median of the measured
 * pairs whose coarsest differing level it is; fast mode's extended pairs
 * count as their representatives' measurements, sample mode's paths not at
 * all); the full matrix stays in the
 * measurements file.  Leaves carry the recorded identity of each
 * calibration rank so that a later job can be mapped onto them by
 * (host, PU), and the fingerprint hwloc's summary of each host when known
 * (what topobcast-probe --compose tells node types apart by).  Everything printed derives from the saved measurements and
 * the analysis options, so a run and --analyze of its save file write
 * identical files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "config.h"
#include "topology.h"

_Static_assert(TT_HWLOC_MAX == TB_TOPO_HWLOC_MAX, "a rank's hwloc summary fits the topology's");

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

/* host[r] = index of rank r's host among the distinct hosts, numbered by
 * first appearance; *first[h] = the first rank on host h.  O(P log P).
 * Returns the number of hosts, or -1 out of memory. */
static const tt_meas *sort_meas;
static int host_cmp(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    int c = strcmp(sort_meas->rank[a].host, sort_meas->rank[b].host);
    return c ? c : (a > b) - (a < b);
}

static int host_index(const tt_meas *m, int *host, int *first)
{
    int n = m->n, nh = 0;
    int *ord = malloc(sizeof(int) * (size_t)n), *lead = malloc(sizeof(int) * (size_t)n);
    if (!ord || !lead) {
        free(ord);
        free(lead);
        return -1;
    }
    for (int r = 0; r < n; r++)
        ord[r] = r;
    sort_meas = m;
    qsort(ord, (size_t)n, sizeof *ord, host_cmp);
    /* each run of one name starts with its lowest rank: mark the leaders,
     * then number them in rank order */
    for (int r = 0; r < n; r++)
        lead[r] = -1;
    for (int i = 0, head = 0; i < n; i++) {
        if (i == 0 || strcmp(m->rank[ord[i - 1]].host, m->rank[ord[i]].host) != 0)
            head = ord[i];
        lead[ord[i]] = head;
    }
    for (int r = 0; r < n; r++)
        if (lead[r] == r) {
            first[nh] = r;
            host[r] = nh++;
        }
    for (int r = 0; r < n; r++)
        host[r] = host[lead[r]];
    free(ord);
    free(lead);
    return nh;
}

static int float_cmp(const void *pa, const void *pb)
{
    float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

/* The pairs the classes are medians of: in sample mode the measured ones
 * (E, each once; an unmeasured pair's minimax path time is the least a
 * path allows, not a measurement), otherwise every ordered pair of a->T
 * (fast mode's extended pairs are copies of measured ones).  Pair x is
 * (i, j); the count is returned. */
static size_t class_pairs(const tt_meas *m, int n)
{
    return m->opt.sample ? (size_t)m->npairs : (size_t)n * (size_t)n;
}

static void class_pair(const tt_meas *m, int n, size_t x, int *i, int *j)
{
    if (m->opt.sample) {
        *i = m->pair[x].i;
        *j = m->pair[x].j;
    } else {
        *i = (int)(x / (size_t)n);
        *j = (int)(x % (size_t)n);
    }
}

/* Distance classes in microseconds: cls[l] = median t(m) of the pairs
 * (class_pairs) whose coarsest differing level is l, cls[L] of the pairs
 * sharing every group, completed by tt_classes_complete (an empty class
 * takes its finer neighbour's value, within its coarser one's; then
 * non-increasing toward finer levels, as the loader requires).  Memory:
 * a byte per pair and the largest class as floats. */
static int distance_classes(const tt_meas *m, const tt_analysis *a, int *const *lab, int L, double *cls)
{
    int n = a->n;
    size_t np = class_pairs(m, n);
    size_t *count = calloc((size_t)L + 1, sizeof *count);
    unsigned char *cl = malloc(np ? np : 1);
    if (!count || !cl) {
        free(count);
        free(cl);
        return -1;
    }
    size_t most = 0;
    for (size_t x = 0; x < np; x++) {
        int i, j, c = 0;
        class_pair(m, n, x, &i, &j);
        while (c < L && lab[c][i] == lab[c][j])
            c++;
        cl[x] = (unsigned char)c;
        if (i != j && ++count[c] > most)
            most = count[c];
    }
    float *v = malloc(sizeof(float) * (most ? most : 1));
    int rc = v ? 0 : -1;
    for (int c = 0; c <= L && rc == 0; c++) {
        size_t k = 0;
        for (size_t x = 0; x < np; x++) {
            int i, j;
            class_pair(m, n, x, &i, &j);
            if (cl[x] == c && i != j)
                v[k++] = (float)(a->T[(size_t)i * n + j] * 1e6);
        }
        cls[c] = -1.0;
        if (k) {
            qsort(v, k, sizeof *v, float_cmp);
            cls[c] = k % 2 ? v[k / 2] : 0.5 * ((double)v[k / 2 - 1] + v[k / 2]);
        }
    }
    free(v);
    free(cl);
    free(count);
    tt_classes_complete(cls, L);
    return rc;
}

int tt_topo_write(FILE *out, const tt_meas *m, const tt_analysis *a, int with_distance)
{
    int n = m->n, L = a->h.nlevels, rc = -1;
    const tt_hierarchy *h = &a->h;
    /* the measurements as the library's topology, written by its writer */
    tb_topology t;
    memset(&t, 0, sizeof t);
    t.nprocs = t.nleaves = n;
    t.nlevels = L;
    int *host = malloc((size_t)n * sizeof *host), *first = malloc((size_t)n * sizeof *first);
    double *cls = malloc(((size_t)L + 1) * sizeof *cls);
    t.leaves = malloc((size_t)n * sizeof *t.leaves);
    t.hosts = malloc((size_t)n * sizeof *t.hosts);
    t.group = calloc((size_t)(L > 0 ? L : 1), sizeof *t.group);
    t.ngroups = calloc((size_t)(L > 0 ? L : 1), sizeof *t.ngroups);
    t.level_name = calloc((size_t)(L > 0 ? L : 1), sizeof *t.level_name);
    if (!host || !first || !cls || !t.leaves || !t.hosts || !t.group || !t.ngroups || !t.level_name ||
        (t.nhosts = host_index(m, host, first)) < 0)
        goto out;
    for (int k = 0; k < t.nhosts; k++)
        t.hosts[k] = (char *)m->rank[first[k]].host;
    /* hwloc's summary of each host: the first of its ranks' that is known */
    int known = 0;
    for (int r = 0; r < n && !known; r++)
        known = m->rank[r].hwloc[0] != 0;
    if (known && !(t.host_hwloc = calloc((size_t)t.nhosts, sizeof *t.host_hwloc)))
        goto out;
    for (int r = 0; known && r < n; r++)
        if (!t.host_hwloc[host[r]] || !t.host_hwloc[host[r]][0])
            t.host_hwloc[host[r]] = (char *)m->rank[r].hwloc;
    for (int r = 0; r < n; r++) {
        const tt_rank_info *k = &m->rank[r];
        t.leaves[r] = (tb_topo_leaf){host[r], k->pu, k->core, k->package, k->numa};
    }
    for (int l = 0; l < L; l++) {
        if (!(t.group[l] = malloc((size_t)n * sizeof **t.group)))
            goto out;
        memcpy(t.group[l], h->labels[l], (size_t)n * sizeof **t.group);
        if ((t.ngroups[l] = tt_labels_canonical(t.group[l], n)) < 0)
            goto out;
        snprintf(t.level_name[l], sizeof t.level_name[l], "%s", h->name[l]);
    }
    if (with_distance) {
        if (distance_classes(m, a, t.group, L, cls) != 0)
            goto out;
        t.dist.given = 1;
        snprintf(t.dist.unit, sizeof t.dist.unit, "us");
        for (int l = 0; l < L && l < TB_MAX_LEVELS; l++)
            t.dist.level[l] = cls[l];
        t.dist.within = cls[L];
    }
    fprintf(out, "# Topology measured by topobcast-probe (schema: config/README.md).\n");
    fprintf(out, "topobcast: 2\n");
    fprintf(out, "meta: {written-by: topobcast-probe, mode: %s, nprocs: %d, pairs-measured: %d, "
                 "pairs-extended: %d, rounds: %d, measure-seconds: %.6g, distance-unit: microseconds, analysis: ",
            m->opt.mode == TT_MODE_LOGGP ? "loggp" : "plogp", n, m->npairs, a->extended, m->nrounds, m->elapsed);
    put_string(out, a->desc);
    fprintf(out, "}\n");
    rc = tb_topology_write(out, &t);
out:
    for (int l = 0; t.group && l < L; l++)
        free(t.group[l]);
    free(t.group);
    free(t.ngroups);
    free(t.level_name);
    free(t.leaves);
    free(t.hosts);
    free(t.host_hwloc);
    free(host);
    free(first);
    free(cls);
    return rc;
}
