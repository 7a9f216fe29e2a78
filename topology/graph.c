/* Graph view of the topology after Bufe (2014, ch. 2): which ranks hang off a
 * common switch is invisible in a distance matrix but shows as a clique of
 * equal latencies; replacing such cliques by switch vertices, repeatedly,
 * turns the all-pairs latencies into a small graph of links whose latencies
 * add up along paths.  Latencies are compared relatively (Bufe eq. 1.9)
 * because measurement error grows with the latency. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"

typedef struct gb {
    int n;        /* objects */
    int cap;      /* vertex capacity */
    int nv;       /* vertices in use */
    double *W;    /* cap*cap edge latencies, INFINITY = no edge */
    char *sw;     /* [cap] 1 = switch */
    char *alive;  /* [cap] */
    double eps;
    long budget;
    const double *lat; /* measured n x n latencies of the objects */
} gb;

#define WW(g, u, v) ((g)->W[(size_t)(u) * (g)->cap + (v)])

/* Bufe eq. 1.9: a is less than b if b exceeds it by more than eps relative
 * to their mean. */
static int rel_less(double a, double b, double eps)
{
    if (isinf(b))
        return !isinf(a);
    if (!(b > a))
        return 0;
    double mean = 0.5 * (a + b);
    return mean <= 0.0 ? b > a : (b - a) / mean > eps;
}

static int rel_equal(double a, double b, double eps)
{
    return !rel_less(a, b, eps) && !rel_less(b, a, eps);
}

/* Is a direct link of latency w needed next to a path of length alt whose
 * shortest hop is hmin?  Yes if the path is relatively longer (eq. 1.9), and
 * also if it is longer by at least half a hop: a relative tolerance alone
 * would call 4 us and 4 us + 0.3 us equal (Bufe sec. 1.5 names this weakness)
 * and lose every link that bypasses one short intra-node hop. */
static int link_needed(double w, double alt, double hmin, double eps)
{
    if (isinf(alt))
        return !isinf(w);
    return rel_less(w, alt, eps) || alt - w > 0.5 * hmin;
}

static void set_edge(gb *g, int u, int v, double w)
{
    WW(g, u, v) = w;
    WW(g, v, u) = w;
}

/* Shortest path length u -> v with Dijkstra, ignoring the direct edge u-v
 * when skip_direct; gives up (INFINITY) once every remaining path is longer
 * than limit.  *hmin receives the shortest hop on the path.  With v < 0,
 * just fills dist[] from u.  Dense O(V^2):
 * the graph is small. */
static double shortest(const gb *g, int u, int v, int skip_direct, double limit, double *dist,
                       char *done, int *pred, double *hmin)
{
    for (int i = 0; i < g->nv; i++) {
        dist[i] = INFINITY;
        done[i] = 0;
        pred[i] = -1;
    }
    dist[u] = 0.0;
    *hmin = INFINITY;
    for (;;) {
        int x = -1;
        for (int i = 0; i < g->nv; i++)
            if (g->alive[i] && !done[i] && isfinite(dist[i]) && (x < 0 || dist[i] < dist[x]))
                x = i;
        if (x < 0 || x == v)
            break;
        if (dist[x] > limit)
            return INFINITY;
        done[x] = 1;
        for (int y = 0; y < g->nv; y++) {
            double w = WW(g, x, y);
            if (!isfinite(w) || done[y])
                continue;
            if (skip_direct && ((x == u && y == v) || (x == v && y == u)))
                continue;
            if (dist[x] + w < dist[y]) {
                dist[y] = dist[x] + w;
                pred[y] = x;
            }
        }
    }
    if (v < 0)
        return INFINITY;
    if (isfinite(dist[v]))
        for (int y = v; pred[y] >= 0; y = pred[y])
            if (WW(g, pred[y], y) < *hmin)
                *hmin = WW(g, pred[y], y);
    return dist[v];
}

/* ---- step 1: minimal latency graph (Bufe algorithm 1) ---- */

typedef struct cand {
    int a, b;
    double l;
} cand;

static int cmp_cand(const void *x, const void *y)
{
    const cand *p = x, *q = y;
    if (p->l != q->l)
        return p->l < q->l ? -1 : 1;
    if (p->a != q->a)
        return p->a - q->a;
    return p->b - q->b;
}

static int basic_model(gb *g, const double *lat)
{
    int n = g->n;
    size_t nc = (size_t)n * (size_t)(n - 1) / 2, k = 0;
    cand *c = malloc((nc ? nc : 1) * sizeof *c);
    int *deg = calloc((size_t)n, sizeof *deg);
    int **nb = calloc((size_t)n, sizeof *nb);
    if (!c || !deg || !nb) {
        free(c); free(deg); free(nb);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            c[k++] = (cand){i, j, lat[(size_t)i * n + j]};
    qsort(c, nc, sizeof *c, cmp_cand);
    for (int i = 0; i < n; i++) {
        nb[i] = malloc((size_t)n * sizeof **nb);
        if (!nb[i]) {
            for (int t = 0; t < i; t++)
                free(nb[t]);
            free(c); free(deg); free(nb);
            return -1;
        }
    }
    for (size_t q = 0; q < nc; q++) {
        int a = c[q].a, b = c[q].b;
        /* Bufe eq. 2.2: subpaths of shortest paths are shortest, so the
         * path a..d-b is the measured a-d latency plus the edge d-b. */
        double sp = INFINITY, hop = INFINITY;
        for (int t = 0; t < deg[b]; t++) {
            int d = nb[b][t];
            double via = lat[(size_t)a * n + d] + WW(g, d, b);
            if (via < sp) {
                sp = via;
                hop = WW(g, d, b);
            }
        }
        if (link_needed(c[q].l, sp, hop, g->eps)) {
            set_edge(g, a, b, c[q].l);
            nb[a][deg[a]++] = b;
            nb[b][deg[b]++] = a;
        }
    }
    for (int i = 0; i < n; i++)
        free(nb[i]);
    free(nb); free(c); free(deg);
    return 0;
}

/* ---- step 2: switches from equal-latency cliques (Bufe algorithm 2) ---- */

typedef struct bk {
    const gb *g;
    const char *in;   /* candidate subgraph membership */
    double lo, hi;    /* edge latency window of the group */
    int *best;
    int nbest;
    long steps;
    long budget;
} bk;

static int bk_adj(const bk *s, int u, int v)
{
    double w = WW(s->g, u, v);
    return isfinite(w) && w >= s->lo && w <= s->hi;
}

/* Bron-Kerbosch with pivoting over small int sets (R, P, X as arrays). */
static void bk_run(bk *s, int *R, int nr, int *P, int np, int *X, int nx)
{
    if (++s->steps > s->budget)
        return;
    if (np == 0 && nx == 0) {
        /* larger wins; equal size: lexicographically smaller set wins */
        int better = nr > s->nbest;
        if (nr == s->nbest && nr > 0) {
            int *tmp = malloc((size_t)nr * sizeof *tmp);
            if (tmp) {
                memcpy(tmp, R, (size_t)nr * sizeof *tmp);
                for (int i = 1; i < nr; i++)
                    for (int j = i; j > 0 && tmp[j - 1] > tmp[j]; j--) {
                        int t = tmp[j]; tmp[j] = tmp[j - 1]; tmp[j - 1] = t;
                    }
                for (int i = 0; i < nr; i++)
                    if (tmp[i] != s->best[i]) {
                        better = tmp[i] < s->best[i];
                        break;
                    }
                free(tmp);
            }
        }
        if (better) {
            memcpy(s->best, R, (size_t)nr * sizeof *R);
            s->nbest = nr;
            for (int i = 1; i < nr; i++)
                for (int j = i; j > 0 && s->best[j - 1] > s->best[j]; j--) {
                    int t = s->best[j]; s->best[j] = s->best[j - 1]; s->best[j - 1] = t;
                }
        }
        return;
    }
    if (nr + np <= s->nbest && s->nbest > 0)
        return; /* cannot beat the best any more */
    int pivot = np > 0 ? P[0] : X[0], pdeg = -1;
    for (int i = 0; i < np + nx; i++) {
        int u = i < np ? P[i] : X[i - np], d = 0;
        for (int j = 0; j < np; j++)
            d += bk_adj(s, u, P[j]);
        if (d > pdeg) {
            pdeg = d;
            pivot = u;
        }
    }
    int *P2 = malloc((size_t)(np + nx + 1) * sizeof *P2);
    int *X2 = malloc((size_t)(np + nx + 1) * sizeof *X2);
    int *cand = malloc((size_t)(np + 1) * sizeof *cand);
    if (!P2 || !X2 || !cand) {
        free(P2); free(X2); free(cand);
        return;
    }
    int ncand = 0;
    for (int i = 0; i < np; i++)
        if (P[i] != pivot && !bk_adj(s, pivot, P[i]))
            cand[ncand++] = P[i];
        else if (P[i] == pivot)
            cand[ncand++] = P[i];
    for (int ci = 0; ci < ncand; ci++) {
        int v = cand[ci];
        int np2 = 0, nx2 = 0;
        for (int j = 0; j < np; j++)
            if (P[j] != v && bk_adj(s, v, P[j]))
                P2[np2++] = P[j];
        for (int j = 0; j < nx; j++)
            if (bk_adj(s, v, X[j]))
                X2[nx2++] = X[j];
        R[nr] = v;
        bk_run(s, R, nr + 1, P2, np2, X2, nx2);
        /* move v from P to X */
        for (int j = 0; j < np; j++)
            if (P[j] == v) {
                P[j] = P[--np];
                break;
            }
        X[nx++] = v;
    }
    free(P2); free(X2); free(cand);
}

/* Largest clique of one vertex kind with every edge in [lo, hi]. */
static int find_clique(const gb *g, int kind, double lo, double hi, int *out)
{
    int nv = g->nv;
    int *P = malloc((size_t)nv * sizeof *P), *X = malloc((size_t)(nv + 1) * sizeof *X);
    int *R = malloc((size_t)(nv + 1) * sizeof *R);
    bk s = {.g = g, .lo = lo, .hi = hi, .best = out, .nbest = 0, .budget = g->budget};
    if (!P || !X || !R) {
        free(P); free(X); free(R);
        return 0;
    }
    int np = 0;
    for (int v = 0; v < nv; v++) {
        if (!g->alive[v] || g->sw[v] != kind)
            continue;
        int has = 0;
        for (int u = 0; u < nv && !has; u++)
            has = u != v && g->alive[u] && g->sw[u] == kind && bk_adj(&s, u, v);
        if (has)
            P[np++] = v;
    }
    if (np >= 2)
        bk_run(&s, R, 0, P, np, X, 0);
    free(P); free(X); free(R);
    return s.nbest;
}

/* A pair only becomes a switch if some third vertex sees both alike, so the
 * switch ends up with at least three links (Bufe sec. 2.2.3). */
static int pair_ok(const gb *g, int a, int b)
{
    for (int x = 0; x < g->nv; x++) {
        if (x == a || x == b || !g->alive[x])
            continue;
        double wa = WW(g, a, x), wb = WW(g, b, x);
        if (isfinite(wa) && isfinite(wb) && rel_equal(wa, wb, g->eps))
            return 1;
    }
    return 0;
}

static int new_vertex(gb *g)
{
    if (g->nv >= g->cap)
        return -1;
    int s = g->nv++;
    g->alive[s] = 1;
    g->sw[s] = 1;
    for (int v = 0; v < g->cap; v++)
        set_edge(g, s, v, INFINITY);
    return s;
}

static int replace_by_switch(gb *g, const int *c, int nc)
{
    double sum = 0.0;
    int cnt = 0;
    for (int i = 0; i < nc; i++)
        for (int j = i + 1; j < nc; j++) {
            sum += WW(g, c[i], c[j]);
            cnt++;
        }
    double l = sum / cnt;
    int s = new_vertex(g);
    if (s < 0)
        return -1;
    char *inc = calloc((size_t)g->nv, 1);
    if (!inc)
        return -1;
    for (int i = 0; i < nc; i++)
        inc[c[i]] = 1;
    for (int i = 0; i < nc; i++)
        for (int j = i + 1; j < nc; j++)
            set_edge(g, c[i], c[j], INFINITY);
    /* whoever sees every clique member at the same latency sees the switch.
     * An object needs a link to one member only and is judged on its
     * measured latencies: noise can make the basic model drop some of its
     * links to members (they looked no shorter than a path through another
     * member), and that is exactly what a switch explains. */
    for (int x = 0; x < g->nv; x++) {
        if (inc[x] || x == s || !g->alive[x])
            continue;
        int measured = x < g->n && c[0] < g->n;
        double m = 0.0;
        int links = 0, ok = 1;
        for (int i = 0; i < nc && ok; i++) {
            double w = WW(g, x, c[i]);
            links += isfinite(w);
            if (measured)
                w = g->lat[(size_t)x * g->n + c[i]];
            ok = isfinite(w);
            m += w;
        }
        if (!ok || links == 0 || (!measured && links < nc))
            continue;
        m /= nc;
        for (int i = 0; i < nc && ok; i++)
            ok = rel_equal(measured ? g->lat[(size_t)x * g->n + c[i]] : WW(g, x, c[i]), m, g->eps);
        if (!ok)
            continue;
        for (int i = 0; i < nc; i++)
            set_edge(g, x, c[i], INFINITY);
        double w = m - 0.5 * l;
        set_edge(g, x, s, w > 0.0 ? w : 0.0);
    }
    for (int i = 0; i < nc; i++)
        set_edge(g, s, c[i], 0.5 * l);
    free(inc);
    return s;
}

/* Shortest hop on the pred chain from x back to the root, or -1 if the
 * chain uses the edge {a,b}. */
static double chain_hmin(const gb *g, const int *pred, int x, int a, int b)
{
    double h = INFINITY;
    for (int y = x; pred[y] >= 0; y = pred[y]) {
        if ((y == a && pred[y] == b) || (y == b && pred[y] == a))
            return -1.0;
        if (WW(g, pred[y], y) < h)
            h = WW(g, pred[y], y);
    }
    return h;
}

/* Bufe algorithm 3: a switch-to-switch edge no shorter than another path
 * between its ends was inferred, not measured, so it goes.  Run after every
 * insertion of a switch s: s's own switch edges get the full check; for
 * older edges (u,v) the only path that can be new runs through s (s merely
 * re-routes old paths at their old lengths, plus shortcuts through itself),
 * so its length d(u,s) + d(s,v) decides without another search. */
static void eliminate_virtual(gb *g, int s, double *dist, char *done, int *pred)
{
    double *ds = malloc((size_t)g->nv * sizeof *ds);
    int *ps = malloc((size_t)g->nv * sizeof *ps);
    if (!ds || !ps) {
        free(ds);
        free(ps);
        return;
    }
    double hmin;
    shortest(g, s, -1, 0, INFINITY, dist, done, pred, &hmin);
    memcpy(ds, dist, (size_t)g->nv * sizeof *ds);
    memcpy(ps, pred, (size_t)g->nv * sizeof *ps);
    for (int u = g->n; u < g->nv; u++) {
        if (!g->alive[u] || !isfinite(ds[u]))
            continue;
        for (int v = u + 1; v < g->nv; v++) {
            double w = WW(g, u, v);
            if (!g->alive[v] || !isfinite(w))
                continue;
            /* paths longer than this are relatively longer than w anyway */
            double limit = w * (2.0 + g->eps) / (2.0 - g->eps) * (1.0 + 1e-9) + 1e-300;
            if (ds[u] + ds[v] > limit)
                continue;
            double alt = INFINITY, h1 = -1.0, h2 = -1.0;
            if (u != s && v != s) {
                h1 = chain_hmin(g, ps, u, u, v);
                h2 = chain_hmin(g, ps, v, u, v);
            }
            if (h1 >= 0.0 && h2 >= 0.0) {
                alt = ds[u] + ds[v];
                hmin = h1 < h2 ? h1 : h2;
            } else if (u == s || v == s) {
                /* an own edge (s,t): the best path avoiding it ends with
                 * some edge (x,t).  If the tree path s..x avoids (s,t) it
                 * is the best path to x; if it runs through t, the detour
                 * is at least w(x,t), a whole hop, so it cannot make the
                 * edge virtual (unless that hop is zero: search then). */
                int t = u == s ? v : u, full = 0;
                hmin = INFINITY;
                for (int x = 0; x < g->nv && !full; x++) {
                    double wx = WW(g, x, t);
                    if (x == s || !isfinite(wx) || !isfinite(ds[x]))
                        continue;
                    double hx = chain_hmin(g, ps, x, s, t);
                    if (hx < 0.0) {
                        full = wx <= 0.0;
                        continue;
                    }
                    if (ds[x] + wx < alt) {
                        alt = ds[x] + wx;
                        hmin = hx < wx ? hx : wx;
                    }
                }
                if (full)
                    alt = shortest(g, u, v, 1, limit, dist, done, pred, &hmin);
            } else {
                alt = shortest(g, u, v, 1, limit, dist, done, pred, &hmin);
            }
            if (!link_needed(w, alt, hmin, g->eps))
                set_edge(g, u, v, INFINITY);
        }
    }
    free(ds);
    free(ps);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One pass: try latency groups from the lowest; replace the first
 * qualifying clique.  Returns 1 if the graph changed. */
static int switch_pass(gb *g, double *dist, char *done, int *pred)
{
    int nv = g->nv;
    size_t ne = 0;
    for (int u = 0; u < nv; u++)
        for (int v = u + 1; v < nv; v++)
            if (g->alive[u] && g->alive[v] && g->sw[u] == g->sw[v] && isfinite(WW(g, u, v)))
                ne++;
    if (ne == 0)
        return 0;
    double *e = malloc(ne * sizeof *e); /* the latencies, ascending (finite) */
    int *clq = malloc((size_t)nv * sizeof *clq);
    int changed = 0;
    if (!e || !clq) {
        free(e);
        free(clq);
        return 0;
    }
    size_t k = 0;
    for (int u = 0; u < nv; u++)
        for (int v = u + 1; v < nv; v++)
            if (g->alive[u] && g->alive[v] && g->sw[u] == g->sw[v] && isfinite(WW(g, u, v)))
                e[k++] = WW(g, u, v);
    qsort(e, ne, sizeof *e, cmp_double);
    /* groups of roughly equal latency: chained from each group's smallest
     * value so the grouping does not depend on insertion order */
    for (size_t s = 0; s < ne && !changed;) {
        size_t t = s;
        while (t < ne && rel_equal(e[t], e[s], g->eps))
            t++;
        double lo = e[s], hi = e[t - 1];
        for (int kind = 0; kind <= 1 && !changed; kind++) {
            int nc = find_clique(g, kind, lo, hi, clq);
            if (nc >= 3 || (nc == 2 && pair_ok(g, clq[0], clq[1]))) {
                int sw = replace_by_switch(g, clq, nc);
                if (sw >= 0) {
                    eliminate_virtual(g, sw, dist, done, pred);
                    changed = 1;
                }
            }
        }
        s = t;
    }
    free(e);
    free(clq);
    return changed;
}

/* Switches joined by an edge of ~zero latency are one switch seen from two
 * groups of different nodes (Bufe sec. 2.2.5): merge them. */
static void merge_zero_switches(gb *g, double tol)
{
    for (int u = g->n; u < g->nv; u++) {
        if (!g->alive[u])
            continue;
        for (int v = u + 1; v < g->nv; v++) {
            if (!g->alive[v] || !g->sw[v] || !(WW(g, u, v) <= tol))
                continue;
            for (int x = 0; x < g->nv; x++) {
                if (x == u || x == v || !isfinite(WW(g, v, x)))
                    continue;
                if (WW(g, v, x) < WW(g, u, x))
                    set_edge(g, u, x, WW(g, v, x));
                set_edge(g, v, x, INFINITY);
            }
            set_edge(g, u, v, INFINITY);
            g->alive[v] = 0;
        }
    }
}

int tt_graph_build(const double *lat, int n, const tt_graph_opts *opts, tt_graph *out)
{
    if (!lat || !out || n < 1)
        return -1;
    memset(out, 0, sizeof *out);
    tt_graph_opts o = {.eps = 0.1, .max_clique_steps = 1000000};
    if (opts)
        o = *opts;
    gb g = {.n = n, .cap = 2 * n + 2, .nv = n, .eps = o.eps, .budget = o.max_clique_steps,
            .lat = lat};
    g.W = malloc((size_t)g.cap * g.cap * sizeof *g.W);
    g.sw = calloc((size_t)g.cap, 1);
    g.alive = calloc((size_t)g.cap, 1);
    double *dist = malloc((size_t)g.cap * sizeof *dist);
    char *done = malloc((size_t)g.cap);
    int *id = malloc((size_t)g.cap * sizeof *id);
    int rc = -1;
    if (!g.W || !g.sw || !g.alive || !dist || !done || !id)
        goto out;
    for (size_t i = 0; i < (size_t)g.cap * g.cap; i++)
        g.W[i] = INFINITY;
    for (int i = 0; i < n; i++)
        g.alive[i] = 1;
    if (basic_model(&g, lat) != 0)
        goto out;
    while (g.nv < g.cap && switch_pass(&g, dist, done, id))
        ;
    double minpos = INFINITY;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (lat[(size_t)i * n + j] > 0.0 && lat[(size_t)i * n + j] < minpos)
                minpos = lat[(size_t)i * n + j];
    if (isfinite(minpos))
        merge_zero_switches(&g, o.eps * minpos * 0.5);
    /* compact: objects keep their ids, surviving switches follow */
    int nv = 0;
    for (int v = 0; v < g.nv; v++) {
        int deg = 0;
        for (int x = 0; x < g.nv; x++)
            deg += isfinite(WW(&g, v, x));
        id[v] = (v < n || (g.alive[v] && deg > 0)) ? nv++ : -1;
    }
    size_t ne = 0;
    for (int u = 0; u < g.nv; u++)
        for (int v = u + 1; v < g.nv; v++)
            if (id[u] >= 0 && id[v] >= 0 && isfinite(WW(&g, u, v)))
                ne++;
    out->edge = malloc((ne ? ne : 1) * sizeof *out->edge);
    if (!out->edge)
        goto out;
    out->nobj = n;
    out->nvert = nv;
    for (int u = 0; u < g.nv; u++)
        for (int v = u + 1; v < g.nv; v++)
            if (id[u] >= 0 && id[v] >= 0 && isfinite(WW(&g, u, v)))
                out->edge[out->nedges++] = (tt_gedge){id[u], id[v], WW(&g, u, v)};
    rc = 0;
out:
    free(g.W); free(g.sw); free(g.alive); free(dist); free(done); free(id);
    return rc;
}

void tt_graph_free(tt_graph *g)
{
    if (!g)
        return;
    free(g->edge);
    memset(g, 0, sizeof *g);
}

int tt_graph_switches(const tt_graph *g)
{
    return g ? g->nvert - g->nobj : 0;
}

/* ---- least-squares edge latencies (Bufe sec. 2.4) ---- */

/* Cholesky solve of the symmetric positive definite A x = b (in place);
 * returns -1 if a pivot is not positive beyond tol. */
static int cholesky_solve(double *A, double *b, int m, double tol)
{
    for (int j = 0; j < m; j++) {
        double d = A[(size_t)j * m + j];
        for (int k = 0; k < j; k++)
            d -= A[(size_t)j * m + k] * A[(size_t)j * m + k];
        if (!(d > tol))
            return -1;
        d = sqrt(d);
        A[(size_t)j * m + j] = d;
        for (int i = j + 1; i < m; i++) {
            double s = A[(size_t)i * m + j];
            for (int k = 0; k < j; k++)
                s -= A[(size_t)i * m + k] * A[(size_t)j * m + k];
            A[(size_t)i * m + j] = s / d;
        }
    }
    for (int i = 0; i < m; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= A[(size_t)i * m + k] * b[k];
        b[i] = s / A[(size_t)i * m + i];
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < m; k++)
            s -= A[(size_t)k * m + i] * b[k];
        b[i] = s / A[(size_t)i * m + i];
    }
    return 0;
}

/* The end of edge e that is not v. */
static int other_end(const tt_graph *g, int e, int v)
{
    return g->edge[e].u == v ? g->edge[e].v : g->edge[e].u;
}

/* Dijkstra from src over the graph's current edge latencies, edges of
 * vertex u at adj[off[u] .. off[u+1]): dist[] and pred[] (the edge into
 * each vertex on its path, -1 at src and unreached vertices).  The fit
 * runs it once to set up the least squares and once for the residuals, so
 * both see the same paths.  Quadratic in the vertices: a few hundred. */
static void edge_paths(const tt_graph *g, const int *off, const int *adj, int src, double *dist, int *pred,
                       char *done)
{
    int V = g->nvert;
    for (int v = 0; v < V; v++) {
        dist[v] = INFINITY;
        pred[v] = -1;
        done[v] = 0;
    }
    dist[src] = 0.0;
    for (;;) {
        int u = -1;
        for (int v = 0; v < V; v++)
            if (!done[v] && isfinite(dist[v]) && (u < 0 || dist[v] < dist[u]))
                u = v;
        if (u < 0)
            break;
        done[u] = 1;
        for (int t = off[u]; t < off[u + 1]; t++) {
            int e = adj[t], w = other_end(g, e, u);
            if (!done[w] && dist[u] + g->edge[e].lat < dist[w]) {
                dist[w] = dist[u] + g->edge[e].lat;
                pred[w] = e;
            }
        }
    }
}

/* The edges of the path edge_paths found from src to v, from v back to
 * src, into path; returns their count. */
static int path_edges(const tt_graph *g, const int *pred, int src, int v, int *path)
{
    int np = 0;
    while (v != src) {
        int e = pred[v];
        path[np++] = e;
        v = other_end(g, e, v);
    }
    return np;
}

/* Walks the object pairs (i < j) that g joins, with the edges of each
 * pair's shortest path: start with i = -1, j = nobj - 1. */
typedef struct path_walk {
    const tt_graph *g;
    const int *off, *adj; /* adjacency lists (tt_graph_fit) */
    double *dist;         /* [nvert] scratch of edge_paths */
    int *pred;            /* [nvert] */
    char *done;           /* [nvert] */
    int *path;            /* [nvert] the current pair's edges */
    int i, j;             /* the current pair */
} path_walk;

/* The next pair: its edges into w->path; returns their count, or -1 when
 * every pair has been walked. */
static int next_path(path_walk *w)
{
    int n = w->g->nobj;
    for (;;) {
        if (++w->j >= n) {
            if (++w->i >= n)
                return -1;
            edge_paths(w->g, w->off, w->adj, w->i, w->dist, w->pred, w->done);
            w->j = w->i;
            continue;
        }
        if (isfinite(w->dist[w->j]))
            return path_edges(w->g, w->pred, w->i, w->j, w->path);
    }
}

int tt_graph_fit(tt_graph *g, const double *lat)
{
    if (!g || !lat || g->nobj < 2)
        return -1;
    int V = g->nvert, E = g->nedges, n = g->nobj;
    if (E == 0)
        return -1;
    /* adjacency lists: per vertex the edges in id order (deterministic paths) */
    int *deg = calloc((size_t)V, sizeof *deg), *off = malloc(((size_t)V + 1) * sizeof *off);
    int *adj = malloc((size_t)(2 * E) * sizeof *adj);
    double *dist = malloc((size_t)V * sizeof *dist);
    int *pred = malloc((size_t)V * sizeof *pred);
    char *done = malloc((size_t)V);
    double *AtA = calloc((size_t)E * E, sizeof *AtA), *Atb = calloc((size_t)E, sizeof *Atb);
    double *AtA2 = malloc((size_t)E * E * sizeof *AtA2), *x = malloc((size_t)E * sizeof *x);
    int *path = malloc((size_t)V * sizeof *path);
    int rc = -1;
    if (!deg || !off || !adj || !dist || !pred || !done || !AtA || !Atb || !AtA2 || !x || !path)
        goto out;
    for (int e = 0; e < E; e++) {
        deg[g->edge[e].u]++;
        deg[g->edge[e].v]++;
    }
    off[0] = 0;
    for (int v = 0; v < V; v++)
        off[v + 1] = off[v] + deg[v];
    for (int v = 0; v < V; v++)
        deg[v] = 0;
    for (int e = 0; e < E; e++) {
        int u = g->edge[e].u, v = g->edge[e].v;
        adj[off[u] + deg[u]++] = e;
        adj[off[v] + deg[v]++] = e;
    }
    double sum_b = 0.0, sum_bb = 0.0;
    long rows = 0;
    path_walk w = {.g = g, .off = off, .adj = adj, .dist = dist, .pred = pred, .done = done, .path = path,
                   .i = -1, .j = n - 1};
    for (int np; (np = next_path(&w)) >= 0;) {
        double b = lat[(size_t)w.i * n + w.j];
        for (int a = 0; a < np; a++) {
            Atb[path[a]] += b;
            for (int c = 0; c < np; c++)
                AtA[(size_t)path[a] * E + path[c]] += 1.0;
        }
        sum_b += b;
        sum_bb += b * b;
        rows++;
    }
    double trace = 0.0;
    for (int e = 0; e < E; e++)
        trace += AtA[(size_t)e * E + e];
    memcpy(AtA2, AtA, (size_t)E * E * sizeof *AtA);
    memcpy(x, Atb, (size_t)E * sizeof *x);
    g->rank_deficient = 0;
    if (cholesky_solve(AtA2, x, E, 1e-10 * (trace / E)) != 0) {
        /* fewer independent paths than edges (e.g. Bufe's even cycle): a
         * tiny ridge picks the smallest-norm-like solution */
        g->rank_deficient = 1;
        memcpy(AtA2, AtA, (size_t)E * E * sizeof *AtA);
        memcpy(x, Atb, (size_t)E * sizeof *x);
        for (int e = 0; e < E; e++)
            AtA2[(size_t)e * E + e] += 1e-6 * (trace / E);
        if (cholesky_solve(AtA2, x, E, 0.0) != 0)
            goto out;
    }
    /* R^2 over the same rows */
    double ss_res = 0.0;
    w.i = -1;
    w.j = n - 1;
    for (int np; (np = next_path(&w)) >= 0;) {
        double pv = 0.0;
        for (int a = 0; a < np; a++)
            pv += x[path[a]];
        double r = lat[(size_t)w.i * n + w.j] - pv;
        ss_res += r * r;
    }
    double mean = rows ? sum_b / rows : 0.0;
    double ss_tot = sum_bb - rows * mean * mean;
    g->r2 = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : 1.0;
    for (int e = 0; e < E; e++)
        g->edge[e].lat = x[e];
    g->fitted = 1;
    rc = 0;
out:
    free(deg); free(off); free(adj); free(dist); free(pred); free(done); free(AtA); free(Atb);
    free(AtA2); free(x); free(path);
    return rc;
}

/* ---- output ---- */

static void put_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
    fputc('"', out);
}

int tt_graph_write_dot(const tt_graph *g, const char *const *names, FILE *out)
{
    if (!g || !out)
        return -1;
    fprintf(out, "graph topology {\n");
    fprintf(out, "  // %d objects, %d switches, %d links%s\n", g->nobj, tt_graph_switches(g),
            g->nedges, g->fitted ? ", latencies fitted by least squares" : "");
    for (int v = 0; v < g->nvert; v++) {
        char buf[64];
        if (v < g->nobj) {
            fprintf(out, "  v%d [shape=ellipse, label=", v);
            if (names && names[v])
                put_quoted(out, names[v]);
            else {
                snprintf(buf, sizeof buf, "r%d", v);
                put_quoted(out, buf);
            }
        } else {
            snprintf(buf, sizeof buf, "switch %d", v - g->nobj);
            fprintf(out, "  v%d [shape=box, label=", v);
            put_quoted(out, buf);
        }
        fprintf(out, "];\n");
    }
    for (int e = 0; e < g->nedges; e++)
        fprintf(out, "  v%d -- v%d [label=\"%.3f us\"];\n", g->edge[e].u, g->edge[e].v,
                g->edge[e].lat * 1e6);
    fprintf(out, "}\n");
    return ferror(out) ? -1 : 0;
}

int tt_graph_write_tgf(const tt_graph *g, const char *const *names, FILE *out)
{
    if (!g || !out)
        return -1;
    for (int v = 0; v < g->nvert; v++) {
        if (v < g->nobj) {
            if (names && names[v]) {
                fprintf(out, "%d ", v + 1);
                for (const char *s = names[v]; *s; s++)
                    fputc(*s == '\n' ? ' ' : *s, out);
                fputc('\n', out);
            } else {
                fprintf(out, "%d r%d\n", v + 1, v);
            }
        } else {
            fprintf(out, "%d switch-%d\n", v + 1, v - g->nobj);
        }
    }
    fprintf(out, "#\n");
    for (int e = 0; e < g->nedges; e++)
        fprintf(out, "%d %d l: %.3fus\n", g->edge[e].u + 1, g->edge[e].v + 1,
                g->edge[e].lat * 1e6);
    return ferror(out) ? -1 : 0;
}
