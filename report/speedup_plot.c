/* The tuned library against the MPI library's own broadcast (tuner
 * --compare): speedup per message size with the 1.0 line that separates
 * gain from loss, and beside it both absolute times, since a 2x speedup of
 * a 2 us broadcast and of a 2 ms one mean different things. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const tbr_compare *sort_c;
static int cmp_rows(const void *a, const void *b)
{
    double x = sort_c->row[*(const int *)a].bytes, y = sort_c->row[*(const int *)b].bytes;
    return (x > y) - (x < y);
}

#define TOP 34.0
#define PH 300.0
#define PW 440.0

int tbr_speedup_svg(tbr_buf *b, const char *id, const tbr_compare *c, tbr_catmap *colors)
{
    if (c->n < 1)
        return -1;
    int *ix = malloc((size_t)c->n * sizeof *ix);
    double *px = malloc((size_t)c->n * sizeof *px), *py = malloc((size_t)c->n * sizeof *py);
    if (!ix || !px || !py) {
        free(ix);
        free(px);
        free(py);
        return -1;
    }
    for (int k = 0; k < c->n; k++)
        ix[k] = k;
    sort_c = c;
    qsort(ix, (size_t)c->n, sizeof *ix, cmp_rows);
    sort_c = NULL;
    double bmin = INFINITY, bmax = 0, smin = 1, smax = 1, tmin = INFINITY, tmax = 0;
    int zero = 0;
    for (int k = 0; k < c->n; k++) {
        const tbr_compare_row *r = &c->row[k];
        if (r->bytes > 0 && r->bytes < bmin)
            bmin = r->bytes;
        if (r->bytes > bmax)
            bmax = r->bytes;
        zero |= r->bytes == 0;
        if (r->speedup > 0) {
            smin = fmin(smin, r->speedup);
            smax = fmax(smax, r->speedup);
        }
        double t0 = fmin(r->default_us, r->topobcast_us), t1 = fmax(r->default_us, r->topobcast_us);
        if (t0 > 0)
            tmin = fmin(tmin, t0);
        tmax = fmax(tmax, t1);
    }
    if (!isfinite(bmin)) {
        bmin = 1;
        bmax = 2;
    }
    if (bmax <= bmin)
        bmax = bmin * 2;
    double pad = (smax - smin) * 0.08 + 0.02;
    tbr_axis ax = {.lo = bmin, .hi = bmax, .log = 2};
    tbr_axis ay = {.lo = fmax(0, smin - pad), .hi = smax + pad, .p0 = TOP + PH, .p1 = TOP, .log = 0};
    double left1 = 70, left2 = left1 + PW + 110;
    ax.p0 = left1 + (zero ? 30 : 10);
    ax.p1 = left1 + PW - 10;

    /* the algorithms of the points, in size order, for the legend */
    int *uniq = malloc((size_t)c->n * sizeof *uniq), nu = 0;
    if (!uniq) {
        free(ix);
        free(px);
        free(py);
        return -1;
    }
    for (int k = 0; k < c->n; k++) {
        int dup = 0;
        for (int q = 0; q < nu && !dup; q++)
            dup = strcmp(c->row[uniq[q]].alg, c->row[ix[k]].alg) == 0;
        if (!dup)
            uniq[nu++] = ix[k];
    }
    tbr_svg_open(b, id, left2 + PW + 30, TOP + PH + 60 + 18 * nu, "speedup against default");
    /* left: speedup */
    double y1 = tbr_ratio_panel(b, &ax, &ay, left1, PW, TOP, PH, zero, "speedup = default time / topobcast time", "speedup");
    int np = 0;
    for (int k = 0; k < c->n; k++) {
        const tbr_compare_row *r = &c->row[ix[k]];
        if (r->speedup <= 0)
            continue;
        px[np] = tbr_axis_map_size(&ax, r->bytes);
        py[np] = tbr_axis_map(&ay, r->speedup);
        np++;
    }
    tbr_svg_polyline(b, px, py, np, "curve", NULL);
    char tip[512], bytes[16];
    for (int k = 0; k < c->n; k++) {
        const tbr_compare_row *r = &c->row[ix[k]];
        if (r->speedup <= 0)
            continue;
        tbr_fmt_bytes(r->bytes, bytes, sizeof bytes);
        snprintf(tip, sizeof tip, "%s: %.3fx (default %.2f \xc2\xb5s, topobcast %.2f \xc2\xb5s) %s", bytes, r->speedup,
                 r->default_us, r->topobcast_us, r->alg);
        tbr_svg_circle(b, tbr_axis_map_size(&ax, r->bytes), tbr_axis_map(&ay, r->speedup), 4.5, "pt",
                       tbr_catmap_color(colors, r->alg), tip);
    }

    /* after the curve, so its halo keeps it readable where they cross */
    tbr_svg_text(b, left1 + PW - 4, y1 + 14, "end", "note", 0, "1.0 = as fast as default");

    /* right: absolute times, log-log */
    tbr_axis ay2, ax2 = tbr_time_panel(b, &ax, left2, PW, TOP, PH, zero, tmin, tmax,
                                       "broadcast time (max over ranks, median)", &ay2);
    for (int side = 0; side < 2; side++) {
        np = 0;
        for (int k = 0; k < c->n; k++) {
            const tbr_compare_row *r = &c->row[ix[k]];
            double t = side ? r->topobcast_us : r->default_us;
            if (t <= 0)
                continue;
            px[np] = tbr_axis_map_size(&ax2, r->bytes);
            py[np] = tbr_axis_map(&ay2, t);
            np++;
        }
        tbr_svg_polyline(b, px, py, np, side ? "time-tb" : "time-default", NULL);
    }
    tbr_svg_line(b, left2 + 12, TOP + 10, left2 + 36, TOP + 10, "time-default", NULL);
    tbr_svg_text(b, left2 + 40, TOP + 14, "start", "legend", 0, "default (PMPI_Bcast)");
    tbr_svg_line(b, left2 + 12, TOP + 28, left2 + 36, TOP + 28, "time-tb", NULL);
    tbr_svg_text(b, left2 + 40, TOP + 32, "start", "legend", 0, "topobcast (tuned table)");
    tbr_svg_group(b, "legend");
    for (int q = 0; q < nu; q++) {
        double y = TOP + PH + 52 + 18 * q;
        tbr_svg_circle(b, left1 + 7, y + 6, 4.5, "swatch", tbr_catmap_color(colors, c->row[uniq[q]].alg), NULL);
        tbr_svg_text(b, left1 + 18, y + 10, "start", "legend", 0, "%s", c->row[uniq[q]].alg);
    }
    tbr_svg_group_end(b);
    free(uniq);
    tbr_svg_close(b);
    free(ix);
    free(px);
    free(py);
    return b->failed ? -1 : 0;
}
