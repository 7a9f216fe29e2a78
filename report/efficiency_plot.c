/* How close the tuned library comes to what the machine allows (tuner
 * --compare with a machine): efficiency = the lower bound of a broadcast
 * (topology/bound.h) / the measured time, per message size, with the 1.0
 * line that no broadcast can cross; beside it the bound and both measured
 * times, so the distance left is read in microseconds too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

#define TOP 34.0
#define PH 300.0
#define PW 440.0

static int by_bytes(const void *a, const void *b)
{
    const tbr_compare_row *x = *(tbr_compare_row *const *)a, *y = *(tbr_compare_row *const *)b;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

int tbr_efficiency_svg(tbr_buf *b, const char *id, const tbr_compare *c)
{
    /* the rows with a bound, by size */
    const tbr_compare_row **r = malloc(sizeof *r * (size_t)(c->n > 0 ? c->n : 1));
    double *px = malloc(sizeof *px * (size_t)(c->n > 0 ? c->n : 1)), *py = malloc(sizeof *py * (size_t)(c->n > 0 ? c->n : 1));
    int n = 0, rc = -1;
    if (!r || !px || !py)
        goto out;
    for (int k = 0; k < c->n; k++)
        if (!isnan(c->row[k].bound_us) && c->row[k].topobcast_us > 0)
            r[n++] = &c->row[k];
    if (n == 0)
        goto out;
    qsort(r, (size_t)n, sizeof *r, by_bytes);
    double bmin = INFINITY, bmax = 0, tmin = INFINITY, tmax = 0;
    int zero = 0;
    for (int k = 0; k < n; k++) {
        if (r[k]->bytes > 0 && r[k]->bytes < bmin)
            bmin = r[k]->bytes;
        bmax = fmax(bmax, r[k]->bytes);
        zero |= r[k]->bytes == 0;
        double lo = fmin(r[k]->topobcast_us, r[k]->default_us);
        if (r[k]->bound_us > 0)
            lo = fmin(lo, r[k]->bound_us);
        if (lo > 0)
            tmin = fmin(tmin, lo);
        tmax = fmax(tmax, fmax(r[k]->topobcast_us, r[k]->default_us));
    }
    if (!isfinite(bmin)) {
        bmin = 1;
        bmax = 2;
    }
    if (bmax <= bmin)
        bmax = bmin * 2;
    tbr_axis ax = {.lo = bmin, .hi = bmax, .log = 2};
    tbr_axis ay = {.lo = 0, .hi = 1.08, .p0 = TOP + PH, .p1 = TOP, .log = 0};
    double left1 = 70, left2 = left1 + PW + 110;
    ax.p0 = left1 + (zero ? 30 : 10);
    ax.p1 = left1 + PW - 10;
    tbr_svg_open(b, id, left2 + PW + 30, TOP + PH + 60, "efficiency against the lower bound");
    /* left: efficiency */
    double y1 = tbr_ratio_panel(b, &ax, &ay, left1, PW, TOP, PH, zero, "efficiency = lower bound / topobcast time", "efficiency");
    int np = 0;
    for (int k = 0; k < n; k++) {
        px[np] = tbr_axis_map_size(&ax, r[k]->bytes);
        py[np++] = tbr_axis_map(&ay, fmin(r[k]->efficiency, 1.08));
    }
    tbr_svg_polyline(b, px, py, np, "curve", NULL);
    char tip[512], bytes[16];
    for (int k = 0; k < n; k++) {
        tbr_fmt_bytes(r[k]->bytes, bytes, sizeof bytes);
        snprintf(tip, sizeof tip, "%s: efficiency %.3f (bound %.2f \xc2\xb5s, topobcast %.2f \xc2\xb5s) %s", bytes,
                 r[k]->efficiency, r[k]->bound_us, r[k]->topobcast_us, r[k]->alg);
        tbr_svg_circle(b, px[k], py[k], 4.5, "pt", r[k]->efficiency > 1 ? "#d62728" : "#1f77b4", tip);
    }
    tbr_svg_text(b, left1 + PW - 4, y1 - 6, "end", "note", 0, "1.0 = the bound: no broadcast is faster");

    /* right: the bound and both times, log-log */
    tbr_axis ay2, ax2 = tbr_time_panel(b, &ax, left2, PW, TOP, PH, zero, tmin, tmax,
                                       "time (max over ranks, median) and the bound", &ay2);
    static const char *const cls[3] = {"time-default", "time-tb", "time-bound"};
    static const char *const label[3] = {"default (PMPI_Bcast)", "topobcast (tuned table)", "lower bound"};
    for (int side = 0; side < 3; side++) {
        np = 0;
        for (int k = 0; k < n; k++) {
            double t = side == 0 ? r[k]->default_us : side == 1 ? r[k]->topobcast_us : r[k]->bound_us;
            if (t <= 0)
                continue;
            px[np] = tbr_axis_map_size(&ax2, r[k]->bytes);
            py[np++] = tbr_axis_map(&ay2, t);
        }
        tbr_svg_polyline(b, px, py, np, cls[side], NULL);
        tbr_svg_line(b, left2 + 12, TOP + 10 + 18 * side, left2 + 36, TOP + 10 + 18 * side, cls[side], NULL);
        tbr_svg_text(b, left2 + 40, TOP + 14 + 18 * side, "start", "legend", 0, "%s", label[side]);
    }
    tbr_svg_close(b);
    rc = b->failed ? -1 : 0;
out:
    free(r);
    free(px);
    free(py);
    return rc;
}
