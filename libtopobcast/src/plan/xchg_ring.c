/* Ring allgather over plan positions: after the scatter, position v holds
 * block v; in P-1 steps every position passes on the block it received last,
 * so each link carries n/P bytes per step and only neighbours talk.
 *
 * Time complexity: P - 1 steps; in each, every rank sends one block (n/P
 * bytes) to its right neighbour and receives one from its left: (P - 1)(a +
 * n b / P), n (P - 1)/P bytes sent per rank.  Generating one rank's steps:
 * O(P).
 *
 * Example (test/unit/test_plans.c builds it and compares this text; ring
 * positions start at the root, so rank 2 holds block 0):
 *   scatter_allgather, P = 6, root 2
 *   step 1: 0->1 [4], 1->2 [5], 2->3 [0], 3->4 [1], 4->5 [2], 5->0 [3]
 *   step 2: 0->1 [3], 1->2 [4], 2->3 [5], 3->4 [0], 4->5 [1], 5->0 [2]
 *   step 3: 0->1 [2], 1->2 [3], 2->3 [4], 3->4 [5], 4->5 [0], 5->0 [1]
 *   step 4: 0->1 [1], 1->2 [2], 2->3 [3], 3->4 [4], 4->5 [5], 5->0 [0]
 *   step 5: 0->1 [0], 1->2 [1], 2->3 [2], 3->4 [3], 4->5 [4], 5->0 [5]
 */
#include "plan/builders.h"

#include <stdlib.h>

int tb_xchg_ring_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    int P = p->tree.size;
    *steps = NULL;
    int v = tb_plan_position(p, me);
    if (v < 0 || P < 2)
        return 0;
    tb_xchg_step *st = calloc((size_t)(P - 1), sizeof *st);
    if (!st)
        return -1;
    int right = p->order[(v + 1) % P], left = p->order[(v + P - 1) % P];
    for (int s = 0; s < P - 1; s++) {
        int sb = ((v - s) % P + P) % P, rb = ((v - s - 1) % P + P) % P;
        st[s].send_peer = right;
        st[s].recv_peer = left;
        st[s].send[0] = (tb_blocks){sb, sb + 1};
        st[s].recv[0] = (tb_blocks){rb, rb + 1};
    }
    *steps = st;
    return P - 1;
}
