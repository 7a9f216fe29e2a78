/* topobcast-report: one self-contained HTML page from what the probe and
 * the tuner wrote, plus a plain-text summary on stdout.
 *
 *   topobcast-report --measurements run.txt --topology topo.yaml
 *                    [--table table.yaml] [--compare compare.csv] -o report.html
 *
 * No MPI: the measurements are read with the probe's reader, the YAML files
 * with the library's loader (so the page shows what the library would use),
 * and the dendrogram and its level cuts are recomputed by the clustering
 * library from the measurements, with the options the probe recorded in
 * the topology's meta line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "report.h"
#include "tools.h"

typedef struct cli {
    const char *meas, *topo, *table, *compare, *truth, *out, *title;
    double at, large, clip;
    int at_set, large_set, link_set, quiet;
    tt_linkage link;
} cli;

static void usage(FILE *f)
{
    fprintf(f,
"usage: topobcast-report --measurements FILE --topology FILE [options] -o report.html\n"
"\n"
"  --measurements FILE  the probe's measurements (topobcast-probe --save)\n"
"  --topology FILE      the topology YAML (topobcast-probe -o, or a tuner table\n"
"                       that carries one)\n"
"  --table FILE         selection table (topobcast-tuner -o): the size x\n"
"                       communicator-size map\n"
"  --compare FILE       topobcast-tuner --compare --csv output: a speedup curve per\n"
"                       communicator shape (and the selection map's shape rows)\n"
"  --truth FILE         more ground truth, lines 'HOST name=value ...' (as the\n"
"                       probe's --truth)\n"
"  -o, --output FILE    the page to write (default topobcast-report.html)\n"
"  --at SIZE            message size of the clustered D(m) (default: as recorded\n"
"                       in the topology's meta line, else 0)\n"
"  --linkage NAME       average, single or complete (default: as recorded, else\n"
"                       average)\n"
"  --large SIZE         the large m of the second pair of heatmaps (default: the\n"
"                       largest size every pair was measured at)\n"
"  --clip PCT           colour scale up to this percentile (default 95)\n"
"  --title TEXT         page title\n"
"  -q, --quiet          no summary on stdout\n"
"  -h, --help           this text\n"
"  --version            the version, and the MPI it was built for\n");
}

static int parse_size(const char *opt, const char *v, double *out)
{
    size_t s;
    if (tb_parse_size(v, &s) != 0) {
        fprintf(stderr, "topobcast-report: %s %s: expected a byte count like 0, 64K or 1M\n", opt, v);
        return -1;
    }
    *out = (double)s;
    return 0;
}

static int parse_args(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    c->out = "topobcast-report.html";
    c->clip = 95;
    c->link = TT_LINK_AVERAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                    \
    do {                                                                                \
        if (!v) {                                                                       \
            fprintf(stderr, "topobcast-report: %s needs a value\n", a);                 \
            return -1;                                                                  \
        }                                                                               \
        i++;                                                                            \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            tb_tool_version(stdout, "topobcast-report");
            exit(0);
        } else if (!strcmp(a, "--measurements")) {
            NEED_VALUE();
            c->meas = v;
        } else if (!strcmp(a, "--topology")) {
            NEED_VALUE();
            c->topo = v;
        } else if (!strcmp(a, "--table")) {
            NEED_VALUE();
            c->table = v;
        } else if (!strcmp(a, "--compare")) {
            NEED_VALUE();
            c->compare = v;
        } else if (!strcmp(a, "--truth")) {
            NEED_VALUE();
            c->truth = v;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEED_VALUE();
            c->out = v;
        } else if (!strcmp(a, "--title")) {
            NEED_VALUE();
            c->title = v;
        } else if (!strcmp(a, "--at")) {
            NEED_VALUE();
            if (parse_size(a, v, &c->at) != 0)
                return -1;
            c->at_set = 1;
        } else if (!strcmp(a, "--large")) {
            NEED_VALUE();
            if (parse_size(a, v, &c->large) != 0)
                return -1;
            c->large_set = 1;
        } else if (!strcmp(a, "--linkage")) {
            NEED_VALUE();
            if (!strcmp(v, "average"))
                c->link = TT_LINK_AVERAGE;
            else if (!strcmp(v, "single"))
                c->link = TT_LINK_SINGLE;
            else if (!strcmp(v, "complete"))
                c->link = TT_LINK_COMPLETE;
            else {
                fprintf(stderr, "topobcast-report: --linkage %s: expected average, single or complete\n", v);
                return -1;
            }
            c->link_set = 1;
        } else if (!strcmp(a, "--clip")) {
            NEED_VALUE();
            char *end;
            c->clip = strtod(v, &end);
            if (*end || !(c->clip > 0 && c->clip <= 100)) {
                fprintf(stderr, "topobcast-report: --clip %s: expected a percentile in (0, 100]\n", v);
                return -1;
            }
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            c->quiet = 1;
        } else {
            fprintf(stderr, "topobcast-report: unknown option '%s' (--help lists them)\n", a);
            return -1;
        }
#undef NEED_VALUE
    }
    if (!c->meas || !c->topo) {
        fprintf(stderr, "topobcast-report: --measurements and --topology are required (--help)\n");
        return -1;
    }
    const char *inputs[] = {c->meas, c->topo, c->table, c->compare, c->truth};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++)
        if (tt_same_file(c->out, inputs[k])) {
            fprintf(stderr, "topobcast-report: -o %s is one of the inputs: name another file\n", c->out);
            return -1;
        }
    return 0;
}

/* The probe records how it clustered in the topology's meta line
 * (analysis: "... at m=0 B (piecewise linear); average linkage, a level at
 * every relative jump >= 0.25 ...").  The loader ignores meta, so read that
 * one string from the file text; absent or unrecognised parts keep the
 * defaults, and the page says what was used. */
typedef struct recorded {
    char analysis[512];
    int has_at, has_link, vectors, linfit;
    double at, rel_gap;
    tt_linkage link;
} recorded;

static void read_recorded(const char *path, recorded *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "meta:", 5) != 0)
            continue;
        const char *p = strstr(line, "analysis: \"");
        if (!p)
            break;
        p += strlen("analysis: \"");
        size_t o = 0;
        for (; *p && *p != '"' && o + 1 < sizeof r->analysis; p++) {
            if (*p == '\\' && p[1])
                p++;
            r->analysis[o++] = *p;
        }
        r->analysis[o] = 0;
        break;
    }
    free(line);
    fclose(f);
    const char *a = r->analysis, *q;
    if ((q = strstr(a, "at m=")) && sscanf(q, "at m=%lg", &r->at) == 1 && r->at >= 0)
        r->has_at = 1;
    static const struct { const char *text; tt_linkage link; } links[] = {
        {"single linkage", TT_LINK_SINGLE}, {"average linkage", TT_LINK_AVERAGE},
        {"complete linkage", TT_LINK_COMPLETE}};
    for (int k = 0; k < 3; k++)
        if (strstr(a, links[k].text)) {
            r->link = links[k].link;
            r->has_link = 1;
        }
    if ((q = strstr(a, "jump >= ")))
        sscanf(q, "jump >= %lg", &r->rel_gap);
    r->vectors = strstr(a, "standardised") != NULL;
    r->linfit = strstr(a, "linear fit") != NULL;
}

static int write_file(const char *path, const tbr_buf *b)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "topobcast-report: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fwrite(b->s, 1, b->len, f); /* a short write sets the error tt_out_close reports */
    return tt_out_close(f, path, "topobcast-report");
}

/* Largest size every measured pair reached: D(m) there needs no
 * extrapolation for any pair. */
static double common_max_size(const tt_meas *m)
{
    double best = INFINITY;
    for (int k = 0; k < m->npairs; k++) {
        const tt_pair_rec *p = &m->pair[k];
        if (p->nsizes > 0 && p->s[p->nsizes - 1].m < best)
            best = p->s[p->nsizes - 1].m;
    }
    return isfinite(best) ? best : 0;
}

/* Everything the page is drawn from. */
typedef struct inputs {
    tt_meas meas;
    tb_config topo;   /* has_topology */
    tb_config table;  /* nrules > 0 when given */
    tbr_compare cmp;  /* n > 0 when given */
    tt_truthset truth;
    recorded rec;
    int have_table, have_cmp;
} inputs;

static int load_inputs(const cli *c, inputs *in)
{
    char err[1024];
    int rc = tt_save_load(c->meas, &in->meas, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "topobcast-report: %s\n", err);
        return -1;
    }
    if (tb_config_load(c->topo, &in->topo, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-report: %s\n", err);
        return -1;
    }
    if (!in->topo.has_topology) {
        fprintf(stderr, "topobcast-report: %s has no topology section (give topobcast-probe -o output)\n", c->topo);
        return -1;
    }
    if (in->topo.topo.nleaves != in->meas.n) {
        fprintf(stderr, "topobcast-report: %s has %d leaves but %s measured %d ranks: not the same run\n", c->topo,
                in->topo.topo.nleaves, c->meas, in->meas.n);
        return -1;
    }
    for (int r = 0; r < in->meas.n; r++)
        if (strcmp(in->topo.topo.hosts[in->topo.topo.leaves[r].host], in->meas.rank[r].host) != 0) {
            fprintf(stderr, "topobcast-report: warning: rank %d is on %s in %s but on %s in %s\n", r,
                    in->topo.topo.hosts[in->topo.topo.leaves[r].host], c->topo, in->meas.rank[r].host, c->meas);
            break;
        }
    read_recorded(c->topo, &in->rec);
    if (tt_truth_build(&in->meas, c->truth, &in->truth, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-report: %s\n", err);
        return -1;
    }
    if (c->table) {
        if (tb_config_load(c->table, &in->table, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-report: %s\n", err);
            return -1;
        }
        in->have_table = in->table.nrules > 0;
        if (!in->have_table)
            fprintf(stderr, "topobcast-report: warning: %s has no selection table\n", c->table);
        if (in->table.has_topology && in->table.topo.nprocs != in->meas.n)
            fprintf(stderr, "topobcast-report: warning: %s was tuned on the topology of a %d-process job, %s "
                            "measured %d: not the same run\n",
                    c->table, in->table.topo.nprocs, c->meas, in->meas.n);
    }
    if (c->compare) {
        if (tbr_compare_load(c->compare, &in->cmp, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-report: %s\n", err);
            return -1;
        }
        in->have_cmp = 1;
        for (int k = 0; k < in->cmp.nshape; k++)
            if (!strcmp(in->cmp.shape[k].label, "job") && in->cmp.shape[k].nprocs > 0 &&
                in->cmp.shape[k].nprocs != in->meas.n)
                fprintf(stderr, "topobcast-report: warning: %s compared a job of %d processes, %s measured %d: "
                                "not the same run\n",
                        c->compare, in->cmp.shape[k].nprocs, c->meas, in->meas.n);
    }
    return 0;
}

static void free_inputs(inputs *in)
{
    tt_meas_free(&in->meas);
    tb_config_free(&in->topo);
    tb_config_free(&in->table);
    tbr_compare_free(&in->cmp);
    tt_truth_free(&in->truth);
}

static void fact(tbr_buf *b, const char *label, const char *value)
{
    tbr_puts(b, "<div class=\"fact\"><b>");
    tbr_escape(b, value);
    tbr_puts(b, "</b>");
    tbr_escape(b, label);
    tbr_puts(b, "</div>\n");
}

/* Heatmap of one matrix in rank order and in the hierarchy's order. */
/* The finest level of at most TBR_HEATMAP_GROUPS groups (and at least
 * two), whose groups are the cells of a large hierarchy-ordered heatmap;
 * -1 if none. */
#define TBR_HEATMAP_GROUPS 64
static int heatmap_level(const tb_topology *t)
{
    int best = -1;
    for (int l = 0; l < t->nlevels; l++)
        if (t->ngroups[l] >= 2 && t->ngroups[l] <= TBR_HEATMAP_GROUPS)
            best = l;
    return best;
}

static int heatmap_pair(tbr_buf *page, const char *key, const char *what, const double *T, int n,
                        const int *hier_order, const tb_topology *t, const char *const *names, double clip,
                        tbr_heatmap_info *info)
{
    int cl = heatmap_level(t);
    char levels[256];
    size_t lo_ = 0;
    levels[0] = 0;
    for (int l = 0; l < t->nlevels && lo_ < sizeof levels; l++)
        lo_ += (size_t)snprintf(levels + lo_, sizeof levels - lo_, "%s%s", l ? " > " : "", t->level_name[l]);
    tbr_html_row_begin(page);
    for (int k = 0; k < 2; k++) {
        char id[64], fid[64], title[160], cap[640], lo[32], hi[32];
        snprintf(id, sizeof id, "svg-heatmap-%s-%s", key, k ? "hier" : "rank");
        snprintf(fid, sizeof fid, "fig-heatmap-%s-%s", key, k ? "hier" : "rank");
        snprintf(title, sizeof title, "%s, %s", what, k ? "ordered by the discovered hierarchy" : "rank order");
        tbr_heatmap h = {.id = id, .title = title, .D = T, .n = n, .order = k ? hier_order : NULL,
                         .names = names, .nlevels = k ? t->nlevels : 0,
                         .groups = k ? (const int *const *)t->group : NULL, .clip_pct = clip,
                         .agg_cells = TBR_HEATMAP_GROUPS, .cell_group = k && cl >= 0 ? t->group[cl] : NULL,
                         .cell_level = cl >= 0 ? t->level_name[cl] : NULL};
        tbr_buf svg;
        tbr_buf_init(&svg);
        if (tbr_heatmap_svg(&svg, &h, info) != 0) {
            tbr_buf_free(&svg);
            return -1;
        }
        tbr_fmt_time(info->vmin, lo, sizeof lo);
        tbr_fmt_time(info->clip, hi, sizeof hi);
        if (k == 0)
            snprintf(cap, sizeof cap, "%s between every pair of ranks (row sends to column). Colours from %s to "
                     "%s (the %gth percentile); %d of %d off-diagonal entries lie above and are drawn in the top "
                     "colour.%s", what, lo, hi, clip, info->nclipped, info->noff,
                     info->block > 1 ? " Ranks are averaged in blocks of consecutive ranks to keep the page "
                     "small (report/README.md)." : "");
        else if (info->grouped)
            snprintf(cap, sizeof cap, "The same matrix with the ranks reordered by the topology's groups "
                     "(%s), one cell per pair of %s groups: the mean of their ranks' pairs (hover for the "
                     "range). White outlines mark the groups of each level as large as a cell or larger, "
                     "thickest for the coarsest.", levels, t->level_name[cl]);
        else
            snprintf(cap, sizeof cap, "The same matrix with the ranks reordered by the topology's groups "
                     "(%s): white outlines mark the groups of each level, thickest for the coarsest. "
                     "Blocks along the diagonal are the groups the clustering found.%s", levels,
                     info->block > 1 ? " Ranks are averaged in blocks." : "");
        tbr_html_figure(page, fid, svg.s, cap);
        tbr_buf_free(&svg);
    }
    tbr_html_row_end(page);
    return 0;
}

/* Per communicator shape compared: geometric means over all sizes and over
 * 64 KiB - 8 MiB, and the lowest speedup. */
static void speedup_table(tbr_buf *page, const tbr_compare *c)
{
    tbr_puts(page, "<table class=\"acc\" id=\"speedup-shapes\"><tr><th>shape</th><th>processes</th><th>shape keys"
                   "</th><th>geomean</th><th>geomean 64K-8M</th><th>lowest</th></tr>\n");
    for (int k = 0; k < c->nshape; k++) {
        tbr_speedups sp = tbr_compare_speedups(c, k);
        char v[4][64], bytes[16];
        tbr_fmt_bytes(sp.lowest_bytes, bytes, sizeof bytes);
        snprintf(v[0], sizeof v[0], "%d", c->shape[k].nprocs);
        snprintf(v[1], sizeof v[1], sp.n ? "%.3fx" : "-", sp.geomean);
        snprintf(v[2], sizeof v[2], sp.nmid ? "%.3fx" : "-", sp.geomean_mid);
        snprintf(v[3], sizeof v[3], sp.n ? "%.3fx at %s" : "-", sp.lowest, bytes);
        tbr_puts(page, "<tr class=\"shape\"><td>");
        tbr_escape(page, c->shape[k].label);
        tbr_puts(page, "</td><td>");
        tbr_escape(page, v[0]);
        tbr_puts(page, "</td><td>");
        tbr_escape(page, c->shape[k].keys);
        for (int j = 1; j < 4; j++) {
            tbr_puts(page, "</td><td>");
            tbr_escape(page, v[j]);
        }
        tbr_puts(page, "</td></tr>\n");
    }
    tbr_puts(page, "</table>\n");
}

static int build_page(const cli *c, inputs *in, tbr_buf *page, tbr_accuracy *acc, int *have_acc,
                      tbr_tree *tree)
{
    const tt_meas *m = &in->meas;
    const tb_topology *t = &in->topo.topo;
    int n = m->n, rc = -1;
    char err[512], tmp[256], tmp2[64];

    /* clustering options: command line, else what the probe recorded */
    tt_analysis_opts ao;
    tt_analysis_opts_default(&ao);
    ao.at = c->at_set ? c->at : in->rec.has_at ? in->rec.at : 0;
    tt_linkage link = c->link_set ? c->link : in->rec.has_link ? in->rec.link : TT_LINK_AVERAGE;
    ao.method = link == TT_LINK_SINGLE ? TT_M_SINGLE : link == TT_LINK_COMPLETE ? TT_M_COMPLETE : TT_M_AVERAGE;
    ao.rel_gap = in->rec.rel_gap > 0 ? in->rec.rel_gap : 0;
    ao.dist = in->rec.vectors ? TT_DIST_VECTORS : TT_DIST_TIME;
    ao.interp = in->rec.linfit ? TT_INTERP_LINFIT : TT_INTERP_PIECEWISE;
    double large = c->large_set ? c->large : common_max_size(m);

    tt_analysis an, a0, aL;
    memset(&an, 0, sizeof an);
    memset(&a0, 0, sizeof a0);
    memset(&aL, 0, sizeof aL);
    tt_dendrogram dg = {0, NULL};
    const char **names = calloc((size_t)n, sizeof *names);
    int *hier = malloc((size_t)n * sizeof *hier), *pos = malloc((size_t)n * sizeof *pos);
    int *dorder = malloc((size_t)n * sizeof *dorder);
    tbr_buf svg, heat;
    tbr_buf_init(&svg);
    tbr_buf_init(&heat);
    tbr_catmap colors;
    memset(&colors, 0, sizeof colors);
    if (!names || !hier || !pos || !dorder)
        goto out;
    for (int r = 0; r < n; r++)
        names[r] = m->rank[r].host;
    if (tt_analyze(m, &ao, &in->truth, &an, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-report: clustering the measurements: %s\n", err);
        goto out;
    }
    if (n >= 2) {
        if (tt_agglomerative(an.D, n, link, &dg) != 0 || tbr_dendrogram_order(&dg, dorder) != 0) {
            fprintf(stderr, "topobcast-report: the dendrogram failed\n");
            goto out;
        }
    } else {
        dorder[0] = 0;
    }
    for (int p = 0; p < n; p++)
        pos[dorder[p]] = p;
    if (tbr_tree_build(t, tree) != 0) {
        fprintf(stderr, "topobcast-report: out of memory\n");
        goto out;
    }
    tbr_tree_order(tree, pos, hier);
    free(an.D); /* the dendrogram is made: of the matrices only t(m) is left to draw */
    an.D = NULL;

    /* The heatmaps, drawn before the page around them so that one analysis'
     * matrices at a time are alive: D(0) is the clustered analysis' t(m)
     * when that was at m = 0, else an analysis of its own; then D(large). */
    tt_analysis_opts o0 = ao, oL = ao;
    o0.at = 0;
    oL.at = large;
    tbr_heatmap_info i0, iL;
    const double *T0 = an.T;
    if (ao.at != 0) {
        if (tt_analyze(m, &o0, &in->truth, &a0, err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-report: distances: %s\n", err);
            goto out;
        }
        T0 = a0.T;
    }
    if (heatmap_pair(&heat, "small", "D(0)", T0, n, hier, t, names, c->clip, &i0) != 0)
        goto out;
    tt_analysis_free(&a0);
    free(an.T);
    an.T = NULL;
    if (tt_analyze(m, &oL, &in->truth, &aL, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-report: distances: %s\n", err);
        goto out;
    }
    tbr_fmt_bytes(large, tmp2, sizeof tmp2);
    snprintf(tmp, sizeof tmp, "D(%s)", tmp2);
    if (heatmap_pair(&heat, "large", tmp, aL.T, n, hier, t, names, c->clip, &iL) != 0)
        goto out;
    tt_analysis_free(&aL);

    *have_acc = in->truth.ntruth > 0 && tbr_accuracy_compute(t, &in->truth, acc) == 0;

    /* ---- header ---- */
    tbr_html_begin(page, c->title ? c->title : "topobcast report");
    tbr_html_p(page, "meta", "measurements %s \xc2\xb7 topology %s%s%s%s%s", c->meas, c->topo,
               c->table ? " \xc2\xb7 table " : "", c->table ? c->table : "", c->compare ? " \xc2\xb7 compare " : "",
               c->compare ? c->compare : "");
    tbr_puts(page, "<div class=\"facts\">\n");
    snprintf(tmp, sizeof tmp, "%d", n);
    fact(page, "ranks", tmp);
    snprintf(tmp, sizeof tmp, "%d", t->nhosts);
    fact(page, t->nhosts == 1 ? "host" : "hosts", tmp);
    size_t o = 0;
    tmp[0] = 0;
    for (int l = 0; l < t->nlevels && o < sizeof tmp; l++)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, "%s%s(%d)", l ? " > " : "", t->level_name[l],
                              t->ngroups[l]);
    fact(page, "levels of the topology", tmp);
    snprintf(tmp, sizeof tmp, "%d", m->npairs);
    fact(page, m->opt.mode == TT_MODE_LOGGP ? "pairs measured (LogGP)" : "pairs measured (PLogP)", tmp);
    if (*have_acc) {
        double worst = 1;
        for (int k = 0; k < acc->ntruth; k++)
            worst = fmin(worst, acc->acc[k][acc->best[k]]);
        snprintf(tmp, sizeof tmp, "%.3f", worst);
        fact(page, "lowest best-level accuracy", tmp);
    }
    if (in->have_cmp) {
        double ls = 0, lowest = INFINITY;
        int cnt = 0;
        for (int k = 0; k < in->cmp.n; k++)
            if (in->cmp.row[k].speedup > 0) {
                ls += log(in->cmp.row[k].speedup);
                cnt++;
                lowest = fmin(lowest, in->cmp.row[k].speedup);
            }
        snprintf(tmp, sizeof tmp, "%.2fx", cnt ? exp(ls / cnt) : 0);
        fact(page, "geometric-mean speedup", tmp);
        snprintf(tmp, sizeof tmp, "%.2fx", cnt ? lowest : 0);
        fact(page, "lowest speedup", tmp);
        double le = 0;
        int ne = 0;
        for (int k = 0; k < in->cmp.n; k++)
            if (in->cmp.row[k].bytes >= 1048576 && in->cmp.row[k].efficiency > 0) {
                le += log(in->cmp.row[k].efficiency);
                ne++;
            }
        if (ne) {
            snprintf(tmp, sizeof tmp, "%.2f", exp(le / ne));
            fact(page, "efficiency from 1 MiB (bound / time)", tmp);
        }
    }
    tbr_puts(page, "</div>\n");

    /* ---- distance matrices ---- */
    tbr_html_section(page, "distances", "Distance matrices");
    tbr_html_p(page, NULL, "D(m) = t(m) = L + (o_s(m) + o_r(m))/2 + g(m) for every pair, from the PLogP "
               "parameters the probe measured (pairs fast mode skipped take their representatives' values).");
    tbr_html_p(page, "note", "Outliers are clipped: the colour scale of each heatmap ends at the %gth percentile "
               "of its off-diagonal entries, and larger entries are drawn in the top colour (counts in the "
               "captions), so one slow pair cannot flatten the rest of the scale.", c->clip);
    if (heat.s)
        tbr_puts(page, heat.s);
    tbr_html_section_end(page);

    /* ---- dendrogram ---- */
    tbr_html_section(page, "dendrogram", "Dendrogram and level cuts");
    if (strcmp(an.desc, in->rec.analysis) == 0)
        tbr_html_p(page, NULL, "Re-clustered here from the measurements by the probe's clustering library, with "
                   "the options the topology file records: %s.", an.desc);
    else
        tbr_html_p(page, NULL, "Re-clustered here from the measurements by the probe's clustering library: %s. "
                   "The topology file records: %s.", an.desc,
                   in->rec.analysis[0] ? in->rec.analysis : "(nothing: not written by topobcast-probe)");
    int same = an.h.nlevels == t->nlevels;
    for (int l = 0; l < t->nlevels && same; l++)
        same = an.h.nclusters[l] == t->ngroups[l];
    if (!same)
        tbr_html_p(page, "note", "The topology file's levels differ from this clustering (%d levels here, %d in "
                   "the file): it was made with other options (--at, --linkage) or edited by hand.",
                   an.h.nlevels, t->nlevels);
    if (n >= 2) {
        tbr_buf_free(&svg);
        tbr_dendro d = {.id = "svg-dendrogram", .dg = &dg, .h = &an.h, .leaf_names = names,
                        .unit_scale = ao.dist == TT_DIST_VECTORS ? 1 : 1e6,
                        .unit = ao.dist == TT_DIST_VECTORS ? "standardised units" : "\xc2\xb5s"};
        if (tbr_dendrogram_svg(&svg, &d) != 0)
            goto out;
        tbr_html_figure(page, "fig-dendrogram", svg.s,
                        "Agglomerative clustering of the ranks (leaves, labelled rank and host). Dashed red "
                        "lines: the heights at which the library cut the tree into levels, one per large "
                        "relative jump of the merge distances.");
    } else {
        tbr_html_p(page, "missing", "A single rank: nothing to cluster.");
    }
    tbr_html_section_end(page);

    /* ---- topology ---- */
    tbr_html_section(page, "topology", "Topology");
    tbr_buf_free(&svg);
    if (tbr_tree_svg(&svg, "svg-topology", t, tree) != 0)
        goto out;
    tbr_html_figure(page, "fig-topology", svg.s,
                    "The topology file's groups, coarsest level first, with their sizes; the finest groups list "
                    "their ranks and host names.");
    tbr_html_section_end(page);

    /* ---- accuracy ---- */
    tbr_html_section(page, "accuracy", "Accuracy against the ground truth");
    if (*have_acc) {
        tbr_html_p(page, NULL, "Each ground-truth partition (same host = node, host and package = socket, and "
                   "the truth file's) against each level: accuracy of the seed thesis (eq. 3.7-3.9, clusters "
                   "mapped one-to-one onto true groups) and adjusted Rand index; the best level is highlighted.");
        tbr_buf_free(&svg);
        tbr_accuracy_html(&svg, "table-accuracy", t, acc);
        tbr_html_figure(page, "fig-accuracy", svg.s, NULL);
    } else {
        tbr_html_p(page, "missing", "No ground truth was recorded with these measurements.");
    }
    tbr_html_section_end(page);

    /* ---- selection table ---- */
    tbr_html_section(page, "selection", "Selection table");
    if (in->have_table) {
        size_t maxb = 16u << 20;
        for (int i = 0; i < in->table.nrules; i++) {
            const tb_rule *r = &in->table.rules[i];
            size_t hi = r->msg_hi != SIZE_MAX ? r->msg_hi : r->msg_lo;
            while (hi != SIZE_MAX && hi * 2 > maxb && maxb < (1u << 30))
                maxb *= 2;
        }
        for (int k = 0; k < in->cmp.n; k++)
            while (in->cmp.row[k].bytes > (double)maxb && maxb < (1u << 30))
                maxb *= 2;
        /* the communicators compared, as rows, when the comparison names
         * their shapes: a table keyed on shapes is read per shape */
        tb_shape shapes[TBR_MAX_SHAPES];
        char labels[TBR_MAX_SHAPES][64];
        const char *label_ptr[TBR_MAX_SHAPES];
        int nshape = 0;
        for (int k = 0; in->have_cmp && k < in->cmp.nshape; k++) {
            char perr[256];
            if (!in->cmp.shape[k].keys[0] ||
                tb_shape_parse(in->cmp.shape[k].keys, &in->table, &shapes[nshape], perr, sizeof perr) != 0)
                continue;
            snprintf(labels[nshape], sizeof labels[nshape], "%s (%d)", in->cmp.shape[k].label, shapes[nshape].size);
            label_ptr[nshape] = labels[nshape];
            nshape++;
        }
        tbr_buf_free(&svg);
        tbr_selmap s = {.id = "svg-selection", .cfg = &in->table, .max_comm = t->nprocs, .max_bytes = maxb,
                        .colors = &colors, .nshape = nshape, .shapes = shapes, .shape_labels = label_ptr};
        if (tbr_selection_svg(&svg, &s, NULL) != 0)
            goto out;
        snprintf(tmp, sizeof tmp, "%s: %d rules.", c->table, in->table.nrules);
        if (nshape > 0)
            tbr_html_p(page, NULL, "%s Each row is a communicator shape the comparison timed (rule keys nodes, ppn, "
                       "consecutive, levels, groups: config/README.md), each cell what the library's first-match "
                       "lookup selects for that shape and message size; hover for the rule.", tmp);
        else
            tbr_html_p(page, NULL, "%s Each cell is what the library's first-match lookup selects for that "
                       "communicator size and message size (a communicator known by its size alone: rules with "
                       "shape keys do not apply); hover for the rule.", tmp);
        /* rules keyed on shapes show nowhere without the shapes: say so */
        tb_shape_cond any;
        tb_shape_cond_any(&any);
        int nshaped = 0;
        for (int i = 0; i < in->table.nrules; i++)
            nshaped += !tb_shape_cond_equal(&in->table.rules[i].shape, &any);
        if (nshape == 0 && nshaped > 0) {
            tbr_html_p(page, "missing", "%d of the %d rules name communicator shapes, which only a comparison "
                       "gives: they show nowhere in this map. Give --compare (topobcast-tuner --compare --csv) "
                       "for a row per shape.", nshaped, in->table.nrules);
            fprintf(stderr, "topobcast-report: note: %d of the %d rules of %s name communicator shapes; without "
                            "--compare the selection map shows communicator sizes only, where they do not apply\n",
                    nshaped, in->table.nrules, c->table);
        }
        tbr_html_figure(page, "fig-selection", svg.s,
                        "Grey: default (the MPI library's own MPI_Bcast). The same colours mark the algorithms in "
                        "the speedup curves.");
    } else {
        tbr_html_p(page, "missing", "No selection table given (--table).");
    }
    tbr_html_section_end(page);

    /* ---- speedup ---- */
    tbr_html_section(page, "speedup", "Speedup against default");
    if (in->have_cmp) {
        /* one panel per communicator shape compared */
        if (in->cmp.nshape > 1 || in->cmp.shape[0].label[0])
            speedup_table(page, &in->cmp);
        for (int k = 0; k < in->cmp.nshape; k++) {
            tbr_compare one;
            if (tbr_compare_of_shape(&in->cmp, k, &one) != 0)
                goto out;
            const tbr_compare_shape *sh = &in->cmp.shape[k];
            char id[64], fig[64], caption[640];
            snprintf(id, sizeof id, k ? "svg-speedup-%d" : "svg-speedup", k);
            snprintf(fig, sizeof fig, k ? "fig-speedup-%d" : "fig-speedup", k);
            if (sh->label[0])
                snprintf(caption, sizeof caption, "Shape %s (%d processes: %s): the library with the tuned table "
                         "(MPI_Bcast) against the MPI library's PMPI_Bcast on that communicator, in the same job. "
                         "Above the dashed 1.0 line the table is faster.", sh->label, sh->nprocs, sh->keys);
            else
                snprintf(caption, sizeof caption, "topobcast-tuner --compare: the library with the tuned table "
                         "(MPI_Bcast) against the MPI library's PMPI_Bcast in the same job. Above the dashed 1.0 "
                         "line the table is faster.");
            tbr_buf_free(&svg);
            int rc2 = tbr_speedup_svg(&svg, id, &one, &colors);
            tbr_compare_free(&one);
            if (rc2 != 0)
                goto out;
            tbr_html_figure(page, fig, svg.s, caption);
        }
    } else {
        tbr_html_p(page, "missing", "No comparison given (--compare, from topobcast-tuner --compare --csv).");
    }
    tbr_html_section_end(page);

    /* ---- efficiency against the lower bound ---- */
    tbr_html_section(page, "efficiency", "Efficiency against the lower bound");
    if (in->have_cmp && in->cmp.has_bound) {
        tbr_html_p(page, NULL, "The lower bound is the least time in which any broadcast can give every rank the "
                   "message on this machine: every host outside the root's must receive it through the links "
                   "that lead to it, and a host's ranks share its memory and its ways in (topology/README.md, "
                   "\"Lower bound\").");
        /* one panel per communicator shape with a bound */
        for (int k = 0; k < in->cmp.nshape; k++) {
            tbr_compare one;
            if (tbr_compare_of_shape(&in->cmp, k, &one) != 0)
                goto out;
            const tbr_compare_shape *sh = &in->cmp.shape[k];
            char id[64], fig[64], caption[768];
            snprintf(id, sizeof id, k ? "svg-efficiency-%d" : "svg-efficiency", k);
            snprintf(fig, sizeof fig, k ? "fig-efficiency-%d" : "fig-efficiency", k);
            snprintf(caption, sizeof caption,
                     "%s%s%sEfficiency = bound / measured time: 1.0 is the bound itself; a point above it would be a "
                     "bug in the bound. Under SimGrid the bound comes from the platform file, on a real machine "
                     "from the measured per-level bandwidths and fan-out.",
                     sh->label[0] ? "Shape " : "", sh->label, sh->label[0] ? ". " : "");
            int rc2 = 0;
            if (one.has_bound) {
                tbr_buf_free(&svg);
                rc2 = tbr_efficiency_svg(&svg, id, &one);
            }
            int drawn = one.has_bound;
            tbr_compare_free(&one);
            if (rc2 != 0)
                goto out;
            if (drawn)
                tbr_html_figure(page, fig, svg.s, caption);
        }
    } else {
        tbr_html_p(page, "missing", "No bound in the comparison (topobcast-tuner --compare with --platform and "
                   "--hostfile, or --measurements).");
    }
    tbr_html_section_end(page);

    /* ---- PLogP ---- */
    tbr_html_section(page, "plogp", "PLogP parameters of representative pairs");
    tbr_pair_pick pk[TB_MAX_LEVELS + 1];
    int np = tbr_plogp_pick(m, t, pk, TB_MAX_LEVELS + 1);
    if (np > 0) {
        tbr_buf_free(&svg);
        if (tbr_plogp_svg(&svg, "svg-plogp", m, pk, np) != 0)
            goto out;
        tbr_html_p(page, NULL, "One pair per distance class of the topology (the deepest level both ranks "
                   "share), the one with the median t(0) of its class.");
        tbr_html_figure(page, "fig-plogp", svg.s,
                        "L is size independent in PLogP; o_s, o_r and g are measured per size (the probe inserts "
                        "sizes where interpolation misses).");
    } else {
        tbr_html_p(page, "missing", "No measured pair.");
    }
    tbr_html_section_end(page);
    tbr_html_p(page, "meta", "Written by topobcast-report; self-contained (inline SVG and CSS, no scripts).");
    tbr_html_end(page);
    rc = page->failed || svg.failed || heat.failed ? -1 : 0;
out:
    tbr_buf_free(&svg);
    tbr_buf_free(&heat);
    tt_dendrogram_free(&dg);
    tt_analysis_free(&an);
    tt_analysis_free(&a0);
    tt_analysis_free(&aL);
    free(names);
    free(hier);
    free(pos);
    free(dorder);
    return rc;
}

int main(int argc, char **argv)
{
    cli c;
    if (parse_args(argc, argv, &c) != 0)
        return 2;
    inputs in;
    memset(&in, 0, sizeof in);
    int rc = 1;
    tbr_buf page;
    tbr_buf_init(&page);
    tbr_accuracy acc;
    tbr_tree tree;
    memset(&tree, 0, sizeof tree);
    int have_acc = 0;
    if (load_inputs(&c, &in) != 0)
        goto out;
    if (build_page(&c, &in, &page, &acc, &have_acc, &tree) != 0) {
        if (page.failed)
            fprintf(stderr, "topobcast-report: out of memory\n");
        goto out;
    }
    if (write_file(c.out, &page) != 0)
        goto out;
    if (!c.quiet) {
        tbr_summary s = {.meas = &in.meas, .topo = &in.topo.topo, .tree = &tree, .acc = have_acc ? &acc : NULL,
                         .compare = in.have_cmp ? &in.cmp : NULL, .table = in.have_table ? &in.table : NULL,
                         .report_path = c.out};
        tbr_summary_print(stdout, &s);
    }
    rc = 0;
out:
    tbr_tree_free(&tree);
    tbr_buf_free(&page);
    free_inputs(&in);
    return rc;
}
