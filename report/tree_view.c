/* The topology of the YAML file as a tree: the job, then each level's
 * groups (coarsest first), each box with its size and, for the finest
 * level, the ranks and host names.  The same tree gives the hierarchy's
 * rank order for the reordered heatmaps and the indented text of the
 * summary, so the page and stdout always agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void tbr_tree_free(tbr_tree *tr)
{
    if (!tr)
        return;
    for (int k = 0; k < tr->nnodes; k++) {
        free(tr->node[k].members);
        free(tr->node[k].child);
    }
    free(tr->node);
    memset(tr, 0, sizeof *tr);
}

/* Adds the node of `members` (ascending) at `level` (-1: the root), then
 * its children at level + 1 in order of their smallest member; returns its
 * index or -1.  cap bounds the node array (the loader guarantees that the
 * levels nest, so every group is reached exactly once). */
static int add_node(tbr_tree *tr, const tb_topology *t, int cap, int level, int group, int parent,
                    const int *members, int nm)
{
    if (tr->nnodes >= cap)
        return -1;
    int id = tr->nnodes++;
    tbr_tnode *nd = &tr->node[id];
    nd->level = level;
    nd->group = group;
    nd->parent = parent;
    nd->nmembers = nm;
    nd->row = tr->nrows;
    nd->members = malloc((size_t)nm * sizeof *nd->members);
    if (!nd->members)
        return -1;
    memcpy(nd->members, members, (size_t)nm * sizeof *members);
    if (level + 1 >= t->nlevels) {
        nd->nrows = 1;
        tr->nrows++;
        return id;
    }
    const int *g = t->group[level + 1];
    int *seen = malloc((size_t)nm * sizeof *seen), *sub = malloc((size_t)nm * sizeof *sub);
    nd->child = malloc((size_t)nm * sizeof *nd->child);
    int nseen = 0, rc = (seen && sub && nd->child) ? 0 : -1;
    for (int a = 0; a < nm && rc == 0; a++) {
        int gid = g[members[a]], dup = 0;
        for (int q = 0; q < nseen && !dup; q++)
            dup = seen[q] == gid;
        if (dup)
            continue;
        seen[nseen++] = gid;
        int ns = 0;
        for (int c = a; c < nm; c++)
            if (g[members[c]] == gid)
                sub[ns++] = members[c];
        int kid = add_node(tr, t, cap, level + 1, gid, id, sub, ns);
        if (kid < 0)
            rc = -1;
        else
            nd->child[nd->nchildren++] = kid;
    }
    nd->nrows = tr->nrows - nd->row;
    free(seen);
    free(sub);
    return rc == 0 ? id : -1;
}

int tbr_tree_build(const tb_topology *t, tbr_tree *tr)
{
    memset(tr, 0, sizeof *tr);
    int n = t->nleaves, cap = 1;
    if (n < 1 || t->nlevels < 1)
        return -1;
    for (int l = 0; l < t->nlevels; l++)
        cap += t->ngroups[l];
    tr->nlevels = t->nlevels;
    tr->node = calloc((size_t)cap, sizeof *tr->node);
    int *all = malloc((size_t)n * sizeof *all);
    int rc = -1;
    if (tr->node && all) {
        for (int r = 0; r < n; r++)
            all[r] = r;
        rc = add_node(tr, t, cap, -1, -1, -1, all, n) == 0 ? 0 : -1;
    }
    free(all);
    if (rc != 0)
        tbr_tree_free(tr);
    return rc;
}

static const int *sort_pos;
static int cmp_by_pos(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int px = sort_pos ? sort_pos[x] : x, py = sort_pos ? sort_pos[y] : y;
    return (px > py) - (px < py);
}

void tbr_tree_order(const tbr_tree *tr, const int *pos, int *order)
{
    int k = 0;
    for (int id = 0; id < tr->nnodes; id++) {
        const tbr_tnode *nd = &tr->node[id];
        if (nd->nchildren > 0 || nd->level < 0)
            continue;
        memcpy(order + k, nd->members, (size_t)nd->nmembers * sizeof *order);
        sort_pos = pos;
        qsort(order + k, (size_t)nd->nmembers, sizeof *order, cmp_by_pos);
        sort_pos = NULL;
        k += nd->nmembers;
    }
}

void tbr_tree_hosts(const tb_topology *t, const tbr_tnode *nd, int max_list, char *out, size_t len)
{
    size_t o = 0;
    int nh = 0;
    out[0] = 0;
    for (int a = 0; a < nd->nmembers; a++) {
        int h = t->leaves[nd->members[a]].host;
        int dup = 0;
        for (int c = 0; c < a && !dup; c++)
            dup = t->leaves[nd->members[c]].host == h;
        if (dup)
            continue;
        if (nh < max_list && o < len)
            o += (size_t)snprintf(out + o, len - o, "%s%s", nh ? ", " : "", t->hosts[h]);
        nh++;
    }
    if (nh > max_list && o < len)
        snprintf(out + o, len - o, ", \xe2\x80\xa6 (%d hosts)", nh);
}

void tbr_rank_runs(const int *r, int n, char *out, size_t len)
{
    size_t o = 0;
    out[0] = 0;
    for (int a = 0; a < n && o < len;) {
        int c = a;
        while (c + 1 < n && r[c + 1] == r[c] + 1)
            c++;
        if (c == a)
            o += (size_t)snprintf(out + o, len - o, "%s%d", a ? ", " : "", r[a]);
        else
            o += (size_t)snprintf(out + o, len - o, "%s%d-%d", a ? ", " : "", r[a], r[c]);
        a = c + 1;
    }
}

static int distinct_hosts(const tb_topology *t, const tbr_tnode *nd)
{
    int nh = 0;
    for (int a = 0; a < nd->nmembers; a++) {
        int h = t->leaves[nd->members[a]].host;
        int dup = 0;
        for (int c = 0; c < a && !dup; c++)
            dup = t->leaves[nd->members[c]].host == h;
        nh += !dup;
    }
    return nh;
}

static const char *const level_fill[] = {"#dbe9f6", "#e5f5e0", "#fdebd3", "#efe3f3", "#fff6c7", "#e0f3f3"};

int tbr_tree_svg(tbr_buf *b, const char *id, const tb_topology *t, const tbr_tree *tr)
{
    int compact = tr->nrows > 48;
    double row = compact ? 22 : 42, bh = compact ? 18 : 32, bw = 150, gap = 34, top = 12, left = 12;
    int ncol = tr->nlevels + 1;
    double width = left + ncol * (bw + gap) + 420, height = top * 2 + tr->nrows * row;
    tbr_svg_open(b, id, width, height, "topology tree");
    int *ordinal = calloc((size_t)(tr->nlevels + 1), sizeof *ordinal);
    if (!ordinal)
        return -1;
    char tip[1200], hosts[512], runs[512];
    for (int k = 0; k < tr->nnodes; k++) {
        const tbr_tnode *nd = &tr->node[k];
        int col = nd->level + 1;
        double x = left + col * (bw + gap), yc = top + (nd->row + nd->nrows / 2.0) * row, y = yc - bh / 2;
        if (nd->parent >= 0) {
            const tbr_tnode *p = &tr->node[nd->parent];
            double px = left + (p->level + 1) * (bw + gap) + bw, py = top + (p->row + p->nrows / 2.0) * row;
            double mx = px + gap / 2;
            double lx[4] = {px, mx, mx, x}, ly[4] = {py, py, yc, yc};
            tbr_svg_polyline(b, lx, ly, 4, "edge", NULL);
        }
        int nh = distinct_hosts(t, nd);
        char name[64];
        if (nd->level < 0)
            snprintf(name, sizeof name, "job");
        else
            snprintf(name, sizeof name, "%s %d", t->level_name[nd->level], ordinal[col]);
        ordinal[col]++;
        tbr_tree_hosts(t, nd, 6, hosts, sizeof hosts);
        tbr_rank_runs(nd->members, nd->nmembers, runs, sizeof runs);
        snprintf(tip, sizeof tip, "%s: %d ranks (%s) on %d host%s: %s", name, nd->nmembers, runs, nh,
                 nh == 1 ? "" : "s", hosts);
        const char *fill = nd->level < 0 ? "#ffffff" : level_fill[nd->level % 6];
        tbr_svg_rect(b, x, y, bw, bh, "tnode", fill, tip);
        if (compact) {
            tbr_svg_text(b, x + 6, yc + 4, "start", "tlabel", 0, "%s \xc2\xb7 %d", name, nd->nmembers);
        } else {
            tbr_svg_text(b, x + 6, y + 13, "start", "tlabel", 0, "%s", name);
            tbr_svg_text(b, x + 6, y + 26, "start", "tsub", 0, "%d rank%s \xc2\xb7 %d host%s", nd->nmembers,
                         nd->nmembers == 1 ? "" : "s", nh, nh == 1 ? "" : "s");
        }
        if (nd->nchildren == 0 && nd->level >= 0) {
            tbr_tree_hosts(t, nd, 3, hosts, sizeof hosts);
            char lr[160];
            snprintf(lr, sizeof lr, "%.150s", runs);
            if (strlen(runs) > 40)
                snprintf(lr + 37, sizeof lr - 37, "...");
            tbr_svg_text(b, x + bw + 10, yc + 4, "start", "tleaf", 0, "ranks %s \xe2\x80\x94 %s", lr, hosts);
        }
    }
    free(ordinal);
    tbr_svg_close(b);
    return b->failed ? -1 : 0;
}
