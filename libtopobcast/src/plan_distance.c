/* Distance-aware broadcast tree (Ma, Herault, Bosilca, Dongarra, "Process
 * distance-aware adaptive MPI collective communications", Algorithm 1).
 *
 * The paper runs Kruskal on the rank-pair distances with the queue ordered
 * by (distance, edges touching the root first, then ranks): among equal
 * distances the root's edges come first ordered by the other end, the rest
 * by (smaller end, larger end).  That order is a strict total order on the
 * edges, so the minimum spanning tree under it is unique, and Prim's
 * algorithm grown from the root finds the very same tree in O(P^2) time and
 * O(P) memory instead of sorting P^2/2 edges (8 M at P = 4096).  Grown from
 * the root, every edge already points away from it.
 *
 * Ties: the paper breaks them by MPI rank, which makes the lowest rank of
 * each group its leader.  With unequal groups that leaks the numbering into
 * the shape: a node with sockets of 2 and 1 ranks gets depth 1 below its
 * leader when the lowest rank is in the pair, depth 2 when it is alone.  So
 * "rank" here is the canonical position tb_hier_canonical_order gives from
 * the levels (bigger subgroups first, then by shape, then lowest rank):
 * leaders sit in their group's biggest part, and the tree is the same up to
 * interchangeable parts for every numbering of one layout.  Without levels
 * the position is the rank itself, as in the paper.
 *
 * With level distances the result is the paper's shape: one edge per group
 * boundary, each group hanging off the root or its first member, everything
 * at equal distance from a leader attached to that leader directly (the
 * minimum-depth tree among the minimum spanning trees).  Without any
 * distance information all ranks are equally far apart and the tree is the
 * root's flat fan-out.
 *
 * Time complexity: set by the distances.  With levels, one edge per group
 * boundary as in the hierarchical trees, each rank receiving the message
 * once; without any distance information, the flat tree (P - 1 rounds).
 * Building: O(P^2) time (Prim over all pairs), O(P) memory.
 *
 * Example (test/unit/test_hier_trees.c builds it and compares this text;
 * rank 5 leads the other node, being in its biggest socket, where magpie
 * takes the lowest rank 4):
 *   distance_tree, P = 8, root 0, node {0 1 2 3} {4 5 6 7}; socket {0 1} {2 3} {4} {5 6 7}
 *   0 -> 5 2 1
 *   5 -> 4 6 7
 *   2 -> 3
 *   depth 2, rounds 4
 */
#include "builders.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Position of edge {a, b} in the paper's queue. */
typedef struct edge_key {
    double w;
    int not_root; /* 0 for the root's edges: they go first */
    int lo, hi;   /* root edge: (other end, 0); else (first end, last end), by position */
} edge_key;

static edge_key make_key(const tb_hier *h, const int *pos, int root, int a, int b)
{
    edge_key k;
    k.w = tb_hier_distance(h, a, b);
    if (isnan(k.w))
        k.w = INFINITY;
    int pa = pos[a], pb = pos[b];
    if (a == root || b == root) {
        k.not_root = 0;
        k.lo = a == root ? pb : pa;
        k.hi = 0;
    } else {
        k.not_root = 1;
        k.lo = pa < pb ? pa : pb;
        k.hi = pa < pb ? pb : pa;
    }
    return k;
}

static int key_less(const edge_key *x, const edge_key *y)
{
    if (x->w != y->w)
        return x->w < y->w;
    if (x->not_root != y->not_root)
        return x->not_root < y->not_root;
    if (x->lo != y->lo)
        return x->lo < y->lo;
    return x->hi < y->hi;
}

/* Send order of one parent's children.  Farthest first: in this tree the far
 * children are the leaders of whole remote groups, so their sends start the
 * longest remaining paths, and their slow links' latency then overlaps the
 * cheap local sends that follow (MagPIe's "slow links first" too).  Equal
 * distance: the bigger subtree first, as binomial does, since it has the
 * most left to do.  Then canonical position, for determinism. */
typedef struct child_rec {
    int parent;
    double w;
    int subtree;
    int pos;
    int rank;
} child_rec;

static int child_cmp(const void *pa, const void *pb)
{
    const child_rec *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    if (a->subtree != b->subtree)
        return a->subtree > b->subtree ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

int tb_plan_distance_tree(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen)
{
    if (size < 1 || root < 0 || root >= size) {
        snprintf(err, errlen, "%s: root %d outside 0..%d", env->name(spec->id), root, size - 1);
        return -1;
    }
    if (h && (h->nlevels > 0 || h->dist) && h->size != size) {
        snprintf(err, errlen, "%s: hierarchy has %d ranks, communicator %d", env->name(spec->id), h->size,
                 size);
        return -1;
    }
    edge_key *best = malloc(sizeof *best * (size_t)size); /* cheapest edge into the tree */
    int *from = malloc(sizeof(int) * (size_t)size);
    int *added = malloc(sizeof(int) * (size_t)size); /* Prim order: parents before children */
    int *subtree = malloc(sizeof(int) * (size_t)size);
    char *in_tree = calloc((size_t)size, 1);
    child_rec *ch = malloc(sizeof *ch * (size_t)(size > 1 ? size - 1 : 1));
    int *pos = malloc(sizeof(int) * (size_t)size);
    int rc = -1;
    if (!best || !from || !added || !subtree || !in_tree || !ch || !pos) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (h && h->nlevels > 0) {
        if (tb_hier_canonical_order(h, pos) != 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    } else {
        for (int v = 0; v < size; v++)
            pos[v] = v;
    }
    in_tree[root] = 1;
    added[0] = root;
    for (int v = 0; v < size; v++) {
        from[v] = root;
        if (v != root)
            best[v] = make_key(h, pos, root, root, v);
    }
    for (int n = 1; n < size; n++) {
        int pick = -1;
        for (int v = 0; v < size; v++)
            if (!in_tree[v] && (pick < 0 || key_less(&best[v], &best[pick])))
                pick = v;
        in_tree[pick] = 1;
        added[n] = pick;
        for (int v = 0; v < size; v++) {
            if (in_tree[v])
                continue;
            edge_key k = make_key(h, pos, root, pick, v);
            if (key_less(&k, &best[v])) {
                best[v] = k;
                from[v] = pick;
            }
        }
    }
    for (int v = 0; v < size; v++)
        subtree[v] = 1;
    for (int n = size - 1; n > 0; n--)
        subtree[from[added[n]]] += subtree[added[n]];
    int nc = 0;
    for (int v = 0; v < size; v++)
        if (v != root)
            ch[nc++] = (child_rec){from[v], best[v].w, subtree[v], pos[v], v};
    qsort(ch, (size_t)nc, sizeof *ch, child_cmp);
    if (tb_tree_init(&p->tree, size, root, 1) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int i = 0; i < nc; i++)
        if (tb_tree_add_edge(&p->tree, ch[i].parent, ch[i].rank, 0, 1) != 0)
            goto fail;
    if (tb_tree_finalize(&p->tree) != 0)
        goto fail;
    p->xchg = TB_XCHG_NONE;
    rc = 0;
    goto out;
fail:
    snprintf(err, errlen, "%s: cannot build tree for %d ranks", env->name(spec->id), size);
out:
    free(best);
    free(from);
    free(added);
    free(subtree);
    free(in_tree);
    free(ch);
    free(pos);
    return rc;
}
