/* topobcast-report's figures: every SVG (and the whole page) must be
 * well-formed XML whatever the inputs hold (host names and algorithm specs
 * with markup characters included), and each figure must draw what its
 * data says -- n*n cells for an n x n heatmap, n-1 links and one cut per
 * level for a dendrogram, one box per group, one cell per (communicator,
 * size), one point per compared size, one curve per pair and panel. */
#define _GNU_SOURCE /* fmemopen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tap.h"

/* ---- a minimal XML well-formedness checker ------------------------------ */

/* Checks: one root element; start and end tags balance and match;
 * attributes are name="value" or name='value', unique per element, with no
 * '<' and only known entity references in values; text has no '<' except
 * in markup and only known entity references (&amp; &lt; &gt; &quot;
 * &apos; &#N; &#xH;).  A leading <!DOCTYPE ...> is skipped.  On failure
 * writes where and why to why. */
static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
}

static int entity_ok(const char *p, size_t *len)
{
    static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (int k = 0; k < 5; k++)
        if (strncmp(p, named[k], strlen(named[k])) == 0) {
            *len = strlen(named[k]);
            return 1;
        }
    if (p[1] == '#') {
        const char *q = p + 2;
        int hex = *q == 'x';
        if (hex)
            q++;
        const char *d = q;
        while ((*q >= '0' && *q <= '9') || (hex && ((*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))))
            q++;
        if (q > d && *q == ';') {
            *len = (size_t)(q - p + 1);
            return 1;
        }
    }
    return 0;
}

static int xml_check(const char *s, char *why, size_t wlen)
{
    const char *p = s;
    char stack[64][64];
    int depth = 0, roots = 0;
    while (*p == ' ' || *p == '\n')
        p++;
    if (strncmp(p, "<!DOCTYPE", 9) == 0) {
        p = strchr(p, '>');
        if (!p) {
            snprintf(why, wlen, "unterminated DOCTYPE");
            return -1;
        }
        p++;
    }
    while (*p) {
        if (*p == '&') {
            size_t len;
            if (!entity_ok(p, &len)) {
                snprintf(why, wlen, "bad entity in text at offset %ld: %.20s", (long)(p - s), p);
                return -1;
            }
            p += len;
            continue;
        }
        if (*p != '<') {
            if (depth == 0 && !(*p == ' ' || *p == '\n' || *p == '\t')) {
                snprintf(why, wlen, "text outside the root at offset %ld", (long)(p - s));
                return -1;
            }
            p++;
            continue;
        }
        if (p[1] == '/') { /* end tag */
            const char *n = p + 2, *e = n;
            while (is_name_char(*e))
                e++;
            if (depth == 0 || (size_t)(e - n) != strlen(stack[depth - 1]) ||
                strncmp(n, stack[depth - 1], (size_t)(e - n)) != 0) {
                snprintf(why, wlen, "end tag </%.*s> does not match <%s> at offset %ld", (int)(e - n), n,
                         depth ? stack[depth - 1] : "(none)", (long)(p - s));
                return -1;
            }
            while (*e == ' ')
                e++;
            if (*e != '>') {
                snprintf(why, wlen, "malformed end tag at offset %ld", (long)(p - s));
                return -1;
            }
            depth--;
            p = e + 1;
            continue;
        }
        /* start or empty-element tag */
        const char *n = p + 1, *e = n;
        while (is_name_char(*e))
            e++;
        if (e == n || (size_t)(e - n) >= sizeof stack[0]) {
            snprintf(why, wlen, "bad tag name at offset %ld", (long)(p - s));
            return -1;
        }
        const char *name_end = e;
        char names[64][64];
        int nattr = 0;
        for (;;) {
            int space = 0;
            while (*e == ' ' || *e == '\n' || *e == '\t') {
                e++;
                space = 1;
            }
            if (*e == '>' || (*e == '/' && e[1] == '>'))
                break;
            if (!space) {
                snprintf(why, wlen, "attributes must be separated by blanks at offset %ld", (long)(e - s));
                return -1;
            }
            const char *an = e;
            while (is_name_char(*e))
                e++;
            if (e == an || *e != '=' || (e[1] != '"' && e[1] != '\'')) {
                snprintf(why, wlen, "attribute without a quoted value at offset %ld: %.30s", (long)(an - s), an);
                return -1;
            }
            if (nattr < 64) {
                snprintf(names[nattr], sizeof names[0], "%.*s", (int)(e - an), an);
                for (int k = 0; k < nattr; k++)
                    if (strcmp(names[k], names[nattr]) == 0) {
                        snprintf(why, wlen, "duplicate attribute %.60s at offset %ld", names[k], (long)(an - s));
                        return -1;
                    }
                nattr++;
            }
            char q = e[1];
            e += 2;
            while (*e && *e != q) {
                if (*e == '<') {
                    snprintf(why, wlen, "'<' in an attribute value at offset %ld", (long)(e - s));
                    return -1;
                }
                if (*e == '&') {
                    size_t len;
                    if (!entity_ok(e, &len)) {
                        snprintf(why, wlen, "bad entity in an attribute at offset %ld", (long)(e - s));
                        return -1;
                    }
                    e += len;
                    continue;
                }
                e++;
            }
            if (*e != q) {
                snprintf(why, wlen, "unterminated attribute value");
                return -1;
            }
            e++;
        }
        if (depth == 0)
            roots++;
        if (roots > 1) {
            snprintf(why, wlen, "more than one root element (offset %ld)", (long)(p - s));
            return -1;
        }
        if (*e == '/') {
            p = e + 2;
            continue;
        }
        if (depth == 64) {
            snprintf(why, wlen, "nesting too deep");
            return -1;
        }
        snprintf(stack[depth++], sizeof stack[0], "%.*s", (int)(name_end - n), n);
        p = e + 1;
    }
    if (depth != 0) {
        snprintf(why, wlen, "%d element(s) left open, innermost <%s>", depth, stack[depth - 1]);
        return -1;
    }
    if (roots != 1) {
        snprintf(why, wlen, "no root element");
        return -1;
    }
    return 0;
}

static int well_formed(const tbr_buf *b, const char *what)
{
    char why[256] = "";
    int ok = !b->failed && b->s && xml_check(b->s, why, sizeof why) == 0;
    if (!ok)
        printf("# %s: %s\n", what, why);
    return ok;
}

/* Occurrences of needle in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---- the checker itself must reject what is broken ------------------------ */

static void test_checker(void)
{
    char why[256];
    TAP_OK(xml_check("<a x=\"1\"><b/>t &amp; &#39; &#x3c;</a>", why, sizeof why) == 0, "checker accepts good XML");
    TAP_OK(xml_check("<a><b></a></b>", why, sizeof why) != 0, "checker rejects crossed tags");
    TAP_OK(xml_check("<a x=1/>", why, sizeof why) != 0, "checker rejects an unquoted attribute");
    TAP_OK(xml_check("<a>x & y</a>", why, sizeof why) != 0, "checker rejects a bare ampersand");
    TAP_OK(xml_check("<a x=\"<\"/>", why, sizeof why) != 0, "checker rejects '<' in an attribute");
    TAP_OK(xml_check("<a x=\"1\" x=\"2\"/>", why, sizeof why) != 0, "checker rejects duplicate attributes");
    TAP_OK(xml_check("<a></a><b/>", why, sizeof why) != 0, "checker rejects two roots");
    TAP_OK(xml_check("<a><b>", why, sizeof why) != 0, "checker rejects unclosed elements");
}

/* ---- escaping ------------------------------------------------------------ */

static void test_escape(void)
{
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_escape(&b, "a<b>&\"c'\x01");
    TAP_OK(b.s && strcmp(b.s, "a&lt;b&gt;&amp;&quot;c&#39;?") == 0, "escape: %s", b.s ? b.s : "(null)");
    tbr_buf_free(&b);
    tbr_buf_init(&b);
    tbr_svg_open(&b, "id&<", 10, 10, "label \"quoted\"");
    tbr_svg_text(&b, 1, 2, "middle", "c<", 0, "%s & %d", "<tag>", 3);
    tbr_svg_rect(&b, 0, 0, 1, 1, "cell", "#fff", "tip <b>&</b>");
    tbr_svg_close(&b);
    TAP_OK(well_formed(&b, "escaped svg"), "SVG with markup in ids, classes, text and tips is well-formed");
    TAP_OK(strstr(b.s, "&lt;tag&gt; &amp; 3") != NULL, "formatted text is escaped");
    tbr_buf_free(&b);
}

/* ---- heatmap ------------------------------------------------------------- */

static double *clustered_matrix(int n, int per_group, double outlier)
{
    double *D = malloc((size_t)n * (size_t)n * sizeof *D);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            D[i * n + j] = i == j ? 0 : (i / per_group == j / per_group ? 1e-6 : 4e-6) + 1e-9 * ((i + j) % 5);
    if (outlier > 0 && n > 3)
        D[1 * n + 3] = D[3 * n + 1] = outlier;
    return D;
}

static void test_heatmap(void)
{
    int n = 6;
    double *D = clustered_matrix(n, 2, 1e-3);
    const char *names[6] = {"h<0>", "h&0", "h1", "h1", "h2", "h2"};
    int g0[6] = {0, 0, 1, 1, 2, 2};
    const int *groups[1] = {g0};
    int order[6] = {5, 4, 3, 2, 1, 0};
    tbr_heatmap h = {.id = "hm", .title = "D(0) <test>", .D = D, .n = n, .order = order, .names = names,
                     .nlevels = 1, .groups = groups, .clip_pct = 95};
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_heatmap_info info;
    TAP_OK(tbr_heatmap_svg(&b, &h, &info) == 0, "heatmap renders");
    TAP_OK(well_formed(&b, "heatmap"), "heatmap SVG is well-formed");
    TAP_OK(count(b.s, "<rect x=") > 0 && count(b.s, "class=\"cell") == n * n, "n x n heatmap has n^2 cells (%d)",
           count(b.s, "class=\"cell"));
    TAP_OK(info.ncells == n * n && info.block == 1, "info counts the cells (%d, block %d)", info.ncells, info.block);
    TAP_OK(count(b.s, "class=\"cell diag\"") == n, "the diagonal is drawn as n diagonal cells");
    TAP_OK(info.noff == n * (n - 1), "off-diagonal entries counted (%d)", info.noff);
    /* 30 entries, the two outliers are the top 2: above the 95th percentile */
    TAP_OK(info.nclipped == 2 && info.clip < 1e-3 && info.clip >= 4e-6, "outliers above p95 clipped (%d, clip %g)",
           info.nclipped, info.clip);
    TAP_OK(count(b.s, "class=\"cell clipped\"") == 2, "clipped cells are marked");
    TAP_OK(fabs(info.vmin - 1e-6) < 1e-8 && info.vmax == 1e-3, "range %g..%g", info.vmin, info.vmax);
    TAP_OK(count(b.s, "class=\"grp\"") == 3, "one outline per group of the level");
    TAP_OK(strstr(b.s, "h&lt;0&gt;") != NULL, "host names in tips are escaped");
    TAP_OK(count(b.s, "class=\"band\"") == 48, "colour bar drawn");
    tbr_buf_free(&b);
    free(D);

    /* large: averaged into blocks */
    n = 200;
    D = clustered_matrix(n, 50, 0);
    tbr_heatmap big = {.id = "big", .D = D, .n = n, .clip_pct = 95, .max_cells = 50};
    tbr_buf_init(&b);
    TAP_OK(tbr_heatmap_svg(&b, &big, &info) == 0 && well_formed(&b, "big heatmap"), "200-rank heatmap renders");
    TAP_OK(info.block == 4 && info.ncells == 2500 && count(b.s, "class=\"cell") == 2500,
           "200 ranks, 50 cells per side: blocks of 4 (%d cells)", info.ncells);
    tbr_buf_free(&b);
    free(D);

    /* large, by groups: 240 ranks in 12 groups of 20, listed in reverse
     * order of their groups: one cell per pair of groups, the tips with the
     * mean and range of its pairs */
    n = 240;
    D = clustered_matrix(n, 20, 0);
    int *gid = malloc((size_t)n * sizeof *gid), *ord = malloc((size_t)n * sizeof *ord);
    for (int r = 0; r < n; r++) {
        gid[r] = r / 20;
        ord[r] = n - 1 - r;
    }
    const int *glev[1] = {gid};
    tbr_heatmap grp = {.id = "grp", .D = D, .n = n, .order = ord, .nlevels = 1, .groups = glev, .clip_pct = 95,
                       .cell_group = gid, .cell_level = "node"};
    tbr_buf_init(&b);
    TAP_OK(tbr_heatmap_svg(&b, &grp, &info) == 0 && well_formed(&b, "grouped heatmap"), "240-rank heatmap by groups renders");
    TAP_OK(info.grouped && info.block == 20 && info.ncells == 144 && count(b.s, "class=\"cell") == 144,
           "240 ranks in 12 groups: 12 x 12 cells (%d, block %d)", info.ncells, info.block);
    TAP_OK(strstr(b.s, "<title>node 11 (20 ranks) \xe2\x86\x92 node 11 (20 ranks): 1 \xc2\xb5s mean, 1 \xc2\xb5s-1") != NULL &&
               strstr(b.s, "node 11 (20 ranks) \xe2\x86\x92 node 10 (20 ranks): 4 \xc2\xb5s mean") != NULL,
           "a cell per pair of groups, first the last group (reverse order), mean and range in the tip");
    TAP_OK(count(b.s, "class=\"grp\"") == 12, "the groups outlined");
    tbr_buf_free(&b);
    /* more groups than agg_cells: blocks again */
    grp.agg_cells = 10;
    tbr_buf_init(&b);
    TAP_OK(tbr_heatmap_svg(&b, &grp, &info) == 0 && !info.grouped && info.block == 24 && info.ncells == 100 &&
               count(b.s, "class=\"grp\"") == 0,
           "12 groups, 10 cells a side: blocks of 24, no outlines finer than a cell (%d cells)", info.ncells);
    tbr_buf_free(&b);
    free(gid);
    free(ord);

    /* the exact percentile of the off-diagonal entries, without a sort:
     * the same as tbr_percentile on them (ties, NAN, negatives included) */
    int same = 1;
    double *off = malloc((size_t)n * (size_t)n * sizeof *off);
    unsigned seed = 7;
    for (int trial = 0; trial < 4; trial++) {
        int m = 0, nt = trial < 2 ? 5 : 60;
        for (int i = 0; i < nt; i++)
            for (int j = 0; j < nt; j++) {
                seed = seed * 1103515245u + 12345u;
                double x = trial == 1 ? (double)(seed % 3) : ((double)(seed >> 8) / 16777216.0 - 0.2) * 1e-5;
                if (trial == 3 && seed % 17 == 0)
                    x = NAN;
                D[i * nt + j] = x;
                if (i != j)
                    off[m++] = x;
            }
        for (double p = 0; p <= 100; p += 12.5)
            same &= tbr_percentile_offdiag(D, nt, p) == tbr_percentile(off, m, p);
    }
    TAP_OK(same, "percentile of the off-diagonal entries = tbr_percentile of them (4 matrices, 9 percentiles)");
    for (int k = 0; k < 4; k++)
        D[k] = k == 0 || k == 3 ? 0 : NAN;
    TAP_OK(isnan(tbr_percentile_offdiag(D, 2, 50)), "no finite off-diagonal entry: NAN");
    free(off);
    free(D);

    double v[5] = {5, 1, NAN, 3, 2};
    TAP_OK(tbr_percentile(v, 5, 50) == 2.5 && tbr_percentile(v, 5, 100) == 5 && tbr_percentile(v, 5, 0) == 1,
           "percentile ignores NAN and interpolates");
}

/* ---- dendrogram ---------------------------------------------------------- */

static void test_dendrogram(void)
{
    int n = 12;
    double *D = malloc((size_t)n * n * sizeof *D);
    /* 2 islands of 6, each 3 sockets of 2 */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            D[i * n + j] = i == j ? 0 : i / 6 != j / 6 ? 8e-6 : i / 2 != j / 2 ? 2e-6 : 0.4e-6;
    tt_dendrogram dg;
    tt_hierarchy h;
    TAP_OK(tt_agglomerative(D, n, TT_LINK_AVERAGE, &dg) == 0, "clustering library builds the dendrogram");
    TAP_OK(tt_levels_from_dendrogram(&dg, NULL, &h) == 0 && h.nlevels == 2, "two levels cut (%d)", h.nlevels);
    int order[12], seen[12] = {0}, perm = 1;
    TAP_OK(tbr_dendrogram_order(&dg, order) == 0, "leaf order");
    for (int k = 0; k < n; k++)
        seen[order[k]]++;
    for (int k = 0; k < n; k++)
        perm &= seen[k] == 1;
    int contiguous = 1;
    for (int k = 0; k + 1 < n; k += 2)
        contiguous &= order[k] / 2 == order[k + 1] / 2;
    TAP_OK(perm && contiguous, "leaf order is a permutation keeping each socket together");
    const char *names[12] = {"a&b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"};
    tbr_dendro d = {.id = "dg", .dg = &dg, .h = &h, .leaf_names = names, .unit_scale = 1e6, .unit = "us"};
    tbr_buf b;
    tbr_buf_init(&b);
    TAP_OK(tbr_dendrogram_svg(&b, &d) == 0 && well_formed(&b, "dendrogram"), "dendrogram SVG is well-formed");
    TAP_OK(count(b.s, "class=\"link\"") == n - 1, "n-1 links (%d)", count(b.s, "class=\"link\""));
    TAP_OK(count(b.s, "class=\"cut\"") == 2, "one dashed cut per level");
    TAP_OK(count(b.s, "class=\"cut-label\"") == 2 && strstr(b.s, "2 groups") && strstr(b.s, "6 groups"),
           "cuts labelled with their group counts");
    tbr_buf_free(&b);
    /* collapsed: the top 3 merges only, over the 4 nodes they join */
    d.max_leaves = 8;
    d.agg_leaves = 4;
    tbr_buf_init(&b);
    TAP_OK(tbr_dendrogram_svg(&b, &d) == 0 && well_formed(&b, "collapsed dendrogram"),
           "collapsed dendrogram is well-formed");
    TAP_OK(count(b.s, "class=\"link\"") == 3 && count(b.s, "class=\"sub\"") == 4 &&
               count(b.s, "ranks merged at or below") == 4 && count(b.s, "class=\"cut\"") == 2,
           "12 ranks, 4 leaves: 3 links, 4 subtrees, the 2 cuts (%d links, %d subtrees)", count(b.s, "class=\"link\""),
           count(b.s, "class=\"sub\""));
    /* the merges inside islands tie at 2 us: the top 3 are the root and
     * both of one island, over the other island and that island's sockets */
    TAP_OK(count(b.s, "(6) ") == 1 && count(b.s, "(2) ") == 3, "subtrees labelled with their rank counts (6, 2, 2, 2)");
    tbr_buf_free(&b);
    tt_hierarchy_free(&h);
    tt_dendrogram_free(&dg);
    free(D);
}

/* ---- topology tree, accuracy, PLogP pairs -------------------------------- */

static const char topo_yaml[] =
    "topobcast: 2\n"
    "topology:\n"
    "  fingerprint: {nprocs: 8, hosts: [\"a&b\", n1, n2]}\n"
    "  levels: [island, node]\n"
    "  leaves:\n"
    "    - [0, -1]\n"
    "    - [1, -1]\n"
    "    - [2, -1]\n"
    "    - [0, -1]\n"
    "    - [1, -1]\n"
    "    - [2, -1]\n"
    "    - [0, -1]\n"
    "    - [1, -1]\n"
    "  groups:\n"
    "    island: [[0, 1, 3, 4, 6, 7], [2, 5]]\n"
    "    node: [[0, 3, 6], [1, 4, 7], [2, 5]]\n";

static void test_tree(tb_config *cfg)
{
    const tb_topology *t = &cfg->topo;
    tbr_tree tr;
    TAP_OK(tbr_tree_build(t, &tr) == 0, "tree built");
    TAP_OK(tr.nnodes == 1 + 2 + 3 && tr.nrows == 3, "root + 2 islands + 3 nodes (%d nodes, %d rows)", tr.nnodes,
           tr.nrows);
    int order[8];
    tbr_tree_order(&tr, NULL, order);
    int expect[8] = {0, 3, 6, 1, 4, 7, 2, 5};
    TAP_OK(memcmp(order, expect, sizeof order) == 0, "hierarchy order: %d %d %d %d %d %d %d %d", order[0], order[1],
           order[2], order[3], order[4], order[5], order[6], order[7]);
    int pos[8] = {0, 1, 2, 7, 4, 5, 3, 6}; /* tie-break inside a node: 0, 6, 3 */
    tbr_tree_order(&tr, pos, order);
    TAP_OK(order[0] == 0 && order[1] == 6 && order[2] == 3, "inside a group the tie-break order holds");
    tbr_buf b;
    tbr_buf_init(&b);
    TAP_OK(tbr_tree_svg(&b, "tree", t, &tr) == 0 && well_formed(&b, "tree"), "tree SVG is well-formed");
    TAP_OK(count(b.s, "class=\"tnode\"") == 6, "one box per node (%d)", count(b.s, "class=\"tnode\""));
    TAP_OK(count(b.s, "class=\"edge\"") == 5, "one edge per non-root node");
    TAP_OK(strstr(b.s, "a&amp;b") != NULL && strstr(b.s, "a&b") == NULL, "host names escaped");
    TAP_OK(strstr(b.s, "ranks 0, 3, 6") != NULL, "finest groups list their ranks");
    tbr_buf_free(&b);
    char runs[64];
    int r[6] = {0, 1, 2, 5, 7, 8};
    tbr_rank_runs(r, 6, runs, sizeof runs);
    TAP_OK(strcmp(runs, "0-2, 5, 7-8") == 0, "rank runs: %s", runs);

    /* accuracy: a truth equal to the node level, one equal to nothing */
    int node_truth[8] = {5, 6, 7, 5, 6, 7, 5, 6}, odd[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    tt_truthset ts;
    memset(&ts, 0, sizeof ts);
    ts.n = 8;
    ts.ntruth = 2;
    snprintf(ts.name[0], sizeof ts.name[0], "node");
    snprintf(ts.name[1], sizeof ts.name[1], "half");
    ts.labels[0] = node_truth;
    ts.labels[1] = odd;
    tbr_accuracy acc;
    TAP_OK(tbr_accuracy_compute(t, &ts, &acc) == 0, "accuracy computed");
    TAP_OK(acc.best[0] == 1 && acc.acc[0][1] == 1.0 && fabs(acc.ari[0][1] - 1) < 1e-12,
           "truth 'node' matches level node exactly");
    TAP_OK(acc.acc[1][acc.best[1]] < 1.0 && acc.truth_groups[1] == 2, "truth 'half' matches no level exactly (%.3f)",
           acc.acc[1][acc.best[1]]);
    tbr_buf_init(&b);
    tbr_accuracy_html(&b, "acc", t, &acc);
    TAP_OK(well_formed(&b, "accuracy table"), "accuracy table is well-formed");
    TAP_OK(count(b.s, "<tr>") == 3 && count(b.s, "class=\"best exact\"") == 1, "one row per truth, exact best marked");
    tbr_buf_free(&b);
    tbr_tree_free(&tr);
}

/* A measurement file in the probe's format: 8 ranks, pair times by class. */
static int make_meas(tt_meas *m, const tb_topology *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "topobcast-probe-measurements 1\nmode plogp\nnprocs 8\n");
    fprintf(f, "options reps=2 max-size=1024 eps=0.05 max-insert=0 min-spacing=32 k-wait=1.3 gsat-max=65536 "
               "gsat-cap=256 batch-time=0 stat=median prtt-n=8 concurrency=intra fast=1 seed=1\n");
    fprintf(f, "run pairs=28 rounds=7 elapsed=0.1 wtime-overhead=1e-08\n");
    for (int r = 0; r < 8; r++)
        fprintf(f, "rank %d host=%s pu=-1 core=-1 package=-1 numa=-1 world=%d group=0 measured=1\n", r,
                t->hosts[t->leaves[r].host], r);
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++) {
            int c = (t->group[0][i] == t->group[0][j]) + (t->group[1][i] == t->group[1][j]);
            double L = c == 2 ? 3e-7 : c == 1 ? 1e-6 : 2e-6;
            fprintf(f, "pair %d %d L=%.17g sizes=3\n", i, j, L + 1e-9 * j);
            for (int s = 0; s < 3; s++) {
                double mm = s == 0 ? 0 : s == 1 ? 64 : 1024, g = 1e-7 + mm * 1e-10 * (3 - c);
                fprintf(f, "s %g %.17g %.17g %.17g %.17g 16", mm, 2 * L + 2 * g, 2e-7, 2e-7, g);
                for (int q = 0; q < 15; q++)
                    fprintf(f, " 0");
                fputc('\n', f);
            }
        }
    fprintf(f, "end\n");
    fclose(f);
    FILE *in = fmemopen(text, len, "r");
    char err[256];
    int rc = tt_save_read(in, "mem", m, err, sizeof err);
    if (rc != 0)
        printf("# %s\n", err);
    fclose(in);
    free(text);
    return rc;
}

static void test_plogp(tb_config *cfg)
{
    const tb_topology *t = &cfg->topo;
    tt_meas m;
    TAP_OK(make_meas(&m, t) == 0, "measurements read by the probe's reader");
    tbr_pair_pick pk[8];
    int np = tbr_plogp_pick(&m, t, pk, 8);
    TAP_OK(np == 3, "one pair per distance class (%d)", np);
    TAP_OK(np == 3 && strcmp(pk[0].what, "same node") == 0 && strcmp(pk[1].what, "other node, same island") == 0 &&
               strcmp(pk[2].what, "other island") == 0,
           "classes closest first, named after the levels");
    int c_ok = 1;
    for (int k = 0; k < np; k++) {
        int i = pk[k].i, j = pk[k].j;
        int c = (t->group[0][i] == t->group[0][j]) + (t->group[1][i] == t->group[1][j]);
        c_ok &= c == 2 - k;
    }
    TAP_OK(c_ok, "each picked pair belongs to its class");
    tbr_buf b;
    tbr_buf_init(&b);
    TAP_OK(tbr_plogp_svg(&b, "plogp", &m, pk, np) == 0 && well_formed(&b, "plogp"), "PLogP SVG is well-formed");
    /* 4 panels x 3 pairs, plus 3 legend lines */
    TAP_OK(count(b.s, "class=\"series\"") == 4 * np + np, "a curve per pair and panel (%d)",
           count(b.s, "class=\"series\""));
    TAP_OK(strstr(b.s, "a&amp;b") != NULL, "legend names hosts, escaped");
    tbr_buf_free(&b);
    tt_meas_free(&m);
}

/* ---- selection map, compare CSV, speedup curve ---------------------------- */

static const char table_yaml[] =
    "topobcast: 1\n"
    "selection:\n"
    "  - {comm: 1-2, algorithm: default}\n"
    "  - {comm: 3-inf, bytes: 0-8K, algorithm: \"knomial:radix=4\"}\n"
    "  - {comm: 3-inf, bytes: 8K-inf, algorithm: \"pipeline:segment=64K\"}\n"
    "  - {algorithm: default}\n";

static void test_selection(void)
{
    tb_config cfg;
    char err[256] = "";
    TAP_OK(tb_config_load_buffer(table_yaml, strlen(table_yaml), "t.yaml", &cfg, err, sizeof err) == 0,
           "table loads: %s", err);
    tbr_catmap colors;
    memset(&colors, 0, sizeof colors);
    tbr_selmap s = {.id = "sel", .cfg = &cfg, .max_comm = 8, .max_bytes = 1 << 20, .colors = &colors};
    tbr_buf b;
    tbr_buf_init(&b);
    int cells = 0;
    TAP_OK(tbr_selection_svg(&b, &s, &cells) == 0 && well_formed(&b, "selection"), "selection SVG is well-formed");
    /* communicator sizes 2..8 (7 rows) x sizes 1 B..1 MiB (21 columns) */
    TAP_OK(cells == 7 * 21 && count(b.s, "class=\"cell\"") == 147, "7 x 21 cells (%d)", cells);
    TAP_OK(count(b.s, "class=\"swatch\"") == 3, "legend: the three algorithms used");
    char knomial[256], pipeline[256];
    tb_alg_spec_format(&cfg.rules[1].spec, knomial, sizeof knomial);
    tb_alg_spec_format(&cfg.rules[2].spec, pipeline, sizeof pipeline);
    const char *ck = tbr_catmap_color(&colors, knomial), *cp = tbr_catmap_color(&colors, pipeline);
    TAP_OK(strcmp(ck, cp) != 0 && strcmp(tbr_catmap_color(&colors, "default"), TBR_COLOR_DEFAULT) == 0,
           "distinct colours, default grey");
    /* 2 processes: default everywhere (21 cells); 3..8 processes: 1 B..8K
     * knomial (14 sizes x 6), 16K..1M pipeline (7 x 6) */
    char needle[64];
    snprintf(needle, sizeof needle, "fill=\"%s\"", ck);
    int nk = count(b.s, needle);
    snprintf(needle, sizeof needle, "fill=\"%s\"", cp);
    int npipe = count(b.s, needle);
    snprintf(needle, sizeof needle, "fill=\"%s\"", TBR_COLOR_DEFAULT);
    int nd = count(b.s, needle);
    /* each count includes its legend swatch */
    TAP_OK(nk == 14 * 6 + 1 && npipe == 7 * 6 + 1 && nd == 21 + 1, "cells coloured by the first matching rule "
           "(knomial %d, pipeline %d, default %d)", nk, npipe, nd);
    tbr_buf_free(&b);
    tb_config_free(&cfg);

    const char csv[] = "size,default_us,topobcast_us,speedup,algorithm\n"
                       "1,3.0,1.5,2.0,\"knomial:segment=0,radix=4\"\n"
                       "65536,30,40,0.75,\"pipe\"\"<x>\"\n"
                       "1024,4,4,1.0,default\n";
    tbr_compare c;
    TAP_OK(tbr_compare_parse(csv, "c.csv", &c, err, sizeof err) == 0 && c.n == 3, "compare CSV parsed: %s", err);
    TAP_OK(c.n == 3 && strcmp(c.row[0].alg, "knomial:segment=0,radix=4") == 0 && strcmp(c.row[1].alg, "pipe\"<x>") == 0 &&
               c.row[1].bytes == 65536 && c.row[1].speedup == 0.75,
           "quoted algorithms with commas and doubled quotes");
    tbr_buf_init(&b);
    TAP_OK(tbr_speedup_svg(&b, "sp", &c, &colors) == 0 && well_formed(&b, "speedup"), "speedup SVG is well-formed");
    TAP_OK(count(b.s, "class=\"pt\"") == 3, "one point per size");
    TAP_OK(count(b.s, "class=\"one\"") == 1, "the 1.0 line is drawn");
    TAP_OK(strstr(b.s, "pipe&quot;&lt;x&gt;") != NULL, "algorithm names escaped");
    tbr_buf_free(&b);
    tbr_compare_free(&c);
    const char bad[] = "size,default_us,topobcast_us,speedup,algorithm\n1,2,3\n";
    TAP_OK(tbr_compare_parse(bad, "bad.csv", &c, err, sizeof err) != 0 && strstr(err, "bad.csv:2:"),
           "short line rejected with its line: %s", err);
    const char hdr[] = "bytes,a,b\n1,2,3\n";
    TAP_OK(tbr_compare_parse(hdr, "h.csv", &c, err, sizeof err) != 0, "wrong header rejected: %s", err);
    TAP_OK(tbr_compare_parse(csv, "c.csv", &c, err, sizeof err) == 0 && !c.has_bound &&
               tbr_efficiency_svg(&b, "ef", &c) == -1,
           "no bound columns: no efficiency figure");
    tbr_compare_free(&c);

    /* with the bound (tuner --compare with a machine); a size without one */
    const char csvb[] = "size,default_us,topobcast_us,speedup,algorithm,bound_us,efficiency\n"
                        "1,3.0,1.5,2.0,\"knomial:segment=0,radix=4\",0.600,0.4000\n"
                        "1048576,400,250,1.6,\"pipe\",200.000,0.8000\n"
                        "65536,30,40,0.75,default,,\n";
    TAP_OK(tbr_compare_parse(csvb, "b.csv", &c, err, sizeof err) == 0 && c.n == 3 && c.has_bound &&
               c.row[1].bound_us == 200 && c.row[1].efficiency == 0.8 && isnan(c.row[2].bound_us) &&
               strcmp(c.row[0].alg, "knomial:segment=0,radix=4") == 0,
           "bound columns parsed, an empty one is no bound: %s", err);
    tbr_buf_init(&b);
    TAP_OK(tbr_efficiency_svg(&b, "ef", &c) == 0 && well_formed(&b, "efficiency"), "efficiency SVG is well-formed");
    TAP_OK(count(b.s, "class=\"pt\"") == 2 && count(b.s, "class=\"one\"") == 1 &&
               count(b.s, "time-bound") == 2,
           "efficiency: a point per size with a bound, the 1.0 line, the bound's curve and legend");
    tbr_buf_free(&b);
    tbr_compare_free(&c);
    const char badb[] = "size,default_us,topobcast_us,speedup,algorithm,bound_us,efficiency\n1,2,3,4,x,y,z\n";
    TAP_OK(tbr_compare_parse(badb, "bb.csv", &c, err, sizeof err) != 0 && strstr(err, "bb.csv:2:"),
           "a bound that is not a number rejected: %s", err);
}

/* A table keyed on shapes, read per shape: the comparison's shape columns
 * (found by name, other columns ignored) give the selection map's rows. */
static const char shape_table_yaml[] =
    "topobcast: 1\n"
    "selection:\n"
    "  - {nodes: 1, bytes: 0-8K, algorithm: \"knomial:radix=4\"}\n"
    "  - {ppn: 1, algorithm: \"pipeline:segment=64K\"}\n"
    "  - {comm: 2-inf, nodes: 2-inf, algorithm: binary}\n"
    "  - {algorithm: default}\n";

static void test_selection_shapes(void)
{
    const char csv[] = "shape,nprocs,shape_keys,size,default_us,topobcast_us,speedup,algorithm,bound_us\n"
                       "job,8,size=8 nodes=4 ppn=2 consecutive=no levels=node groups=4,1,3,1.5,2,binary,1\n"
                       "job,8,size=8 nodes=4 ppn=2 consecutive=no levels=node groups=4,1024,6,3,2,binary,2\n"
                       "one-per-node,4,size=4 nodes=4 ppn=1 consecutive=yes levels=none,1,2,1,2,\"pipeline:a,b\",1\n"
                       "one-node,2,size=2 nodes=1 ppn=2 consecutive=yes levels=none,1,1,1,1,default,1\n";
    tbr_compare c, one;
    char err[256] = "";
    TAP_OK(tbr_compare_parse(csv, "s.csv", &c, err, sizeof err) == 0 && c.n == 4 && c.nshape == 3,
           "CSV with shape columns: 4 rows, 3 shapes, an unknown column ignored (%s)", err);
    TAP_OK(c.nshape == 3 && !strcmp(c.shape[1].label, "one-per-node") && c.shape[1].nprocs == 4 &&
               !strcmp(c.shape[2].keys, "size=2 nodes=1 ppn=2 consecutive=yes levels=none") && c.row[2].shape == 1 &&
               !strcmp(c.row[2].alg, "pipeline:a,b"),
           "shapes: label, processes, keys; rows point at theirs");
    TAP_OK(tbr_compare_of_shape(&c, 0, &one) == 0 && one.n == 2 && one.nshape == 1 && !strcmp(one.shape[0].label, "job") &&
               one.row[1].bytes == 1024,
           "the rows of one shape as a comparison of their own");
    tbr_compare_free(&one);

    tb_config cfg;
    TAP_OK(tb_config_load_buffer(shape_table_yaml, strlen(shape_table_yaml), "t.yaml", &cfg, err, sizeof err) == 0,
           "shape-keyed table loads: %s", err);
    tb_shape shapes[3];
    const char *labels[3];
    int parsed = 1;
    for (int k = 0; k < 3; k++) {
        parsed &= tb_shape_parse(c.shape[k].keys, &cfg, &shapes[k], err, sizeof err) == 0;
        labels[k] = c.shape[k].label;
    }
    TAP_OK(parsed, "the shape keys parse against the table's level names (%s)", err);
    tbr_catmap colors;
    memset(&colors, 0, sizeof colors);
    tbr_selmap s = {.id = "sel", .cfg = &cfg, .max_comm = 8, .max_bytes = 1 << 20, .colors = &colors, .nshape = 3,
                    .shapes = shapes, .shape_labels = labels};
    tbr_buf b;
    tbr_buf_init(&b);
    int cells = 0;
    TAP_OK(tbr_selection_svg(&b, &s, &cells) == 0 && well_formed(&b, "selection by shape") && cells == 3 * 21,
           "one row per shape: 3 x 21 cells (%d)", cells);
    /* job -> binary everywhere, one-per-node -> pipeline everywhere, one
     * node -> knomial up to 8K (14 sizes), default above (7) */
    int nb = count(b.s, "job, "), np = count(b.s, "one-per-node, "), nk = count(b.s, "one-node, ");
    TAP_OK(nb == 21 && np == 21 && nk == 21, "rows labelled by shape in every cell's tip (%d %d %d)", nb, np, nk);
    char needle[64], bin[256];
    tb_alg_spec_format(&cfg.rules[2].spec, bin, sizeof bin);
    snprintf(needle, sizeof needle, "fill=\"%s\"", tbr_catmap_color(&colors, bin));
    int nbin = count(b.s, needle);
    snprintf(needle, sizeof needle, "fill=\"%s\"", TBR_COLOR_DEFAULT);
    int nd = count(b.s, needle);
    TAP_OK(nbin == 21 + 1 && nd == 7 + 1, "same table, different shapes, different rules (binary %d, default %d)",
           nbin, nd);
    tbr_buf_free(&b);
    tb_config_free(&cfg);
    tbr_compare_free(&c);
}

/* ---- the page ------------------------------------------------------------ */

static void test_page(void)
{
    tbr_buf b, svg;
    tbr_buf_init(&b);
    tbr_buf_init(&svg);
    tbr_svg_open(&svg, "s1", 10, 10, "x");
    tbr_svg_rect(&svg, 0, 0, 5, 5, "cell", "#000", NULL);
    tbr_svg_close(&svg);
    tbr_html_begin(&b, "report <of> a&b");
    tbr_html_section(&b, "sec", "Heading & more");
    tbr_html_p(&b, "note", "clipped at the %dth percentile <b>", 95);
    tbr_html_row_begin(&b);
    tbr_html_figure(&b, "fig-a", svg.s, "caption with <markup> & such");
    tbr_html_row_end(&b);
    tbr_html_section_end(&b);
    tbr_html_end(&b);
    TAP_OK(well_formed(&b, "page"), "the page is well-formed XML (XHTML-compatible)");
    TAP_OK(count(b.s, "<figure id=\"fig-a\">") == 1 && count(b.s, "<svg ") == 1, "figure wraps the SVG");
    TAP_OK(strstr(b.s, "<script") == NULL && count(b.s, "http://") == count(b.s, "http://www.w3.org/2000/svg") &&
               strstr(b.s, "https://") == NULL && strstr(b.s, "url(") == NULL && strstr(b.s, "@import") == NULL,
           "no scripts and nothing fetched");
    tbr_buf_free(&b);
    tbr_buf_free(&svg);
}

int main(void)
{
    test_checker();
    test_escape();
    test_heatmap();
    test_dendrogram();
    tb_config cfg;
    char err[256] = "";
    int rc = tb_config_load_buffer(topo_yaml, strlen(topo_yaml), "topo.yaml", &cfg, err, sizeof err);
    TAP_OK(rc == 0, "topology loads: %s", rc ? err : "ok");
    if (rc == 0) {
        test_tree(&cfg);
        test_plogp(&cfg);
        tb_config_free(&cfg);
    }
    test_selection();
    test_selection_shapes();
    test_page();
    TAP_DONE();
}
