/* Colour scales of the report (declared in svg.h).  The sequential scale
 * interpolates the published viridis colour map at eleven points: dark for
 * small distances, bright for large, monotonic in lightness so the heatmaps
 * also read in greyscale.  The qualitative palette avoids grey, which is
 * reserved for `default` (the MPI library's own broadcast). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

static const unsigned char viridis[11][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87}, {0x35, 0x5f, 0x8d},
    {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c}, {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70},
    {0x7a, 0xd1, 0x51}, {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25},
};

void tbr_color_seq(double t, char out[8])
{
    if (!(t > 0)) /* also NAN */
        t = 0;
    if (t > 1)
        t = 1;
    double x = t * 10;
    int k = (int)floor(x);
    if (k >= 10)
        k = 9;
    double f = x - k;
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int)lround(viridis[k][i] + f * (viridis[k + 1][i] - viridis[k][i]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#e6550d", "#31a354", "#843c39", "#7b4173", "#3182bd", "#637939",
};

const char *tbr_color_cat(int k)
{
    int n = (int)(sizeof palette / sizeof palette[0]);
    if (k < 0)
        k = 0;
    return palette[k % n];
}

int tbr_catmap_index(tbr_catmap *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0)
            return i;
    if (c->n == TBR_CAT_MAX)
        return -1;
    snprintf(c->name[c->n], sizeof c->name[0], "%s", name);
    return c->n++;
}

const char *tbr_catmap_color(tbr_catmap *c, const char *name)
{
    if (strcmp(name, "default") == 0)
        return TBR_COLOR_DEFAULT;
    /* count only non-default entries so colours do not skip a slot */
    int idx = tbr_catmap_index(c, name), k = 0;
    if (idx < 0)
        return "#000000";
    for (int i = 0; i < idx; i++)
        k += strcmp(c->name[i], "default") != 0;
    return tbr_color_cat(k);
}
