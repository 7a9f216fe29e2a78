/* The page around the figures: one self-contained HTML file with an
 * inline style sheet and inline SVG, no scripts, fonts or anything else
 * fetched, so it opens offline, from a mail attachment or a cluster's
 * scratch directory alike. */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

static const char style[] =
    "body{margin:0;background:#fafafa;color:#222;font:14px/1.45 system-ui,-apple-system,'Segoe UI',"
    "'DejaVu Sans','Liberation Sans',Arial,sans-serif}\n"
    "main{max-width:1340px;margin:0 auto;padding:16px 24px 48px}\n"
    "h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd;"
    "padding-bottom:4px}\n"
    "p{margin:6px 0;max-width:1100px}p.meta{color:#555}p.note{color:#7a4b00;background:#fff6e0;"
    "border-left:3px solid #e0a000;padding:4px 8px}\n"
    "p.missing{color:#666;font-style:italic}\n"
    ".facts{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}.fact{background:#fff;border:1px solid #ddd;"
    "border-radius:6px;padding:6px 12px}.fact b{display:block;font-size:18px}\n"
    ".row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\n"
    "figure{margin:8px 0;background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:8px;"
    "overflow-x:auto}\n"
    "figcaption{font-size:12.5px;color:#555;max-width:560px;margin-top:4px}\n"
    "figure.wide figcaption{max-width:1100px}\n"
    "svg{display:block}svg text{font-family:inherit;fill:#222}\n"
    "svg .fig-title{font-size:13px;font-weight:600}svg .panel-title{font-size:12.5px;font-weight:600}\n"
    "svg .tick{font-size:10.5px;fill:#444}svg .axis-title{font-size:11.5px;fill:#333}\n"
    "svg .legend{font-size:11.5px}svg .note{font-size:11px;fill:#7a4b00;paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
    "svg .axis{stroke:#666;stroke-width:1}svg .grid{stroke:#e6e6e6;stroke-width:1}"
    "svg .grid.minor{stroke:#f2f2f2}\n"
    "svg .cell{stroke:none;shape-rendering:crispEdges}svg .grp{stroke:#fff;fill:none}svg .bar-frame{stroke:#888;fill:none}\n"
    "svg .link{stroke:#335;stroke-width:1.3}svg .sub{stroke:#335;stroke-width:1;fill:#dde3ee}svg .cut{stroke:#d62728;stroke-width:1.4;stroke-dasharray:6 4}\n"
    "svg .cut-label{font-size:11.5px;fill:#b01c1d}\n"
    "svg .edge{stroke:#999;stroke-width:1.2}svg .tnode{stroke:#7a8ca0;stroke-width:1}\n"
    "svg .tlabel{font-size:12px;font-weight:600}svg .tsub{font-size:11px;fill:#555}"
    "svg .tleaf{font-size:11.5px;fill:#333}\n"
    "svg .one{stroke:#d62728;stroke-width:1.3;stroke-dasharray:5 4}svg .curve{stroke:#1f77b4;stroke-width:2}\n"
    "svg .pt{stroke:#fff;stroke-width:1}svg .time-default{stroke:#888;stroke-width:2}"
    "svg .time-tb{stroke:#1f77b4;stroke-width:2}svg .time-bound{stroke:#2ca02c;stroke-width:2;stroke-dasharray:6 3}\n"
    "svg .series{stroke-width:2}svg .swatch{stroke:#666;stroke-width:.5}\n"
    "table.acc{border-collapse:collapse;background:#fff;font-size:13px}table.acc th,table.acc td{border:1px solid "
    "#ddd;padding:4px 10px;text-align:right}table.acc thead th{background:#f0f0f0}table.acc tbody th{text-align:left}"
    "\ntable.acc td.best{background:#fff3c4;font-weight:600}table.acc td.best.exact{background:#d8f0d0}\n"
    "table.acc small{color:#666;font-weight:400}\n"
    "pre.tree{background:#fff;border:1px solid #e2e2e2;padding:8px;font-size:12.5px}\n";

void tbr_html_begin(tbr_buf *b, const char *title)
{
    tbr_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    tbr_puts(b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>");
    tbr_escape(b, title);
    tbr_puts(b, "</title>\n<style>\n");
    tbr_puts(b, style);
    tbr_puts(b, "</style>\n</head>\n<body>\n<main>\n<h1>");
    tbr_escape(b, title);
    tbr_puts(b, "</h1>\n");
}

void tbr_html_end(tbr_buf *b)
{
    tbr_puts(b, "</main>\n</body>\n</html>\n");
}

void tbr_html_section(tbr_buf *b, const char *id, const char *heading)
{
    tbr_puts(b, "<section id=\"");
    tbr_escape(b, id);
    tbr_puts(b, "\">\n<h2>");
    tbr_escape(b, heading);
    tbr_puts(b, "</h2>\n");
}

void tbr_html_section_end(tbr_buf *b)
{
    tbr_puts(b, "</section>\n");
}

void tbr_html_p(tbr_buf *b, const char *cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    tbr_puts(b, "<p");
    if (cls) {
        tbr_puts(b, " class=\"");
        tbr_escape(b, cls);
        tbr_puts(b, "\"");
    }
    tbr_puts(b, ">");
    tbr_escape(b, text);
    tbr_puts(b, "</p>\n");
    free(text);
}

void tbr_html_figure(tbr_buf *b, const char *id, const char *content, const char *caption)
{
    tbr_puts(b, "<figure id=\"");
    tbr_escape(b, id);
    tbr_puts(b, "\">\n");
    tbr_puts(b, content ? content : "");
    if (caption) {
        tbr_puts(b, "<figcaption>");
        tbr_escape(b, caption);
        tbr_puts(b, "</figcaption>\n");
    }
    tbr_puts(b, "</figure>\n");
}

void tbr_html_row_begin(tbr_buf *b)
{
    tbr_puts(b, "<div class=\"row\">\n");
}

void tbr_html_row_end(tbr_buf *b)
{
    tbr_puts(b, "</div>\n");
}
