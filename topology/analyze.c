/* Measurements -> levels.  Discovery uses the measured times only; the
 * recorded identities (host names, hwloc places) serve to name and
 * validate what was found, never to find it.
 *
 * Fast mode measured inter-group pairs only between some ranks of each
 * group.  Every other rank is represented by the measured rank of its group
 * that is closest to it by the (always fully measured) intra-group times,
 * and an unmeasured pair (u, v) takes the measurements of (rep(u), rep(v)):
 * ranks of one socket stand in for each other, while the intra-group
 * structure (sockets inside a host) stays measured.  Sample mode's runs
 * are completed differently (sampled.c); everything after the distance
 * matrices is the same for all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "analysis_internal.h"
#include "hier.h"      /* TB_LEVEL_NAME_MAX */
#include "algorithm.h" /* TB_MAX_LEVELS */

void tt_analysis_opts_default(tt_analysis_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dist = TT_DIST_TIME;
    o->at = 0;
    o->interp = TT_INTERP_PIECEWISE;
    o->method = TT_M_AVERAGE;
    o->rel_gap = 0;
    o->name_accuracy = 0.95;
    o->seed = 1;
}

void tt_analysis_free(tt_analysis *a)
{
    if (!a)
        return;
    free(a->D);
    free(a->T);
    free(a->rep);
    tt_hierarchy_free(&a->h);
    memset(a, 0, sizeof *a);
}

static void representatives(const tt_meas *m, const tt_plogp *p, const tt_analysis_opts *o, int *rep)
{
    int n = m->n;
    for (int u = 0; u < n; u++) {
        rep[u] = -1;
        if (m->rank[u].measured) {
            rep[u] = u;
            continue;
        }
        double best = INFINITY;
        int first = -1;
        for (int v = 0; v < n; v++) {
            if (v == u || !m->rank[v].measured || m->rank[v].group != m->rank[u].group)
                continue;
            if (first < 0)
                first = v;
            double t = tt_plogp_time(&p->pair[tt_pair_index(n, u, v)], o->at, o->interp);
            if (t < best) { /* NAN never wins */
                best = t;
                rep[u] = v;
            }
        }
        if (rep[u] < 0)
            rep[u] = first;
    }
}

static int extend(const tt_meas *m, tt_plogp *p, const int *rep, int *count, char *err, size_t errlen)
{
    int n = m->n;
    *count = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            tt_plogp_pair *q = &p->pair[tt_pair_index(n, i, j)];
            if (q->nsizes > 0)
                continue;
            int a = rep[i], b = rep[j];
            const tt_plogp_pair *src = (a >= 0 && b >= 0 && a != b) ? &p->pair[tt_pair_index(n, a, b)] : NULL;
            if (!src || src->nsizes < 1 || (a != i && !m->rank[a].measured) || (b != j && !m->rank[b].measured)) {
                snprintf(err, errlen, "pair (%d, %d) was not measured and no measured pair stands in for it", i,
                         j);
                return -1;
            }
            if (tt_plogp_set_pair(p, i, j, src->L, src->nsizes, src->m, src->o_s, src->o_r, src->g) != 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            (*count)++;
        }
    return 0;
}

/* One level putting every rank in one group (nothing separated them). */
static int one_group(tt_hierarchy *h, int n)
{
    tt_hierarchy_free(h);
    if (tt_hierarchy_alloc(h, n, 1) != 0)
        return -1;
    h->nclusters[0] = 1;
    return 0;
}

static int levels(const double *D, int n, const tt_analysis_opts *o, tt_hierarchy *h, char *desc, size_t cap)
{
    memset(h, 0, sizeof *h);
    if (n < 3) {
        snprintf(desc, cap, "fewer than 3 ranks: one group");
        return one_group(h, n);
    }
    if (o->method == TT_M_SINGLE || o->method == TT_M_AVERAGE || o->method == TT_M_COMPLETE) {
        tt_linkage link = o->method == TT_M_SINGLE    ? TT_LINK_SINGLE
                           : o->method == TT_M_AVERAGE ? TT_LINK_AVERAGE
                                                        : TT_LINK_COMPLETE;
        tt_dendrogram dg;
        if (tt_agglomerative(D, n, link, &dg) != 0)
            return -1;
        tt_levels_opts lo = {.rel_gap = o->rel_gap > 0 ? o->rel_gap : 0.25, .min_abs_frac = 0.02,
                             .max_levels = TB_MAX_LEVELS};
        int rc = tt_levels_from_dendrogram(&dg, &lo, h);
        tt_dendrogram_free(&dg);
        snprintf(desc, cap, "%s linkage, a level at every relative jump >= %g of the merge distances",
                 tt_linkage_name(link), lo.rel_gap);
        if (rc != 0)
            return -1;
    } else {
        tt_search_opts so = {.seed = o->seed};
        tt_search_result res;
        if (tt_search(D, n, o->method, &so, &res) != 0)
            return -1;
        snprintf(desc, cap, "%s, parameter %g chosen by silhouette %.3f", tt_method_name(o->method), res.param,
                 res.score);
        int k = res.nclusters;
        if (k > 1 && k < n && tt_hierarchy_alloc(h, n, 1) == 0) {
            /* noise points become groups of their own */
            int next = k;
            for (int r = 0; r < n; r++)
                h->labels[0][r] = res.labels[r] >= 0 ? res.labels[r] : next++;
            h->nclusters[0] = tt_labels_canonical(h->labels[0], n);
        }
        tt_search_result_free(&res);
    }
    if (h->nlevels == 0)
        return one_group(h, n);
    return 0;
}

/* Fast mode (and all pairs measured): unmeasured pairs take their ranks'
 * representatives' measurements; T = t(m), D = T or the vector distance. */
static int represented_distances(const tt_meas *m, const tt_analysis_opts *o, tt_analysis *a, char *err,
                                 size_t errlen)
{
    int n = m->n;
    tt_plogp p;
    if (tt_plogp_alloc(&p, n) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = -1;
    for (int k = 0; k < m->npairs; k++)
        if (tt_pair_set_from_rec(&p, m->pair[k].i, m->pair[k].j, &m->pair[k]) != 0) {
            snprintf(err, errlen, "pair (%d, %d): unusable measurements", m->pair[k].i, m->pair[k].j);
            goto out;
        }
    representatives(m, &p, o, a->rep);
    if (extend(m, &p, a->rep, &a->extended, err, errlen) != 0)
        goto out;
    tt_distance_time(&p, o->at, o->interp, a->T);
    if (o->dist == TT_DIST_VECTORS)
        tt_distance_vectors(&p, o->at, o->interp, 1, a->D);
    else
        memcpy(a->D, a->T, (size_t)n * (size_t)n * sizeof *a->D);
    rc = 0;
out:
    tt_plogp_free(&p);
    return rc;
}

/* Hosts as the finest level, when they split the finest level measured:
 * ranks on two hosts never share memory, so a broadcast must see hosts
 * apart however close their latencies (NUMA domains a few tens of
 * nanoseconds apart, which the relative jump does not separate, are hosts
 * under SimGrid).  Only a level that nests: each host's ranks lie in one
 * group of the finest level (a finest level that splits hosts already
 * found more than hosts).  A finest level of one group is replaced.
 * \return 1 when the level was added, 0 when not, -1 out of memory. */
static int host_level(const tt_meas *m, tt_hierarchy *h)
{
    int n = m->n, rc = -1;
    int *host = malloc((size_t)n * sizeof *host), *first = malloc((size_t)n * sizeof *first);
    if (!host || !first)
        goto out;
    int nh = 0;
    for (int r = 0; r < n; r++) { /* dense host ids by first appearance (O(n H), H hosts) */
        int k = 0;
        while (k < nh && strcmp(m->rank[first[k]].host, m->rank[r].host) != 0)
            k++;
        if (k == nh)
            first[nh++] = r;
        host[r] = k;
    }
    int fin = h->nlevels - 1;
    const int *up = fin >= 0 && h->nclusters[fin] > 1 ? h->labels[fin] : NULL;
    int nests = 1, splits = !up || nh > h->nclusters[fin];
    for (int r = 0; r < n && up && nests; r++)
        nests = up[r] == up[first[host[r]]];
    rc = 0;
    if (nh < 2 || nh == n || !nests || !splits)
        goto out;
    if (!up) /* the one group of no level found: hosts take its place */
        h->nlevels = fin < 0 ? 0 : fin;
    tt_hierarchy g;
    if (tt_hierarchy_alloc(&g, n, h->nlevels + 1) != 0) {
        rc = -1;
        goto out;
    }
    for (int l = 0; l < h->nlevels; l++) {
        memcpy(g.labels[l], h->labels[l], (size_t)n * sizeof **g.labels);
        g.nclusters[l] = h->nclusters[l];
        g.cut[l] = h->cut[l];
        g.gap[l] = h->gap[l];
        memcpy(g.name[l], h->name[l], TT_NAME_MAX);
    }
    memcpy(g.labels[h->nlevels], host, (size_t)n * sizeof *host);
    g.nclusters[h->nlevels] = tt_labels_canonical(g.labels[h->nlevels], n);
    snprintf(g.name[h->nlevels], TT_NAME_MAX, "node");
    if (!up)
        h->nlevels = fin + 1; /* all of h freed below */
    tt_hierarchy_free(h);
    *h = g;
    rc = 1;
out:
    free(host);
    free(first);
    return rc;
}

int tt_analyze(const tt_meas *m, const tt_analysis_opts *o, const tt_truthset *truth, tt_analysis *a,
               char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    int n = m->n;
    a->n = n;
    a->rep = malloc((size_t)n * sizeof *a->rep);
    a->D = malloc((size_t)n * (size_t)n * sizeof *a->D);
    a->T = malloc((size_t)n * (size_t)n * sizeof *a->T);
    if (!a->rep || !a->D || !a->T) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if ((m->opt.sample ? tt_sampled_distances(m, o, a, err, errlen) : represented_distances(m, o, a, err, errlen)) !=
        0)
        goto fail;
    if (tt_distance_check(a->D, n) != 0 || tt_distance_check(a->T, n) != 0) {
        snprintf(err, errlen, "the distance matrix is not usable (a time that is not finite or negative)");
        goto fail;
    }
    char how[160];
    how[0] = 0;
    int hosts = -1;
    if (levels(a->D, n, o, &a->h, how, sizeof how) != 0 || (hosts = host_level(m, &a->h)) < 0) {
        snprintf(err, errlen, "clustering failed");
        goto fail;
    }
    snprintf(a->desc, sizeof a->desc, "%s at m=%g B (%s); %s%s",
             o->dist == TT_DIST_VECTORS ? "distance of standardised (L,o_s,o_r,g) vectors"
                                         : "D = t(m) = L + (o_s+o_r)/2 + g(m)",
             o->at, o->interp == TT_INTERP_LINFIT ? "linear fit" : "piecewise linear", how,
             hosts ? "; hosts the finest level (they split the finest level measured)" : "");
    if (truth && truth->ntruth > 0) {
        tt_truth tt[TT_MAX_TRUTH];
        for (int k = 0; k < truth->ntruth; k++)
            tt[k] = (tt_truth){.name = truth->name[k], .labels = truth->labels[k]};
        tt_levels_name(&a->h, tt, truth->ntruth, o->name_accuracy);
    }
    /* a truth called like a default name ("level-2") must not make two
     * levels share a name: the topology file needs unique ones */
    for (int l = 0; l < a->h.nlevels; l++)
        for (int q = 0; q < l; q++)
            if (strcmp(a->h.name[l], a->h.name[q]) == 0)
                snprintf(a->h.name[l], TT_NAME_MAX, "level-%d-%d", l + 1, q + 1);
    return 0;
fail:
    free(a->D);
    free(a->T);
    free(a->rep);
    a->D = a->T = NULL;
    a->rep = NULL;
    return -1;
}

/* ---- graph view ------------------------------------------------------------ */

int tt_graph_files(const tt_meas *m, const tt_analysis *a, FILE *dot, FILE *tgf, char *err, size_t errlen)
{
    int n = a->n;
    tt_graph g;
    if (tt_graph_build(a->T, n, NULL, &g) != 0) {
        snprintf(err, errlen, "graph view: building the latency graph failed");
        return -1;
    }
    tt_graph_fit(&g, a->T);
    char **names = calloc((size_t)n, sizeof *names);
    int rc = names ? 0 : -1;
    for (int r = 0; r < n && rc == 0; r++) {
        size_t len = strlen(m->rank[r].host) + 16;
        names[r] = malloc(len);
        if (!names[r])
            rc = -1;
        else
            snprintf(names[r], len, "r%d@%s", r, m->rank[r].host);
    }
    if (rc == 0 && dot)
        rc = tt_graph_write_dot(&g, (const char *const *)names, dot);
    if (rc == 0 && tgf)
        rc = tt_graph_write_tgf(&g, (const char *const *)names, tgf);
    if (rc != 0)
        snprintf(err, errlen, "graph view: writing failed");
    for (int r = 0; names && r < n; r++)
        free(names[r]);
    free(names);
    tt_graph_free(&g);
    return rc;
}
