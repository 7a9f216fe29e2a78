/* Complete binary tree over virtual indexes (children of v: 2v+1, 2v+2):
 * fan-out 2 keeps every node's send cost bounded while the depth stays
 * logarithmic, which suits large pipelined messages. */
#include "schedule.h"

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
