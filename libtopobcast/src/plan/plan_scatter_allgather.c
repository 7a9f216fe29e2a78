/* Scatter-allgather broadcast (van de Geijn): a binomial scatter hands block
 * v to the rank at ring position v (together with the blocks of its whole
 * subtree, which it forwards), then an allgather (ring or recursive
 * doubling) completes every rank.  Bandwidth cost ~2n instead of n log P, so
 * it wins for large messages.  With ring=distance the positions follow a
 * physically close ring order so the allgather's neighbour traffic stays
 * local.
 *
 * Time complexity: the scatter takes ceil(log2 P) rounds in which the root
 * sends n (P - 1)/P bytes in all (n/2, n/4, ...); then the allgather: ring,
 * P - 1 steps of n/P bytes (xchg_ring.c), or recursive doubling, ceil(log2 P)
 * steps (xchg_rdbl.c).  With the ring: (log2 P + P - 1) a + 2 n (P - 1)/P b.
 * Building: O(P); ring=distance adds tb_hier_ring_order (O(P log P) over
 * levels, O(P^2) over measured distances).
 *
 * Example (test/unit/test_plans.c builds it and compares this text; block v
 * is the one the rank at ring position v holds after the scatter):
 *   scatter_allgather, P = 4, root 0
 *   0 -> 2[2..3] 1[1]
 *   2 -> 3[3]
 *   depth 2, rounds 2
 *   step 1: 0->1 [0], 1->2 [1], 2->3 [2], 3->0 [3]
 *   step 2: 0->1 [3], 1->2 [0], 2->3 [1], 3->0 [2]
 *   step 3: 0->1 [2], 1->2 [3], 2->3 [0], 3->0 [1]
 */
#include "plan/builders.h"

#include <stdio.h>
#include <stdlib.h>

/* Position c below a step of m carries the blocks of its subtree,
 * [c, min(c + m, size)). */
static int scatter_edge(void *ctx, int v, int c, int m)
{
    tb_plan *p = ctx;
    int size = p->tree.size, hi = c + m < size ? c + m : size;
    return tb_tree_add_edge(&p->tree, p->order[v], p->order[c], c, hi);
}

int tb_plan_scatter_allgather(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen)
{
    (void)env;
    if (size < 1 || root < 0 || root >= size) {
        snprintf(err, errlen, "scatter_allgather: bad size %d / root %d", size, root);
        return -1;
    }
    p->order = malloc(sizeof(int) * (size_t)size);
    if (!p->order || tb_tree_init(&p->tree, size, root, size) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->xchg = spec->allgather == TB_AG_RECURSIVE_DOUBLING ? TB_XCHG_RDBL : TB_XCHG_RING;
    if (spec->ring == TB_RING_DISTANCE) {
        if (tb_hier_ring_order(h, size, root, p->order) != 0 || p->order[0] != root) {
            snprintf(err, errlen, "scatter_allgather: no distance ring order for %d ranks", size);
            return -1;
        }
    } else {
        for (int v = 0; v < size; v++)
            p->order[v] = (root + v) % size;
    }
    /* binomial over positions, largest subtree first */
    if (tb_binomial_walk(size, scatter_edge, p) != 0) {
        snprintf(err, errlen, "scatter_allgather: ring order is not a permutation");
        return -1;
    }
    if (tb_tree_finalize(&p->tree) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
