/* A site table's rules from its cells' decisions; see site.h
 * (tn_site_rules, tn_site_table_comms). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site.h"

/* A cell's decisions as size ranges, and as one text to compare. */
typedef struct cell_rules {
    tn_table_comm tc; /* ranges only */
    char *sig;        /* "lo-hi:spec;..." */
} cell_rules;

static int cell_rules_make(const char (*win)[TN_CAND_TEXT], const size_t *sizes, int ns, cell_rules *cr)
{
    memset(cr, 0, sizeof *cr);
    if (tn_table_merge(sizes, win, ns, &cr->tc) != 0)
        return -1;
    size_t cap = (size_t)cr->tc.nranges * (TN_CAND_TEXT + 48) + 1, o = 0;
    if (!(cr->sig = malloc(cap)))
        return -1;
    cr->sig[0] = 0;
    for (int r = 0; r < cr->tc.nranges; r++)
        o += (size_t)snprintf(cr->sig + o, cap - o, "%zu-%zu:%s;", cr->tc.ranges[r].lo, cr->tc.ranges[r].hi,
                              cr->tc.ranges[r].spec);
    return 0;
}

static void cell_rules_free(cell_rules *cr)
{
    free(cr->tc.ranges);
    free(cr->sig);
}

/* A block's keys: nodes and ranks-per-node ranges (0..LONG_MAX: any), a
 * placement (-1 any).  Ranks per node key on the fullest node (ppn_max):
 * a job whose nodes hold different numbers of ranks takes the decisions
 * of its fullest node's bucket, which prices the node stage it waits
 * for. */
static tb_shape_cond keys(long nlo, long nhi, long klo, long khi, int place)
{
    tb_shape_cond c;
    tb_shape_cond_any(&c);
    c.nodes_lo = nlo, c.nodes_hi = nhi, c.pmax_lo = klo, c.pmax_hi = khi;
    c.consecutive = place < 0 ? -1 : place == TN_PLACE_COMPACT;
    return c;
}

typedef struct blocks {
    int n, cap;
    tn_table_block *v;
} blocks;

static int push(blocks *b, const tb_shape_cond *c, const cell_rules *cr, const char *comment)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        tn_table_block *nv = realloc(b->v, sizeof *nv * (size_t)cap);
        if (!nv)
            return -1;
        b->v = nv, b->cap = cap;
    }
    tn_table_block *x = &b->v[b->n++];
    x->cond = *c;
    x->r = cr->tc.ranges;
    x->nr = cr->tc.nranges;
    snprintf(x->comment, sizeof x->comment, "%s", comment);
    return 0;
}

static void range_text(long lo, long hi, char *buf, size_t len)
{
    tn_count_range(lo, hi, buf, len);
}

/* Runs of equal decisions along one axis: cells idx[0..m) (adjacent
 * ranges, ascending); each run a block over lo(first)..hi(last) of the
 * axis, the other axis fixed.  axis 0: nodes vary, 1: ranks per node. */
static int runs(blocks *b, const tn_site_grid *g, const cell_rules *cr, const int *idx, int m, int axis, long olo,
                long ohi, int place, const char *what)
{
    for (int a = 0; a < m;) {
        int e = a;
        while (e + 1 < m && !strcmp(cr[idx[e + 1]].sig, cr[idx[a]].sig))
            e++;
        const tn_site_cell *f = &g->cell[idx[a]], *l = &g->cell[idx[e]];
        long nlo = axis == 0 ? f->nlo : olo, nhi = axis == 0 ? l->nhi : ohi;
        long klo = axis == 1 ? f->klo : olo, khi = axis == 1 ? l->khi : ohi;
        char n[48], k[48], comment[256];
        range_text(nlo, nhi, n, sizeof n);
        range_text(klo, khi, k, sizeof k);
        snprintf(comment, sizeof comment, "%s: nodes %s, ranks per node %s%s", what, n, k,
                 place < 0 ? "" : place == TN_PLACE_COMPACT ? ", compact (consecutive ranks fill a node)"
                                                             : ", not compact (round robin, random ...)");
        tb_shape_cond c = keys(nlo, nhi, klo, khi, place);
        if (push(b, &c, &cr[idx[a]], comment) != 0)
            return -1;
        a = e + 1;
    }
    return 0;
}

/* Whether the runs of cells a[0..m) and b[0..m) (same ranges) decide the
 * same. */
static int same_row(const cell_rules *cr, const int *a, const int *b, int m)
{
    for (int i = 0; i < m; i++)
        if (strcmp(cr[a[i]].sig, cr[b[i]].sig) != 0)
            return 0;
    return 1;
}

/* The cells of several ranks per node: index of (place, ppn j, nodes i). */
static int multi(const tn_site_grid *g, int p, int j, int i)
{
    return g->mk + g->mn + p * g->mk * g->mn + j * g->mn + i;
}

/* Several ranks on each node: rows over nodes per ranks-per-node bucket
 * and placement; placements that decide alike merged, then adjacent
 * buckets whose rows are alike. */
static int multi_blocks(blocks *b, const tn_site_grid *g, const cell_rules *cr)
{
    int mn = g->mn, rc = 0;
    if (mn == 0)
        return 0;
    int *row = malloc(sizeof(int) * 4 * (size_t)mn);
    if (!row)
        return -1;
    int *c0 = row, *s0 = row + mn, *c1 = row + 2 * mn, *s1 = row + 3 * mn;
    for (int j = 0; j < g->mk && rc == 0;) {
        for (int i = 0; i < mn; i++)
            c0[i] = multi(g, 0, j, i), s0[i] = multi(g, 1, j, i);
        int e = j;
        while (e + 1 < g->mk) { /* the next bucket decides as this one */
            for (int i = 0; i < mn; i++)
                c1[i] = multi(g, 0, e + 1, i), s1[i] = multi(g, 1, e + 1, i);
            if (!same_row(cr, c0, c1, mn) || !same_row(cr, s0, s1, mn))
                break;
            e++;
        }
        long klo = g->cell[c0[0]].klo, khi = g->cell[multi(g, 0, e, 0)].khi;
        const char *what = "several ranks on each node";
        if (same_row(cr, c0, s0, mn))
            rc = runs(b, g, cr, c0, mn, 0, klo, khi, -1, what);
        else if ((rc = runs(b, g, cr, c0, mn, 0, klo, khi, TN_PLACE_COMPACT, what)) == 0)
            rc = runs(b, g, cr, s0, mn, 0, klo, khi, TN_PLACE_SCATTERED, what);
        j = e + 1;
    }
    free(row);
    return rc;
}

int tn_site_rules(const tn_site_grid *g, const size_t *sizes, int ns, const tb_config *cfg, tn_table *t)
{
    (void)cfg;
    int rc = 0, nc = g->ncell, mn = g->mn;
    cell_rules *cr = calloc((size_t)(nc ? nc : 1), sizeof *cr);
    int *idx = malloc(sizeof(int) * (size_t)(nc ? nc : 1));
    blocks b = {0};
    if (!cr || !idx)
        rc = -1;
    for (int k = 0; k < nc && rc == 0; k++)
        rc = cell_rules_make((const char(*)[TN_CAND_TEXT])g->cell[k].win, sizes, ns, &cr[k]);
    /* one node, by ranks; one rank per node, by nodes */
    for (int j = 0; j < g->mk && rc == 0; j++)
        idx[j] = j;
    if (rc == 0)
        rc = runs(&b, g, cr, idx, g->mk, 1, 1, 1, -1, "one node");
    for (int i = 0; i < mn && rc == 0; i++)
        idx[i] = g->mk + i;
    if (rc == 0)
        rc = runs(&b, g, cr, idx, mn, 0, 1, 1, -1, "one rank per node");
    if (rc == 0)
        rc = multi_blocks(&b, g, cr);
    if (rc == 0) {
        t->site = 1;
        rc = tn_table_build_blocks(t, b.v, b.n, 1);
    }
    for (int k = 0; cr && k < nc; k++)
        cell_rules_free(&cr[k]);
    free(cr), free(idx), free(b.v);
    return rc;
}

int tn_site_table_comms(const tn_site_grid *g, const size_t *sizes, int ns, tn_table *t)
{
    int n = 0;
    for (int k = 0; k < g->ncell; k++)
        n += g->cell[k].npt;
    t->comm = calloc((size_t)(n ? n : 1), sizeof *t->comm);
    if (!t->comm)
        return -1;
    t->ncomm = 0;
    for (int k = 0; k < g->ncell; k++)
        for (int x = 0; x < g->cell[k].npt; x++) {
            tn_table_comm *tc = &t->comm[t->ncomm];
            tn_site_label(&g->cell[k].pt[x], tc->label, sizeof tc->label);
            tc->shape = g->cell[k].pt_shape[x];
            tc->measured = tc->shape.size;
            if (tn_table_merge(sizes, (const char(*)[TN_CAND_TEXT])g->cell[k].win, ns, tc) != 0)
                return -1;
            t->ncomm++;
        }
    return 0;
}
