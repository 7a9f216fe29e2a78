/* PLogP parameters of a few representative pairs against message size:
 * one pair per distance class of the topology (same socket, other socket
 * of the node, other node ...), so the page shows how L, the overheads and
 * the gap differ between the levels the clustering separated.  Within a
 * class the pair with the median t(0) is shown, not the first or the
 * fastest, so one odd pair does not stand for its class. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Number of levels (coarsest first) on which ranks i and j share a group. */
static int shared_levels(const tb_topology *t, int i, int j)
{
    int c = 0;
    while (c < t->nlevels && t->group[c][i] == t->group[c][j])
        c++;
    return c;
}

static double t0_of(const tt_pair_rec *p)
{
    const tt_size_rec *s = &p->s[0];
    return p->L + (s->o_s + s->o_r) / 2 + s->g;
}

static const double *sort_key;
static int cmp_key(const void *a, const void *b)
{
    double x = sort_key[*(const int *)a], y = sort_key[*(const int *)b];
    return (x > y) - (x < y);
}

int tbr_plogp_pick(const tt_meas *m, const tb_topology *t, tbr_pair_pick *out, int cap)
{
    int np = 0;
    if (m->npairs < 1 || t->nleaves != m->n)
        return 0;
    int *idx = malloc((size_t)m->npairs * sizeof *idx);
    double *key = malloc((size_t)m->npairs * sizeof *key);
    if (!idx || !key) {
        free(idx);
        free(key);
        return 0;
    }
    for (int c = t->nlevels; c >= 0 && np < cap; c--) {
        int k = 0;
        for (int q = 0; q < m->npairs; q++) {
            const tt_pair_rec *p = &m->pair[q];
            if (p->nsizes > 0 && shared_levels(t, p->i, p->j) == c) {
                key[q] = t0_of(p);
                idx[k++] = q;
            }
        }
        if (k == 0)
            continue;
        sort_key = key;
        qsort(idx, (size_t)k, sizeof *idx, cmp_key);
        sort_key = NULL;
        const tt_pair_rec *p = &m->pair[idx[(k - 1) / 2]];
        tbr_pair_pick *o = &out[np++];
        o->i = p->i;
        o->j = p->j;
        if (c == t->nlevels)
            snprintf(o->what, sizeof o->what, "same %s", t->level_name[c - 1]);
        else if (c == 0)
            snprintf(o->what, sizeof o->what, "other %s", t->level_name[0]);
        else
            snprintf(o->what, sizeof o->what, "other %s, same %s", t->level_name[c], t->level_name[c - 1]);
    }
    free(idx);
    free(key);
    return np;
}

static const tt_pair_rec *find_pair(const tt_meas *m, int i, int j)
{
    for (int q = 0; q < m->npairs; q++)
        if (m->pair[q].i == i && m->pair[q].j == j)
            return &m->pair[q];
    return NULL;
}

/* Parameter k of size record s: 0 L (of the pair), 1 o_s, 2 o_r, 3 g. */
static double param(const tt_pair_rec *p, int k, int s)
{
    switch (k) {
    case 0: return p->L;
    case 1: return p->s[s].o_s;
    case 2: return p->s[s].o_r;
    default: return p->s[s].g;
    }
}

#define PW 360.0
#define PH 190.0

int tbr_plogp_svg(tbr_buf *b, const char *id, const tt_meas *m, const tbr_pair_pick *pk, int np)
{
    const tt_pair_rec *pr[16];
    int n = 0;
    for (int k = 0; k < np && n < 16; k++) {
        const tt_pair_rec *p = find_pair(m, pk[k].i < pk[k].j ? pk[k].i : pk[k].j,
                                         pk[k].i < pk[k].j ? pk[k].j : pk[k].i);
        if (p && p->nsizes > 0)
            pr[n++] = p;
        else
            return -1;
    }
    if (n < 1)
        return -1;
    double bmin = INFINITY, bmax = 0;
    int zero = 0;
    for (int k = 0; k < n; k++)
        for (int s = 0; s < pr[k]->nsizes; s++) {
            double x = pr[k]->s[s].m;
            zero |= x == 0;
            if (x > 0 && x < bmin)
                bmin = x;
            if (x > bmax)
                bmax = x;
        }
    if (!isfinite(bmin))
        bmin = 1;
    if (bmax <= bmin)
        bmax = bmin * 2;
    int loggp = m->opt.mode == TT_MODE_LOGGP;
    static const char *const pname[4] = {"L (latency)", "o_s(m) (send overhead)", "o_r(m) (receive overhead)",
                                         "g(m) (gap)"};
    static const char *const lname[4] = {"L", "o(m)", "o(m)", "G_all(m) = g + (m-1)G"};
    double legend_h = 22 + 18 * n, top0 = 30 + legend_h;
    double cellw = PW + 120, cellh = PH + 74;
    tbr_svg_open(b, id, 2 * cellw + 20, top0 + 2 * cellh, "PLogP parameters of representative pairs");
    tbr_svg_text(b, 12, 18, "start", "fig-title", 0, "%s of representative pairs (log-log)",
                 loggp ? "LogGP parameters (o_s = o_r = o(m))" : "PLogP parameters");
    tbr_svg_group(b, "legend");
    char t0s[32];
    for (int k = 0; k < n; k++) {
        double y = 30 + 18 * k;
        tbr_svg_line(b, 14, y + 6, 40, y + 6, "series", tbr_color_cat(k));
        tbr_fmt_time(t0_of(pr[k]), t0s, sizeof t0s);
        tbr_svg_text(b, 46, y + 10, "start", "legend", 0, "ranks %d\xe2\x80\x93%d (%s \xe2\x86\x92 %s): %s, t(0) = %s",
                     pr[k]->i, pr[k]->j, m->rank[pr[k]->i].host, m->rank[pr[k]->j].host, pk[k].what, t0s);
    }
    tbr_svg_group_end(b);

    double *px = NULL, *py = NULL;
    int maxs = 2;
    for (int k = 0; k < n; k++)
        if (pr[k]->nsizes > maxs)
            maxs = pr[k]->nsizes;
    px = malloc((size_t)maxs * sizeof *px);
    py = malloc((size_t)maxs * sizeof *py);
    if (!px || !py) {
        free(px);
        free(py);
        return -1;
    }
    for (int panel = 0; panel < 4; panel++) {
        double ox = 70 + (panel % 2) * cellw, oy = top0 + (panel / 2) * cellh;
        double vmin = INFINITY, vmax = 0;
        for (int k = 0; k < n; k++)
            for (int s = 0; s < pr[k]->nsizes; s++) {
                double v = param(pr[k], panel, s);
                if (v > 0) {
                    vmin = fmin(vmin, v);
                    vmax = fmax(vmax, v);
                }
            }
        tbr_svg_text(b, ox, oy + 14, "start", "panel-title", 0, "%s", loggp ? lname[panel] : pname[panel]);
        if (!isfinite(vmin)) {
            tbr_svg_text(b, ox + PW / 2, oy + 24 + PH / 2, "middle", "note", 0, "all zero");
            continue;
        }
        if (vmax <= vmin * 1.5) {
            vmin /= 1.6;
            vmax *= 1.6;
        }
        tbr_axis ax = {.lo = bmin, .hi = bmax, .p0 = ox + (zero ? 28 : 8), .p1 = ox + PW, .log = 2};
        tbr_axis ay = {.lo = vmin / 1.15, .hi = vmax * 1.15, .p0 = oy + 24 + PH, .p1 = oy + 24, .log = 10};
        double scale;
        const char *unit = tbr_time_unit(vmax, &scale);
        tbr_axis_y(b, &ay, ox, ox + PW, scale, unit);
        tbr_axis_sizes_x(b, &ax, oy + 24 + PH, zero, "m (bytes)");
        for (int k = 0; k < n; k++) {
            int cnt = 0;
            if (panel == 0) {
                if (pr[k]->L > 0) {
                    px[0] = tbr_axis_map_size(&ax, zero ? 0 : bmin);
                    px[1] = ax.p1;
                    py[0] = py[1] = tbr_axis_map(&ay, pr[k]->L);
                    cnt = 2;
                }
            } else {
                for (int s = 0; s < pr[k]->nsizes; s++) {
                    double v = param(pr[k], panel, s);
                    if (v <= 0)
                        continue;
                    px[cnt] = tbr_axis_map_size(&ax, pr[k]->s[s].m);
                    py[cnt] = tbr_axis_map(&ay, v);
                    cnt++;
                }
            }
            if (cnt > 0)
                tbr_svg_polyline(b, px, py, cnt, "series", tbr_color_cat(k));
        }
    }
    free(px);
    free(py);
    tbr_svg_close(b);
    return b->failed ? -1 : 0;
}
