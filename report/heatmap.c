/* Distance-matrix heatmaps.  The colour scale runs from the smallest
 * off-diagonal distance to a percentile (95th) of them, not to the
 * maximum: one slow pair (a daemon, a congested link) would otherwise
 * squeeze every other distance into the darkest colours and hide the
 * structure the page is about.  Entries above are drawn in the top colour
 * and counted, and the caller says so on the page. */
#include <math.h>
#include <stdint.h>
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

/* Order-preserving key of a finite double: ascending keys, ascending
 * values (the sign bit flipped for positives, every bit for negatives). */
static uint64_t order_key(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static double key_value(uint64_t k)
{
    uint64_t u = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

#define OFFDIAG_FOR(D, n, v)                                                    \
    for (size_t i_ = 0, nn_ = (size_t)(n) * (size_t)(n); i_ < nn_; i_++)        \
        for (double v = (D)[i_]; i_ % ((size_t)(n) + 1) != 0 && isfinite(v); v = NAN)

/* The key of the k-th smallest (0-based) finite off-diagonal entry: four
 * passes, each fixing 16 more bits of the key by a histogram of the
 * entries that share the bits fixed so far. */
static uint64_t offdiag_kth(const double *D, int n, size_t k, size_t *hist)
{
    uint64_t prefix = 0, mask = 0;
    for (int shift = 48; shift >= 0; shift -= 16) {
        memset(hist, 0, 65536 * sizeof *hist);
        OFFDIAG_FOR(D, n, v) {
            uint64_t key = order_key(v);
            if ((key & mask) == prefix)
                hist[(key >> shift) & 0xffff]++;
        }
        size_t b = 0;
        while (b < 65535 && hist[b] <= k)
            k -= hist[b++];
        prefix |= (uint64_t)b << shift;
        mask |= UINT64_C(0xffff) << shift;
    }
    return prefix;
}

double tbr_percentile_offdiag(const double *D, int n, double p)
{
    size_t m = 0;
    OFFDIAG_FOR(D, n, v) {
        (void)v;
        m++;
    }
    size_t *hist = malloc(65536 * sizeof *hist);
    if (m == 0 || !hist) {
        free(hist);
        return NAN;
    }
    /* as tbr_percentile: linear between the order statistics lo and lo+1 */
    double x = p / 100 * (double)(m - 1);
    if (x < 0)
        x = 0;
    if (x > (double)(m - 1))
        x = (double)(m - 1);
    size_t lo = (size_t)floor(x), hi = lo + 1 < m ? lo + 1 : lo;
    uint64_t klo = offdiag_kth(D, n, lo, hist);
    double vlo = key_value(klo), vhi = vlo;
    if (hi > lo) {
        size_t atmost = 0;
        uint64_t next = UINT64_MAX;
        OFFDIAG_FOR(D, n, v) {
            uint64_t key = order_key(v);
            if (key <= klo)
                atmost++;
            else if (key < next)
                next = key;
        }
        if (atmost <= hi)
            vhi = key_value(next);
    }
    free(hist);
    return vlo + (x - (double)lo) * (vhi - vlo);
}

#define LEFT 64.0
#define TOP 58.0
#define SIDE 400.0
#define BAR_W 16.0

/* Mean, least and largest of the finite off-diagonal entries of a block
 * of positions. */
typedef struct block_stat {
    double mean, lo, hi;
    int diag_only;
} block_stat;

static block_stat block_mean(const tbr_heatmap *h, const int *ord, int r0, int r1, int c0, int c1)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
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
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    return (block_stat){.mean = cnt ? sum / cnt : NAN, .lo = lo, .hi = hi, .diag_only = offd == 0};
}

static void range_label(const tbr_heatmap *h, const int *ord, int p0, int p1, int grouped, char *out, size_t len)
{
    if (p1 - p0 == 1) {
        int r = ord[p0];
        if (h->names && h->names[r])
            snprintf(out, len, "%d (%s)", r, h->names[r]);
        else
            snprintf(out, len, "%d", r);
    } else if (grouped) {
        /* the host named when the group is on one (its first and last rank's) */
        int r = ord[p0], z = ord[p1 - 1];
        int one_host = h->names && h->names[r] && h->names[z] && strcmp(h->names[r], h->names[z]) == 0;
        snprintf(out, len, "%s %d (%d ranks%s%s)", h->cell_level ? h->cell_level : "group", h->cell_group[r],
                 p1 - p0, one_host ? ", " : "", one_host ? h->names[r] : "");
    } else {
        snprintf(out, len, "ranks %d..%d (positions %d-%d)", ord[p0], ord[p1 - 1], p0, p1 - 1);
    }
}

/* The cells' boundaries in positions, cut[0] = 0 < ... < cut[nc] = n:
 * one rank each up to max_cells ranks; above, the runs of cell_group
 * along the order when there are at most agg_cells of them, else blocks
 * of equal size. */
static int cell_cuts(const tbr_heatmap *h, const int *ord, int *cut, int *grouped)
{
    int n = h->n, maxc = h->max_cells > 0 ? h->max_cells : 160, aggc = h->agg_cells > 0 ? h->agg_cells : 64;
    *grouped = 0;
    if (n <= maxc) {
        for (int k = 0; k <= n; k++)
            cut[k] = k;
        return n;
    }
    if (h->cell_group) {
        int nc = 0;
        cut[0] = 0;
        for (int p = 1; p <= n && nc <= aggc; p++)
            if (p == n || h->cell_group[ord[p]] != h->cell_group[ord[p - 1]])
                cut[++nc] = p;
        if (nc <= aggc && nc > 1) {
            *grouped = 1;
            return nc;
        }
    }
    int block = (n + aggc - 1) / aggc, nc = (n + block - 1) / block;
    for (int k = 0; k < nc; k++)
        cut[k] = k * block;
    cut[nc] = n;
    return nc;
}

int tbr_heatmap_svg(tbr_buf *b, const tbr_heatmap *h, tbr_heatmap_info *info)
{
    int n = h->n;
    if (n < 1 || !h->D)
        return -1;
    int *ord = malloc((size_t)n * sizeof *ord), *cut = malloc((size_t)(n + 1) * sizeof *cut);
    if (!ord || !cut) {
        free(ord);
        free(cut);
        return -1;
    }
    for (int k = 0; k < n; k++)
        ord[k] = h->order ? h->order[k] : k;

    tbr_heatmap_info in;
    memset(&in, 0, sizeof in);
    in.vmin = INFINITY;
    in.vmax = -INFINITY;
    OFFDIAG_FOR(h->D, n, v) {
        in.noff++;
        in.vmin = v < in.vmin ? v : in.vmin;
        in.vmax = v > in.vmax ? v : in.vmax;
    }
    if (in.noff == 0) {
        in.vmin = in.vmax = in.clip = 0;
    } else {
        in.clip = tbr_percentile_offdiag(h->D, n, h->clip_pct > 0 ? h->clip_pct : 100);
        OFFDIAG_FOR(h->D, n, v) in.nclipped += v > in.clip;
    }

    int grouped, nc = cell_cuts(h, ord, cut, &grouped);
    in.block = (n + nc - 1) / nc;
    in.grouped = grouped;
    double scale_px = SIDE / n;
    double span = in.clip - in.vmin;

    double width = LEFT + SIDE + 28 + BAR_W + 86, height = TOP + SIDE + 22;
    tbr_svg_open(b, h->id, width, height, h->title);
    if (h->title)
        tbr_svg_text(b, LEFT, 18, "start", "fig-title", 0, "%s", h->title);

    /* matrix cells */
    tbr_svg_group(b, "matrix");
    char col[8], tip[640], ri[256], cj[256], tv[32], tlo[32], thi[32];
    for (int a = 0; a < nc; a++) {
        int r0 = cut[a], r1 = cut[a + 1];
        range_label(h, ord, r0, r1, grouped, ri, sizeof ri);
        for (int c = 0; c < nc; c++) {
            int c0 = cut[c], c1 = cut[c + 1];
            block_stat st = block_mean(h, ord, r0, r1, c0, c1);
            double v = st.mean;
            const char *cls = "cell", *fill = col;
            range_label(h, ord, c0, c1, grouped, cj, sizeof cj);
            if (st.diag_only) {
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
                if (grouped) { /* a group's pairs: the mean, and their range */
                    tbr_fmt_time(st.lo, tlo, sizeof tlo);
                    tbr_fmt_time(st.hi, thi, sizeof thi);
                    snprintf(tv + strlen(tv), sizeof tv - strlen(tv), " mean");
                }
                if (v > in.clip)
                    cls = "cell clipped";
                if (grouped)
                    snprintf(tip, sizeof tip, "%s \xe2\x86\x92 %s: %s, %s-%s%s", ri, cj, tv, tlo, thi,
                             v > in.clip ? " (above the colour scale)" : "");
                else
                    snprintf(tip, sizeof tip, "%s \xe2\x86\x92 %s: %s%s", ri, cj, tv,
                             v > in.clip ? " (above the colour scale)" : "");
            }
            tbr_svg_rect(b, LEFT + c0 * scale_px, TOP + r0 * scale_px, (c1 - c0) * scale_px, (r1 - r0) * scale_px,
                         cls, fill, tip);
            in.ncells++;
        }
    }
    tbr_svg_group_end(b);

    /* group outlines along the diagonal, coarsest thickest */
    for (int l = 0; l < h->nlevels; l++) {
        const int *g = h->groups[l];
        int runs = 1;
        for (int p = 1; p < n; p++)
            runs += g[ord[p]] != g[ord[p - 1]];
        if (runs > nc)
            continue; /* groups smaller than the cells: nothing to outline */
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
    free(cut);
    if (info)
        *info = in;
    return b->failed ? -1 : 0;
}
