/* The selection table as a map: message size across, communicator size
 * (or, for a table keyed on shapes, each communicator shape compared) down,
 * each cell coloured by the algorithm the library's own first-match lookup
 * (tb_config_select) picks there.  Evaluating the loaded rules, instead of
 * drawing the YAML ranges, shows exactly what the library will do,
 * overlaps and all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Communicator sizes shown: every size up to 40, else the powers of two,
 * the rules' range boundaries and the largest. */
static int comm_rows(const tb_config *cfg, int max_comm, int *out, int cap)
{
    int n = 0;
    if (max_comm <= 40) {
        for (int p = 2; p <= max_comm && n < cap; p++)
            out[n++] = p;
        return n;
    }
    for (long p = 2; p <= max_comm && n < cap; p *= 2)
        out[n++] = (int)p;
    for (int i = 0; i < cfg->nrules && n + 2 <= cap; i++) {
        long lo = cfg->rules[i].comm_lo, hi = cfg->rules[i].comm_hi;
        if (lo >= 2 && lo <= max_comm)
            out[n++] = (int)lo;
        if (hi >= 2 && hi <= max_comm)
            out[n++] = (int)hi;
    }
    if (n < cap)
        out[n++] = max_comm;
    qsort(out, (size_t)n, sizeof *out, cmp_int);
    int m = 0;
    for (int k = 0; k < n; k++)
        if (m == 0 || out[m - 1] != out[k])
            out[m++] = out[k];
    return m;
}

/* The shape of row a: a compared communicator's, or a size alone. */
static tb_shape row_shape(const tbr_selmap *s, const int *rows, int a)
{
    tb_shape sh;
    if (s->nshape > 0)
        return s->shapes[a];
    tb_shape_unknown(&sh, rows[a]);
    return sh;
}

static void row_label(const tbr_selmap *s, const int *rows, int a, char *buf, size_t len)
{
    if (s->nshape > 0)
        snprintf(buf, len, "%s", s->shape_labels[a]);
    else
        snprintf(buf, len, "%d processes", rows[a]);
}

int tbr_selection_svg(tbr_buf *b, const tbr_selmap *s, int *ncells)
{
    const tb_config *cfg = s->cfg;
    int rows[256];
    int nr = s->nshape > 0 ? (s->nshape < 256 ? s->nshape : 256)
                           : comm_rows(cfg, s->max_comm < 2 ? 2 : s->max_comm, rows, 256);
    int nb = 0;
    size_t sizes[64];
    for (size_t m = 1; m <= s->max_bytes && nb < 64; m *= 2)
        sizes[nb++] = m;
    if (nr < 1 || nb < 1)
        return -1;
    double left = 66, top = 34, cw = 640.0 / nb, ch = nr > 24 ? 12 : 22;
    for (int a = 0; a < nr && s->nshape > 0; a++) /* room for the shape labels */
        if (12 + 6.4 * (double)strlen(s->shape_labels[a]) > left)
            left = 12 + 6.4 * (double)strlen(s->shape_labels[a]);
    if (cw > 34)
        cw = 34;
    double plot_w = cw * nb, plot_h = ch * nr;

    /* the algorithms in the order the rules name them, so the legend reads
     * like the table */
    int *cell_rule = malloc((size_t)nr * (size_t)nb * sizeof *cell_rule);
    if (!cell_rule)
        return -1;
    char spec[TBR_CAT_MAX][256];
    int nspec = 0;
    for (int i = 0; i < cfg->nrules; i++) {
        char t[256];
        tb_alg_spec_format(&cfg->rules[i].spec, t, sizeof t);
        tbr_catmap_index(s->colors, t);
    }
    for (int a = 0; a < nr; a++)
        for (int c = 0; c < nb; c++) {
            int idx = -1;
            tb_shape sh = row_shape(s, rows, a);
            tb_config_select(cfg, &sh, sizes[c], &idx);
            cell_rule[a * nb + c] = idx;
        }
    /* legend only for algorithms that appear in the map */
    for (int i = 0; i < cfg->nrules; i++) {
        int used = 0;
        for (int k = 0; k < nr * nb && !used; k++)
            used = cell_rule[k] == i;
        if (!used)
            continue;
        char t[256];
        tb_alg_spec_format(&cfg->rules[i].spec, t, sizeof t);
        int dup = 0;
        for (int q = 0; q < nspec && !dup; q++)
            dup = strcmp(spec[q], t) == 0;
        if (!dup && nspec < TBR_CAT_MAX)
            snprintf(spec[nspec++], sizeof spec[0], "%s", t);
    }
    double legend_h = 20 + 18 * nspec, width = left + plot_w + 24;
    for (int q = 0; q < nspec; q++)
        if (left + 30 + 6.8 * (double)strlen(spec[q]) > width)
            width = left + 30 + 6.8 * (double)strlen(spec[q]);
    tbr_svg_open(b, s->id, width, top + plot_h + 44 + legend_h, "selection table");
    tbr_svg_group(b, "cells");
    int cells = 0;
    char tip[768], bytes[16], label[160];
    for (int a = 0; a < nr; a++) {
        row_label(s, rows, a, label, sizeof label);
        /* largest communicator on top; shapes in the order compared */
        double y = top + (s->nshape > 0 ? a : nr - 1 - a) * ch;
        for (int c = 0; c < nb; c++) {
            int idx = cell_rule[a * nb + c];
            char t[256] = "(no rule: PMPI_Bcast)";
            const char *fill = "#ffffff";
            if (idx >= 0) {
                tb_alg_spec_format(&cfg->rules[idx].spec, t, sizeof t);
                fill = tbr_catmap_color(s->colors, t);
            }
            tbr_fmt_bytes((double)sizes[c], bytes, sizeof bytes);
            if (idx >= 0)
                snprintf(tip, sizeof tip, "%s, %s: %s (rule %d, line %d)", label, bytes, t, idx + 1,
                         cfg->rules[idx].line);
            else
                snprintf(tip, sizeof tip, "%s, %s: %s", label, bytes, t);
            tbr_svg_rect(b, left + c * cw, y, cw, ch, "cell", fill, tip);
            cells++;
        }
    }
    tbr_svg_group_end(b);
    /* axes: communicator sizes on the left, message sizes below */
    int every = ch >= 14 ? 1 : 2;
    for (int a = 0; a < nr; a += every) {
        if (s->nshape > 0)
            snprintf(label, sizeof label, "%s", s->shape_labels[a]);
        else
            snprintf(label, sizeof label, "%d", rows[a]);
        tbr_svg_text(b, left - 6, top + (s->nshape > 0 ? a : nr - 1 - a) * ch + ch / 2 + 4, "end", "tick", 0, "%s",
                     label);
    }
    if (s->nshape > 0)
        tbr_svg_text(b, left - 6, top - 5, "end", "axis-title", 0, "shape");
    else if (plot_h >= 120)
        tbr_svg_text(b, 16, top + plot_h / 2, "middle", "axis-title", -90, "communicator size");
    else /* too short for the rotated title: above the row labels */
        tbr_svg_text(b, left - 6, top - 5, "end", "axis-title", 0, "processes");
    int bevery = cw >= 30 ? 1 : cw >= 15 ? 2 : 4;
    for (int c = 0; c < nb; c += bevery) {
        tbr_fmt_bytes((double)sizes[c], bytes, sizeof bytes);
        tbr_svg_text(b, left + (c + 0.5) * cw, top + plot_h + 14, "middle", "tick", 0, "%s", bytes);
    }
    tbr_svg_text(b, left + plot_w / 2, top + plot_h + 32, "middle", "axis-title", 0, "message size (bytes)");
    tbr_svg_text(b, left, 16, "start", "fig-title", 0, "algorithm selected by the table (first matching rule)");
    tbr_svg_group(b, "legend");
    for (int q = 0; q < nspec; q++) {
        double y = top + plot_h + 50 + 18 * q;
        tbr_svg_rect(b, left, y, 14, 12, "swatch", tbr_catmap_color(s->colors, spec[q]), NULL);
        tbr_svg_text(b, left + 20, y + 10, "start", "legend", 0, "%s", spec[q]);
    }
    tbr_svg_group_end(b);
    tbr_svg_close(b);
    free(cell_rule);
    if (ncells)
        *ncells = cells;
    return b->failed ? -1 : 0;
}
