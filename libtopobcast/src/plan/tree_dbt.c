/* Double binary tree (Sanders, Speck, Traff 2009; NCCL's and UCC's dbt):
 * the members other than the root form two binary trees, each carrying
 * half of the message, pipelined at the same time.  Tree 0 is the in-order
 * binary tree over virtual ranks 1 .. m (m = k - 1): v's parent clears its
 * lowest set bit b and sets 2b (or only clears b when that passes m), so
 * odd ranks are leaves and the top, the highest power of two up to m, hangs
 * off the root.  Tree 1 mirrors it (v -> m+1-v) when m is even and shifts
 * it by one (v -> v mod m + 1) when m is odd: a member inner in one tree is
 * a leaf of the other, so each member sends at most the whole message in
 * all (half twice) and receives it once.  spec->tree_index says which tree
 * to build (the plan holds both: dbt's descriptor asks for two).
 *
 * Time complexity: each half goes down a binary tree of depth about log2 P
 * in S segments of s bytes: about (2 log2 P + 2 S)(a + s b) with S s = n/2,
 * i.e. n b + 4 log2 P (a + s b) for a large message, against 2 n b for one
 * pipelined binary tree.  Building: O(P).
 *
 * Example (test/unit/test_trees.c builds it and compares this text; tree 0
 * carries block 0, tree 1 block 1; m = 7 is odd, so tree 1 is tree 0
 * shifted by one):
 *   dbt, P = 8, root 0
 *   tree 0
 *   0 -> 4[0]
 *   4 -> 2[0] 6[0]
 *   2 -> 1[0] 3[0]
 *   6 -> 5[0] 7[0]
 *   depth 3, rounds 5
 *   tree 1
 *   0 -> 5[1]
 *   5 -> 3[1] 7[1]
 *   3 -> 2[1] 4[1]
 *   7 -> 6[1] 1[1]
 *   depth 3, rounds 5
 */
#include "plan/builders.h"

/* Parent of v (1 .. m) in the in-order binary tree over 1 .. m; 0 for the
 * top. */
static int btree_parent(int v, int m)
{
    int bit = v & -v, up = (v ^ bit) | (bit << 1);
    return up > m ? v ^ bit : up;
}

/* Where tree 0's v sits in tree `second`. */
static int dbt_place(int v, int m, int second)
{
    if (!second || v == 0)
        return v;
    return m % 2 == 0 ? m + 1 - v : v % m + 1;
}

int tb_tree_dbt_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi)
{
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    int m = k - 1, second = spec && spec->tree_index == 1;
    /* increasing v adds each parent's left child first */
    for (int v = 1; v <= m; v++) {
        int from = dbt_place(btree_parent(v, m), m, second), to = dbt_place(v, m, second);
        if (tb_tree_add_edge(t, tb_tree_member_at(members, k, root_index, from),
                             tb_tree_member_at(members, k, root_index, to), lo, hi) != 0)
            return -1;
    }
    return 0;
}
