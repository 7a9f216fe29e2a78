/* Chain tree: `chains` chains hang off the root, each forwarding down.  With
 * segmentation (done by the engine) this is the pipeline broadcast; several
 * chains trade a little root bandwidth for a shorter pipeline fill.
 *
 * Time complexity: one chain, P - 1 rounds, every rank forwards the whole
 * message once: (P - 1)(a + n b); c chains: floor((P - 1)/c) + c - 1 rounds,
 * the root sends c times.  Pipelined in S = ceil(n/s) segments of s bytes
 * (the pipeline algorithm), one chain takes (P - 2 + S)(a + s b).
 * Building: O(P).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   chain:chains=2, P = 8, root 0
 *   0 -> 1 5
 *   1 -> 2
 *   5 -> 6
 *   2 -> 3
 *   6 -> 7
 *   3 -> 4
 *   depth 4, rounds 4
 */
#include "plan/builders.h"

int tb_tree_chain_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                        int hi)
{
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    int n = k - 1; /* non-root members, virtual indexes 1..n */
    if (n == 0)
        return 0;
    int chains = spec && spec->chains > 1 ? spec->chains : 1;
    if (chains > n)
        chains = n;
    int root = tb_tree_member_at(members, k, root_index, 0);
    /* contiguous runs of near-equal length, the longer ones first; all
     * heads are added before any forwarding edge so the root's send order
     * is simply chain 0, 1, ... */
    int head = 1;
    for (int c = 0; c < chains; c++) {
        if (tb_tree_add_edge(t, root, tb_tree_member_at(members, k, root_index, head), lo, hi) != 0)
            return -1;
        head += n / chains + (c < n % chains);
    }
    head = 1;
    for (int c = 0; c < chains; c++) {
        int len = n / chains + (c < n % chains);
        for (int v = head + 1; v < head + len; v++)
            if (tb_tree_add_edge(t, tb_tree_member_at(members, k, root_index, v - 1), tb_tree_member_at(members, k, root_index, v),
                                 lo, hi) != 0)
                return -1;
        head += len;
    }
    return 0;
}
