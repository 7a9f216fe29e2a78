/* A tiny SVG writer for topobcast-report.  Figures are built in memory
 * (tbr_buf) so they can be embedded inline in the HTML page and checked by
 * the unit tests without touching files.  Every piece of text and every
 * attribute value that may come from an input file (host names, algorithm
 * specs, level names) goes through tbr_escape, so the output stays
 * well-formed XML whatever the inputs hold. */
#ifndef TBR_SVG_H
#define TBR_SVG_H

#include <stddef.h>

/* Growable string.  On allocation failure `failed` is set and further
 * appends are ignored, so callers check once at the end. */
typedef struct tbr_buf {
    char *s;
    size_t len, cap;
    int failed;
} tbr_buf;

void tbr_buf_init(tbr_buf *b);
void tbr_buf_free(tbr_buf *b);
void tbr_puts(tbr_buf *b, const char *s);
void tbr_printf(tbr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends text with & < > " ' replaced by entities; control characters
 * other than tab and newline (not allowed in XML 1.0) become '?'. */
void tbr_escape(tbr_buf *b, const char *text);
/* printf, then tbr_escape of the result. */
void tbr_escapef(tbr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <svg> with xmlns, id, width/height and viewBox, role="img" and an
 * aria-label; closed by tbr_svg_close. */
void tbr_svg_open(tbr_buf *b, const char *id, double w, double h, const char *label);
void tbr_svg_close(tbr_buf *b);
/* <g class="cls"> (cls may be NULL) ... </g> */
void tbr_svg_group(tbr_buf *b, const char *cls);
void tbr_svg_group_end(tbr_buf *b);

/* Shapes.  cls, fill and stroke may be NULL (then left to the CSS); tip,
 * when not NULL, becomes a <title> child (the browser's tooltip). */
void tbr_svg_rect(tbr_buf *b, double x, double y, double w, double h, const char *cls, const char *fill,
                  const char *tip);
void tbr_svg_line(tbr_buf *b, double x1, double y1, double x2, double y2, const char *cls, const char *stroke);
void tbr_svg_circle(tbr_buf *b, double cx, double cy, double r, const char *cls, const char *fill,
                    const char *tip);
/* Open polyline through n points. */
void tbr_svg_polyline(tbr_buf *b, const double *x, const double *y, int n, const char *cls, const char *stroke);
/* <text> at (x, y); anchor is "start", "middle" or "end" (NULL: start);
 * rotate != 0 turns the text around its anchor point (degrees). */
void tbr_svg_text(tbr_buf *b, double x, double y, const char *anchor, const char *cls, double rotate,
                  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* ---- colours (colour.c) ------------------------------------------------ */

/* Sequential scale for magnitudes, t in [0, 1] (clamped): dark blue -> teal
 * -> yellow, perceptually ordered and readable for the common colour
 * vision deficiencies.  out receives "#rrggbb". */
void tbr_color_seq(double t, char out[8]);
/* Qualitative colour k (k >= 0, cycles after the palette's end). */
const char *tbr_color_cat(int k);
/* Colour of `default` (PMPI_Bcast) wherever algorithms are coloured. */
#define TBR_COLOR_DEFAULT "#bdbdbd"

/* Algorithm specs -> categorical colours, shared by the selection map and
 * the speedup curve so one algorithm has one colour on the whole page. */
#define TBR_CAT_MAX 64
typedef struct tbr_catmap {
    int n;
    char name[TBR_CAT_MAX][256];
} tbr_catmap;

/* Index of name, added if new; -1 when the map is full. */
int tbr_catmap_index(tbr_catmap *c, const char *name);
/* Colour for name ("default" is always TBR_COLOR_DEFAULT). */
const char *tbr_catmap_color(tbr_catmap *c, const char *name);

/* ---- axes (axis.c) --------------------------------------------------- */

/* A linear or log axis mapping data values to pixels [p0, p1]. */
typedef struct tbr_axis {
    double lo, hi; /* data range (log axes: positive) */
    double p0, p1; /* pixel positions of lo and hi */
    int log;       /* 0 linear, 2 log base 2, 10 log base 10 */
} tbr_axis;

double tbr_axis_map(const tbr_axis *a, double v);
/* Message-size axis position: sizes are drawn on log2, 0 sits one octave
 * left of the smallest positive size shown (lo). */
double tbr_axis_map_size(const tbr_axis *a, double bytes);
/* Human byte count: 0, 512, 4K, 1.5M, 16M (binary units). */
void tbr_fmt_bytes(double bytes, char *out, size_t len);
/* Human time from seconds with a sensible unit: 350 ns, 1.25 us, 3.1 ms;
 * _sig with `sig` significant digits instead of 3. */
void tbr_fmt_time(double seconds, char *out, size_t len);
void tbr_fmt_time_sig(double seconds, int sig, char *out, size_t len);
/* Unit for an axis of times up to max_seconds: us, or ms / s when the
 * numbers would get long; *scale converts seconds into it. */
const char *tbr_time_unit(double max_seconds, double *scale);
/* Draws the horizontal axis of sizes (ticks at powers of 2 with labels
 * every `every` octaves) at y, with a title below. */
void tbr_axis_sizes_x(tbr_buf *b, const tbr_axis *a, double y, int with_zero, const char *title);
/* Vertical axis at x with gridlines across to x_end; log axes tick at the
 * decades (and 2x, 5x when few), linear ones at 1/2/5 steps.  unit_scale
 * multiplies values for the labels (1e6 for seconds shown in us). */
void tbr_axis_y(tbr_buf *b, const tbr_axis *a, double x, double x_end, double unit_scale, const char *title);
/* \brief A panel of a ratio (speedup, efficiency) against size: its title
 *        at x, the axes of ay (vertical, x to x + w) and sizes (at y0 + h),
 *        and the dashed line at 1.0 (class "one").
 * \return the pixel height of 1.0. */
double tbr_ratio_panel(tbr_buf *b, const tbr_axis *sizes, const tbr_axis *ay, double x, double w, double y0, double h,
                       int with_zero, const char *title, const char *ytitle);
/* \brief A panel of times (microseconds, log-log) against the sizes of
 *        axis sizes, its left edge at x and width w, over [tmin, tmax] us
 *        (neither finite: 1-10 us), with its title and both axes drawn
 *        (top at y0, height h); *ty gets the time axis.
 * \return the panel's size axis. */
tbr_axis tbr_time_panel(tbr_buf *b, const tbr_axis *sizes, double x, double w, double y0, double h, int with_zero,
                        double tmin, double tmax, const char *title, tbr_axis *ty);

#endif
