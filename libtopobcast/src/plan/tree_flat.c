/* Flat tree: the root sends to every member itself.  Lowest latency for a
 * handful of ranks, and the natural fan-out inside a small node.
 *
 * Time complexity: P - 1 rounds, one per receiver: the root sends the whole
 * message P - 1 times, (P - 1)(a + n b) in the usual model (a latency, b
 * time per byte, n bytes); every other rank receives once and sends nothing.
 * Building: O(P).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   flat, P = 6, root 2
 *   2 -> 3 4 5 0 1
 *   depth 1, rounds 5
 */
#include "plan/builders.h"

/* Member at virtual index v (v = 0 is the root), so any root works. */
int tb_tree_flat_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                       int hi)
{
    (void)spec;
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    int root = tb_tree_member_at(members, k, root_index, 0);
    for (int v = 1; v < k; v++)
        if (tb_tree_add_edge(t, root, tb_tree_member_at(members, k, root_index, v), lo, hi) != 0)
            return -1;
    return 0;
}
