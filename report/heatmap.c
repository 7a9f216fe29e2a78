/* Distance-matrix heatmaps.  The colour scale runs from the smallest
 * off-diagonal distance to a percentile (95th) of them, not to the
 * maximum: one slow pair (a daemon, a congested link) would otherwise
 * squeeze every other distance into the darkest colours and hide the
 * structure the page is about.  Entries above are drawn in the top colour
 * and counted, and the caller says so on the page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tbr_percentile(const double *v, int n, double p)
{
    double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    if (!s)
        return NAN;
    int m = 0;
    for (int k = 0; k < n; k++)
        if (isfinite(v[k]))
            s[m++] = v[k];
    double r = NAN;
    if (m > 0) {
        qsort(s, (size_t)m, sizeof *s, cmp_double);
        double x = p / 100 * (m - 1);
        if (x < 0)
            x = 0;
        if (x > m - 1)
            x = m - 1;
        int lo = (int)floor(x);
        int hi = lo + 1 < m ? lo + 1 : lo;
        r = s[lo] + (x - lo) * (s[hi] - s[lo]);
    }
    free(s);
    return r;
}

#define LEFT 64.0
#define TOP 58.0
#define SIDE 400.0
#define BAR_W 16.0

/* Mean of the finite off-diagonal entries of a block of positions. */
static double block_mean(const tbr_heatmap *h, const int *ord, int r0, int r1, int c0, int c1, int *diag_only)
{
    double sum = 0;
    int cnt = 0, offd = 0;
    for (int a = r0; a < r1; a++)
        for (int c = c0; c < c1; c++) {
            int i = ord[a], j = ord[c];
            if (i == j)
                continue;
            offd++;
            double v = h->D[(size_t)i * (size_t)h->n + (size_t)j];
            if (isfinite(v)) {
                sum += v;
                cnt++;
            }
        }
    *diag_only = offd == 0;
    return cnt ? sum / cnt : NAN;
}

static void range_label(const tbr_heatmap *h, const int *ord, int p0, int p1, char *out, size_t len)
{
    if (p1 - p0 == 1) {
        int r = ord[p0];
        if (h->names && h->names[r])
            snprintf(out, len, "%d (%s)", r, h->names[r]);
        else
            snprintf(out, len, "%d", r);
    } else {
        snprintf(out, len, "ranks %d..%d (positions %d-%d)", ord[p0], ord[p1 - 1], p0, p1 - 1);
    }
}

int tbr_heatmap_svg(tbr_buf *b, const tbr_heatmap *h, tbr_heatmap_info *info)
{
    int n = h->n;
    if (n < 1 || !h->D)
        return -1;
    int *ord = malloc((size_t)n * sizeof *ord);
    double *off = malloc((size_t)n * (size_t)n * sizeof *off);
    if (!ord || !off) {
        free(ord);
        free(off);
        return -1;
    }
    for (int k = 0; k < n; k++)
        ord[k] = h->order ? h->order[k] : k;

    tbr_heatmap_info in;
    memset(&in, 0, sizeof in);
    int m = 0;
    in.vmin = INFINITY;
    in.vmax = -INFINITY;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = h->D[(size_t)i * (size_t)n + (size_t)j];
            if (i == j || !isfinite(v))
                continue;
            off[m++] = v;
            if (v < in.vmin)
                in.vmin = v;
            if (v > in.vmax)
                in.vmax = v;
        }
    in.noff = m;
    if (m == 0) {
        in.vmin = in.vmax = in.clip = 0;
    } else {
        in.clip = tbr_percentile(off, m, h->clip_pct > 0 ? h->clip_pct : 100);
        for (int k = 0; k < m; k++)
            in.nclipped += off[k] > in.clip;
    }
    free(off);

    int maxc = h->max_cells > 0 ? h->max_cells : 160;
    in.block = (n + maxc - 1) / maxc;
    int nc = (n + in.block - 1) / in.block;
    double cell = SIDE / nc, scale_px = SIDE / n;
    double span = in.clip - in.vmin;

    double width = LEFT + SIDE + 28 + BAR_W + 86, height = TOP + SIDE + 22;
    tbr_svg_open(b, h->id, width, height, h->title);
    if (h->title)
        tbr_svg_text(b, LEFT, 18, "start", "fig-title", 0, "%s", h->title);

    /* matrix cells */
    tbr_svg_group(b, "matrix");
    char col[8], tip[640], ri[256], cj[256], tv[32];
    for (int a = 0; a < nc; a++) {
        int r0 = a * in.block, r1 = r0 + in.block < n ? r0 + in.block : n;
        for (int c = 0; c < nc; c++) {
            int c0 = c * in.block, c1 = c0 + in.block < n ? c0 + in.block : n;
            int diag_only;
            double v = block_mean(h, ord, r0, r1, c0, c1, &diag_only);
            const char *cls = "cell", *fill = col;
            range_label(h, ord, r0, r1, ri, sizeof ri);
            range_label(h, ord, c0, c1, cj, sizeof cj);
            if (diag_only) {
                cls = "cell diag";
                fill = "#f2f2f2";
                snprintf(tip, sizeof tip, "%s: itself", ri);
            } else if (!isfinite(v)) {
                cls = "cell missing";
                fill = "#ffffff";
                snprintf(tip, sizeof tip, "%s \xe2\x86\x92 %s: not measured", ri, cj);
            } else {
                tbr_color_seq(span > 0 ? (v - in.vmin) / span : 0.5, col);
                tbr_fmt_time(v, tv, sizeof tv);
                if (v > in.clip) {
                    cls = "cell clipped";
                    snprintf(tip, sizeof tip, "%s \xe2\x86\x92 %s: %s (above the colour scale)", ri, cj, tv);
                } else {
                    snprintf(tip, sizeof tip, "%s \xe2\x86\x92 %s: %s", ri, cj, tv);
                }
            }
            tbr_svg_rect(b, LEFT + c * cell, TOP + a * cell, cell, cell, cls, fill, tip);
            in.ncells++;
        }
    }
    tbr_svg_group_end(b);

    /* group outlines along the diagonal, coarsest thickest */
    for (int l = 0; l < h->nlevels; l++) {
        const int *g = h->groups[l];
        double w = 3.0 - 0.8 * l;
        if (w < 0.8)
            w = 0.8;
        tbr_printf(b, "<g class=\"outline\" stroke-width=\"%.1f\">\n", w);
        for (int p0 = 0; p0 < n;) {
            int p1 = p0 + 1;
            while (p1 < n && g[ord[p1]] == g[ord[p0]])
                p1++;
            double x = LEFT + p0 * scale_px, s = (p1 - p0) * scale_px;
            tbr_svg_rect(b, x, TOP + p0 * scale_px, s, s, "grp", "none", NULL);
            p0 = p1;
        }
        tbr_svg_group_end(b);
    }

    /* rank labels: every position when there is room, else every k-th */
    int every = 1;
    while (scale_px * every < 11)
        every++;
    double fs = scale_px * every >= 14 ? 11 : 9;
    tbr_printf(b, "<g class=\"ranklabels\" font-size=\"%.0f\">\n", fs);
    for (int p = 0; p < n; p += every) {
        double c = (p + 0.5) * scale_px;
        tbr_svg_text(b, LEFT - 4, TOP + c + fs * 0.35, "end", "tick", 0, "%d", ord[p]);
        tbr_svg_text(b, LEFT + c, TOP - 5, every > 1 || n > 24 ? "start" : "middle", "tick",
                     every > 1 || n > 24 ? -90 : 0, "%d", ord[p]);
    }
    tbr_svg_group_end(b);
    tbr_svg_text(b, LEFT - 40, TOP + SIDE / 2, "middle", "axis-title", -90, "sender rank");
    tbr_svg_text(b, LEFT + SIDE / 2, TOP + SIDE + 16, "middle", "axis-title", 0, "receiver rank");

    /* colour bar: 48 bands from vmin (bottom) to the clip value (top) */
    double bx = LEFT + SIDE + 28;
    tbr_svg_group(b, "colorbar");
    for (int k = 0; k < 48; k++) {
        tbr_color_seq((k + 0.5) / 48, col);
        tbr_svg_rect(b, bx, TOP + SIDE - (k + 1) * SIDE / 48, BAR_W, SIDE / 48 + 0.5, "band", col, NULL);
    }
    tbr_svg_rect(b, bx, TOP, BAR_W, SIDE, "bar-frame", "none", NULL);
    /* enough digits that neighbouring labels differ (a narrow range far
     * from zero, e.g. 1.010 .. 1.018 ms, needs more than three) */
    int sig = 3;
    if (span > 0) {
        sig = (int)ceil(log10(fabs(in.clip) / (span / 4))) + 1;
        sig = sig < 3 ? 3 : sig > 7 ? 7 : sig;
    }
    for (int k = 0; k <= 4; k++) {
        if (!(span > 0) && k != 2)
            continue; /* all distances equal: one label */
        double v = in.vmin + span * k / 4, y = TOP + SIDE - SIDE * k / 4;
        tbr_fmt_time_sig(v, sig, tv, sizeof tv);
        tbr_svg_line(b, bx + BAR_W, y, bx + BAR_W + 4, y, "axis", NULL);
        tbr_svg_text(b, bx + BAR_W + 6, y + 4, "start", "tick", 0, "%s%s", k == 4 && in.nclipped ? "\xe2\x89\xa5" : "",
                     tv);
    }
    if (in.nclipped)
        tbr_svg_text(b, bx, TOP - 8, "start", "note", 0, "clipped at p%.0f", h->clip_pct);
    tbr_svg_group_end(b);
    tbr_svg_close(b);
    free(ord);
    if (info)
        *info = in;
    return b->failed ? -1 : 0;
}
