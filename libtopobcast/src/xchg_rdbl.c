/* Recursive-doubling allgather over plan positions, valid for any P: the
 * P - p2 positions beyond the largest power of two p2 first fold their block
 * into partner v - p2, the p2 lower positions double their holdings log2(p2)
 * times (each holding also covers its folded partner's block), and the
 * folded-in positions finally get everything back.  log2(P) latency instead
 * of the ring's P-1, for small and medium messages.
 *
 * Every rank gets the same number of steps (empty ones where it sits out) so
 * step s of all ranks belongs to the same round. */
#include "schedule.h"

#include <stdlib.h>

static tb_blocks range(int lo, int hi, int P)
{
    if (lo > P)
        lo = P;
    if (hi > P)
        hi = P;
    return (tb_blocks){lo, hi};
}

/* What a power-of-two position u holds before the round with this mask:
 * its aligned group of mask positions plus their folded partners. */
static void group_blocks(int u, int mask, int p2, int P, tb_blocks out[2])
{
    int base = u & ~(mask - 1);
    out[0] = range(base, base + mask, P);
    out[1] = range(base + p2, base + p2 + mask, P);
}

int tb_xchg_rdbl_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    int P = p->tree.size;
    *steps = NULL;
    int v = -1;
    for (int i = 0; i < P; i++)
        if (p->order[i] == me)
            v = i;
    if (v < 0)
        return 0;
    int p2 = 1, rounds = 0;
    while (p2 * 2 <= P) {
        p2 *= 2;
        rounds++;
    }
    int extra = P - p2;
    int n = rounds + (extra ? 2 : 0);
    if (n == 0)
        return 0;
    tb_xchg_step *st = calloc((size_t)n, sizeof *st);
    if (!st)
        return -1;
    for (int i = 0; i < n; i++)
        st[i].send_peer = st[i].recv_peer = -1;
    int s = 0;
    if (extra) {
        if (v >= p2) {
            st[s].send_peer = p->order[v - p2];
            st[s].send[0] = (tb_blocks){v, v + 1};
        } else if (v < extra) {
            st[s].recv_peer = p->order[v + p2];
            st[s].recv[0] = (tb_blocks){v + p2, v + p2 + 1};
        }
        s++;
    }
    for (int mask = 1; mask < p2; mask <<= 1, s++) {
        if (v >= p2)
            continue;
        int peer = v ^ mask;
        st[s].send_peer = st[s].recv_peer = p->order[peer];
        group_blocks(v, mask, p2, P, st[s].send);
        group_blocks(peer, mask, p2, P, st[s].recv);
    }
    if (extra) {
        if (v < extra) {
            st[s].send_peer = p->order[v + p2];
            st[s].send[0] = (tb_blocks){0, v + p2};
            st[s].send[1] = (tb_blocks){v + p2 + 1, P};
        } else if (v >= p2) {
            st[s].recv_peer = p->order[v - p2];
            st[s].recv[0] = (tb_blocks){0, v};
            st[s].recv[1] = (tb_blocks){v + 1, P};
        }
    }
    *steps = st;
    return n;
}
