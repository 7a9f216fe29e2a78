/* Sample mode's plan (sample_plan.h): classes refined by pivots, phase by
 * phase.
 *
 * A class holds items (ranks) of one tier, all within one cluster of the
 * level its bound names (every time inside the class is at most about the
 * bound).  Its request is a sweep (the pivot against every other item) or,
 * for a class that looks flat, a matching.  Once every pair of its request
 * is known the class is processed: replaced by the classes the times
 * reveal, or done.  Pairs already known (measured for another request) are
 * never measured twice.
 *
 * Concurrency (tbp_phase's resources): a pair uses its two ranks; unless
 * c is ranks, the groups of its ranks; under intra a pair between groups
 * also uses its class.  The classes alive at one time lie in disjoint
 * clusters, or in one cluster outside the clusters of the others, so on a
 * tree-like network (and a minimally routed dragonfly) the pairs of two
 * classes share no link, while the pairs of one class may (the cluster's
 * switch): those go one at a time, as LGate's inter-group pairs do.  At
 * the start there is one class between groups, so the first sweep runs
 * exactly as intra's inter-group pairs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pair_rounds.h" /* tbp_rand_next */
#include "sample_plan.h"

enum { SWEEP = 0, CONFIRM = 1 };

typedef struct cls {
    int *item, nitem;
    double bound; /* INFINITY: none (a tier's first class) */
    int inter;    /* between groups (items are leaders) */
    int state;    /* SWEEP or CONFIRM */
    int pivot;    /* SWEEP: the pivot, -1 until chosen */
    int (*req)[2];
    int nreq;     /* -1: no request made yet */
} cls;

struct tbp_sampler {
    int n, ngroups;
    int *group, *leader, *pos; /* leader per group; pos: place of a rank in the seeded order */
    tt_concurrency conc;
    double tau;
    uint64_t rng;
    cls *live;
    int nlive, caplive;
    /* known times: open addressing, key = i * n + j + 1 (i < j), 0 empty */
    uint64_t *key;
    double *val;
    size_t cap, count;
};

/* ---- known times ------------------------------------------------------------ */

static uint64_t pair_key(const tbp_sampler *s, int i, int j)
{
    if (i > j) {
        int t = i;
        i = j;
        j = t;
    }
    return (uint64_t)i * (uint64_t)s->n + (uint64_t)j + 1;
}

static size_t slot_of(const tbp_sampler *s, uint64_t k)
{
    uint64_t st = k;
    size_t h = (size_t)tbp_rand_next(&st) & (s->cap - 1);
    while (s->key[h] && s->key[h] != k)
        h = (h + 1) & (s->cap - 1);
    return h;
}

/* The time of (i, j), or NAN when not known. */
static double known(const tbp_sampler *s, int i, int j)
{
    size_t h = slot_of(s, pair_key(s, i, j));
    return s->key[h] ? s->val[h] : NAN;
}

static int grow_known(tbp_sampler *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    uint64_t *ok = s->key;
    double *ov = s->val;
    size_t ocap = s->cap;
    s->key = calloc(cap, sizeof *s->key);
    s->val = malloc(cap * sizeof *s->val);
    if (!s->key || !s->val) {
        free(s->key);
        free(s->val);
        s->key = ok;
        s->val = ov;
        return -1;
    }
    s->cap = cap;
    for (size_t h = 0; h < ocap; h++)
        if (ok[h]) {
            size_t g = slot_of(s, ok[h]);
            s->key[g] = ok[h];
            s->val[g] = ov[h];
        }
    free(ok);
    free(ov);
    return 0;
}

int tbp_sampler_feed(tbp_sampler *s, int i, int j, double t)
{
    if (!s || i < 0 || j < 0 || i >= s->n || j >= s->n || i == j || !isfinite(t))
        return -1;
    if (2 * (s->count + 1) > s->cap && grow_known(s) != 0)
        return -1;
    uint64_t k = pair_key(s, i, j);
    size_t h = slot_of(s, k);
    if (!s->key[h]) {
        s->key[h] = k;
        s->count++;
    }
    s->val[h] = t;
    return 0;
}

long tbp_sampler_npairs(const tbp_sampler *s)
{
    return s ? (long)s->count : 0;
}

/* ---- classes -------------------------------------------------------------- */

static void cls_free(cls *c)
{
    free(c->item);
    free(c->req);
    memset(c, 0, sizeof *c);
}

/* Appends a class of the k items it[] (copied); returns 0 or -1. */
static int add_class(tbp_sampler *s, const int *it, int k, double bound, int inter, int state, int pivot)
{
    if (s->nlive == s->caplive) {
        int cap = s->caplive ? 2 * s->caplive : 64;
        void *p = realloc(s->live, (size_t)cap * sizeof *s->live);
        if (!p)
            return -1;
        s->live = p;
        s->caplive = cap;
    }
    cls *c = &s->live[s->nlive];
    memset(c, 0, sizeof *c);
    c->item = malloc((size_t)k * sizeof *c->item);
    if (!c->item)
        return -1;
    memcpy(c->item, it, (size_t)k * sizeof *c->item);
    c->nitem = k;
    c->bound = bound;
    c->inter = inter;
    c->state = state;
    c->pivot = pivot;
    c->nreq = -1;
    s->nlive++;
    return 0;
}

/* The item of c first in the seeded order. */
static int first_item(const tbp_sampler *s, const cls *c)
{
    int best = c->item[0];
    for (int k = 1; k < c->nitem; k++)
        if (s->pos[c->item[k]] < s->pos[best])
            best = c->item[k];
    return best;
}

/* The request of c: its pivot against every other item (SWEEP), or a
 * seeded matching of its items (CONFIRM). */
static int make_request(tbp_sampler *s, cls *c)
{
    c->req = malloc((size_t)(c->nitem > 1 ? c->nitem : 1) * sizeof *c->req);
    if (!c->req)
        return -1;
    c->nreq = 0;
    if (c->state == SWEEP) {
        if (c->pivot < 0)
            c->pivot = first_item(s, c);
        for (int k = 0; k < c->nitem; k++)
            if (c->item[k] != c->pivot) {
                c->req[c->nreq][0] = c->pivot;
                c->req[c->nreq][1] = c->item[k];
                c->nreq++;
            }
        return 0;
    }
    int *sh = malloc((size_t)c->nitem * sizeof *sh);
    if (!sh)
        return -1;
    memcpy(sh, c->item, (size_t)c->nitem * sizeof *sh);
    for (int k = c->nitem - 1; k > 0; k--) {
        int x = (int)(tbp_rand_next(&s->rng) % (uint64_t)(k + 1)), t = sh[k];
        sh[k] = sh[x];
        sh[x] = t;
    }
    for (int k = 0; k + 1 < c->nitem; k += 2) {
        c->req[c->nreq][0] = sh[k];
        c->req[c->nreq][1] = sh[k + 1];
        c->nreq++;
    }
    free(sh);
    return 0;
}

typedef struct vi {
    double v;
    int k; /* index into the values, -1 for the sentinel */
} vi;

static int cmp_vi(const void *a, const void *b)
{
    const vi *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->k - y->k;
}

/* Groups of the values v[0..k) at relative jumps: a jump is where the
 * next larger value exceeds the previous one by a factor of at least
 * 1 + tau and by at least 2 % of the largest (the analysis' level rule,
 * cluster_levels.c).  gid[k] is the group of value k, 0 the smallest; a
 * finite b takes part as the sentinel, *sg its group (whose values are
 * "at the bound").  Returns the number of groups, -1 if out of memory. */
static int split_values(const double *v, int k, double b, double tau, int *gid, int *sg)
{
    int has_b = isfinite(b), m = k + has_b;
    vi *a = malloc((size_t)(m ? m : 1) * sizeof *a);
    if (!a)
        return -1;
    double vmax = has_b ? b : 0;
    for (int x = 0; x < k; x++) {
        a[x] = (vi){v[x], x};
        if (v[x] > vmax)
            vmax = v[x];
    }
    if (has_b)
        a[k] = (vi){b, -1};
    qsort(a, (size_t)m, sizeof *a, cmp_vi);
    int g = 0;
    *sg = -1;
    for (int x = 0; x < m; x++) {
        if (x > 0) {
            double lo = a[x - 1].v, hi = a[x].v;
            if (hi >= lo * (1 + tau) && hi - lo >= 0.02 * vmax)
                g++;
        }
        if (a[x].k < 0)
            *sg = g;
        else
            gid[a[x].k] = g;
    }
    free(a);
    return m ? g + 1 : 0;
}

/* Processes a SWEEP class whose pivot's times are all known: each group of
 * the others at relative jumps becomes a class (bounded by its largest
 * time, or the class's bound for the group at it); when all the others
 * form one group, the pivot is alone below them and they are confirmed by
 * a matching first.  Returns 0 or -1. */
static int process_sweep(tbp_sampler *s, int ci)
{
    cls c = s->live[ci]; /* a copy: add_class may move the array */
    int k = c.nreq, rc = -1;
    double *v = malloc((size_t)(k ? k : 1) * sizeof *v), *gmax = NULL;
    int *gid = malloc((size_t)(k ? k : 1) * sizeof *gid), *it = malloc((size_t)(k ? k : 1) * sizeof *it);
    if (!v || !gid || !it)
        goto out;
    for (int x = 0; x < k; x++)
        v[x] = known(s, c.req[x][0], c.req[x][1]);
    int sg, ng = split_values(v, k, c.bound, s->tau, gid, &sg);
    if (ng < 0 || !(gmax = malloc((size_t)(ng ? ng : 1) * sizeof *gmax)))
        goto out;
    /* a group's bound: its largest time, at least the class's bound for
     * the group at it */
    for (int g = 0; g < ng; g++)
        gmax[g] = g == sg ? c.bound : -INFINITY;
    for (int x = 0; x < k; x++)
        if (v[x] > gmax[gid[x]])
            gmax[gid[x]] = v[x];
    int first = k ? gid[0] : 0, one = 1; /* do all the others form one group? */
    for (int x = 1; x < k; x++)
        one &= gid[x] == first;
    rc = 0;
    for (int g = 0; g < ng && rc == 0; g++) {
        int cnt = 0;
        for (int x = 0; x < k; x++)
            if (gid[x] == g)
                it[cnt++] = c.req[x][1];
        if (cnt < 2)
            continue; /* nobody, or one item: everything about it is known */
        rc = add_class(s, it, cnt, gmax[g], c.inter, one ? CONFIRM : SWEEP, -1);
    }
out:
    free(v);
    free(gid);
    free(it);
    free(gmax);
    return rc;
}

/* Processes a CONFIRM class whose matching is known: flat (done) when no
 * time lies a jump below the bound; else it is swept, pivoting on an item
 * of the nearest pair found.  Returns 0 or -1. */
static int process_confirm(tbp_sampler *s, int ci)
{
    cls *c = &s->live[ci];
    int k = c->nreq;
    double *v = malloc((size_t)(k ? k : 1) * sizeof *v);
    int *gid = malloc((size_t)(k ? k : 1) * sizeof *gid);
    if (!v || !gid) {
        free(v);
        free(gid);
        return -1;
    }
    for (int x = 0; x < k; x++)
        v[x] = known(s, c->req[x][0], c->req[x][1]);
    int sg, ng = split_values(v, k, c->bound, s->tau, gid, &sg);
    int best = -1;
    for (int x = 0; x < k && ng >= 0; x++)
        if (gid[x] < sg && (best < 0 || v[x] < v[best]))
            best = x;
    free(v);
    free(gid);
    if (ng < 0)
        return -1;
    if (best < 0) {
        c->nitem = 0; /* flat: done */
        return 0;
    }
    int a = c->req[best][0], b = c->req[best][1];
    c->state = SWEEP;
    c->pivot = s->pos[a] < s->pos[b] ? a : b;
    free(c->req);
    c->req = NULL;
    c->nreq = -1;
    return 1; /* still alive, with a new request to make */
}

static int request_known(const tbp_sampler *s, const cls *c)
{
    for (int x = 0; x < c->nreq; x++)
        if (isnan(known(s, c->req[x][0], c->req[x][1])))
            return 0;
    return 1;
}

/* Processes every class whose request is known, until none is; drops the
 * finished ones.  Returns 0 or -1. */
static int settle(tbp_sampler *s)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int ci = 0; ci < s->nlive; ci++) {
            if (s->live[ci].nitem < 2)
                continue;
            if (s->live[ci].nreq < 0 && make_request(s, &s->live[ci]) != 0)
                return -1;
            if (!request_known(s, &s->live[ci]))
                continue;
            changed = 1;
            if (s->live[ci].state == SWEEP) {
                if (process_sweep(s, ci) != 0)
                    return -1;
                s->live[ci].nitem = 0; /* replaced by its groups */
            } else if (process_confirm(s, ci) < 0) {
                return -1;
            }
        }
        int w = 0;
        for (int ci = 0; ci < s->nlive; ci++) {
            if (s->live[ci].nitem < 2)
                cls_free(&s->live[ci]);
            else
                s->live[w++] = s->live[ci];
        }
        s->nlive = w;
    }
    return 0;
}

/* ---- phases ------------------------------------------------------------------ */

void tbp_phase_free(tbp_phase *ph)
{
    if (!ph)
        return;
    free(ph->pair);
    free(ph->res_start);
    free(ph->res);
    memset(ph, 0, sizeof *ph);
}

int tbp_sampler_next(tbp_sampler *s, tbp_phase *ph)
{
    memset(ph, 0, sizeof *ph);
    if (!s)
        return -1;
    /* every pair asked for last time must have been fed */
    for (int ci = 0; ci < s->nlive; ci++)
        if (s->live[ci].nreq >= 0 && !request_known(s, &s->live[ci]))
            return -1;
    if (settle(s) != 0)
        return -1;
    int total = 0, ninter = 0;
    for (int ci = 0; ci < s->nlive; ci++)
        total += s->live[ci].nreq;
    ph->pair = malloc((size_t)(total ? total : 1) * sizeof *ph->pair);
    ph->res_start = malloc(((size_t)total + 1) * sizeof *ph->res_start);
    ph->res = malloc(((size_t)total * 5 + 1) * sizeof *ph->res);
    if (!ph->pair || !ph->res_start || !ph->res) {
        tbp_phase_free(ph);
        return -1;
    }
    int base = s->n + s->ngroups, np = 0, nr = 0;
    ph->res_start[0] = 0;
    /* between groups first (the sweeps there are the longest chains), then
     * inside groups, which fill the rounds around them */
    for (int tier = 1; tier >= 0; tier--)
        for (int ci = 0; ci < s->nlive; ci++) {
            const cls *c = &s->live[ci];
            if (c->inter != tier)
                continue;
            int any = 0;
            for (int x = 0; x < c->nreq; x++) {
                int i = c->req[x][0], j = c->req[x][1];
                if (!isnan(known(s, i, j)))
                    continue;
                any = 1;
                ph->pair[np][0] = i < j ? i : j;
                ph->pair[np][1] = i < j ? j : i;
                if (s->conc == TT_CONC_SERIAL) {
                    ph->res[nr++] = base; /* the machine */
                } else {
                    ph->res[nr++] = i;
                    ph->res[nr++] = j;
                    if (s->conc != TT_CONC_RANKS) {
                        ph->res[nr++] = s->n + s->group[i];
                        if (s->group[j] != s->group[i])
                            ph->res[nr++] = s->n + s->group[j];
                        if (s->conc == TT_CONC_INTRA && c->inter)
                            ph->res[nr++] = base + ninter;
                    }
                }
                ph->res_start[++np] = nr;
            }
            ninter += any && c->inter;
        }
    ph->npairs = np;
    ph->nres = base + (ninter > 1 ? ninter : 1);
    return 0;
}

/* ---- set-up ------------------------------------------------------------------ */

int tbp_sample_auto(int n, const int *group)
{
    int *measured = malloc((size_t)(n ? n : 1) * sizeof *measured);
    if (!measured)
        return 0;
    tbp_fast_select(n, group, tbp_fast_auto(n, group), 1, measured);
    long fast = tbp_wanted_pairs(n, group, measured);
    free(measured);
    return fast > 4L * n;
}

int tbp_sampler_is_leader(const tbp_sampler *s, int r)
{
    return s && r >= 0 && r < s->n && s->leader[s->group[r]] == r;
}

void tbp_sampler_free(tbp_sampler *s)
{
    if (!s)
        return;
    for (int ci = 0; ci < s->nlive; ci++)
        cls_free(&s->live[ci]);
    free(s->live);
    free(s->group);
    free(s->leader);
    free(s->pos);
    free(s->key);
    free(s->val);
    free(s);
}

tbp_sampler *tbp_sampler_new(int n, const int *group, tt_concurrency c, double rel_gap, unsigned long seed)
{
    if (n < 1 || !group || !(rel_gap > 0) || c < 0 || c >= TT_CONC_COUNT)
        return NULL;
    tbp_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = n;
    s->conc = c;
    s->tau = rel_gap;
    s->rng = (uint64_t)seed * 0x2545f4914f6cdd1dull + 7;
    for (int r = 0; r < n; r++) {
        if (group[r] < 0) {
            free(s);
            return NULL;
        }
        if (group[r] + 1 > s->ngroups)
            s->ngroups = group[r] + 1;
    }
    s->group = malloc((size_t)n * sizeof *s->group);
    s->leader = malloc((size_t)s->ngroups * sizeof *s->leader);
    s->pos = malloc((size_t)n * sizeof *s->pos);
    int *ord = malloc((size_t)n * sizeof *ord), *it = malloc((size_t)n * sizeof *it);
    int ok = s->group && s->leader && s->pos && ord && it && grow_known(s) == 0;
    if (ok) {
        memcpy(s->group, group, (size_t)n * sizeof *group);
        /* the seeded order: pivots and leaders are the first in it */
        for (int r = 0; r < n; r++)
            ord[r] = r;
        for (int k = n - 1; k > 0; k--) {
            int x = (int)(tbp_rand_next(&s->rng) % (uint64_t)(k + 1)), t = ord[k];
            ord[k] = ord[x];
            ord[x] = t;
        }
        for (int k = 0; k < n; k++)
            s->pos[ord[k]] = k;
        for (int g = 0; g < s->ngroups; g++)
            s->leader[g] = -1;
        for (int k = 0; k < n; k++)
            if (s->leader[group[ord[k]]] < 0)
                s->leader[group[ord[k]]] = ord[k];
        /* between groups: the leaders; inside each group: its ranks */
        int nl = 0;
        for (int g = 0; g < s->ngroups; g++)
            if (s->leader[g] >= 0)
                it[nl++] = s->leader[g];
        if (nl > 1)
            ok = add_class(s, it, nl, INFINITY, 1, SWEEP, -1) == 0;
        for (int g = 0; g < s->ngroups && ok; g++) {
            int k = 0;
            for (int r = 0; r < n; r++)
                if (group[r] == g)
                    it[k++] = r;
            if (k > 1)
                ok = add_class(s, it, k, INFINITY, 0, SWEEP, s->leader[g]) == 0;
        }
    }
    free(ord);
    free(it);
    if (!ok) {
        tbp_sampler_free(s);
        return NULL;
    }
    return s;
}
