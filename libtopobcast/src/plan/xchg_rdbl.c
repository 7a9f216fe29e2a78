/* Recursive-doubling allgather over plan positions: every round doubles
 * what each position holds, log2(P) rounds instead of the ring's P - 1, for
 * small and medium messages.
 *
 * At a power of two P, positions v and v ^ 2^k swap their holdings in round
 * k (pairwise exchange).  At any other P, round k is a dissemination step
 * (Bruck et al.): v sends what it holds, blocks [v, v + 2^k) mod P, to
 * position v - 2^k and receives [v + 2^k, v + 2^(k+1)) from v + 2^k, the last
 * round only the blocks still missing -- ceil(log2 P) rounds in which every
 * position receives each block once.  (Folding the positions beyond the
 * largest power of two into partners and sending them everything back at the
 * end costs a whole extra message's time: P = 96 at 64 KiB measured 7 % over
 * MPICH's scatter + recursive doubling that way.)
 *
 * Every rank has the same ceil(log2 P) steps, so step s of all ranks belongs
 * to the same round.
 *
 * Time complexity: ceil(log2 P) steps; a rank sends 1, 2, 4 ... blocks (the
 * last step only what is still missing), n (P - 1)/P bytes in all:
 * ceil(log2 P) a + n (P - 1)/P b.  Generating one rank's steps: O(P) to find
 * its position, then O(log P).
 *
 * Example (test/unit/test_plans.c builds it and compares this text; P = 5 is
 * not a power of two, so each round is a dissemination step):
 *   scatter_allgather:allgather=recursive_doubling, P = 5, root 0
 *   step 1: 0->4 [0], 1->0 [1], 2->1 [2], 3->2 [3], 4->3 [4]
 *   step 2: 0->3 [0..1], 1->4 [1..2], 2->0 [2..3], 3->1 [3..4], 4->2 [4,0]
 *   step 3: 0->1 [0], 1->2 [1], 2->3 [2], 3->4 [3], 4->0 [4]
 */
#include "plan/builders.h"

#include <stdlib.h>

/* Blocks [lo, lo + len) mod P as up to two ranges. */
static void wrapped(int lo, int len, int P, tb_blocks out[2])
{
    lo %= P;
    if (lo + len <= P) {
        out[0] = (tb_blocks){lo, lo + len};
        out[1] = (tb_blocks){0, 0};
    } else {
        out[0] = (tb_blocks){lo, P};
        out[1] = (tb_blocks){0, lo + len - P};
    }
}

int tb_xchg_rdbl_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    int P = p->tree.size;
    *steps = NULL;
    int v = tb_plan_position(p, me);
    if (v < 0)
        return 0;
    int rounds = 0;
    while ((1 << rounds) < P)
        rounds++;
    if (rounds == 0)
        return 0;
    tb_xchg_step *st = calloc((size_t)rounds, sizeof *st);
    if (!st)
        return -1;
    const int pof2 = (1 << rounds) == P;
    for (int k = 0, d = 1; k < rounds; k++, d <<= 1) {
        if (pof2) {
            int peer = v ^ d, base = v & ~(d - 1), pbase = peer & ~(d - 1);
            st[k].send_peer = st[k].recv_peer = p->order[peer];
            st[k].send[0] = (tb_blocks){base, base + d};
            st[k].recv[0] = (tb_blocks){pbase, pbase + d};
        } else {
            int c = d < P - d ? d : P - d; /* blocks new to the receiver */
            st[k].send_peer = p->order[(v - d + P) % P];
            st[k].recv_peer = p->order[(v + d) % P];
            wrapped(v, c, P, st[k].send);
            wrapped(v + d, c, P, st[k].recv);
        }
    }
    *steps = st;
    return rounds;
}
