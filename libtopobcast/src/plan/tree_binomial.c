/* Binomial tree (MPICH shape) over virtual ranks: v's parent is v with its
 * lowest set bit cleared; v's children are v + 2^j for 2^j < lowbit(v) (all
 * powers of two below k at the root).  Sending to the largest subtree first
 * finishes in ceil(log2 k) rounds when every send takes one round.
 *
 * Time complexity: ceil(log2 P) rounds; the root sends the whole message
 * ceil(log2 P) times and every rank receives it once: ceil(log2 P)(a + n b).
 * Building: O(P) (each v visits its log2 lowbit(v) children).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   binomial, P = 8, root 0
 *   0 -> 4 2 1
 *   4 -> 6 5
 *   2 -> 3
 *   6 -> 7
 *   depth 3, rounds 3
 */
#include "plan/builders.h"

int tb_binomial_walk(int k, tb_binomial_visit visit, void *ctx)
{
    int top = 1; /* smallest power of two >= k, the root's (exclusive) bound */
    while (top < k)
        top <<= 1;
    for (int v = 0; v < k; v++) {
        int limit = v == 0 ? top : (v & -v);
        for (int m = limit >> 1; m >= 1; m >>= 1)
            if (v + m < k && visit(ctx, v, v + m, m) != 0)
                return -1;
    }
    return 0;
}

typedef struct {
    tb_tree *t;
    const int *members;
    int k, root_index, lo, hi;
} tree_ctx;

static int add_member_edge(void *ctx, int v, int c, int m)
{
    (void)m;
    tree_ctx *x = ctx;
    return tb_tree_add_edge(x->t, tb_tree_member_at(x->members, x->k, x->root_index, v),
                            tb_tree_member_at(x->members, x->k, x->root_index, c), x->lo, x->hi);
}

int tb_tree_binomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                           int hi)
{
    (void)spec;
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    tree_ctx x = {t, members, k, root_index, lo, hi};
    return tb_binomial_walk(k, add_member_edge, &x);
}
