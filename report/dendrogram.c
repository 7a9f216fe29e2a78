/* The dendrogram of the agglomerative clustering, with the heights at
 * which the clustering library cut it into levels.  Heights are linear:
 * the gaps between merge distances are what made the levels, and a linear
 * axis shows them at their true size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The nodes drawn at the bottom, left to right so that no link crosses
 * another: every node below first_shown (a rank, or a merge not drawn)
 * whose parent is drawn; first_shown = n gives the ranks.  Returns their
 * number. */
static int bottom_order(const tt_dendrogram *dg, int first_shown, int *order)
{
    int n = dg->n;
    int *stack = malloc((size_t)(2 * n) * sizeof *stack);
    if (!stack)
        return -1;
    int sp = 0, k = 0;
    stack[sp++] = 2 * n - 2;
    while (sp > 0) {
        int id = stack[--sp];
        if (id < first_shown) {
            if (k < n)
                order[k++] = id;
            continue;
        }
        const tt_merge *m = &dg->merge[id - n];
        stack[sp++] = m->b; /* pushed first, popped second: a's leaves go left */
        stack[sp++] = m->a;
    }
    free(stack);
    return k;
}

int tbr_dendrogram_order(const tt_dendrogram *dg, int *order)
{
    int n = dg->n;
    if (n < 1)
        return -1;
    if (n == 1) {
        order[0] = 0;
        return 0;
    }
    return bottom_order(dg, n, order) == n ? 0 : -1;
}

/* The first rank (leftmost leaf) below node id. */
static int first_leaf(const tt_dendrogram *dg, int id)
{
    while (id >= dg->n)
        id = dg->merge[id - dg->n].a;
    return id;
}

#define LEFT 78.0
#define TOP 34.0
#define PLOT_H 300.0

int tbr_dendrogram_svg(tbr_buf *b, const tbr_dendro *d)
{
    const tt_dendrogram *dg = d->dg;
    int n = dg->n;
    if (n < 2)
        return -1;
    /* above max_leaves ranks, only the top merges: the nodes they join are
     * drawn as triangles up to their height, with their number of ranks */
    int maxl = d->max_leaves > 0 ? d->max_leaves : 160, aggl = d->agg_leaves > 1 ? d->agg_leaves : 64;
    int nslot = n <= maxl ? n : aggl < n ? aggl : n;
    int first_shown = n + (n - nslot); /* merges from this node id up are drawn */
    int *order = malloc((size_t)n * sizeof *order);
    double *x = malloc((size_t)(2 * n - 1) * sizeof *x), *y = malloc((size_t)(2 * n - 1) * sizeof *y);
    if (!order || !x || !y || bottom_order(dg, first_shown, order) != nslot) {
        free(order);
        free(x);
        free(y);
        return -1;
    }
    /* at most ~900 px wide so the cut labels stay on a 1400 px page */
    double sp = 900.0 / nslot;
    if (sp > 60)
        sp = 60;
    if (sp < 1.5)
        sp = 1.5;
    double plot_w = sp * nslot, right = 230;
    int nlabel_every = 1;
    while (sp * nlabel_every < 10)
        nlabel_every++;
    double hmax = 0;
    for (int k = 0; k < n - 1; k++)
        if (dg->merge[k].dist > hmax)
            hmax = dg->merge[k].dist;
    if (!(hmax > 0))
        hmax = 1;
    tbr_axis ay = {.lo = 0, .hi = hmax * 1.08, .p0 = TOP + PLOT_H, .p1 = TOP, .log = 0};

    double label_h = 96;
    tbr_svg_open(b, d->id, LEFT + plot_w + right, TOP + PLOT_H + label_h, "dendrogram");
    char title[96];
    double scale = d->unit_scale;
    const char *unit = d->unit ? d->unit : "";
    if (d->unit_scale == 1e6) /* times in seconds: pick us, ms or s */
        unit = tbr_time_unit(hmax, &scale);
    snprintf(title, sizeof title, "merge distance (%s)", unit);
    tbr_axis_y(b, &ay, LEFT - 8, LEFT + plot_w, scale, title);

    char tip[160], tv[32];
    for (int p = 0; p < nslot; p++) {
        int id = order[p];
        x[id] = LEFT + (p + 0.5) * sp;
        y[id] = id < n ? ay.p0 : tbr_axis_map(&ay, dg->merge[id - n].dist);
    }
    if (nslot < n) {
        tbr_svg_group(b, "subtrees");
        for (int p = 0; p < nslot; p++) {
            int id = order[p];
            if (id < n)
                continue;
            const tt_merge *m = &dg->merge[id - n];
            double hw = sp * 0.4;
            double px[4] = {x[id], x[id] - hw, x[id] + hw, x[id]}, py[4] = {y[id], ay.p0, ay.p0, y[id]};
            tbr_fmt_time(m->dist, tv, sizeof tv);
            snprintf(tip, sizeof tip, "%d ranks merged at or below %s (merges not drawn)", m->size, tv);
            tbr_puts(b, "<g><title>");
            tbr_escape(b, tip);
            tbr_puts(b, "</title>");
            tbr_svg_polyline(b, px, py, 4, "sub", NULL);
            tbr_puts(b, "</g>\n");
        }
        tbr_svg_group_end(b);
    }
    tbr_svg_group(b, "links");
    for (int k = first_shown - n; k < n - 1; k++) {
        const tt_merge *m = &dg->merge[k];
        double yk = tbr_axis_map(&ay, m->dist);
        x[n + k] = (x[m->a] + x[m->b]) / 2;
        y[n + k] = yk;
        double px[4] = {x[m->a], x[m->a], x[m->b], x[m->b]};
        double py[4] = {y[m->a], yk, yk, y[m->b]};
        tbr_fmt_time(m->dist, tv, sizeof tv);
        snprintf(tip, sizeof tip, "merge %d: %d members at %s", k, m->size, tv);
        tbr_puts(b, "<g><title>");
        tbr_escape(b, tip);
        tbr_puts(b, "</title>");
        tbr_svg_polyline(b, px, py, 4, "link", NULL);
        tbr_puts(b, "</g>\n");
    }
    tbr_svg_group_end(b);

    /* level cuts, coarsest (highest) first */
    if (d->h) {
        tbr_svg_group(b, "cuts");
        for (int l = 0; l < d->h->nlevels; l++) {
            double c = d->h->cut[l];
            if (!isfinite(c))
                continue;
            double yc = tbr_axis_map(&ay, c);
            tbr_svg_line(b, LEFT, yc, LEFT + plot_w + 8, yc, "cut", NULL);
            tbr_fmt_time(c, tv, sizeof tv);
            tbr_svg_text(b, LEFT + plot_w + 12, yc + 4, "start", "cut-label", 0, "%s: %d groups (cut %s)",
                         d->h->name[l], d->h->nclusters[l], tv);
        }
        tbr_svg_group_end(b);
    }

    tbr_svg_group(b, "leaves");
    for (int p = 0; p < nslot; p += nlabel_every) {
        int id = order[p], r = first_leaf(dg, id);
        double lx = LEFT + (p + 0.5) * sp, ly = ay.p0 + 10;
        if (id >= n)
            tbr_svg_text(b, lx, ly, "end", "tick", -60, "(%d) %d %s", dg->merge[id - n].size, r,
                         d->leaf_names && d->leaf_names[r] ? d->leaf_names[r] : "");
        else if (d->leaf_names && d->leaf_names[r])
            tbr_svg_text(b, lx, ly, "end", "tick", -60, "%d %s", r, d->leaf_names[r]);
        else
            tbr_svg_text(b, lx, ly, "end", "tick", -60, "r%d", r);
    }
    tbr_svg_group_end(b);
    tbr_svg_close(b);
    free(order);
    free(x);
    free(y);
    return b->failed ? -1 : 0;
}
