/* Circulant-graph broadcast (J. L. Traff, "Broadcast and reduction with
 * circulant graphs", ACM TOPC 2025; MPICH's circ_graph): n blocks reach P
 * positions in n - 1 + q rounds, q = ceil(log2 P), which is optimal in
 * rounds for every P and n.
 *
 * Skips: s_q = P, s_k = ceil(s_(k+1) / 2), so s_0 = 1 < s_1 < ... < s_q.  In
 * round i (k = i mod q) every position v sends one block to v + s_k and
 * receives one from v - s_k (mod P); the root receives nothing and nobody
 * sends to it.  Which block travels is fixed per position by two tables of
 * q entries (a receive schedule and a send schedule, computed in O(log P)
 * from the greedy decomposition of v into skips -- the position's base
 * block -- as in the paper); round i moves the entry for k shifted by q for
 * every completed period.  Blocks below 0 (the first rounds) are no
 * transfer at all; one beyond the last stands for the last block (some
 * positions get it only that way), which a position that already holds it
 * receives into scratch (tb_xchg_step.dup).  This file gives the period
 * (block indices relative to it, possibly negative); tb_xchg_round unrolls
 * it for the block count the engine picks from the message size
 * (tb_xchg_blocks: one block per segment).
 *
 * Time complexity: (n - 1 + q)(a + b m / n) for a message of m bytes cut in
 * n blocks; every position sends and receives at most one block per round,
 * so a large message costs about m b (each byte crosses every position's
 * port once each way), a small one q rounds like a binomial tree.
 * Generating one position's period: O(log^2 P) (a send entry may need the
 * receive schedule of its peer).
 *
 * Example (test/unit/test_plans.c builds it and compares this text; 3
 * blocks in 3 - 1 + 3 rounds over skips 1 2 3, the first at skip 2 so
 * that the last block goes out in the last round):
 *   circulant, P = 5, root 0, 3 blocks
 *   step 1: 0->2 [0]
 *   step 2: 0->3 [1]
 *   step 3: 0->1 [2], 2->3 [0], 3->4 [1]
 *   step 4: 0->2 [2], 2->4 [0], 4->1 [1]
 *   step 5: 0->3 [2], 1->4 [2], 3->1 [0], 4->2 [1]
 */
#include "plan/builders.h"

#include <stdlib.h>
#include <string.h>

enum { CIRC_MAXQ = 31 };

/* Skips and the candidate list of one period computation. */
typedef struct circ {
    int p, q;
    int skip[CIRC_MAXQ + 2];
    int link_next[CIRC_MAXQ + 2], link_prev[CIRC_MAXQ + 2]; /* list over -1..q, slot e + 1 */
} circ;

#define NEXT(c, e) ((c)->link_next[(e) + 1])
#define PREV(c, e) ((c)->link_prev[(e) + 1])

static void circ_init(circ *c, int p)
{
    c->p = p;
    c->q = 0;
    while ((1L << c->q) < p)
        c->q++;
    c->skip[c->q] = p;
    for (int k = c->q - 1; k >= 0; k--)
        c->skip[k] = (c->skip[k + 1] + 1) / 2;
    c->skip[c->q + 1] = 2 * p; /* never reached: guards the look one skip ahead */
}

/* The first block position r receives: the skip that completes its greedy
 * decomposition into skips, largest first (q for the root). */
static int base_block(const circ *c, int r)
{
    int reach = 0;
    for (int k = c->q - 1; k >= 0; k--) {
        if (reach + c->skip[k] == r)
            return k;
        if (reach + c->skip[k] < r)
            reach += c->skip[k];
    }
    return c->q;
}

/* The candidates -1, q, q-1, ..., 0 as a circular list, largest first. */
static void list_reset(circ *c)
{
    for (int e = 0; e <= c->q; e++) {
        NEXT(c, e) = e - 1;
        PREV(c, e) = e + 1;
    }
    PREV(c, c->q) = -1;
    NEXT(c, -1) = c->q;
    PREV(c, -1) = 0;
}

static void list_drop(circ *c, int e)
{
    NEXT(c, PREV(c, e)) = NEXT(c, e);
    PREV(c, NEXT(c, e)) = PREV(c, e);
}

/* Picks, for the receive entries from k on, the skips by which paths from
 * the root reach target r (shifted by P) through intermediate positions
 * below bound, each below the one before; the entries go to out[].
 * \return the next entry to fill. */
static int pick(circ *c, int r, int reach, int bound, int e, int k, int *out)
{
    for (; e != -1 && k < c->q; e = NEXT(c, e)) {
        int via = reach + c->skip[e];
        if (via > r - c->skip[k] || via >= bound)
            continue;
        if (via <= r - c->skip[k + 1])
            k = pick(c, r, via, bound, e, k, out);
        if (k >= c->q || reach > r - c->skip[k + 1])
            return k;
        bound = via;
        out[k++] = e;
        list_drop(c, e);
    }
    return k;
}

/* Position r's receive schedule: out[k] is the block (relative to the
 * period) it receives in the period's round k. */
static void recv_schedule(circ *c, int r, int *out)
{
    list_reset(c);
    int b = base_block(c, r);
    list_drop(c, b);
    for (int k = 0; k < c->q; k++)
        out[k] = c->q;
    pick(c, c->p + r, 0, 2 * c->p, c->q, 0, out);
    for (int k = 0; k < c->q; k++)
        out[k] = out[k] == c->q ? b : out[k] - c->q;
}

/* Position r's send schedule: out[k] is the block it sends in round k,
 * the one its peer r + skip[k] expects then. */
static void send_schedule(circ *c, int r, int *out)
{
    int peer[CIRC_MAXQ + 1];
    if (r == 0) {
        for (int k = 0; k < c->q; k++)
            out[k] = k;
        return;
    }
    int b = base_block(c, r), rest = r, cur = b, edge = c->p;
    for (int k = c->q - 1; k > 0; k--) {
        int own;
        if (rest < c->skip[k]) {
            own = rest + c->skip[k] < edge || edge < c->skip[k - 1] || (k == 1 && b > 0);
            if (own)
                out[k] = cur;
            if (edge > c->skip[k])
                edge = c->skip[k];
        } else {
            cur = k - c->q;
            edge -= c->skip[k];
            own = rest > c->skip[k] || rest <= edge || k == 1 || edge < c->skip[k - 1];
            if (own)
                out[k] = cur;
            rest -= c->skip[k];
        }
        if (!own) {
            recv_schedule(c, (r + c->skip[k]) % c->p, peer);
            out[k] = peer[k];
        }
    }
    out[0] = b - c->q;
}

int tb_xchg_circ_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    int m = p->norder > 0 ? p->norder : p->tree.size;
    *steps = NULL;
    int v = tb_plan_position(p, me);
    if (v < 0 || m < 2)
        return 0;
    circ c;
    circ_init(&c, m);
    if (c.q > CIRC_MAXQ)
        return -1;
    int rs[CIRC_MAXQ + 1], ss[CIRC_MAXQ + 1];
    recv_schedule(&c, v, rs);
    send_schedule(&c, v, ss);
    tb_xchg_step *st = calloc((size_t)c.q, sizeof *st);
    if (!st)
        return -1;
    for (int k = 0; k < c.q; k++) {
        int to = (v + c.skip[k]) % m, from = (v - c.skip[k] % m + m) % m;
        st[k].send_peer = to == 0 ? -1 : p->order[to];
        st[k].recv_peer = v == 0 ? -1 : p->order[from];
        st[k].send[0] = (tb_blocks){ss[k], ss[k] + 1};
        st[k].recv[0] = (tb_blocks){rs[k], rs[k] + 1};
    }
    *steps = st;
    return c.q;
}

/* The block the period's step k names for round `at` of the shifted count
 * (x rounds before the first), unclamped. */
static int round_block(int entry, int q, int at, int x)
{
    return entry + at / q * q - x;
}

int tb_xchg_round(const tb_xchg_step *period, int q, int nblocks, int i, tb_xchg_step *out)
{
    if (q <= 0 || nblocks < 1 || i < 0 || i >= nblocks - 1 + q)
        return 0;
    int x = (q - (nblocks - 1) % q) % q, at = i + x;
    const tb_xchg_step *st = &period[at % q];
    memset(out, 0, sizeof *out);
    out->send_peer = out->recv_peer = -1;
    int sb = round_block(st->send[0].lo, q, at, x), rb = round_block(st->recv[0].lo, q, at, x);
    if (st->send_peer >= 0 && sb >= 0) {
        sb = sb < nblocks ? sb : nblocks - 1;
        out->send_peer = st->send_peer;
        out->send[0] = (tb_blocks){sb, sb + 1};
    }
    if (st->recv_peer >= 0 && rb >= 0) {
        /* a block is at most q - 1 past its round, so the last block can
         * only have come in the 2q rounds before */
        for (int j = i - 1; rb >= nblocks - 1 && j >= 0 && j >= i - 2 * q; j--) {
            const tb_xchg_step *sj = &period[(j + x) % q];
            out->dup |= sj->recv_peer >= 0 && round_block(sj->recv[0].lo, q, j + x, x) >= nblocks - 1;
        }
        rb = rb < nblocks ? rb : nblocks - 1;
        out->recv_peer = st->recv_peer;
        out->recv[0] = (tb_blocks){rb, rb + 1};
    }
    return 1;
}
