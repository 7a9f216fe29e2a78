/* Binomial tree (MPICH shape) over virtual ranks: v's parent is v with its
 * lowest set bit cleared; v's children are v + 2^j for 2^j < lowbit(v) (all
 * powers of two below k at the root).  Sending to the largest subtree first
 * finishes in ceil(log2 k) rounds when every send takes one round. */
#include "schedule.h"

static int member_at(const int *members, int k, int root_index, int v)
{
    return members[(root_index + v) % k];
}

int tb_tree_binomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                           int hi)
{
    (void)spec;
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    int top = 1; /* smallest power of two >= k, the root's (exclusive) bound */
    while (top < k)
        top <<= 1;
    for (int v = 0; v < k; v++) {
        int limit = v == 0 ? top : (v & -v);
        int parent = member_at(members, k, root_index, v);
        for (int m = limit >> 1; m >= 1; m >>= 1)
            if (v + m < k && tb_tree_add_edge(t, parent, member_at(members, k, root_index, v + m), lo, hi) != 0)
                return -1;
    }
    return 0;
}
