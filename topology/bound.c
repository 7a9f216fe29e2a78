/* The lower bound of a broadcast on a tt_net; see bound.h and
 * topology/README.md ("Lower bound") for the derivation. */
#include "bound.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the machine --------------------------------------------------------- */

int tt_net_init(tt_net *n, int nhost)
{
    memset(n, 0, sizeof *n);
    if (nhost < 1)
        return -1;
    size_t pairs = (size_t)nhost * (size_t)nhost;
    n->nhost = nhost;
    n->host = calloc((size_t)nhost, sizeof *n->host);
    n->roff = calloc(pairs + 1, sizeof *n->roff);
    n->rlat = calloc(pairs, sizeof *n->rlat);
    n->rok = calloc(pairs, sizeof *n->rok);
    if (!n->host || !n->roff || !n->rlat || !n->rok) {
        tt_net_free(n);
        return -1;
    }
    for (int h = 0; h < nhost; h++)
        snprintf(n->host[h], TT_NET_NAME_MAX, "h%d", h);
    return 0;
}

int tt_net_add_res(tt_net *n, const char *name, double cap)
{
    if ((n->nres & (n->nres - 1)) == 0) { /* 0, 1, 2, 4 ...: grow */
        size_t c = n->nres ? 2 * (size_t)n->nres : 8;
        void *a = realloc(n->res, c * sizeof *n->res), *b = NULL;
        if (a)
            n->res = a;
        b = realloc(n->cap, c * sizeof *n->cap);
        if (b)
            n->cap = b;
        if (!a || !b)
            return -1;
    }
    snprintf(n->res[n->nres], TT_NET_NAME_MAX, "%s", name);
    n->cap[n->nres] = cap > 0 && isfinite(cap) ? cap : INFINITY;
    return n->nres++;
}

int tt_net_set_route(tt_net *n, int a, int b, const int *ids, int len, double lat)
{
    if (a < 0 || b < 0 || a >= n->nhost || b >= n->nhost || len < 0)
        return -1;
    size_t k = (size_t)a * (size_t)n->nhost + (size_t)b;
    if (k < n->rnext)
        return -1; /* out of order, or set twice */
    int base = n->roff[n->rnext];
    for (size_t i = n->rnext; i < k; i++) /* skipped pairs: empty, missing */
        n->roff[i + 1] = base;
    int *r = realloc(n->rid, sizeof(int) * ((size_t)base + (size_t)len + 1));
    if (!r)
        return -1;
    n->rid = r;
    for (int i = 0; i < len; i++) {
        if (ids[i] < 0 || ids[i] >= n->nres)
            return -1;
        n->rid[base + i] = ids[i];
    }
    n->roff[k + 1] = base + len;
    n->rlat[k] = lat > 0 ? lat : 0;
    n->rok[k] = 1;
    n->rnext = k + 1;
    return 0;
}

int tt_net_finish(tt_net *n)
{
    size_t pairs = (size_t)n->nhost * (size_t)n->nhost;
    for (size_t i = n->rnext; i < pairs; i++)
        n->roff[i + 1] = n->roff[n->rnext];
    n->rnext = pairs;
    return 0;
}

void tt_net_free(tt_net *n)
{
    free(n->host);
    free(n->res);
    free(n->cap);
    free(n->roff);
    free(n->rid);
    free(n->rlat);
    free(n->rok);
    memset(n, 0, sizeof *n);
}

/* ---- the machine from levels --------------------------------------------- */

int tt_net_from_levels(tt_net *n, int P, int nlevels, int *const *group, const double *agg, const double *lat,
                       int **host_of)
{
    *host_of = NULL;
    if (P < 1 || nlevels < 0 || (nlevels > 0 && !group))
        return -1;
    int *hof = malloc(sizeof(int) * (size_t)P), nh = 0;
    if (!hof)
        return -1;
    for (int r = 0; r < P; r++) {
        hof[r] = nlevels ? group[nlevels - 1][r] : 0;
        if (hof[r] < 0) {
            free(hof);
            return -1;
        }
        if (hof[r] + 1 > nh)
            nh = hof[r] + 1;
    }
    /* a representative rank per host, for its groups at every level */
    int *rep = malloc(sizeof(int) * (size_t)nh);
    /* resources: per (level, group): sibling out, sibling in, beyond out, beyond in */
    int *gres = NULL;
    size_t *goff = malloc(sizeof(size_t) * ((size_t)nlevels + 1));
    if (!rep || !goff || tt_net_init(n, nh) != 0)
        goto fail;
    for (int h = 0; h < nh; h++)
        rep[h] = -1;
    for (int r = P - 1; r >= 0; r--)
        rep[hof[r]] = r;
    goff[0] = 0;
    for (int l = 0; l < nlevels; l++) {
        int ng = 0;
        for (int r = 0; r < P; r++)
            if (group[l][r] + 1 > ng)
                ng = group[l][r] + 1;
        goff[l + 1] = goff[l] + (size_t)ng;
    }
    gres = malloc(sizeof(int) * (4 * goff[nlevels] + (size_t)nh + 1));
    if (!gres)
        goto fail;
    /* a host's way beyond its parent group: the best measured of the
     * coarser classes; a coarser group's ways carry what all its hosts send
     * through theirs (the one-sender fan-out test cannot see more sharing) */
    double host_beyond = 0;
    for (int k = 0; k + 1 < nlevels; k++)
        host_beyond = agg[k] > host_beyond ? agg[k] : host_beyond;
    for (int l = 0; l < nlevels; l++) {
        double beyond = 0;
        for (int k = 0; k < l; k++)
            beyond = agg[k] > beyond ? agg[k] : beyond;
        for (size_t g = goff[l]; g < goff[l + 1]; g++) {
            int hosts = 0;
            for (int h = 0; h < nh && l + 1 < nlevels; h++)
                hosts += rep[h] >= 0 && goff[l] + (size_t)group[l][rep[h]] == g;
            char name[TT_NET_NAME_MAX];
            static const char *const way[4] = {"to siblings out", "from siblings in", "beyond out", "beyond in"};
            /* a host whose classes to its siblings and beyond run at the
             * same bandwidth (within 10 %) reaches both through one wire
             * (a node's adapter); different bandwidths are different wires
             * (a socket's link to the other socket, and to the adapter) */
            int one_wire = l == nlevels - 1 && l > 0 && fabs(agg[l] - beyond) <= 0.1 * fmax(agg[l], beyond);
            for (int w = 0; w < 4; w++) {
                double cap = l + 1 < nlevels ? hosts * host_beyond : w < 2 ? agg[l] : beyond;
                if (one_wire && w >= 2) { /* the sibling way serves beyond too */
                    gres[4 * g + (size_t)w] = gres[4 * g + (size_t)w - 2];
                    n->cap[gres[4 * g + (size_t)w]] = fmax(agg[l], beyond);
                    continue;
                }
                snprintf(name, sizeof name, "level %d group %zu %s", l, g - goff[l], way[w]);
                gres[4 * g + (size_t)w] = w < 2 || l > 0 ? tt_net_add_res(n, name, cap) : -2;
                if (gres[4 * g + (size_t)w] == -1)
                    goto fail;
            }
        }
    }
    int *mem = gres + 4 * goff[nlevels];
    for (int h = 0; h < nh; h++) {
        char name[TT_NET_NAME_MAX];
        snprintf(name, sizeof name, "host %d memory", h);
        if ((mem[h] = tt_net_add_res(n, name, agg[nlevels])) < 0)
            goto fail;
    }
    int *ids = malloc(sizeof(int) * (4 * (size_t)nlevels + 1));
    if (!ids)
        goto fail;
    for (int a = 0; a < nh; a++)
        for (int b = 0; b < nh; b++) {
            int ra = rep[a], rb = rep[b], len = 0, cls = nlevels;
            if (ra < 0 || rb < 0)
                continue; /* a host with no rank: not used */
            for (int l = 0; l < nlevels; l++)
                if (group[l][ra] != group[l][rb]) {
                    cls = l;
                    break;
                }
            if (cls == nlevels)
                ids[len++] = mem[a];
            for (int l = nlevels - 1; l >= cls; l--)
                ids[len++] = gres[4 * (goff[l] + (size_t)group[l][ra]) + (l == cls ? 0 : 2)];
            for (int l = cls; l < nlevels; l++)
                ids[len++] = gres[4 * (goff[l] + (size_t)group[l][rb]) + (l == cls ? 1 : 3)];
            if (tt_net_set_route(n, a, b, ids, len, lat[cls]) != 0) {
                free(ids);
                goto fail;
            }
        }
    free(ids);
    tt_net_finish(n);
    free(rep);
    free(goff);
    free(gres);
    *host_of = hof;
    return 0;
fail:
    tt_net_free(n);
    free(hof);
    free(rep);
    free(goff);
    free(gres);
    return -1;
}

/* ---- loads ------------------------------------------------------------------ */

static const int *route_of(const tt_net *n, int a, int b, int *len)
{
    size_t k = (size_t)a * (size_t)n->nhost + (size_t)b;
    *len = n->roff[k + 1] - n->roff[k];
    return n->rid + n->roff[k];
}

void tt_net_charge(const tt_net *n, int a, int b, double bytes, double at, double *load, double *first)
{
    int len;
    const int *r = route_of(n, a, b, &len);
    double lat = at + n->rlat[(size_t)a * (size_t)n->nhost + (size_t)b];
    for (int i = 0; i < len; i++) {
        load[r[i]] += bytes;
        if (first && lat < first[r[i]])
            first[r[i]] = lat;
    }
}

double tt_net_load_time(const tt_net *n, const double *load, const double *first, int *which)
{
    double worst = 0;
    if (which)
        *which = -1;
    for (int i = 0; i < n->nres; i++) {
        if (load[i] <= 0 || !isfinite(n->cap[i]))
            continue;
        double t = (first && isfinite(first[i]) ? first[i] : 0) + load[i] / n->cap[i];
        if (t > worst) {
            worst = t;
            if (which)
                *which = i;
        }
    }
    return worst;
}

/* ---- covers ------------------------------------------------------------------- */

/* The routes of one term and the scratch space of its covers. */
typedef struct cover_ctx {
    const tt_net *n;
    int nr, cap;        /* routes */
    int *ra, *rb;       /* route = the route from host ra[i] to host rb[i] */
    int *covered;       /* per route: picked resources on it */
    int *cnt;           /* per resource: uncovered routes through it */
    int *picked;        /* per resource */
    int *roff, *rlist;  /* per resource: the routes through it (CSR) */
    int *list;          /* picked resources */
} cover_ctx;

static int ctx_push(cover_ctx *c, int a, int b)
{
    if (c->nr == c->cap) {
        int nc = c->cap ? 2 * c->cap : 256;
        int *x = realloc(c->ra, sizeof(int) * (size_t)nc), *y = x ? realloc(c->rb, sizeof(int) * (size_t)nc) : NULL;
        if (x)
            c->ra = x;
        if (y)
            c->rb = y;
        if (!x || !y)
            return -1;
        c->cap = nc;
    }
    c->ra[c->nr] = a;
    c->rb[c->nr] = b;
    c->nr++;
    return 0;
}

static double cover_cap(const cover_ctx *c, int npick)
{
    double s = 0;
    for (int i = 0; i < npick; i++)
        s += c->n->cap[c->list[i]];
    return s;
}

/* A cover of the routes of c by limited resources: greedy (least capacity
 * per route newly covered), then redundant picks dropped, largest first;
 * and the union of every route's limited resource nearest its end.  The
 * smaller of the two is kept in c->list.  Returns its size, 0 if a route
 * crosses no limited resource (no bound), -1 out of memory. */
static int cover(cover_ctx *c)
{
    const tt_net *n = c->n;
    int R = n->nres, npick = 0;
    memset(c->cnt, 0, sizeof(int) * (size_t)R);
    memset(c->picked, 0, sizeof(int) * (size_t)R);
    free(c->covered);
    free(c->rlist);
    c->covered = calloc((size_t)c->nr + 1, sizeof(int));
    size_t tot = 0;
    for (int i = 0; i < c->nr; i++) {
        int len, lim = 0;
        const int *r = route_of(n, c->ra[i], c->rb[i], &len);
        for (int j = 0; j < len; j++)
            if (isfinite(n->cap[r[j]])) {
                c->cnt[r[j]]++;
                lim = 1;
                tot++;
            }
        if (!lim)
            return 0;
    }
    c->rlist = malloc(sizeof(int) * (tot + 1));
    if (!c->covered || !c->rlist)
        return -1;
    c->roff[0] = 0;
    for (int k = 0; k < R; k++)
        c->roff[k + 1] = c->roff[k] + c->cnt[k];
    int *fill = c->list; /* as a cursor per resource, before list is used */
    for (int k = 0; k < R; k++)
        fill[k] = c->roff[k];
    for (int i = 0; i < c->nr; i++) {
        int len;
        const int *r = route_of(n, c->ra[i], c->rb[i], &len);
        for (int j = 0; j < len; j++)
            if (isfinite(n->cap[r[j]]))
                c->rlist[fill[r[j]]++] = i;
    }
    /* greedy */
    int left = c->nr;
    while (left > 0) {
        int best = -1;
        for (int k = 0; k < R; k++)
            if (!c->picked[k] && c->cnt[k] > 0 &&
                (best < 0 || n->cap[k] * c->cnt[best] < n->cap[best] * c->cnt[k]))
                best = k;
        if (best < 0)
            break;
        c->picked[best] = 1;
        c->list[npick++] = best;
        for (int q = c->roff[best]; q < c->roff[best + 1]; q++) {
            int i = c->rlist[q];
            if (c->covered[i]++)
                continue;
            left--;
            int len;
            const int *r = route_of(n, c->ra[i], c->rb[i], &len);
            for (int j = 0; j < len; j++)
                if (isfinite(n->cap[r[j]]))
                    c->cnt[r[j]]--;
        }
    }
    /* drop redundant picks, largest capacity first */
    for (int pass = 0; pass < npick; pass++) {
        int big = -1;
        for (int i = 0; i < npick; i++)
            if (c->picked[c->list[i]] == 1 && (big < 0 || n->cap[c->list[i]] > n->cap[c->list[big]]))
                big = i;
        if (big < 0)
            break;
        int k = c->list[big], needed = 0;
        c->picked[k] = 2; /* examined */
        for (int q = c->roff[k]; q < c->roff[k + 1] && !needed; q++)
            needed = c->covered[c->rlist[q]] == 1;
        if (!needed) {
            for (int q = c->roff[k]; q < c->roff[k + 1]; q++)
                c->covered[c->rlist[q]]--;
            c->picked[k] = 0;
            c->list[big] = c->list[--npick];
        }
    }
    double greedy = cover_cap(c, npick);
    /* the union of the last limited resource of every route */
    for (int k = 0; k < R; k++)
        c->cnt[k] = 0; /* now: in the union */
    double last = 0;
    for (int i = 0; i < c->nr; i++) {
        int len;
        const int *r = route_of(n, c->ra[i], c->rb[i], &len);
        for (int j = len - 1; j >= 0; j--)
            if (isfinite(n->cap[r[j]])) {
                if (!c->cnt[r[j]]++)
                    last += n->cap[r[j]];
                break;
            }
    }
    if (last < greedy) {
        npick = 0;
        for (int k = 0; k < R; k++)
            if (c->cnt[k])
                c->list[npick++] = k;
    }
    return npick;
}

/* ---- the bound ------------------------------------------------------------- */

static int add_term(tt_bound *b, double lat, double copies, double cap, const char *what)
{
    if (b->n == b->cap_terms) {
        int nc = b->cap_terms ? 2 * b->cap_terms : 32;
        tt_bound_term *t = realloc(b->t, sizeof *t * (size_t)nc);
        if (!t)
            return -1;
        b->t = t;
        b->cap_terms = nc;
    }
    tt_bound_term *t = &b->t[b->n++];
    t->lat = lat;
    t->copies = copies;
    t->cap = cap;
    snprintf(t->what, sizeof t->what, "%s", what);
    return 0;
}

/* Names of a host set, shortened: "a", "a,b", "a +5 more". */
static void set_name(const tt_net *n, const int *hs, int k, char *out, size_t len)
{
    if (k == 1)
        snprintf(out, len, "host %s", n->host[hs[0]]);
    else if (k == 2)
        snprintf(out, len, "hosts %s,%s", n->host[hs[0]], n->host[hs[1]]);
    else
        snprintf(out, len, "%d hosts %s..%s", k, n->host[hs[0]], n->host[hs[k - 1]]);
}

static void res_names(const cover_ctx *c, int npick, char *out, size_t len)
{
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < npick && o + 1 < len; i++) {
        if (i == 3 && npick > 4) {
            snprintf(out + o, len - o, " +%d more", npick - 3);
            return;
        }
        int w = snprintf(out + o, len - o, "%s%s", i ? ", " : "", c->n->res[c->list[i]]);
        o += w > 0 ? (size_t)w : 0;
    }
}

/* The two terms of the host set hs[0..k): deliveries into it, and (root
 * outside) entry into it.  in[h] marks hs; used[h] marks hosts with ranks. */
static int set_terms(const tt_net *n, tt_bound *b, cover_ctx *c, const int *hs, int k, const char *in,
                     const int *nr, const int *used, int nused, int root_host)
{
    char sname[96], rn[160], what[256];
    set_name(n, hs, k, sname, sizeof sname);
    for (int entry = 0; entry < 2; entry++) {
        /* any root (root_host < 0): S may hold it, so one rank less, and no
         * copy has to enter S */
        int holds_root = root_host < 0 || in[root_host];
        if (entry && holds_root)
            break;
        double copies = 1;
        if (!entry) {
            copies = -holds_root;
            for (int i = 0; i < k; i++)
                copies += nr[hs[i]];
        }
        if (copies <= 0)
            continue;
        c->nr = 0;
        double lat = INFINITY;
        for (int u = 0; u < nused; u++) {
            int a = used[u];
            if (entry && in[a])
                continue;
            for (int i = 0; i < k; i++) {
                int h = hs[i];
                if (a == h && nr[h] < 2)
                    continue; /* no copy between ranks of a host of one */
                size_t q = (size_t)a * (size_t)n->nhost + (size_t)h;
                if (!n->rok[q])
                    continue;
                if (ctx_push(c, a, h) != 0)
                    return -1;
                if (n->rlat[q] < lat)
                    lat = n->rlat[q];
            }
        }
        if (c->nr == 0)
            continue;
        int np = cover(c);
        if (np < 0)
            return -1;
        if (np == 0)
            continue; /* some route is unlimited: no bound from this set */
        res_names(c, np, rn, sizeof rn);
        double cap = cover_cap(c, np);
        snprintf(what, sizeof what, "%s: %s%.0f x m through %.4g GB/s (%s)", sname, entry ? "entry, " : "", copies,
                 cap / 1e9, rn);
        if (add_term(b, lat, copies, cap, what) != 0)
            return -1;
    }
    return 0;
}

/* set_terms of hs[0..k), marked in in[] for the time of the call. */
static int marked_terms(const tt_net *n, tt_bound *b, cover_ctx *c, const int *hs, int k, char *in, const int *nr,
                        const int *used, int nused, int root_host)
{
    for (int w = 0; w < k; w++)
        in[hs[w]] = 1;
    int rc = set_terms(n, b, c, hs, k, in, nr, used, nused, root_host);
    for (int w = 0; w < k; w++)
        in[hs[w]] = 0;
    return rc;
}

/* Route length in resources, the larger of both directions. */
static int hops(const tt_net *n, int a, int b)
{
    int la, lb;
    route_of(n, a, b, &la);
    route_of(n, b, a, &lb);
    return la > lb ? la : lb;
}

static int find(int *p, int x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

int tt_bound_prepare(const tt_net *n, const int *host_of, int P, int root, tt_bound *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    if (P < 1 || root < -1 || root >= P || !host_of) {
        snprintf(err, errlen, "bound: bad placement (P=%d, root %d)", P, root);
        return -1;
    }
    int H = n->nhost, rc = -1;
    int *nr = calloc((size_t)H, sizeof(int)), *used = malloc(sizeof(int) * (size_t)H), nused = 0;
    int *hs = malloc(sizeof(int) * (size_t)H), *par = malloc(sizeof(int) * (size_t)H);
    int *lens = malloc(sizeof(int) * ((size_t)H * (size_t)H + 1));
    char *in = calloc((size_t)H, 1);
    cover_ctx c = {.n = n};
    c.cnt = malloc(sizeof(int) * ((size_t)n->nres + 1));
    c.picked = malloc(sizeof(int) * ((size_t)n->nres + 1));
    c.roff = malloc(sizeof(int) * ((size_t)n->nres + 1));
    c.list = malloc(sizeof(int) * ((size_t)n->nres + 1));
    if (!nr || !used || !hs || !par || !lens || !in || !c.cnt || !c.picked || !c.roff || !c.list) {
        snprintf(err, errlen, "bound: out of memory");
        goto out;
    }
    for (int r = 0; r < P; r++) {
        if (host_of[r] < 0 || host_of[r] >= H) {
            snprintf(err, errlen, "bound: rank %d on host %d of %d", r, host_of[r], H);
            goto out;
        }
        if (nr[host_of[r]]++ == 0)
            used[nused++] = host_of[r];
    }
    qsort(used, (size_t)nused, sizeof(int), cmp_int);
    int root_host = root >= 0 ? host_of[root] : -1;
    for (int u = 0; u < nused; u++)
        for (int v = 0; v < nused; v++)
            if ((u != v || nr[used[u]] > 1) && !n->rok[(size_t)used[u] * (size_t)H + (size_t)used[v]]) {
                snprintf(err, errlen, "bound: no route from %s to %s", n->host[used[u]], n->host[used[v]]);
                goto out;
            }
    b->lat_floor = tt_bound_latency_floor(n, host_of, P, root);
    if (root < 0)
        snprintf(b->lat_what, sizeof b->lat_what, "latency: the nearest rank%s",
                 n->send_cpu > 0 ? " and the doubling of informed ranks per send" : "");
    else
    snprintf(b->lat_what, sizeof b->lat_what, "latency: the farthest host%s",
             n->send_cpu > 0 ? " and the doubling of informed ranks per send" : "");
    if (P < 2) {
        rc = 0;
        goto out;
    }
    /* singletons */
    for (int u = 0; u < nused; u++)
        if (marked_terms(n, b, &c, &used[u], 1, in, nr, used, nused, root_host) != 0)
            goto oom;
    /* groups of hosts joined by routes of at most d resources, each d */
    int nl = 0;
    for (int u = 0; u < nused; u++)
        for (int v = u + 1; v < nused; v++)
            lens[nl++] = hops(n, used[u], used[v]);
    qsort(lens, (size_t)nl, sizeof(int), cmp_int);
    for (int i = 0; i < nl; i++) {
        if (i > 0 && lens[i] == lens[i - 1])
            continue;
        int d = lens[i];
        for (int u = 0; u < nused; u++)
            par[used[u]] = used[u];
        for (int u = 0; u < nused; u++)
            for (int v = u + 1; v < nused; v++)
                if (hops(n, used[u], used[v]) <= d) {
                    int x = find(par, used[u]), y = find(par, used[v]);
                    if (x != y)
                        par[x] = y;
                }
        for (int u = 0; u < nused; u++) {
            int r0 = find(par, used[u]);
            int first = 1;
            for (int w = 0; w < u && first; w++)
                first = find(par, used[w]) != r0;
            if (!first)
                continue; /* this group was done at its first host */
            int k = 0;
            for (int w = u; w < nused; w++)
                if (find(par, used[w]) == r0)
                    hs[k++] = used[w];
            if (k == 1)
                continue; /* a singleton: done above */
            int with_root = 0;
            for (int w = 0; w < k; w++)
                with_root |= hs[w] == root_host;
            if (marked_terms(n, b, &c, hs, k, in, nr, used, nused, root_host) != 0)
                goto oom;
            if (with_root && root_host >= 0 && k < nused) { /* and the rest of the machine */
                int kk = 0;
                for (int w = 0; w < nused; w++)
                    if (find(par, used[w]) != r0)
                        hs[kk++] = used[w];
                if (marked_terms(n, b, &c, hs, kk, in, nr, used, nused, root_host) != 0)
                    goto oom;
            }
        }
    }
    /* everything but the root's host */
    if (nused > 1 && root_host >= 0) {
        int kk = 0;
        for (int u = 0; u < nused; u++)
            if (used[u] != root_host)
                hs[kk++] = used[u];
        if (marked_terms(n, b, &c, hs, kk, in, nr, used, nused, root_host) != 0)
            goto oom;
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "bound: out of memory");
    tt_bound_free(b);
out:
    free(nr), free(used), free(hs), free(par), free(lens), free(in);
    free(c.ra), free(c.rb), free(c.covered), free(c.cnt), free(c.picked), free(c.roff), free(c.rlist), free(c.list);
    return rc;
}

double tt_bound_time(const tt_bound *b, double m, int *which)
{
    if (which)
        *which = -1;
    if (m <= 0)
        return 0;
    double best = b->lat_floor;
    for (int i = 0; i < b->n; i++) {
        double t = b->t[i].lat + b->t[i].copies * m / b->t[i].cap;
        if (t > best) {
            best = t;
            if (which)
                *which = i;
        }
    }
    return best;
}

const char *tt_bound_describe(const tt_bound *b, double m, char *out, size_t outlen)
{
    int w;
    tt_bound_time(b, m, &w);
    snprintf(out, outlen, "%s", w < 0 ? b->lat_what : b->t[w].what);
    return out;
}

void tt_bound_free(tt_bound *b)
{
    free(b->t);
    memset(b, 0, sizeof *b);
}

/* ---- the latency floor ------------------------------------------------------- */

/* Min-heap of times, for the LogP count. */
static void heap_push(double *h, int *n, double v)
{
    int i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static double heap_pop(double *h, int *n)
{
    double top = h[0], v = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
    return top;
}

double tt_bound_latency_floor(const tt_net *n, const int *host_of, int P, int root)
{
    if (P < 2)
        return 0;
    int H = n->nhost;
    int *nr = calloc((size_t)H, sizeof(int));
    double *d = malloc(sizeof(double) * (size_t)H);
    char *done = calloc((size_t)H, 1);
    double floor_t = 0;
    if (!nr || !d || !done)
        goto out;
    for (int r = 0; r < P; r++)
        nr[host_of[r]]++;
    int rh = root >= 0 ? host_of[root] : -1;
    /* Dijkstra over route latencies from the root's host (any root: none,
     * only the nearest rank's latency and the LogP count below) */
    for (int h = 0; h < H; h++)
        d[h] = INFINITY;
    if (rh >= 0)
        d[rh] = 0;
    for (; rh >= 0;) {
        int u = -1;
        for (int h = 0; h < H; h++)
            if (nr[h] && !done[h] && isfinite(d[h]) && (u < 0 || d[h] < d[u]))
                u = h;
        if (u < 0)
            break;
        done[u] = 1;
        for (int v = 0; v < H; v++) {
            size_t q = (size_t)u * (size_t)H + (size_t)v;
            if (nr[v] && v != u && n->rok[q] && d[u] + n->rlat[q] < d[v])
                d[v] = d[u] + n->rlat[q];
        }
    }
    double Lmin = INFINITY;
    for (int a = 0; a < H; a++)
        for (int b2 = 0; b2 < H && nr[a]; b2++) {
            size_t q = (size_t)a * (size_t)H + (size_t)b2;
            if (nr[b2] && (a != b2 || nr[a] > 1) && n->rok[q] && n->rlat[q] < Lmin)
                Lmin = n->rlat[q];
        }
    if (rh < 0 && isfinite(Lmin))
        floor_t = Lmin;
    for (int h = 0; h < H && rh >= 0; h++) {
        if (!nr[h] || (h == rh && nr[h] < 2))
            continue;
        double t = d[h];
        if (h == rh) { /* another rank of the root's host: back through any host */
            t = n->rok[(size_t)rh * (size_t)H + (size_t)rh] ? n->rlat[(size_t)rh * (size_t)H + (size_t)rh] : INFINITY;
            for (int a = 0; a < H; a++)
                if (a != rh && nr[a] && n->rok[(size_t)a * (size_t)H + (size_t)rh] &&
                    d[a] + n->rlat[(size_t)a * (size_t)H + (size_t)rh] < t)
                    t = d[a] + n->rlat[(size_t)a * (size_t)H + (size_t)rh];
        }
        if (isfinite(t) && t > floor_t)
            floor_t = t;
    }
    /* LogP: an informed rank sends one message per o of CPU, and a
     * message leaves after its sender's o (SMPI charges smpi/os, smpi/ois
     * before the transfer starts; a blocking rendezvous send is not
     * charged but blocks its sender longer than that), then arrives L
     * later: a send started at s informs its target at s + o + L */
    double o = n->send_cpu;
    if (o > 0 && isfinite(Lmin)) {
        double *heap = malloc(sizeof(double) * (size_t)(P + 1));
        if (heap) {
            int hn = 0, informed = 1;
            double last = 0;
            heap_push(heap, &hn, 0.0); /* the root's first send */
            while (informed < P) {
                double s = heap_pop(heap, &hn);
                last = s + o + Lmin;
                informed++;
                heap_push(heap, &hn, s + o);
                heap_push(heap, &hn, last);
            }
            if (last > floor_t)
                floor_t = last;
            free(heap);
        }
    }
out:
    free(nr);
    free(d);
    free(done);
    return floor_t;
}
