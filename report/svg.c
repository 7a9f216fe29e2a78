/* SVG writer; see svg.h.  Coordinates are printed with two decimals: the
 * pages hold tens of thousands of numbers and more digits only cost bytes. */
#include "svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tbr_buf_init(tbr_buf *b)
{
    memset(b, 0, sizeof *b);
}

void tbr_buf_free(tbr_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static int reserve(tbr_buf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

static void append(tbr_buf *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void tbr_puts(tbr_buf *b, const char *s)
{
    append(b, s, strlen(s));
}

static void vprintf_buf(tbr_buf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0 || reserve(b, (size_t)n) != 0)
        return;
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void tbr_printf(tbr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf_buf(b, fmt, ap);
    va_end(ap);
}

void tbr_escape(tbr_buf *b, const char *text)
{
    if (!text)
        return;
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        switch (c) {
        case '&': tbr_puts(b, "&amp;"); break;
        case '<': tbr_puts(b, "&lt;"); break;
        case '>': tbr_puts(b, "&gt;"); break;
        case '"': tbr_puts(b, "&quot;"); break;
        case '\'': tbr_puts(b, "&#39;"); break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n')
                c = '?';
            append(b, (const char *)&c, 1);
        }
    }
}

/* fmt formatted, then escaped into b (b fails if the formatting did). */
static void escape_v(tbr_buf *b, const char *fmt, va_list ap)
{
    tbr_buf t;
    tbr_buf_init(&t);
    vprintf_buf(&t, fmt, ap);
    if (t.failed)
        b->failed = 1;
    else
        tbr_escape(b, t.s ? t.s : "");
    tbr_buf_free(&t);
}

void tbr_escapef(tbr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    escape_v(b, fmt, ap);
    va_end(ap);
}

/* ` name="value"` with the value escaped; nothing when value is NULL. */
static void attr(tbr_buf *b, const char *name, const char *value)
{
    if (!value)
        return;
    tbr_printf(b, " %s=\"", name);
    tbr_escape(b, value);
    tbr_puts(b, "\"");
}

/* Ends an element: with a <title> child when tip is given, else "/>". */
static void end_shape(tbr_buf *b, const char *elem, const char *tip)
{
    if (!tip) {
        tbr_puts(b, "/>\n");
        return;
    }
    tbr_puts(b, "><title>");
    tbr_escape(b, tip);
    tbr_printf(b, "</title></%s>\n", elem);
}

void tbr_svg_open(tbr_buf *b, const char *id, double w, double h, const char *label)
{
    tbr_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\"",
               w, h, w, h);
    attr(b, "id", id);
    tbr_puts(b, " role=\"img\"");
    attr(b, "aria-label", label);
    tbr_puts(b, ">\n");
}

void tbr_svg_close(tbr_buf *b)
{
    tbr_puts(b, "</svg>\n");
}

void tbr_svg_group(tbr_buf *b, const char *cls)
{
    tbr_puts(b, "<g");
    attr(b, "class", cls);
    tbr_puts(b, ">\n");
}

void tbr_svg_group_end(tbr_buf *b)
{
    tbr_puts(b, "</g>\n");
}

void tbr_svg_rect(tbr_buf *b, double x, double y, double w, double h, const char *cls, const char *fill,
                  const char *tip)
{
    tbr_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", x, y, w < 0 ? 0 : w, h < 0 ? 0 : h);
    attr(b, "class", cls);
    attr(b, "fill", fill);
    end_shape(b, "rect", tip);
}

void tbr_svg_line(tbr_buf *b, double x1, double y1, double x2, double y2, const char *cls, const char *stroke)
{
    tbr_printf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", x1, y1, x2, y2);
    attr(b, "class", cls);
    attr(b, "stroke", stroke);
    tbr_puts(b, "/>\n");
}

void tbr_svg_circle(tbr_buf *b, double cx, double cy, double r, const char *cls, const char *fill,
                    const char *tip)
{
    tbr_printf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", cx, cy, r);
    attr(b, "class", cls);
    attr(b, "fill", fill);
    end_shape(b, "circle", tip);
}

void tbr_svg_polyline(tbr_buf *b, const double *x, const double *y, int n, const char *cls, const char *stroke)
{
    if (n < 1)
        return;
    tbr_puts(b, "<polyline points=\"");
    for (int k = 0; k < n; k++)
        tbr_printf(b, "%s%.2f,%.2f", k ? " " : "", x[k], y[k]);
    tbr_puts(b, "\" fill=\"none\"");
    attr(b, "class", cls);
    attr(b, "stroke", stroke);
    tbr_puts(b, "/>\n");
}

void tbr_svg_text(tbr_buf *b, double x, double y, const char *anchor, const char *cls, double rotate,
                  const char *fmt, ...)
{
    tbr_printf(b, "<text x=\"%.2f\" y=\"%.2f\"", x, y);
    if (anchor && strcmp(anchor, "start") != 0)
        attr(b, "text-anchor", anchor);
    attr(b, "class", cls);
    if (rotate != 0)
        tbr_printf(b, " transform=\"rotate(%.1f %.2f %.2f)\"", rotate, x, y);
    tbr_puts(b, ">");
    va_list ap;
    va_start(ap, fmt);
    escape_v(b, fmt, ap);
    va_end(ap);
    tbr_puts(b, "</text>\n");
}
