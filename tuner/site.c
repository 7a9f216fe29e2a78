/* The decisions of a site table; see site.h. */
#include "site.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../timing/timing.h" /* tbtime_quantile */
#include "array.h"
#include "price.h"
#include "progress.h"
#include "site_points.h"

/* Default's proxies: what MPI libraries broadcast with (a binomial tree,
 * a split binary tree, pipelines, a scatter and an allgather); per size,
 * the one whose predictions follow the measured default best across the
 * timed shapes stands for default's model. */
static const char *const proxy_text[] = {"binomial",
                                         "split_binary:segment=1K",
                                         "pipeline:segment=16K",
                                         "pipeline:segment=64K",
                                         "pipeline:segment=128K",
                                         "scatter_allgather:allgather=recursive_doubling",
                                         "scatter_allgather:allgather=ring"};
#define NPROXY 7
/* the error of the extrapolation needs this many measured pairs */
#define MIN_PAIRS 8

void tn_site_buckets(const int *axis, int m, long last_hi, long *lo, long *hi)
{
    for (int i = 0; i < m; i++) {
        lo[i] = i ? hi[i - 1] + 1 : axis[0];
        hi[i] = i + 1 < m ? (long)floor(sqrt((double)axis[i] * (double)axis[i + 1])) : last_hi;
        if (hi[i] < lo[i])
            hi[i] = lo[i];
    }
}

/* The costs the model prices with, NULL without (then it predicts
 * nothing, and only what was measured is chosen). */
static const tn_costs *costs_of(const tn_run *T)
{
    return T->have_costs ? &T->costs : NULL;
}

/* ---- what was measured at a timed shape ------------------------------------ */

typedef struct anc_rec {
    const tn_result *r;
    tb_alg_spec spec;
    double pred;       /* the model's at the anchor; < 0 none */
} anc_rec;

/* The measurements of one timed communicator at one size. */
typedef struct anchor {
    int n, cap;
    anc_rec *v;        /* OK, not default */
    const tn_result *def;
    double proxy[NPROXY]; /* default's proxies predicted there; < 0 none */
} anchor;

static void anchor_free(anchor *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* Proxy k predicted on c at bytes (memo: c's at that size), < 0 none
 * (also without costs). */
static double proxy_pred(const tn_costs *costs, const tn_comm *c, size_t bytes, tn_price_memo *memo, int k,
                         long *priced)
{
    tb_alg_spec s;
    double t = -1, rp = 0;
    char err[256];
    (*priced)++;
    if (tb_alg_spec_parse(proxy_text[k], &s, err, sizeof err) != 0 ||
        tn_price(costs, c, &s, bytes, memo, &t, &rp, err, sizeof err) < 0)
        return -1;
    return t;
}

/* Fills a with what T measured on communicator ci at size index s. */
static int anchor_load(const tn_run *T, int ci, int s, anchor *a, long *priced)
{
    memset(a, 0, sizeof *a);
    const tn_item *it = &T->items[ci * T->o.nsizes + s];
    tn_price_memo memo;
    if (tn_price_memo_init(&memo, it->ntime + NPROXY) != 0)
        return -1;
    for (int j = 0; j < it->ntime; j++) {
        const tn_result *r = tn_results_find(&T->rs, ci + 1, it->bytes, it->spec[j]);
        if (!r || r->status != TN_RES_OK || tn_result_score(r) <= 0)
            continue;
        if (!strcmp(r->spec, "default")) {
            a->def = r;
            continue;
        }
        anc_rec *nv = tn_array_room(a->v, a->n, &a->cap, sizeof *nv, 8);
        if (!nv) {
            tn_price_memo_free(&memo);
            return -1;
        }
        a->v = nv;
        anc_rec *x = &a->v[a->n];
        char err[256];
        double rp = 0;
        if (tb_alg_spec_parse(r->spec, &x->spec, err, sizeof err) != 0)
            continue;
        x->r = r;
        x->pred = -1;
        if (tn_price(costs_of(T), &T->comms[ci], &x->spec, it->bytes, &memo, &x->pred, &rp, err, sizeof err) < 0)
            x->pred = -1;
        (*priced)++;
        a->n++;
    }
    for (int k = 0; k < NPROXY; k++)
        a->proxy[k] = proxy_pred(costs_of(T), &T->comms[ci], it->bytes, &memo, k, priced);
    tn_price_memo_free(&memo);
    return 0;
}

/* ---- the margins: the extrapolation's error measured between timed shapes -- */

typedef struct vals {
    int n, cap;
    double *v;
} vals;

static void vals_add(vals *e, double x)
{
    double *nv = tn_array_room(e->v, e->n, &e->cap, sizeof *nv, 32);
    if (nv) {
        e->v = nv;
        e->v[e->n++] = x;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 90th percentile of |v - center|, -1 without values. */
static double q90_around(vals *e, double center)
{
    if (e->n == 0)
        return -1;
    for (int i = 0; i < e->n; i++)
        e->v[i] = fabs(e->v[i] - center);
    qsort(e->v, (size_t)e->n, sizeof *e->v, cmp_double);
    return tbtime_quantile(e->v, e->n, 0.9);
}

/* The median of e's values, 0 without values. */
static double median_of(vals *e)
{
    if (e->n == 0)
        return 0;
    qsort(e->v, (size_t)e->n, sizeof *e->v, cmp_double);
    return tbtime_quantile(e->v, e->n, 0.5);
}

/* The index in s[0..n) of a communicator's timed shape (by its label),
 * or -1 with none. */
static int timed_shape(const tn_run *T, int ci, const tn_site_shape *s, int n)
{
    char label[TN_SHAPE_LABEL];
    for (int i = 0; i < n; i++)
        if (!strcmp(tn_site_label(&s[i], label, sizeof label), T->comms[ci].label))
            return i;
    return -1;
}

static int kind_of(const tn_site_shape *s)
{
    return s->nodes == 1 ? TN_KIND_SINGLE_NODE : s->ppn == 1 ? TN_KIND_ONE_PER_NODE : TN_KIND_MULTI_NODE;
}

static double shape_distance(const tn_site_shape *a, const tn_site_shape *b)
{
    return fabs(log((double)a->nodes / b->nodes)) + fabs(log((double)a->ppn / b->ppn));
}

/* The timed shape nearest to s of its kind and placement (else of its
 * kind), by distance in log nodes + log ranks per node; -1 none. */
static int nearest_timed(const tn_site_shape *timed, int n, const tn_site_shape *s, int skip)
{
    int best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < n; i++) {
            if (i == skip || timed[i].nodes < 1 || kind_of(&timed[i]) != kind_of(s) ||
                (pass == 0 && timed[i].place != s->place))
                continue;
            if (best < 0 || shape_distance(&timed[i], s) < shape_distance(&timed[best], s))
                best = i;
        }
    return best;
}

/* Log errors of the extrapolation from a1 to a2 (two timed shapes at one
 * size, or one at two sizes), per unit of the distance d between them:
 * default's through each proxy (ed[k]), and every spec measured at both
 * (ef[family], unless NULL). */
static void pair_errors(const anchor *a1, const anchor *a2, double d, vals *ed, vals *ef)
{
    for (int k = 0; k < NPROXY && a1->def && a2->def; k++)
        if (a1->proxy[k] > 0 && a2->proxy[k] > 0)
            vals_add(&ed[k], (log(tn_result_score(a2->def) / tn_result_score(a1->def)) -
                              log(a2->proxy[k] / a1->proxy[k])) / d);
    for (int i = 0; ef && i < a1->n; i++)
        for (int j = 0; j < a2->n; j++)
            if (a1->v[i].pred > 0 && a2->v[j].pred > 0 && !strcmp(a1->v[i].r->spec, a2->v[j].r->spec))
                vals_add(&ef[a1->v[i].spec.id], (log(tn_result_score(a2->v[j].r) / tn_result_score(a1->v[i].r)) -
                                                     log(a2->v[j].pred / a1->v[i].pred)) / d);
}

/* The model's log error at every timed candidate (default, if ed: measured
 * / each proxy; the others, if ef), to be taken around its median. */
static void model_errors(const anchor *a, vals *ed, vals *ef)
{
    for (int k = 0; ed && k < NPROXY && a->def; k++)
        if (a->proxy[k] > 0)
            vals_add(&ed[k], log(tn_result_score(a->def) / a->proxy[k]));
    for (int i = 0; ef && i < a->n; i++)
        if (a->v[i].pred > 0)
            vals_add(&ef[a->v[i].spec.id], log(tn_result_score(a->v[i].r) / a->v[i].pred));
}

/* How far b is from a along each axis: |log| of the ratio of their nodes,
 * of their ranks per node. */
static void axis_distance(const tn_site_shape *a, const tn_site_shape *b, double *d)
{
    d[TN_SITE_NODES] = fabs(log((double)a->nodes / b->nodes));
    d[TN_SITE_PPN] = fabs(log((double)a->ppn / b->ppn));
}

/* The message sizes a decision at size index s covers up to: the
 * geometric means with its neighbours (tn_table_merge's boundaries); 0
 * where there is no neighbour.  b[0] = the size, b[1] below, b[2] above. */
static void size_ends(const tn_opts *o, int s, size_t *b)
{
    b[0] = o->sizes[s];
    b[1] = s > 0 ? (size_t)floor(sqrt((double)o->sizes[s - 1] * (double)o->sizes[s])) + 1 : 0;
    b[2] = s + 1 < o->nsizes ? (size_t)floor(sqrt((double)o->sizes[s] * (double)o->sizes[s + 1])) : 0;
}

/* The timed shape nearest to timed[c] along axis ax -- its kind and
 * placement, the same count on the other axis -- or -1. */
static int axis_neighbour(const tn_site_shape *timed, int n, int c, int ax)
{
    int best = -1;
    double bd = 0, d[TN_SITE_AXES];
    for (int i = 0; i < n && timed[c].nodes >= 1; i++) {
        if (i == c || timed[i].nodes < 1 || kind_of(&timed[i]) != kind_of(&timed[c]) || timed[i].place != timed[c].place)
            continue;
        axis_distance(&timed[c], &timed[i], d);
        if (d[!ax] > 0 || d[ax] <= 0)
            continue;
        if (best < 0 || d[ax] < bd)
            best = i, bd = d[ax];
    }
    return best;
}

/* The errors at size s of the extrapolation along each axis between
 * timed neighbours (ed[ax][proxy], and ef[ax][family] unless ef is NULL,
 * per unit of distance), and the longest such extrapolation per axis
 * (span). */
static void pair_errors_at(const tn_run *T, const tn_site_shape *timed, const anchor *anc, int s,
                           vals (*ed)[NPROXY], vals (*ef)[TB_ALG_COUNT], double *span)
{
    int ns = T->o.nsizes;
    for (int c = 0; c < T->ncomm; c++)
        for (int ax = 0; ax < TN_SITE_BYTES; ax++) {
            int n = axis_neighbour(timed, T->ncomm, c, ax);
            double d[TN_SITE_AXES];
            if (n < 0)
                continue;
            axis_distance(&timed[c], &timed[n], d);
            pair_errors(&anc[c * ns + s], &anc[n * ns + s], d[ax], ed[ax], ef ? ef[ax] : NULL);
            span[ax] = d[ax] > span[ax] ? d[ax] : span[ax];
        }
}

/* q of each family on an axis (its 90th percentile; -1 with fewer than
 * MIN_PAIRS values) and of them all (q_all), from ef[0..TB_ALG_COUNT). */
static void family_q(vals *ef, int paired, double *q_fam, double *q_all)
{
    vals all = {0};
    for (int f = 0; f < TB_ALG_COUNT; f++) {
        int n = ef[f].n;
        double q = q90_around(&ef[f], paired ? 0 : median_of(&ef[f]));
        for (int i = 0; i < n; i++)
            vals_add(&all, ef[f].v[i]); /* now |error| */
        q_fam[f] = n >= MIN_PAIRS ? q : -1;
    }
    *q_all = q90_around(&all, 0);
    free(all.v);
}

/* The bytes axis of g's margins: at every timed shape, from each
 * calibrated size to its neighbours (default through that size's proxy:
 * g->proxy must be set), per unit of |log| of their ratio; ed and ef are
 * scratch (empty). */
static void bytes_errors(const tn_run *T, const tn_site_shape *timed, const anchor *anc, vals *ed, vals *ef,
                         tn_site_grid *g)
{
    int ns = T->o.nsizes < TN_MAX_SIZES ? T->o.nsizes : TN_MAX_SIZES, ax = TN_SITE_BYTES;
    for (int s = 0; s < ns; s++) {
        int k = g->proxy[s];
        ed[k].n = 0;
        for (int c = 0; c < T->ncomm; c++)
            for (int t = s - 1; timed[c].nodes >= 1 && t <= s + 1; t += 2) {
                if (t < 0 || t >= ns)
                    continue;
                double d = fabs(log((double)T->o.sizes[t] / (double)T->o.sizes[s]));
                /* candidates once per pair of sizes (t > s), default at both ends */
                pair_errors(&anc[c * ns + s], &anc[c * ns + t], d, ed, t > s ? ef : NULL);
                g->span[ax] = d > g->span[ax] ? d : g->span[ax];
            }
        g->pairs[ax] += ed[k].n;
        g->q_default[ax][s] = q90_around(&ed[k], 0);
        for (int j = 0; j < NPROXY; j++)
            ed[j].n = 0;
    }
    for (int f = 0; f < TB_ALG_COUNT; f++)
        g->pairs[ax] += ef[f].n;
    family_q(ef, 1, g->q_fam[ax], &g->q_all[ax]);
}

/* g's margins: per axis, the errors of the extrapolation between timed
 * neighbours (g->pairs, g->span); per size, the proxy whose errors for
 * default are least over both axes, and its q per axis; per axis and
 * family, the q over every size.  Without pairs on either axis: the
 * model's error around its median (axis TN_SITE_NODES holds it), and no
 * extrapolation (spans 0). */
static void margins(const tn_run *T, const tn_site_shape *timed, const anchor *anc, tn_site_grid *g)
{
    int ns = T->o.nsizes < TN_MAX_SIZES ? T->o.nsizes : TN_MAX_SIZES;
    vals ed[TN_SITE_AXES][NPROXY], ef[TN_SITE_AXES][TB_ALG_COUNT];
    memset(ef, 0, sizeof ef);
    memset(ed, 0, sizeof ed);
    for (int s = 0; s < ns; s++)
        pair_errors_at(T, timed, anc, s, ed, ef, g->span);
    int paired = 0;
    for (int ax = 0; ax < TN_SITE_BYTES; ax++) {
        g->pairs[ax] = ed[ax][0].n;
        for (int f = 0; f < TB_ALG_COUNT; f++)
            g->pairs[ax] += ef[ax][f].n;
        paired |= g->pairs[ax] > 0;
        family_q(ef[ax], 1, g->q_fam[ax], &g->q_all[ax]);
    }
    if (!paired) {
        for (int ax = 0; ax < TN_SITE_BYTES; ax++)
            g->span[ax] = 0;
        for (int f = 0; f < TB_ALG_COUNT; f++)
            ef[0][f].n = 0;
        for (int c = 0; c < T->ncomm * ns; c++)
            if (c / ns < T->ncomm && timed[c / ns].nodes >= 1)
                model_errors(&anc[c], NULL, ef[0]);
        family_q(ef[0], 0, g->q_fam[0], &g->q_all[0]);
    }
    for (int s = 0; s < ns; s++) {
        for (int ax = 0; ax < TN_SITE_BYTES; ax++)
            for (int k = 0; k < NPROXY; k++)
                ed[ax][k].n = 0;
        if (paired) { /* default's alone: the candidates' are in q_fam already */
            double span[TN_SITE_AXES] = {0, 0, 0};
            pair_errors_at(T, timed, anc, s, ed, NULL, span);
        } else
            for (int c = 0; c < T->ncomm; c++)
                if (timed[c].nodes >= 1)
                    model_errors(&anc[c * ns + s], ed[0], NULL);
        /* the proxy that follows default best over both axes */
        double best = -1;
        g->proxy[s] = 0;
        for (int k = 0; k < NPROXY; k++) {
            vals both = {0};
            for (int ax = 0; ax < TN_SITE_BYTES; ax++)
                for (int i = 0; i < ed[ax][k].n; i++)
                    vals_add(&both, ed[ax][k].v[i]);
            double q = q90_around(&both, paired ? 0 : median_of(&both));
            free(both.v);
            if (q >= 0 && (best < 0 || q < best))
                best = q, g->proxy[s] = k;
        }
        for (int ax = 0; ax < TN_SITE_BYTES; ax++) {
            vals *e = &ed[ax][g->proxy[s]];
            g->q_default[ax][s] = q90_around(e, paired ? 0 : median_of(e));
        }
    }
    bytes_errors(T, timed, anc, ed[TN_SITE_BYTES], ef[TN_SITE_BYTES], g);
    for (int ax = 0; ax < TN_SITE_AXES; ax++) {
        for (int s = 0; s < ns; s++)
            if (g->q_default[ax][s] < 0) /* no pairs of default there: the candidates' error */
                g->q_default[ax][s] = g->q_all[ax] >= 0 ? g->q_all[ax] : log(1.25);
        if (g->q_all[ax] < 0)
            g->q_all[ax] = log(1.25);
        for (int k = 0; k < NPROXY; k++)
            free(ed[ax][k].v);
        for (int f = 0; f < TB_ALG_COUNT; f++)
            free(ef[ax][f].v);
    }
}

/* The log error of the extrapolated ratio default / A from a1 to a2, per
 * unit of their distance d, for every spec A measured at both (default
 * through proxy k): what a decision's margin has to cover, errors of A
 * and of default that go together cancelling. */
static void ratio_errors(const anchor *a1, const anchor *a2, double d, int k, vals *er)
{
    if (!a1->def || !a2->def || a1->proxy[k] <= 0 || a2->proxy[k] <= 0)
        return;
    double ed = log(tn_result_score(a2->def) / tn_result_score(a1->def)) - log(a2->proxy[k] / a1->proxy[k]);
    for (int i = 0; i < a1->n; i++)
        for (int j = 0; j < a2->n; j++)
            if (a1->v[i].pred > 0 && a2->v[j].pred > 0 && !strcmp(a1->v[i].r->spec, a2->v[j].r->spec))
                vals_add(er, (ed - log(tn_result_score(a2->v[j].r) / tn_result_score(a1->v[i].r)) +
                              log(a2->v[j].pred / a1->v[i].pred)) / d);
}

/* g->q_ratio: per axis and size, the 90th percentile of ratio_errors
 * between timed neighbours (at least MIN_PAIRS of them; else -1, and the
 * margin adds the errors of A and of default).  g->proxy must be set. */
static void ratio_margins(const tn_run *T, const tn_site_shape *timed, const anchor *anc, tn_site_grid *g)
{
    int ns = T->o.nsizes < TN_MAX_SIZES ? T->o.nsizes : TN_MAX_SIZES;
    int paired = g->pairs[TN_SITE_NODES] || g->pairs[TN_SITE_PPN];
    for (int s = 0; s < ns; s++)
        for (int ax = 0; ax < TN_SITE_AXES; ax++) {
            vals er = {0};
            for (int c = 0; paired && c < T->ncomm; c++) {
                if (ax == TN_SITE_BYTES) {
                    for (int t = s - 1; timed[c].nodes >= 1 && t <= s + 1; t += 2)
                        if (t >= 0 && t < ns)
                            ratio_errors(&anc[c * ns + s], &anc[c * ns + t],
                                         fabs(log((double)T->o.sizes[t] / (double)T->o.sizes[s])), g->proxy[s], &er);
                    continue;
                }
                int n = axis_neighbour(timed, T->ncomm, c, ax);
                double d[TN_SITE_AXES];
                if (n < 0)
                    continue;
                axis_distance(&timed[c], &timed[n], d);
                ratio_errors(&anc[c * ns + s], &anc[n * ns + s], d[ax], g->proxy[s], &er);
            }
            g->q_ratio[ax][s] = er.n >= MIN_PAIRS ? q90_around(&er, 0) : -1;
            free(er.v);
        }
}

/* q of family f on axis ax. */
static double q_of(const tn_site_grid *g, int ax, int f)
{
    return g->q_fam[ax][f] >= 0 ? g->q_fam[ax][f] : g->q_all[ax];
}

/* x's distance from anchor a along every axis into d (db: along message
 * bytes; a or x NULL: one doubling of nodes, in reach).  0, or -1 when x
 * lies further from a on the nodes or ranks-per-node axis than any
 * extrapolation measured there (beyond the model's reach). */
static int reach(const tn_site_grid *g, const tn_site_shape *a, const tn_site_shape *x, double db, double *d)
{
    d[TN_SITE_NODES] = M_LN2, d[TN_SITE_PPN] = 0, d[TN_SITE_BYTES] = db;
    if (!a || !x)
        return 0;
    axis_distance(a, x, d);
    for (int ax = 0; ax < TN_SITE_BYTES; ax++)
        if (d[ax] > g->span[ax] + 1e-9)
            return -1;
    return 0;
}

/* The margin a point x priced by the model needs for family f at size
 * s, from anchor a (x != a) and db from that size (|log| of the ratio of
 * message sizes): exp of the errors measured per unit of distance along
 * each axis (of the ratio default / candidate where MIN_PAIRS were
 * measured at that size, else A's family's plus default's) times x's
 * distance from a on it (an order or draw of the same
 * counts as far as one doubling of nodes), times (1 + tie).  Beyond the
 * longest extrapolation measured on an axis of the grid: -1 (no margin
 * makes it safe).  Without pairs on the grid's axes: the model's error
 * whatever the distance (only other draws or orders of a timed shape are
 * in reach), with the bytes axis's. */
static double margin_of(const tn_run *T, const tn_site_grid *g, int f, int s, const tn_site_shape *a,
                        const tn_site_shape *x, double db)
{
    double d[TN_SITE_AXES], e = 0;
    if (reach(g, a, x, db, d) != 0)
        return -1;
    if (T->o.site_margin > 0)
        return T->o.site_margin;
    int moved = d[TN_SITE_NODES] > 0 || d[TN_SITE_PPN] > 0 || !a || !x || memcmp(a, x, sizeof *a) != 0;
    if (!g->pairs[TN_SITE_NODES] && !g->pairs[TN_SITE_PPN])
        e = moved ? q_of(g, 0, f) + g->q_default[0][s] : 0;
    else if (moved && d[TN_SITE_NODES] == 0 && d[TN_SITE_PPN] == 0) /* another draw or order */
        d[g->pairs[TN_SITE_NODES] ? TN_SITE_NODES : TN_SITE_PPN] = M_LN2;
    for (int ax = 0; ax < TN_SITE_AXES; ax++)
        if (g->pairs[TN_SITE_NODES] || g->pairs[TN_SITE_PPN] || ax == TN_SITE_BYTES)
            e += (g->q_ratio[ax][s] >= 0 ? g->q_ratio[ax][s] : q_of(g, ax, f) + g->q_default[ax][s]) * d[ax];
    return (1.0 + T->o.tie) * exp(e);
}

/* The margin of the envelope test (passes): the candidate's family's
 * error and the proxies' (every family's) per unit of distance along each
 * axis, so that what default's own jumps between algorithms cost the
 * ratio's errors (q_ratio) does not count; -1 beyond the model's reach or
 * without errors. */
static double envelope_margin(const tn_run *T, const tn_site_grid *g, int f, const tn_site_shape *a,
                              const tn_site_shape *x, double db)
{
    double d[TN_SITE_AXES], e = 0;
    if (reach(g, a, x, db, d) != 0)
        return -1;
    if (T->o.site_margin > 0)
        return T->o.site_margin;
    if (d[TN_SITE_NODES] == 0 && d[TN_SITE_PPN] == 0 && memcmp(a, x, sizeof *a) != 0)
        d[TN_SITE_NODES] = M_LN2; /* another draw or order: as far as one doubling of nodes */
    for (int ax = 0; ax < TN_SITE_AXES; ax++) {
        double q = q_of(g, ax, f);
        if (q < 0 || g->q_all[ax] < 0)
            return -1;
        e += (q + g->q_all[ax]) * d[ax];
    }
    return (1.0 + T->o.tie) * exp(e);
}

/* ---- the grid -------------------------------------------------------------- */

static void add_point(tn_site_cell *c, int nodes, int ppn, int place, int draw)
{
    tn_site_shape s = {nodes, ppn, place, draw};
    if (c->npt >= TN_SITE_POINTS || nodes < 1 || ppn < 1 || nodes * ppn < 2)
        return;
    for (int i = 0; i < c->npt; i++)
        if (!memcmp(&c->pt[i], &s, sizeof s))
            return;
    c->pt[c->npt++] = s;
}

/* A cell: its ranges, representative and points (the ends of its ranges
 * within what the partition holds, packed nodes, random order). */
static void make_cell(tn_site_cell *c, int kind, int place, long nlo, long nhi, int n, long klo, long khi, int k,
                      const tn_site_nodes *sn)
{
    c->kind = kind, c->place = place, c->nlo = nlo, c->nhi = nhi, c->klo = klo, c->khi = khi, c->anchor = -1;
    /* the last bucket of ranks per node reaches the most any node holds */
    int ntop = nhi < sn->n ? (int)nhi : sn->n;
    int ktop = khi == LONG_MAX ? sn->ppn_max : khi < sn->ppn0 ? (int)khi : sn->ppn0;
    add_point(c, n, k, place, TN_DRAW_SPREAD);
    add_point(c, (int)nlo, k, place, TN_DRAW_SPREAD);
    add_point(c, ntop, k, place, TN_DRAW_SPREAD);
    add_point(c, n, (int)klo, place, TN_DRAW_SPREAD);
    add_point(c, n, ktop, place, TN_DRAW_SPREAD);
    if (n > 1 && n < sn->n)
        add_point(c, n, k, place, TN_DRAW_PACKED);
    /* the most ranks per node on the lowest nodes: the fullest groups a
     * level above the nodes holds (both sockets of a host, say) */
    if (n > 1 && n < sn->n && ktop != k)
        add_point(c, n, ktop, place, TN_DRAW_PACKED);
    if (place == TN_PLACE_SCATTERED)
        add_point(c, n, k, TN_PLACE_RANDOM, TN_DRAW_SPREAD);
}

/* The cells of the partition (g->cell, g->ncell). */
static int make_grid(const tn_site_nodes *sn, tn_site_grid *g)
{
    int an[64] = {0}, ak[64] = {0};
    long nlo[64], nhi[64], klo[64], khi[64];
    int mn = sn->n >= 2 ? tn_site_grid_axis(2, sn->n, an, 64) : 0;
    int mk = sn->ppn0 >= 2 ? tn_site_grid_axis(2, sn->ppn0, ak, 64) : 0; /* several ranks per node */
    g->mn = mn, g->mk = mk;
    tn_site_buckets(an, mn, LONG_MAX, nlo, nhi);
    tn_site_buckets(ak, mk, LONG_MAX, klo, khi);
    g->cell = calloc((size_t)(mk + mn + 2 * mn * mk + 1), sizeof *g->cell);
    if (!g->cell)
        return -1;
    for (int j = 0; j < mk; j++)
        make_cell(&g->cell[g->ncell++], TN_KIND_SINGLE_NODE, TN_PLACE_COMPACT, 1, 1, 1, klo[j], khi[j], ak[j], sn);
    for (int i = 0; i < mn; i++)
        make_cell(&g->cell[g->ncell++], TN_KIND_ONE_PER_NODE, TN_PLACE_COMPACT, nlo[i], nhi[i], an[i], 1, 1, 1, sn);
    for (int p = TN_PLACE_COMPACT; p <= TN_PLACE_SCATTERED; p++)
        for (int j = 0; j < mk; j++)
            for (int i = 0; i < mn; i++)
                make_cell(&g->cell[g->ncell++], TN_KIND_MULTI_NODE, p, nlo[i], nhi[i], an[i], klo[j], khi[j], ak[j],
                          sn);
    return 0;
}

/* ---- deciding a cell ------------------------------------------------------- */

/* What a cell's points hold while it is decided, at one calibrated size
 * and the two ends of its range (v = 0, 1, 2: size_ends). */
typedef struct at_size {
    tn_site_point *p;                       /* [npt] */
    int *ok;                                /* [npt]: built */
    int *is_anchor;                         /* [npt] */
    tn_price_memo (*memo)[3];               /* [npt][v] */
    double (*proxy)[3];                     /* [npt][v], -2: not priced yet */
    double (*env)[3];                       /* [npt][v]: the fastest proxy, -2: not priced yet */
    size_t bytes[3];                        /* 0: no such end */
    int s;                                  /* the size's index */
    tn_site_shape anchor_shape;
} at_size;

/* Spec A's prediction at point x and size v, < 0 when it cannot be had. */
static double pred_at(const tn_run *T, at_size *z, int x, int v, const tb_alg_spec *spec, long *priced)
{
    double t = -1, rp = 0;
    char err[256];
    (*priced)++;
    if (tn_price(costs_of(T), &z->p[x].c, spec, z->bytes[v], &z->memo[x][v], &t, &rp, err, sizeof err) < 0)
        return -1;
    return t;
}

/* The least of default's proxies' predictions t[0..NPROXY) that exist
 * (> 0): the fastest, -1 none. */
static double fastest_proxy(const double *t)
{
    double best = -1;
    for (int k = 0; k < NPROXY; k++)
        if (t[k] > 0 && (best < 0 || t[k] < best))
            best = t[k];
    return best;
}

/* The fastest of default's proxies predicted at point x and size v (memo:
 * z->env), < 0 none. */
static double envelope_at(const tn_run *T, at_size *z, int x, int v, long *priced)
{
    if (z->env[x][v] < -1.5) {
        double t[NPROXY];
        for (int k = 0; k < NPROXY; k++)
            t[k] = proxy_pred(costs_of(T), &z->p[x].c, z->bytes[v], &z->memo[x][v], k, priced);
        z->env[x][v] = fastest_proxy(t);
    }
    return z->env[x][v];
}

/* Whether A (measured at the anchor: a->v[i]) is clearly faster than
 * default at every point of the cell, at the size and at the ends of its
 * range; *gain: the estimate at the representative; *cell: the mean log of
 * A's estimates over the points at the size (measured at the anchor,
 * elsewhere scaled by the model). */
static int passes(const tn_run *T, const tn_site_grid *g, const tn_site_cell *c, const anchor *a, int i, at_size *z,
                  double *gain, double *cell, long *priced)
{
    const anc_rec *A = &a->v[i];
    double mA = tn_result_score(A->r), mD = tn_result_score(a->def), lsum = 0;
    int k = g->proxy[z->s], npt = 0;
    for (int x = 0; x < c->npt; x++)
        for (int v = 0; v < 3 && z->ok[x]; v++) {
            if (!z->bytes[v])
                continue;
            double ratio;
            double est = mA;
            if (v == 0 && z->is_anchor[x]) { /* measured: by more than the tie, outside the quartiles */
                ratio = mD / mA;
                if (!(mD > mA * (1.0 + T->o.tie) && tn_result_p25(a->def) > tn_result_p75(A->r)))
                    return 0;
            } else {
                if (z->proxy[x][v] < -1.5)
                    z->proxy[x][v] = proxy_pred(costs_of(T), &z->p[x].c, z->bytes[v], &z->memo[x][v], k, priced);
                double pa = pred_at(T, z, x, v, &A->spec, priced);
                if (A->pred <= 0 || pa <= 0)
                    return 0;
                est = mA * pa / A->pred;
                double db = fabs(log((double)z->bytes[v] / (double)z->bytes[0]));
                double m = margin_of(T, g, A->spec.id, z->s, &z->anchor_shape, &c->pt[x], db);
                ratio = a->proxy[k] > 0 && z->proxy[x][v] > 0 ? (mD * z->proxy[x][v] / a->proxy[k]) / est : -1;
                if (m < 0 || ratio < m) {
                    /* default's proxy did not follow it there: whatever
                     * default runs, it is at least as slow as the fastest
                     * of the algorithms MPI libraries broadcast with
                     * (scaled down by as much as default beat them where
                     * it was measured); the candidate's prediction scaled
                     * up by as much as it was slower than predicted */
                    double ea = envelope_at(T, z, x, v, priced), e0 = fastest_proxy(a->proxy);
                    double me = envelope_margin(T, g, A->spec.id, &z->anchor_shape, &c->pt[x], db);
                    if (ea <= 0 || e0 <= 0 || me < 0)
                        return 0;
                    ratio = ea * fmin(1.0, mD / e0) / (pa * fmax(1.0, mA / A->pred));
                    if (ratio < me)
                        return 0;
                }
            }
            if (x == 0 && v == 0)
                *gain = ratio;
            if (v == 0)
                lsum += log(est), npt++;
        }
    *cell = npt ? lsum / npt : HUGE_VAL;
    return 1;
}

typedef struct by_est {
    int i;
    double est;
} by_est;

static int cmp_est(const void *a, const void *b)
{
    const by_est *x = a, *y = b;
    return (x->est > y->est) - (x->est < y->est);
}

/* The decision of cell c at size s from anchor a. */
static void decide_size(const tn_run *T, const tn_site_grid *g, tn_site_cell *c, int s, const anchor *a, at_size *z,
                        long *priced)
{
    snprintf(c->win[s], TN_CAND_TEXT, "default");
    c->gain[s] = 1.0;
    if (!a->def || !z->ok[0])
        return;
    double mD = tn_result_score(a->def);
    by_est *o = malloc(sizeof *o * (size_t)(a->n ? a->n : 1));
    int n = 0;
    for (int i = 0; o && i < a->n; i++) {
        double mA = tn_result_score(a->v[i].r);
        if (mA >= mD) /* never faster where it was measured: the model alone will not make it so */
            continue;
        double est = mA;
        if (!z->is_anchor[0]) {
            double pa = pred_at(T, z, 0, 0, &a->v[i].spec, priced);
            if (pa <= 0 || a->v[i].pred <= 0)
                continue;
            est = mA * pa / a->v[i].pred;
        }
        o[n++] = (by_est){i, est};
    }
    qsort(o, (size_t)n, sizeof *o, cmp_est);
    /* the fastest estimated at the representative that passes; among
     * those that pass within the tie of it, the one the model finds
     * fastest over the cell's points (two trees measured alike at the
     * anchor can differ on another order or draw) */
    int win = -1;
    double win_cell = 0;
    for (int k = 0; k < n; k++) {
        double gain = 1.0, ce;
        if (win >= 0 && o[k].est > o[win].est * (1.0 + T->o.tie))
            break;
        if (!passes(T, g, c, a, o[k].i, z, &gain, &ce, priced))
            continue;
        if (win < 0 || ce < win_cell) {
            win = k, win_cell = ce;
            snprintf(c->win[s], TN_CAND_TEXT, "%s", a->v[o[k].i].r->spec);
            c->gain[s] = gain;
        }
    }
    free(o);
}

/* Builds c's points, decides every size, frees the points. */
static int decide_cell(const tn_run *T, tn_site_grid *g, tn_site_cell *c, const tn_site_shape *timed, anchor *anc,
                       const tn_site_base *b)
{
    int ns = T->o.nsizes, rc = 0;
    c->win = calloc((size_t)ns, sizeof *c->win);
    c->gain = calloc((size_t)ns, sizeof *c->gain);
    tn_site_point p[TN_SITE_POINTS];
    int ok[TN_SITE_POINTS] = {0}, is_anchor[TN_SITE_POINTS] = {0};
    tn_price_memo memo[TN_SITE_POINTS][3];
    double proxy[TN_SITE_POINTS][3], env[TN_SITE_POINTS][3];
    memset(memo, 0, sizeof memo);
    if (!c->win || !c->gain)
        return -1;
    for (int s = 0; s < ns; s++)
        snprintf(c->win[s], TN_CAND_TEXT, "default"), c->gain[s] = 1.0;
    c->anchor = nearest_timed(timed, T->ncomm, &c->pt[0], -1);
    /* anchored at its own counts drawn whole (a small shape): the
     * representative is the anchor, spread and (scattered) random whole
     * are points */
    if (c->anchor >= 0) {
        tn_site_shape a = timed[c->anchor], r = c->pt[0];
        if (a.nodes == r.nodes && a.ppn == r.ppn && a.place == r.place && a.draw != r.draw) {
            c->pt[0].draw = a.draw;
            add_point(c, r.nodes, r.ppn, r.place, r.draw);
            if (r.place == TN_PLACE_SCATTERED)
                add_point(c, r.nodes, r.ppn, TN_PLACE_RANDOM, a.draw);
        }
    }
    for (int x = 0; x < c->npt && rc == 0; x++) {
        int r = tn_site_point_make(b, &c->pt[x], &p[x]);
        if (r < 0)
            rc = -1;
        ok[x] = r == 0;
        /* a random order that happens to keep nodes consecutive is a compact shape */
        if (ok[x] && c->pt[x].place == TN_PLACE_RANDOM && p[x].c.shape.consecutive == 1) {
            tn_site_point_free(&p[x]);
            ok[x] = 0;
        }
        if (ok[x]) {
            c->pt_shape[x] = p[x].c.shape;
            g->points++;
        }
        is_anchor[x] = c->anchor >= 0 && !memcmp(&c->pt[x], &timed[c->anchor], sizeof c->pt[x]);
    }
    for (int s = 0; rc == 0 && c->anchor >= 0 && s < ns; s++) {
        at_size z = {p, ok, is_anchor, memo, proxy, env, {0, 0, 0}, s, timed[c->anchor]};
        size_ends(&T->o, s, z.bytes);
        for (int x = 0; x < c->npt; x++)
            for (int v = 0; v < 3; v++) {
                proxy[x][v] = env[x][v] = -2;
                if (ok[x] && tn_price_memo_init(&memo[x][v], 64) != 0)
                    rc = -1;
            }
        if (rc == 0)
            decide_size(T, g, c, s, &anc[c->anchor * ns + s], &z, &g->priced);
        for (int x = 0; x < c->npt; x++)
            for (int v = 0; v < 3; v++)
                tn_price_memo_free(&memo[x][v]);
    }
    for (int x = 0; x < c->npt; x++)
        if (ok[x])
            tn_site_point_free(&p[x]);
    /* points that could not be built are not checked in the table either */
    int k = 0;
    for (int x = 0; x < c->npt; x++)
        if (ok[x])
            c->pt[k] = c->pt[x], c->pt_shape[k] = c->pt_shape[x], k++;
    c->npt = k;
    return rc;
}

int tn_site_decide(const tn_run *T, const struct tb_config *cfg, tn_site_grid *g)
{
    memset(g, 0, sizeof *g);
    g->nsizes = T->o.nsizes;
    int ns = T->o.nsizes, rc = 0;
    tn_site_shape *timed = calloc((size_t)(T->ncomm ? T->ncomm : 1), sizeof *timed);
    tn_site_shape *spaced = calloc((size_t)(T->ncomm ? T->ncomm : 1), sizeof *spaced);
    anchor *anc = calloc((size_t)(T->ncomm * ns > 0 ? T->ncomm * ns : 1), sizeof *anc);
    tn_machine wm;
    memset(&wm, 0, sizeof wm);
    if (!timed || !spaced || !anc || make_grid(&T->site_nodes, g) != 0) {
        free(timed), free(spaced), free(anc);
        return -1;
    }
    tn_progress pp;
    tn_progress_start(&pp, g->ncell, 1);
    /* the site's shapes: the list, then the small ones (--site-small) */
    tn_site_shape list[TN_MAX_TUNED], first[TN_MAX_TUNED];
    int nlist = tn_site_timed(&T->site_nodes, T->o.site_shapes, T->o.site_small, list, TN_MAX_TUNED);
    int nspaced = tn_site_timed(&T->site_nodes, T->o.site_shapes, 0, first, TN_MAX_TUNED); /* list's prefix */
    for (int c = 0; c < T->ncomm && rc == 0; c++) {
        int i = timed_shape(T, c, list, nlist);
        if (i >= 0)
            timed[c] = list[i];
        else
            timed[c].nodes = 0; /* not a site shape: anchors nothing */
        /* the model's errors are measured between the list's shapes, a
         * doubling or more apart, as far as the shapes it prices lie from
         * an anchor; the small ones, half a doubling apart, anchor their
         * own cells but measure nothing: divided by half a doubling, the
         * MPI library's own switches of algorithm with the process count
         * between them made the error per doubling several times what the
         * list's shapes measure (tuner/README.md) */
        spaced[c] = timed[c];
        if (i >= nspaced)
            spaced[c].nodes = 0;
        for (int s = 0; s < ns && rc == 0; s++)
            rc = anchor_load(T, c, s, &anc[c * ns + s], &g->priced);
    }
    if (rc == 0) {
        margins(T, spaced, anc, g);
        ratio_margins(T, spaced, anc, g);
    }
    /* the job's machine, seen by every point */
    char err[512] = "";
    int have_wm = T->o.platform ? tn_machine_from_platform(&wm, T->o.platform, T->o.hostfile, NULL, T->wsize, err,
                                                           sizeof err) == 0
                                : T->have_costs && tn_machine_from_costs(&wm, &T->costs, NULL, T->world_hier,
                                                                         T->world_fanout, T->wsize, err,
                                                                         sizeof err) == 0;
    if (!have_wm && (T->o.platform || T->have_costs))
        fprintf(stderr, "topobcast-tuner: %s; the site's shapes are priced without shared links\n", err);
    tn_site_base b = {&T->site_nodes, T->world_hier, T->world_fanout, have_wm ? &wm : NULL, cfg};
    for (int k = 0; k < g->ncell && rc == 0; k++) {
        char what[96], label[TN_SHAPE_LABEL];
        rc = decide_cell(T, g, &g->cell[k], timed, anc, &b);
        snprintf(what, sizeof what, "pricing the site's shapes: %s", tn_site_label(&g->cell[k].pt[0], label, sizeof label));
        tn_progress_add(&pp, 1, what);
    }
    tn_progress_finish(&pp);
    g->seconds = tn_progress_elapsed(&pp);
    if (have_wm)
        tn_machine_free(&wm);
    for (int k = 0; k < T->ncomm * ns; k++)
        anchor_free(&anc[k]);
    free(anc);
    free(timed), free(spaced);
    return rc;
}

void tn_site_plan_print(const tn_run *T, FILE *f)
{
    const tn_site_nodes *sn = &T->site_nodes;
    const tn_opts *o = &T->o;
    long runs = 0;
    for (int k = 0; k < T->nitems; k++)
        runs += T->items[k].ntime;
    fprintf(f, "# site plan: %d shapes timed (--site-shapes %d, --site-small %d) of %d nodes (%d ranks on node 0, "
               "%d at most), %d sizes %zu..%zu B, per shape and size the K best predicted + default: %ld timed runs "
               "(and up to one more per size: the previous size's best)\n",
            T->ncomm, o->site_shapes, o->site_small, sn->n, sn->ppn0, sn->ppn_max, o->nsizes, o->sizes[0],
            o->sizes[o->nsizes - 1], runs);
    for (int c = 0; c < T->ncomm; c++) {
        long n = 0, cand = 0;
        fprintf(f, "#   %-22s %6d ranks, K = %d:", T->comms[c].label, T->comms[c].size,
                tn_opts_site_top(o, T->comms[c].size));
        for (int s = 0; s < o->nsizes; s++) {
            const tn_item *it = &T->items[c * o->nsizes + s];
            fprintf(f, " %d", it->ntime);
            n += it->ntime;
            cand += it->ncand;
        }
        fprintf(f, " = %ld runs of %ld candidates priced\n", n, cand);
    }
    fflush(f);
}

void tn_site_print(const tn_run *T, const tn_site_grid *g, FILE *f)
{
    fprintf(f, "\nsite: %d cells (every job shape of the partition), %ld shapes built as data, %ld predictions, "
               "%.1f s of pricing\n",
            g->ncell, g->points, g->priced, g->seconds);
    static const char *const axis[TN_SITE_AXES] = {"nodes", "ranks per node", "message bytes"};
    if (T->o.site_margin > 0)
        fprintf(f, "margin for shapes not timed: %.3gx (--site-margin)\n", T->o.site_margin);
    else
        fprintf(f, "margin for shapes not timed: (1 + tie) x exp(sum over the axes of q x distance), q the 90th "
                   "percentile of |log error| per unit of |log| distance of the model's extrapolation between timed "
                   "neighbours: of the ratio default / candidate (q_ratio), or of each (q_family + q_default) where "
                   "too few were measured%s\n",
                g->pairs[0] || g->pairs[1] ? "" : " (no pairs: the model's error around its median, any distance)");
    for (int ax = 0; ax < TN_SITE_AXES; ax++) {
        fprintf(f, "  along %s: %d pairs, reach x%.2f; q:", axis[ax], g->pairs[ax], exp(g->span[ax]));
        for (int k = 0; k < TB_ALG_COUNT; k++)
            if (g->q_fam[ax][k] >= 0)
                fprintf(f, " %s %.3f,", tb_alg_name((tb_alg_id)k), g->q_fam[ax][k]);
        fprintf(f, " any %.3f\n", g->q_all[ax]);
    }
    for (int s = 0; s < g->nsizes && s < TN_MAX_SIZES; s++)
        fprintf(f, "  %zu B: default as %s, q_default %.3f %.3f %.3f, q_ratio %.3f %.3f %.3f (nodes, ranks per node, "
                   "bytes); twice the nodes: %.2fx\n", T->o.sizes[s], proxy_text[g->proxy[s]], g->q_default[0][s],
                g->q_default[1][s], g->q_default[2][s], g->q_ratio[0][s], g->q_ratio[1][s], g->q_ratio[2][s],
                margin_of(T, g, TB_ALG_DEFAULT, s, NULL, NULL, 0));
    for (int k = 0; k < g->ncell; k++) {
        const tn_site_cell *c = &g->cell[k];
        char n[48], pp[48], label[TN_SHAPE_LABEL];
        tn_count_range(c->nlo, c->nhi, n, sizeof n);
        tn_count_range(c->klo, c->khi, pp, sizeof pp);
        fprintf(f, "  nodes %-6s ppn %-6s %-9s anchor %-21s", n, pp,
                c->kind == TN_KIND_MULTI_NODE ? (c->place == TN_PLACE_COMPACT ? "compact" : "scattered") : "",
                c->anchor >= 0 ? T->comms[c->anchor].label : "(none)");
        int any = 0;
        for (int s = 0; s < g->nsizes; s++)
            if (strcmp(c->win[s], "default") != 0) {
                fprintf(f, "%s%zu: %.2fx %s", any++ ? "; " : "", T->o.sizes[s], c->gain[s], c->win[s]);
            }
        fprintf(f, "%s  [%d points: %s", any ? "" : "default everywhere", c->npt, tn_site_label(&c->pt[0], label, sizeof label));
        for (int x = 1; x < c->npt; x++)
            fprintf(f, " %s", tn_site_label(&c->pt[x], label, sizeof label));
        fprintf(f, "]\n");
    }
}

void tn_site_grid_free(tn_site_grid *g)
{
    for (int k = 0; k < g->ncell; k++) {
        free(g->cell[k].win);
        free(g->cell[k].gain);
    }
    free(g->cell);
    memset(g, 0, sizeof *g);
}
