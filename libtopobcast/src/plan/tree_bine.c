/* Bine tree (De Sensi et al., "Bine Trees: Enhancing Collective Operations
 * by Optimizing Communication Locality", SC25): a binomial tree whose step-s
 * edges join virtual ranks delta_s apart, delta = 1, 1, 3, 5, 11, 21 ...
 * (delta_s = delta_(s-1) + 2 delta_(s-2): the largest distance s+1
 * negabinary digits reach), in alternating directions: at step s, even v
 * sends to v + (-1)^s delta_s and odd v to v - (-1)^s delta_s (mod k).  A
 * binomial tree's step-s partner sits 2^s away; Bine's sits about 2^(s+1)/3
 * away on alternating sides, so subtrees stay among closer ranks and fewer
 * edges cross a coarse boundary of a block-mapped job (up to a third fewer
 * on global links, the paper reports).  The root sends at steps 0 .. L-1
 * (L = floor(log2 k)), every receiver at the steps after its own; at a k
 * that is no power of two the ranks left over hang off their step-L
 * partner.  The distances repeat only modulo an even k: an odd k takes the
 * tree of k + 1 without its last leaf.  Children go in step order: the
 * largest subtree first.
 *
 * Time complexity: like the binomial tree, ceil(log2 P) rounds, the root
 * sending the whole message ceil(log2 P) times: ceil(log2 P)(a + n b).
 * Building: O(P).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   bine, P = 8, root 0
 *   0 -> 1 7 3
 *   1 -> 2 6
 *   7 -> 4
 *   2 -> 5
 *   depth 3, rounds 3
 */
#include "plan/builders.h"

#include <stdlib.h>

enum { BINE_MAXSTEP = 31 };

/* The tree over virtual ranks 0 .. n-1 (n even or a power of two), as
 * edges in send order. */
typedef struct bine {
    int n, steps, nedges;
    int *from, *to, *parent;
    int delta[BINE_MAXSTEP + 1];
} bine;

/* v's partner at step s. */
static int bine_peer(const bine *b, int v, int s)
{
    long d = b->delta[s] % b->n;
    long sign = ((s & 1) ? -1 : 1) * ((v & 1) ? -1 : 1);
    return (int)(((long)v + sign * d + b->n) % b->n);
}

static int bine_edge(bine *b, int v, int c)
{
    if (c == 0 || b->parent[c] >= 0 || c == v)
        return -1;
    b->parent[c] = v;
    b->from[b->nedges] = v;
    b->to[b->nedges++] = c;
    return 0;
}

/* v, reached at step s, sends at the steps after it. */
static int bine_grow(bine *b, int v, int s)
{
    for (int j = s + 1; j < b->steps; j++) {
        int c = bine_peer(b, v, j);
        if (bine_edge(b, v, c) != 0 || bine_grow(b, c, j) != 0)
            return -1;
    }
    return 0;
}

static int bine_virtual(bine *b)
{
    b->steps = 0;
    while ((2L << b->steps) <= b->n)
        b->steps++;
    b->delta[0] = b->delta[1] = 1;
    for (int s = 2; s <= b->steps && s <= BINE_MAXSTEP; s++)
        b->delta[s] = b->delta[s - 1] + 2 * b->delta[s - 2];
    for (int v = 0; v < b->n; v++)
        b->parent[v] = -1;
    if (bine_grow(b, 0, -1) != 0)
        return -1;
    /* the ranks a power of two leaves over: their step-L partner */
    for (int v = 1; (1L << b->steps) < b->n && v < b->n; v++)
        if (b->parent[v] < 0 && bine_edge(b, bine_peer(b, v, b->steps), v) != 0)
            return -1;
    return b->nedges == b->n - 1 ? 0 : -1;
}

int tb_tree_bine_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                       int hi)
{
    (void)spec;
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    /* an odd k > 1 takes the tree of k + 1 without the child of its last
     * edge (a leaf: one reached in the last step), the virtual ranks past
     * it one lower */
    bine b = {k > 1 && k % 2 ? k + 1 : k, 0, 0, NULL, NULL, NULL, {0}};
    b.from = malloc(sizeof(int) * (size_t)b.n);
    b.to = malloc(sizeof(int) * (size_t)b.n);
    b.parent = malloc(sizeof(int) * (size_t)b.n);
    int rc = b.from && b.to && b.parent ? bine_virtual(&b) : -1;
    int drop = b.n > k ? b.to[b.nedges - 1] : b.n, nedges = b.n > k ? b.nedges - 1 : b.nedges;
    for (int e = 0; rc == 0 && e < nedges; e++)
        rc = tb_tree_add_edge(t, tb_tree_member_at(members, k, root_index, b.from[e] - (b.from[e] > drop)),
                              tb_tree_member_at(members, k, root_index, b.to[e] - (b.to[e] > drop)), lo, hi);
    free(b.from);
    free(b.to);
    free(b.parent);
    return rc;
}
