/* SSSTree clustering: a top-down tree whose cluster centres are chosen by
 * Sparse Spatial Selection (Pedreira & Brisaboa 2007; SSSTree by Brisaboa,
 * Pedreira, Seco, Solar & Uribe, SOFSEM 2008).  Implemented as the seed
 * thesis describes it (sec. 2.5.3/2.5.8, fig. 2.5): the number of children of
 * every node follows from the data and alpha, so it needs no cluster count. */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"

void tt_ssstree_free(tt_ssstree *t)
{
    if (!t)
        return;
    free(t->parent);
    free(t->depth);
    free(t->center);
    free(t->leaf);
    memset(t, 0, sizeof *t);
}

int tt_ssstree_build(const double *D, int n, double alpha, int min_size, tt_ssstree *t)
{
    if (!D || !t || n < 1 || !(alpha > 0.0))
        return -1;
    memset(t, 0, sizeof *t);
    if (min_size < 2)
        min_size = 2;
    int cap = 2 * n;
    t->n = n;
    t->parent = malloc((size_t)cap * sizeof *t->parent);
    t->depth = malloc((size_t)cap * sizeof *t->depth);
    t->center = malloc((size_t)cap * sizeof *t->center);
    t->leaf = malloc((size_t)n * sizeof *t->leaf);
    int *start = malloc((size_t)cap * sizeof *start);
    int *count = malloc((size_t)cap * sizeof *count);
    int *perm = malloc((size_t)n * sizeof *perm);
    int *tmp = malloc((size_t)n * sizeof *tmp);
    int *assign = malloc((size_t)n * sizeof *assign);
    int *centers = malloc((size_t)n * sizeof *centers);
    int *csize = malloc((size_t)n * sizeof *csize);
    int *stack = malloc((size_t)cap * sizeof *stack);
    int rc = -1;
    if (!t->parent || !t->depth || !t->center || !t->leaf || !start || !count || !perm || !tmp ||
        !assign || !centers || !csize || !stack) {
        tt_ssstree_free(t);
        goto out;
    }
    for (int i = 0; i < n; i++)
        perm[i] = i;
    /* the root holds every object, its first one is the centre */
    t->nnodes = 1;
    t->parent[0] = -1;
    t->depth[0] = 0;
    t->center[0] = perm[0];
    start[0] = 0;
    count[0] = n;
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        int node = stack[--sp];
        int *seg = perm + start[node], cnt = count[node];
        int c0 = seg[0];
        int leaf = cnt < min_size;
        double radius = 0.0;
        if (!leaf) {
            for (int i = 1; i < cnt; i++) {
                double d = D[(size_t)c0 * n + seg[i]];
                if (d > radius)
                    radius = d;
            }
            leaf = radius <= 0.0; /* identical objects are one cluster */
        }
        int nc = 1;
        if (!leaf) {
            double thr = alpha * 2.0 * radius;
            centers[0] = c0;
            csize[0] = 1;
            assign[0] = 0;
            for (int i = 1; i < cnt; i++) {
                int x = seg[i], bc = 0;
                double bd = D[(size_t)x * n + centers[0]];
                for (int c = 1; c < nc; c++) {
                    double d = D[(size_t)x * n + centers[c]];
                    if (d < bd) {
                        bd = d;
                        bc = c;
                    }
                }
                if (bd >= thr) {
                    centers[nc] = x;
                    csize[nc] = 1;
                    assign[i] = nc++;
                } else {
                    assign[i] = bc;
                    csize[bc]++;
                }
            }
            leaf = nc < 2; /* no split: recursing would repeat this node */
        }
        if (leaf) {
            for (int i = 0; i < cnt; i++)
                t->leaf[seg[i]] = node;
            continue;
        }
        /* regroup the segment by child, keeping scan order inside a child so
         * each child's centre (its first member) comes first */
        int *off = csize; /* prefix offsets, reuse */
        int acc = 0;
        for (int c = 0; c < nc; c++) {
            int s = off[c];
            off[c] = acc;
            acc += s;
        }
        for (int i = 0; i < cnt; i++)
            tmp[off[assign[i]]++] = seg[i];
        int pos = 0;
        for (int c = 0; c < nc; c++) {
            int child = t->nnodes++;
            int end = off[c];
            t->parent[child] = node;
            t->depth[child] = t->depth[node] + 1;
            start[child] = start[node] + pos;
            count[child] = end - pos;
            t->center[child] = tmp[pos];
            if (t->depth[child] > t->height)
                t->height = t->depth[child];
            pos = end;
        }
        memcpy(seg, tmp, (size_t)cnt * sizeof *seg);
        /* push children last-first so they are expanded in order */
        for (int c = nc - 1; c >= 0; c--)
            stack[sp++] = t->nnodes - nc + c;
    }
    rc = 0;
out:
    free(start); free(count); free(perm); free(tmp); free(assign); free(centers); free(csize);
    free(stack);
    return rc;
}

int tt_ssstree_labels(const tt_ssstree *t, int depth, int *labels)
{
    if (!t || !labels || t->n < 1 || !t->leaf)
        return -1;
    for (int i = 0; i < t->n; i++) {
        int node = t->leaf[i];
        while (t->depth[node] > depth)
            node = t->parent[node];
        labels[i] = node;
    }
    return tt_labels_canonical(labels, t->n);
}
