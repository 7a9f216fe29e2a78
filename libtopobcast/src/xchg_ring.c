/* Ring allgather over plan positions: after the scatter, position v holds
 * block v; in P-1 steps every position passes on the block it received last,
 * so each link carries n/P bytes per step and only neighbours talk. */
#include "schedule.h"

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
