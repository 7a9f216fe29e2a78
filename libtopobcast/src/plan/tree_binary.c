/* Complete binary tree over virtual indexes (children of v: 2v+1, 2v+2):
 * fan-out 2 keeps every node's send cost bounded while the depth stays
 * logarithmic, which suits large pipelined messages.
 *
 * Time complexity: depth floor(log2 P); every inner rank sends the whole
 * message twice, about 2 floor(log2 P)(a + n b); pipelined in S segments of
 * s bytes, about 2 (floor(log2 P) + S - 1)(a + s b).  Building: O(P).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   binary, P = 8, root 0
 *   0 -> 1 2
 *   1 -> 3 4
 *   2 -> 5 6
 *   3 -> 7
 *   depth 3, rounds 4
 */
#include "plan/builders.h"

int tb_tree_binary_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                         int hi)
{
    (void)spec;
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    for (int v = 0; v < k; v++) {
        int parent = tb_tree_member_at(members, k, root_index, v);
        for (int c = 2 * v + 1; c <= 2 * v + 2 && c < k; c++)
            if (tb_tree_add_edge(t, parent, tb_tree_member_at(members, k, root_index, c), lo, hi) != 0)
                return -1;
    }
    return 0;
}
