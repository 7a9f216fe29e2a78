/* Pair exchange after a split tree: each paired rank sends the part it got
 * from the tree to its partner and receives the partner's part in one step;
 * a rank left without partner (odd number of non-root ranks) gets the rest
 * from the root, which holds everything.  Works from the tree's block
 * ranges (a pair's two parts must together cover the message), so it does
 * not depend on how the tree split the blocks.
 *
 * Time complexity: one step; paired ranks swap their parts (n/2 bytes each
 * way): a + n b / 2; a rank without partner gets its missing part from the
 * root, which sends n/2 once more.  Generating: O(1) per rank, O(P) at the
 * root.
 *
 * Example (test/unit/test_plans.c builds it and compares this text; rank 3
 * has no partner):
 *   split_binary, P = 6, root 0
 *   step 1: 0->3 [1], 1->4 [0], 2->5 [0], 4->1 [1], 5->2 [1]
 */
#include "plan/builders.h"

#include <stdlib.h>

/* Blocks of [0, nblocks) outside [lo, hi), as two ranges. */
static void complement(const tb_tree *t, int r, tb_blocks out[2])
{
    out[0] = (tb_blocks){0, t->blk_lo[r]};
    out[1] = (tb_blocks){t->blk_hi[r], t->nblocks};
}

static int is_unpaired(const tb_plan *p, int r)
{
    const tb_tree *t = &p->tree;
    return r != t->root && p->partner[r] < 0 && t->blk_hi[r] - t->blk_lo[r] < t->nblocks;
}

int tb_xchg_pair_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    const tb_tree *t = &p->tree;
    *steps = NULL;
    int n = 0;
    if (me == t->root) {
        for (int r = 0; r < t->size; r++)
            n += is_unpaired(p, r);
    } else {
        n = p->partner[me] >= 0 || is_unpaired(p, me);
    }
    if (n == 0)
        return 0;
    tb_xchg_step *st = calloc((size_t)n, sizeof *st);
    if (!st)
        return -1;
    if (me == t->root) {
        int s = 0;
        for (int r = 0; r < t->size; r++) {
            if (!is_unpaired(p, r))
                continue;
            st[s].send_peer = r;
            st[s].recv_peer = -1;
            complement(t, r, st[s].send);
            s++;
        }
    } else if (p->partner[me] >= 0) {
        int q = p->partner[me];
        st[0].send_peer = st[0].recv_peer = q;
        st[0].send[0] = (tb_blocks){t->blk_lo[me], t->blk_hi[me]};
        st[0].recv[0] = (tb_blocks){t->blk_lo[q], t->blk_hi[q]};
    } else {
        st[0].send_peer = -1;
        st[0].recv_peer = t->root;
        complement(t, me, st[0].recv);
    }
    *steps = st;
    return n;
}
