/* Axes shared by the plots (declared in svg.h): message sizes on log2 with
 * binary-unit labels, times and speedups on log10 or linear scales with
 * 1/2/5 ticks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

static double tr(const tbr_axis *a, double v)
{
    if (a->log == 2)
        return log2(v);
    if (a->log == 10)
        return log10(v);
    return v;
}

double tbr_axis_map(const tbr_axis *a, double v)
{
    double lo = tr(a, a->lo), hi = tr(a, a->hi);
    double t = hi > lo ? (tr(a, v) - lo) / (hi - lo) : 0.5;
    return a->p0 + t * (a->p1 - a->p0);
}

double tbr_axis_map_size(const tbr_axis *a, double bytes)
{
    if (bytes <= 0)
        bytes = a->lo / 2;
    return tbr_axis_map(a, bytes);
}

void tbr_fmt_bytes(double bytes, char *out, size_t len)
{
    static const char *const unit[] = {"", "K", "M", "G", "T"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    if (u == 0 || bytes == floor(bytes))
        snprintf(out, len, "%.0f%s", bytes, unit[u]);
    else
        snprintf(out, len, "%.3g%s", bytes, unit[u]);
}

void tbr_fmt_time_sig(double s, int sig, char *out, size_t len)
{
    double a = fabs(s);
    if (a == 0)
        snprintf(out, len, "0");
    else if (a < 1e-6)
        snprintf(out, len, "%.*g ns", sig, s * 1e9);
    else if (a < 1e-3)
        snprintf(out, len, "%.*g \xc2\xb5s", sig, s * 1e6);
    else if (a < 1)
        snprintf(out, len, "%.*g ms", sig, s * 1e3);
    else
        snprintf(out, len, "%.*g s", sig, s);
}

void tbr_fmt_time(double s, char *out, size_t len)
{
    tbr_fmt_time_sig(s, 3, out, len);
}

const char *tbr_time_unit(double max_seconds, double *scale)
{
    if (max_seconds >= 10) {
        *scale = 1;
        return "s";
    }
    if (max_seconds >= 10e-3) {
        *scale = 1e3;
        return "ms";
    }
    *scale = 1e6;
    return "\xc2\xb5s";
}

void tbr_axis_sizes_x(tbr_buf *b, const tbr_axis *a, double y, int with_zero, const char *title)
{
    int e0 = (int)ceil(log2(a->lo) - 1e-9), e1 = (int)floor(log2(a->hi) + 1e-9);
    double width = fabs(a->p1 - a->p0);
    int every = 1;
    while (every < 64 && (e1 - e0) / every * 38.0 > width)
        every++;
    /* labels at multiples of 10 octaves (1K, 1M) read best: prefer steps
     * dividing 10 */
    if (every > 2 && every < 5)
        every = 5;
    else if (every > 5 && every < 10)
        every = 10;
    double xa = with_zero ? tbr_axis_map_size(a, 0) : a->p0;
    tbr_svg_line(b, xa, y, a->p1, y, "axis", NULL);
    if (with_zero) {
        tbr_svg_line(b, xa, y, xa, y + 4, "axis", NULL);
        tbr_svg_text(b, xa, y + 16, "middle", "tick", 0, "0");
    }
    for (int e = e0; e <= e1; e++) {
        double x = tbr_axis_map(a, ldexp(1, e));
        int labelled = ((e % every) + every) % every == 0;
        tbr_svg_line(b, x, y, x, y + (labelled ? 5 : 3), "axis", NULL);
        if (labelled) {
            char t[16];
            tbr_fmt_bytes(ldexp(1, e), t, sizeof t);
            tbr_svg_text(b, x, y + 16, "middle", "tick", 0, "%s", t);
        }
    }
    if (title)
        tbr_svg_text(b, (xa + a->p1) / 2, y + 32, "middle", "axis-title", 0, "%s", title);
}

/* Tick label with few digits: 0.5, 2, 20, 1e+03 written as 1000. */
static void tick_label(double v, char *out, size_t len)
{
    if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(out, len, "%.0e", v);
    else
        snprintf(out, len, "%.6g", v);
}

void tbr_axis_y(tbr_buf *b, const tbr_axis *a, double x, double x_end, double unit_scale, const char *title)
{
    double top = a->p1 < a->p0 ? a->p1 : a->p0, bottom = a->p1 < a->p0 ? a->p0 : a->p1;
    tbr_svg_line(b, x, top, x, bottom, "axis", NULL);
    char t[32];
    if (a->log) {
        double d0 = floor(log10(a->lo) + 1e-9), d1 = ceil(log10(a->hi) - 1e-9);
        int few = d1 - d0 <= 2;
        for (double d = d0; d <= d1; d++) {
            static const double mult[] = {1, 2, 5};
            for (int k = 0; k < (few ? 3 : 1); k++) {
                double v = mult[k] * pow(10, d);
                if (v < a->lo * (1 - 1e-9) || v > a->hi * (1 + 1e-9))
                    continue;
                double y = tbr_axis_map(a, v);
                tbr_svg_line(b, x, y, x_end, y, k == 0 ? "grid" : "grid minor", NULL);
                tick_label(v * unit_scale, t, sizeof t);
                tbr_svg_text(b, x - 5, y + 4, "end", "tick", 0, "%s", t);
            }
        }
    } else {
        double span = a->hi - a->lo;
        double step = pow(10, floor(log10(span > 0 ? span : 1)));
        if (span / step < 2.5)
            step /= 5;
        else if (span / step < 5)
            step /= 2;
        for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9; v += step) {
            double y = tbr_axis_map(a, v);
            tbr_svg_line(b, x, y, x_end, y, "grid", NULL);
            tick_label(fabs(v) < step * 1e-9 ? 0 : v * unit_scale, t, sizeof t);
            tbr_svg_text(b, x - 5, y + 4, "end", "tick", 0, "%s", t);
        }
    }
    if (title)
        tbr_svg_text(b, x - 44, (top + bottom) / 2, "middle", "axis-title", -90, "%s", title);
}

tbr_axis tbr_time_panel(tbr_buf *b, const tbr_axis *sizes, double x, double w, double y0, double h, int with_zero,
                        double tmin, double tmax, const char *title, tbr_axis *ty)
{
    if (!isfinite(tmin)) {
        tmin = 1;
        tmax = 10;
    }
    *ty = (tbr_axis){.lo = tmin / 1.3, .hi = tmax * 1.3, .p0 = y0 + h, .p1 = y0, .log = 10};
    tbr_axis ax = *sizes;
    ax.p0 = x + (with_zero ? 30 : 10);
    ax.p1 = x + w - 10;
    tbr_svg_text(b, x, 18, "start", "fig-title", 0, "%s", title);
    tbr_axis_y(b, ty, x, x + w, 1, "time (\xc2\xb5s)");
    tbr_axis_sizes_x(b, &ax, y0 + h, with_zero, "message size (bytes)");
    return ax;
}

double tbr_ratio_panel(tbr_buf *b, const tbr_axis *sizes, const tbr_axis *ay, double x, double w, double y0, double h,
                       int with_zero, const char *title, const char *ytitle)
{
    tbr_svg_text(b, x, 18, "start", "fig-title", 0, "%s", title);
    tbr_axis_y(b, ay, x, x + w, 1, ytitle);
    tbr_axis_sizes_x(b, sizes, y0 + h, with_zero, "message size (bytes)");
    double y1 = tbr_axis_map(ay, 1.0);
    tbr_svg_line(b, x, y1, x + w, y1, "one", NULL);
    return y1;
}
