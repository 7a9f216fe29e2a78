/* Split-binary broadcast: the message is cut in two halves; one half goes
 * down a binary tree over the left half of the non-root ranks, the other down
 * a binary tree over the right half, then paired ranks swap halves.  Each
 * rank forwards only half the message, which halves the tree-phase
 * bandwidth cost of a plain binary tree for large messages.
 *
 * Time complexity: two binary trees of about (P - 1)/2 ranks, each carrying
 * half the message (about log2 P levels, every inner rank sends n/2 twice),
 * then one step in which paired ranks swap halves (xchg_pair.c): about
 * (2 log2 P + 1)(a + n b / 2); no rank sends more than 1.5 n bytes.
 * Building: O(P).
 *
 * Example (test/unit/test_plans.c builds it and compares this text; blocks
 * in brackets, block 0 is the first half):
 *   split_binary, P = 8, root 0
 *   0 -> 1[0] 5[1]
 *   1 -> 2[0] 3[0]
 *   5 -> 6[1] 7[1]
 *   2 -> 4[0]
 *   depth 3, rounds 4
 *   step 1: 0->4 [1], 1->5 [0], 2->6 [0], 3->7 [0], 5->1 [1], 6->2 [1], 7->3 [1]
 */
#include "plan/builders.h"

#include <stdio.h>
#include <stdlib.h>

int tb_plan_split_binary(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen)
{
    (void)h; /* the same split on any hierarchy */
    (void)env;
    if (size < 1 || root < 0 || root >= size) {
        snprintf(err, errlen, "split_binary: bad size %d / root %d", size, root);
        return -1;
    }
    int n = size - 1;
    int nl = (n + 1) / 2, nr = n - nl; /* left gets the extra rank */
    int *ranks = malloc(sizeof(int) * (size_t)size);
    p->partner = malloc(sizeof(int) * (size_t)size);
    if (!ranks || !p->partner || tb_tree_init(&p->tree, size, root, 2) != 0) {
        free(ranks);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->xchg = TB_XCHG_PAIR;
    /* ranks[0..nl) = left, ranks[nl..n) = right, in virtual order from root */
    for (int v = 1; v < size; v++)
        ranks[v - 1] = (root + v) % size;
    const int *left = ranks, *right = ranks + nl;
    for (int r = 0; r < size; r++)
        p->partner[r] = -1;
    for (int i = 0; i < nr; i++) {
        p->partner[left[i]] = right[i];
        p->partner[right[i]] = left[i];
    }
    int rc = 0;
    if (nl > 0)
        rc |= tb_tree_add_edge(&p->tree, root, left[0], 0, 1);
    if (nr > 0)
        rc |= tb_tree_add_edge(&p->tree, root, right[0], 1, 2);
    if (nl > 0)
        rc |= tb_tree_binary_build(&p->tree, left, nl, 0, spec, 0, 1);
    if (nr > 0)
        rc |= tb_tree_binary_build(&p->tree, right, nr, 0, spec, 1, 2);
    free(ranks);
    if (rc != 0 || tb_tree_finalize(&p->tree) != 0) {
        snprintf(err, errlen, "split_binary: cannot build tree for %d ranks", size);
        return -1;
    }
    return 0;
}
