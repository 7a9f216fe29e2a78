#include "tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tb_tree_init(tb_tree *t, int size, int root, int nblocks)
{
    memset(t, 0, sizeof *t);
    if (size < 1 || root < 0 || root >= size || nblocks < 1)
        return -1;
    t->size = size;
    t->root = root;
    t->nblocks = nblocks;
    t->parent = malloc(sizeof(int) * (size_t)size);
    t->blk_lo = malloc(sizeof(int) * (size_t)size);
    t->blk_hi = malloc(sizeof(int) * (size_t)size);
    t->child_start = calloc((size_t)size + 1, sizeof(int));
    t->edge_parent = malloc(sizeof(int) * (size_t)size);
    t->edge_child = malloc(sizeof(int) * (size_t)size);
    if (!t->parent || !t->blk_lo || !t->blk_hi || !t->child_start || !t->edge_parent || !t->edge_child) {
        tb_tree_free(t);
        return -1;
    }
    for (int r = 0; r < size; r++) {
        t->parent[r] = -1;
        t->blk_lo[r] = 0;
        t->blk_hi[r] = 0;
    }
    t->blk_hi[root] = nblocks;
    return 0;
}

void tb_tree_free(tb_tree *t)
{
    free(t->parent);
    free(t->blk_lo);
    free(t->blk_hi);
    free(t->child_start);
    free(t->children);
    free(t->edge_parent);
    free(t->edge_child);
    free(t->seg);
    free(t->shm);
    memset(t, 0, sizeof *t);
}

/* A source holds every block without a parent (tb_tree_add_source). */
static int is_source(const tb_tree *t, int r)
{
    return r != t->root && t->parent[r] == -1 && t->blk_hi[r] > 0;
}

int tb_tree_add_source(tb_tree *t, int r)
{
    if (r < 0 || r >= t->size || r == t->root || t->parent[r] != -1 || is_source(t, r))
        return -1;
    t->blk_lo[r] = 0;
    t->blk_hi[r] = t->nblocks;
    t->nsources++;
    return 0;
}

int tb_tree_set_segment(tb_tree *t, int first, size_t seg)
{
    if (!t->seg && seg == 0)
        return 0;
    if (!t->seg && !(t->seg = calloc((size_t)t->size, sizeof *t->seg)))
        return -1;
    for (int e = first < 0 ? 0 : first; e < t->nedges; e++)
        t->seg[t->edge_child[e]] = seg;
    return 0;
}

int tb_tree_set_shm(tb_tree *t, int first)
{
    if (!t->shm && !(t->shm = calloc((size_t)t->size, 1)))
        return -1;
    for (int e = first < 0 ? 0 : first; e < t->nedges; e++)
        t->shm[t->edge_child[e]] = 1;
    return 0;
}

int tb_tree_add_edge(tb_tree *t, int parent, int child, int lo, int hi)
{
    if (parent < 0 || parent >= t->size || child < 0 || child >= t->size)
        return -1;
    if (child == t->root || t->parent[child] != -1 || is_source(t, child) || parent == child ||
        t->nedges >= t->size - 1 - t->nsources)
        return -1;
    if (lo < 0 || hi > t->nblocks || lo > hi)
        return -1;
    t->parent[child] = parent;
    t->blk_lo[child] = lo;
    t->blk_hi[child] = hi;
    t->edge_parent[t->nedges] = parent;
    t->edge_child[t->nedges] = child;
    t->nedges++;
    return 0;
}

int tb_tree_finalize(tb_tree *t)
{
    free(t->children);
    t->children = malloc(sizeof(int) * (size_t)(t->nedges > 0 ? t->nedges : 1));
    if (!t->children)
        return -1;
    memset(t->child_start, 0, sizeof(int) * ((size_t)t->size + 1));
    for (int e = 0; e < t->nedges; e++)
        t->child_start[t->edge_parent[e] + 1]++;
    for (int r = 0; r < t->size; r++)
        t->child_start[r + 1] += t->child_start[r];
    /* stable placement keeps each parent's children in insertion order */
    int *fill = malloc(sizeof(int) * (size_t)t->size);
    if (!fill)
        return -1;
    memcpy(fill, t->child_start, sizeof(int) * (size_t)t->size);
    for (int e = 0; e < t->nedges; e++)
        t->children[fill[t->edge_parent[e]]++] = t->edge_child[e];
    free(fill);
    return 0;
}

int tb_tree_check(const tb_tree *t, char *err, size_t errlen)
{
    if (t->parent[t->root] != -1) {
        snprintf(err, errlen, "root %d has parent %d", t->root, t->parent[t->root]);
        return -1;
    }
    if (t->nedges != t->size - 1 - t->nsources) {
        snprintf(err, errlen, "%d edges for %d ranks and %d sources", t->nedges, t->size, t->nsources);
        return -1;
    }
    for (int r = 0; r < t->size; r++) {
        if (r == t->root || is_source(t, r))
            continue;
        int p = t->parent[r];
        if (p < 0) {
            snprintf(err, errlen, "rank %d has no parent", r);
            return -1;
        }
        /* walk up: must reach the root or a source within size steps (no cycle) */
        int x = r, steps = 0;
        while (x != t->root && x >= 0 && !is_source(t, x) && steps <= t->size) {
            x = t->parent[x];
            steps++;
        }
        if (x != t->root && (x < 0 || !is_source(t, x))) {
            snprintf(err, errlen, "rank %d does not reach the root or a source", r);
            return -1;
        }
        if (t->blk_lo[r] < t->blk_lo[p] || t->blk_hi[r] > t->blk_hi[p]) {
            snprintf(err, errlen, "rank %d receives blocks [%d,%d) but parent %d holds [%d,%d)", r,
                     t->blk_lo[r], t->blk_hi[r], p, t->blk_lo[p], t->blk_hi[p]);
            return -1;
        }
        int found = 0;
        for (int i = t->child_start[p]; i < t->child_start[p + 1]; i++) {
            int c = t->children[i];
            found += c == r;
            if (tb_tree_edge_shm(t, r) && tb_tree_edge_shm(t, c) &&
                (t->blk_lo[c] != t->blk_lo[r] || t->blk_hi[c] != t->blk_hi[r])) {
                snprintf(err, errlen, "shared-memory children %d and %d of %d carry different blocks", r, c, p);
                return -1;
            }
        }
        if (found != 1) {
            snprintf(err, errlen, "rank %d listed %d times among children of %d", r, found, p);
            return -1;
        }
    }
    return 0;
}

int tb_tree_depth(const tb_tree *t)
{
    int depth = 0;
    for (int r = 0; r < t->size; r++) {
        int d = 0;
        for (int x = r; x >= 0 && t->parent[x] >= 0 && d <= t->size; x = t->parent[x])
            d++;
        if (d > depth)
            depth = d;
    }
    return depth;
}

int tb_tree_max_fanout(const tb_tree *t)
{
    int f = 0;
    for (int r = 0; r < t->size; r++)
        if (tb_tree_nchildren(t, r) > f)
            f = tb_tree_nchildren(t, r);
    return f;
}
