/* Replays a plan against PLogP edge costs; see model.h for the rules. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "tree.h"

/* The engine's own rule (schedule.h): a segment of 0 means the whole range
 * in one message (chunked at TB_CHUNK_MAX, which no modelled message
 * reaches). */
static size_t seg_bytes(const tb_alg_spec *spec)
{
    return tb_segment_bytes(spec);
}

static int wr(const int *world, int r)
{
    return world ? world[r] : r;
}

/* One rank's sends: its CPU clock, its in-flight queue and one link per
 * class of destination (tn_costs_pair_class: the coarsest level at which
 * the two ranks differ), since messages to a peer in the same socket, in
 * the other socket and on another node leave by different ways.  A class
 * with fan-out f (tn_fanout_measure) carries f pairs' bandwidth at once,
 * shared by the messages in flight on it: each send holds the class for
 * g(m) / f of its aggregate time, and its flow for g(m) (one peer never
 * gets more than a pair's bandwidth), so a message issued with k - 1
 * others on the class arrives after max(g, k g / f) -- seven 1 MiB copies
 * from one rank into a socket whose memory carries five pairs' bandwidth
 * take 7/5 g, not 6/5 g + g as when each waited for its share to start. */
typedef struct sender {
    double now;
    double cpu; /* CPU time charged: sends posted, segments taken in */
    double port[TB_MAX_LEVELS + 1];
    double *inflight; /* completion times, ring of cap */
    int head, count, cap;
} sender;

/* Issues one message at the sender's CPU time on link cls; returns its
 * arrival time at the receiver.  post: the CPU cost of starting a
 * non-blocking rendezvous send (its data moves later, without the CPU). */
static double send_one(sender *s, const tn_edge_cost *ep, double own_gbw, int cls, double fan, double *flow,
                       double post, int rendezvous, int nonblocking)
{
    const tn_edge_cost e = *ep;
    /* The CPU cost of an eager send.  The probe's o_s times an MPI_Ssend,
     * which also waits for the receiver's match and so includes the wire;
     * its o_r (a receive of data already there) is the copy alone, which
     * the send pays too. */
    double os = e.orv > 0 && e.orv < e.os ? e.orv : e.os;
    if (nonblocking && s->count == s->cap) {
        if (s->inflight[s->head] > s->now)
            s->now = s->inflight[s->head];
        s->head = (s->head + 1) % s->cap;
        s->count--;
    }
    double start = s->now > *flow ? s->now : *flow;
    /* a non-blocking rendezvous message holds its link for its bytes only:
     * the handshake in its gap (the probe's bursts wait for it) overlaps
     * the transfers of the messages in flight before it */
    double hold = rendezvous && nonblocking ? e.gbw : e.g;
    /* its bytes' share of the class's aggregate bandwidth ends at port;
     * with f = 1 this is one message after the other.  The
     * class holds the bytes at the sender's own rate (own_gbw: a receiver
     * of two trees takes each at half its way in, share_rx, but its
     * sender's way out is not halved) */
    s->port[cls] = (start > s->port[cls] ? start : s->port[cls]) + (hold - (e.gbw - own_gbw)) / fan;
    double moved = start + hold > s->port[cls] ? start + hold : s->port[cls];
    double arrive = moved + (e.g - hold) + e.L;
    *flow = moved;
    if (nonblocking) {
        s->inflight[(s->head + s->count) % s->cap] = rendezvous ? arrive : start + e.g;
        s->count++;
        s->now += rendezvous ? post : os;
        s->cpu += rendezvous ? post : os;
    } else {
        double done = rendezvous ? arrive : s->now + os;
        s->cpu += rendezvous ? 0.0 : os;
        s->now = done > s->now ? done : s->now;
    }
    return arrive;
}

static double port_max(const sender *s)
{
    double m = 0;
    for (int k = 0; k <= TB_MAX_LEVELS; k++)
        if (s->port[k] > m)
            m = s->port[k];
    return m;
}

static double fan_of(const double *fanout, int cls)
{
    return fanout && fanout[cls] > 1.0 ? fanout[cls] : 1.0;
}

/* The piece length on the edge into r, which carries range bytes: the
 * ring's (tb_shm_piece of the range) on a shared-memory edge, else the
 * edge's own segment or the spec's seg (the engine's rule, engine.c). */
static size_t edge_piece(const tb_tree *t, int r, size_t range, size_t seg)
{
    return tb_tree_edge_shm(t, r) ? tb_shm_piece(range) : tb_tree_edge_segment(t, r, seg);
}

/* Per child of the rank being replayed: its usual piece length and that
 * piece's cost, its link and flow; shm: it reads the rank's ring. */
typedef struct child_cost {
    size_t len;
    tn_edge_cost e;
    int cls, shm;
    double fan, post, flow;
    tn_edge_cost e_alone; /* e not shared between trees: a first rendezvous piece (share_rx) */
    int sent;           /* pieces sent to it so far */
} child_cost;

/* A rank's shared-memory ring: the range [cur, end) its shm children all
 * receive (tb_tree_check), published in pieces of `piece`; k published. */
typedef struct ring {
    size_t cur, end, piece, k;
    int first; /* the first shm child's index among the rank's children */
} ring;

/* Publishes rank r's next ring piece if it lies within what r holds
 * (frontier), as the engine does (engine.c, shm.c): r's CPU copies it in
 * once -- a piece's byte term (gbw) on the edge to its first shm child --
 * as soon as the slot's previous piece (TB_SHM_SLOTS earlier) has been
 * copied out by every reader; each reader then has it the edge's latency
 * (the flag's way) plus its own copy later, no earlier than its previous
 * piece.  Returns 1 when published, 0 when not yet, -1 when a child's
 * range has no room for it (an inconsistent plan). */
static int ring_publish(const tn_costs *c, const int *world, const tb_tree *t, int r, ring *rg, size_t frontier,
                        const child_cost *full, sender *s, const size_t *aoff, int *got, double *arr,
                        const double *start)
{
    if (rg->cur >= rg->end)
        return 0;
    size_t len = rg->end - rg->cur < rg->piece ? rg->end - rg->cur : rg->piece;
    if (rg->cur + len > frontier)
        return 0;
    const int nch = tb_tree_nchildren(t, r), *ch = tb_tree_children(t, r);
    double t0 = s->now;
    for (int i = rg->first; i < nch; i++) {
        int k = ch[i];
        if (!full[i].shm)
            continue;
        if (aoff[k] + (size_t)got[k] >= aoff[k + 1])
            return -1;
        if (rg->k >= TB_SHM_SLOTS && arr[aoff[k] + rg->k - TB_SHM_SLOTS] > t0)
            t0 = arr[aoff[k] + rg->k - TB_SHM_SLOTS];
    }
    tn_edge_cost last;
    const tn_edge_cost *e = &full[rg->first].e;
    if (len != full[rg->first].len) {
        tn_costs_edge(c, wr(world, r), wr(world, ch[rg->first]), len, &last);
        e = &last;
    }
    s->now = t0 + e->gbw; /* published */
    for (int i = rg->first; i < nch; i++) {
        int k = ch[i];
        if (!full[i].shm)
            continue;
        e = &full[i].e;
        if (len != full[i].len) {
            tn_costs_edge(c, wr(world, r), wr(world, k), len, &last);
            e = &last;
        }
        double prev = got[k] > 0 ? arr[aoff[k] + (size_t)got[k] - 1] : start ? start[k] : 0.0;
        double seen = s->now + e->L > prev ? s->now + e->L : prev;
        arr[aoff[k] + (size_t)got[k]++] = seen + e->gbw;
    }
    rg->cur += len;
    rg->k++;
    return 1;
}

/* Tree phase.  done[r]: when rank r has finished its tree part (all its
 * blocks received, all sends complete); port[r]: when its links are free.
 * A rank's CPU pays o_s per send and o_r per received segment after the
 * first (the first one's is in its arrival time, L + g); rendezvous
 * messages pay only the overheads of an empty one (the transfer is the
 * gap's). */
/* k trees at once: a rank takes in k flows together, each at 1/k of its
 * way in (the byte part of the gap k times over).  Not the first piece of
 * rendezvous size on an edge: a rank is inner in one tree and a leaf in
 * the other, so the two trees' first pieces reach it at different times
 * and each opens its edge alone (a dbt top with 64 KiB pieces on 16
 * BETZY-like ranks, 1 MiB: measured 139 us, predicted 213 us with every
 * piece shared, and pruning missed it by 19%); eager pieces share from the
 * first, their copies being the two trees' CPU work. */
static void share_rx(tn_edge_cost *e, int k)
{
    if (k > 1) {
        e->g += (k - 1) * e->gbw;
        e->gbw *= k;
    }
}

static int tree_phase(const tn_costs *c, const int *world, const tb_hier *h, const double *fanout, const tb_tree *t,
                      int ntrees, const tb_alg_spec *spec, size_t n, const double *start, double *done, double *port,
                      double *cpu, double *first)
{
    const int P = t->size;
    const size_t seg = seg_bytes(spec);
    int rc = -1;
    int *order = malloc(sizeof(int) * (size_t)P);
    size_t *aoff = malloc(sizeof(size_t) * ((size_t)P + 1)); /* arrival arrays per rank */
    int *got = calloc((size_t)P, sizeof(int));               /* pieces recorded per rank */
    double *arr = NULL;
    size_t *cursor = NULL, *end = NULL;
    child_cost *full = NULL;
    int cap = spec->nonblocking ? (spec->outstanding > 0 ? spec->outstanding : 1) : 1;
    if (cap > 64)
        cap = 64;
    double inflight[64];
    if (!order || !aoff || !got)
        goto out;

    /* parents before children; the root and the sources (ranks that hold
     * everything when the trees start) first */
    int head = 0, tail = 0;
    for (int r = 0; r < P; r++)
        if (r == t->root || (t->parent[r] < 0 && t->blk_hi[r] > 0))
            order[tail++] = r;
    while (head < tail) {
        int r = order[head++];
        const int *ch = tb_tree_children(t, r);
        for (int i = 0; i < tb_tree_nchildren(t, r); i++)
            order[tail++] = ch[i];
    }
    if (tail != P)
        goto out;

    aoff[0] = 0;
    for (int r = 0; r < P; r++) {
        size_t lo = tb_block_offset(n, t->nblocks, t->blk_lo[r]);
        size_t hi = tb_block_offset(n, t->nblocks, t->blk_hi[r]);
        size_t rs = edge_piece(t, r, hi - lo, seg);
        size_t nseg = (t->parent[r] >= 0 && hi > lo) ? (hi - lo + rs - 1) / rs : 0;
        aoff[r + 1] = aoff[r] + nseg;
    }
    arr = malloc(sizeof(double) * (aoff[P] ? aoff[P] : 1));
    int maxch = tb_tree_max_fanout(t);
    cursor = malloc(sizeof(size_t) * (size_t)(maxch > 0 ? maxch : 1));
    end = malloc(sizeof(size_t) * (size_t)(maxch > 0 ? maxch : 1));
    full = malloc(sizeof *full * (size_t)(maxch > 0 ? maxch : 1));
    if (!arr || !cursor || !end || !full)
        goto out;

    for (int oi = 0; oi < P; oi++) {
        int r = order[oi];
        size_t lo = tb_block_offset(n, t->nblocks, t->blk_lo[r]);
        size_t hi = tb_block_offset(n, t->nblocks, t->blk_hi[r]);
        size_t nseg = aoff[r + 1] - aoff[r], rseg = edge_piece(t, r, hi - lo, seg);
        if (t->parent[r] >= 0 && (size_t)got[r] != nseg)
            goto out; /* a parent did not send all we expected */
        const double *A = arr + aoff[r];
        size_t frontier = t->parent[r] >= 0 ? lo : hi, arrived = 0;
        int nch = tb_tree_nchildren(t, r);
        const int *ch = tb_tree_children(t, r);
        ring rg = {0, 0, 0, 0, -1};
        for (int i = 0; i < nch; i++) {
            cursor[i] = tb_block_offset(n, t->nblocks, t->blk_lo[ch[i]]);
            end[i] = tb_block_offset(n, t->nblocks, t->blk_hi[ch[i]]);
            /* every piece but a child's last is a whole segment: price it once */
            size_t cseg = edge_piece(t, ch[i], end[i] - cursor[i], seg);
            full[i].len = end[i] - cursor[i] < cseg ? end[i] - cursor[i] : cseg;
            full[i].shm = tb_tree_edge_shm(t, ch[i]);
            if (full[i].shm && rg.first < 0) /* its range is every shm child's */
                rg = (ring){cursor[i], end[i], cseg, 0, i};
            if (full[i].shm)
                cursor[i] = end[i]; /* not sent to: it reads the ring */
            tn_costs_edge(c, wr(world, r), wr(world, ch[i]), full[i].len, &full[i].e);
            full[i].e_alone = full[i].e;
            full[i].sent = 0;
            share_rx(&full[i].e, ntrees);
            tn_edge_cost z;
            tn_costs_edge(c, wr(world, r), wr(world, ch[i]), 0, &z);
            full[i].post = z.os;
            full[i].cls = tn_costs_pair_class(h, r, ch[i]);
            full[i].fan = fan_of(fanout, full[i].cls);
            full[i].flow = 0.0;
        }
        /* CPU time to take in each segment, once it has arrived: a rank
         * forwards a piece only after taking it in (SMPI charges o_r on
         * the receive's completion), so it lengthens every hop of a
         * pipeline's fill, not only the ranks whose CPU is busy (the
         * probe on FRAM-like, two ranks of a socket: RTT(32 KiB) / 2 =
         * 7.82 us, against g + L = 6.24 us and o_r = 1.84 us) */
        double take = 0.0;
        if (t->parent[r] >= 0 && nseg > 0 && !tb_tree_edge_shm(t, r)) { /* a ring's copy is in its arrival */
            size_t len = hi - lo < rseg ? hi - lo : rseg;
            tn_edge_cost q;
            tn_costs_edge(c, wr(world, t->parent[r]), wr(world, r), len >= c->eager_limit ? 0 : len, &q);
            take = q.orv;
        }
        sender s = {.now = start ? start[r] : 0.0, .inflight = inflight, .cap = cap};
        for (;;) {
            int progress = 1;
            while (progress) {
                progress = 0;
                for (int i = 0; i < nch; i++) {
                    if (cursor[i] >= end[i])
                        continue;
                    size_t cseg = tb_tree_edge_segment(t, ch[i], seg);
                    size_t len = end[i] - cursor[i] < cseg ? end[i] - cursor[i] : cseg;
                    if (cursor[i] + len > frontier)
                        continue;
                    int k = ch[i];
                    tn_edge_cost last;
                    const int alone = full[i].sent++ == 0 && len >= c->eager_limit; /* share_rx */
                    const tn_edge_cost *e = alone ? &full[i].e_alone : &full[i].e;
                    double own = full[i].e_alone.gbw; /* the sender's byte time: e's without share_rx */
                    if (len != full[i].len) {
                        tn_costs_edge(c, wr(world, r), wr(world, k), len, &last);
                        own = last.gbw;
                        if (!alone)
                            share_rx(&last, ntrees);
                        e = &last;
                    }
                    if (aoff[k] + (size_t)got[k] >= aoff[k + 1])
                        goto out; /* more pieces than the child's range holds */
                    double a = send_one(&s, e, own, full[i].cls, full[i].fan, &full[i].flow, full[i].post,
                                        len >= c->eager_limit, spec->nonblocking);
                    arr[aoff[k] + (size_t)got[k]++] = a;
                    cursor[i] += len;
                    progress = 1;
                }
                /* then the ring's next piece, once per pass (engine.c) */
                int pub = rg.first < 0 ? 0
                                       : ring_publish(c, world, t, r, &rg, frontier, full, &s, aoff, got, arr, start);
                if (pub < 0)
                    goto out;
                progress |= pub;
            }
            if (arrived == nseg)
                break;
            if (A[arrived] > s.now)
                s.now = A[arrived];
            s.now += take;
            s.cpu += take;
            arrived++;
            frontier = lo + arrived * rseg < hi ? lo + arrived * rseg : hi;
        }
        for (; s.count > 0; s.count--) {
            if (s.inflight[s.head] > s.now)
                s.now = s.inflight[s.head];
            s.head = (s.head + 1) % s.cap;
        }
        done[r] = s.now;
        port[r] = port_max(&s);
        cpu[r] = s.cpu;
        first[r] = nseg > 0 ? A[0] : (start ? start[r] : 0.0);
    }
    rc = 0;
out:
    free(order);
    free(aoff);
    free(got);
    free(arr);
    free(cursor);
    free(end);
    free(full);
    return rc;
}

static size_t range_bytes(size_t n, int nblocks, const tb_blocks *b)
{
    if (b->hi <= b->lo)
        return 0;
    return tb_block_offset(n, nblocks, b->hi) - tb_block_offset(n, nblocks, b->lo);
}

typedef struct msg_key {
    int peer, step;
} msg_key;

static int key_cmp(const void *pa, const void *pb)
{
    const msg_key *a = pa, *b = pb;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    return (a->step > b->step) - (a->step < b->step);
}

/* First index in keys[0..n) with peer >= p. */
static int lower_peer(const msg_key *keys, int n, int p)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (keys[mid].peer < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Exchange phase: every rank runs its steps in order; the receive of a step
 * is the next message from that peer (MPI order per pair), so the k-th
 * receive of r from x matches the k-th send of x to r. */
/* Rank r's exchange steps as the engine runs them: a circulant's period
 * unrolled for the blocks it cuts n bytes into (*nb). */
static int plan_steps(const tb_plan *p, const tb_alg_spec *spec, size_t n, int r, tb_xchg_step **steps, int *nb)
{
    int ns = tb_plan_xchg_steps(p, r, steps);
    *nb = p->tree.nblocks;
    if (p->xchg != TB_XCHG_CIRC || ns <= 0)
        return ns;
    *nb = tb_xchg_blocks(spec, n);
    tb_xchg_step *all = malloc(sizeof *all * (size_t)(*nb - 1 + ns));
    int i = 0;
    while (all && tb_xchg_round(*steps, ns, *nb, i, &all[i]))
        i++;
    free(*steps);
    *steps = all;
    return all ? i : -1;
}

static int xchg_phase(const tn_costs *c, const int *world, const tb_plan *p, const tb_alg_spec *spec, size_t n,
                      double *now, double *port)
{
    const int P = p->tree.size;
    int nb = p->tree.nblocks;
    int rc = -1;
    tb_xchg_step **steps = calloc((size_t)P, sizeof *steps);
    int *nsteps = calloc((size_t)P, sizeof(int));
    int *pos = calloc((size_t)P, sizeof(int));
    size_t *off = malloc(sizeof(size_t) * ((size_t)P + 1));
    msg_key **sends = calloc((size_t)P, sizeof *sends);
    int *nsends = calloc((size_t)P, sizeof(int));
    double *start = NULL, *sdone = NULL, *scpu = NULL;
    int *match = NULL;
    char *posted = NULL;
    if (!steps || !nsteps || !pos || !off || !sends || !nsends)
        goto out;
    off[0] = 0;
    for (int r = 0; r < P; r++) {
        nsteps[r] = plan_steps(p, spec, n, r, &steps[r], &nb);
        if (nsteps[r] < 0) {
            nsteps[r] = 0;
            goto out;
        }
        off[r + 1] = off[r] + (size_t)nsteps[r];
    }
    size_t total = off[P] ? off[P] : 1;
    start = malloc(sizeof(double) * total);
    sdone = malloc(sizeof(double) * total);
    scpu = malloc(sizeof(double) * total);
    match = malloc(sizeof(int) * total);
    posted = calloc(total, 1);
    if (!start || !sdone || !scpu || !match || !posted)
        goto out;
    /* sends of each rank sorted by (peer, step) */
    for (int r = 0; r < P; r++) {
        sends[r] = malloc(sizeof(msg_key) * (size_t)(nsteps[r] ? nsteps[r] : 1));
        if (!sends[r])
            goto out;
        for (int j = 0; j < nsteps[r]; j++) {
            const tb_xchg_step *st = &steps[r][j];
            if (st->send_peer >= 0 && range_bytes(n, nb, &st->send[0]) + range_bytes(n, nb, &st->send[1]) > 0)
                sends[r][nsends[r]++] = (msg_key){st->send_peer, j};
        }
        qsort(sends[r], (size_t)nsends[r], sizeof(msg_key), key_cmp);
    }
    /* match receives to sends */
    for (int r = 0; r < P; r++) {
        msg_key *recvs = malloc(sizeof(msg_key) * (size_t)(nsteps[r] ? nsteps[r] : 1));
        int nr = 0;
        if (!recvs)
            goto out;
        for (int j = 0; j < nsteps[r]; j++) {
            const tb_xchg_step *st = &steps[r][j];
            match[off[r] + (size_t)j] = -1;
            if (st->recv_peer >= 0 && range_bytes(n, nb, &st->recv[0]) + range_bytes(n, nb, &st->recv[1]) > 0)
                recvs[nr++] = (msg_key){st->recv_peer, j};
        }
        qsort(recvs, (size_t)nr, sizeof(msg_key), key_cmp);
        for (int i = 0; i < nr;) {
            int x = recvs[i].peer, k = 0;
            int s0 = lower_peer(sends[x], nsends[x], r);
            for (; i < nr && recvs[i].peer == x; i++, k++) {
                if (s0 + k >= nsends[x] || sends[x][s0 + k].peer != r) {
                    free(recvs);
                    goto out; /* a receive nobody sends */
                }
                match[off[r] + (size_t)recvs[i].step] = sends[x][s0 + k].step;
            }
        }
        free(recvs);
    }
    /* sweep until every rank is through its steps or nobody can move */
    int progress = 1, left = 0;
    for (int r = 0; r < P; r++)
        left += nsteps[r] > 0;
    while (progress && left > 0) {
        progress = 0;
        for (int r = 0; r < P; r++) {
            while (pos[r] < nsteps[r]) {
                int j = pos[r];
                size_t id = off[r] + (size_t)j;
                const tb_xchg_step *st = &steps[r][j];
                double cpu = now[r];
                if (!posted[id]) {
                    size_t sb = st->send_peer >= 0 ? range_bytes(n, nb, &st->send[0]) + range_bytes(n, nb, &st->send[1]) : 0;
                    start[id] = sdone[id] = now[r];
                    if (sb > 0) {
                        tn_edge_cost e;
                        tn_costs_edge(c, wr(world, r), wr(world, st->send_peer), sb, &e);
                        int rdv = sb >= c->eager_limit;
                        double s = now[r] > port[r] ? now[r] : port[r];
                        start[id] = s;
                        port[r] = s + (rdv ? e.gbw : e.g);
                        sdone[id] = rdv ? s + e.g + e.L : s + e.g;
                        /* the CPU posts it: an eager send copies it (as in
                         * send_one), a rendezvous one costs an empty message */
                        if (!rdv)
                            cpu += e.orv > 0 && e.orv < e.os ? e.orv : e.os;
                        else {
                            tn_costs_edge(c, wr(world, r), wr(world, st->send_peer), 0, &e);
                            cpu += e.os;
                        }
                    }
                    posted[id] = 1;
                    scpu[id] = cpu;
                }
                cpu = scpu[id];
                double fin = sdone[id] > cpu ? sdone[id] : cpu;
                int jm = match[id];
                if (jm >= 0) {
                    int x = st->recv_peer;
                    size_t xid = off[x] + (size_t)jm;
                    if (!posted[xid])
                        break; /* the sender has not reached that step yet */
                    size_t rb = range_bytes(n, nb, &st->recv[0]) + range_bytes(n, nb, &st->recv[1]);
                    tn_edge_cost e;
                    tn_costs_edge(c, wr(world, x), wr(world, r), rb, &e);
                    double a = start[xid] + e.g + e.L;
                    if (rb < c->eager_limit) /* an eager message is copied out by the receiving CPU */
                        a = (a > cpu ? a : cpu) + e.orv;
                    if (a > fin)
                        fin = a;
                }
                now[r] = fin;
                pos[r]++;
                progress = 1;
                if (pos[r] == nsteps[r])
                    left--;
            }
        }
    }
    rc = left == 0 ? 0 : -1;
out:
    if (steps)
        for (int r = 0; r < P; r++)
            free(steps[r]);
    if (sends)
        for (int r = 0; r < P; r++)
            free(sends[r]);
    free(steps);
    free(nsteps);
    free(pos);
    free(off);
    free(sends);
    free(nsends);
    free(start);
    free(sdone);
    free(scpu);
    free(match);
    free(posted);
    return rc;
}

/* The replay; xstart (if not NULL, P entries) gets when each rank is
 * through its tree part, i.e. may start its exchange steps; rfirst (if not
 * NULL, P entries) when each rank holds its first piece of either tree (a
 * root or source: when its trees start), i.e. may start sending. */
static double replay_plan(const tn_costs *c, const int *world, const tb_plan *p, const tb_hier *h,
                          const double *fanout, const tb_alg_spec *spec, size_t bytes, double *xstart,
                          double *rfirst)
{
    const int P = p->tree.size;
    if (P <= 1 || bytes == 0)
        return 0.0;
    if (h && (h->size != P || h->nlevels > TB_MAX_LEVELS))
        h = NULL;
    double *now = calloc((size_t)P * 9, sizeof(double)), *port = now ? now + P : NULL;
    double *start = now ? now + 2 * P : NULL, *tdone = now ? now + 3 * P : NULL, *tport = now ? now + 4 * P : NULL;
    double *tcpu = now ? now + 5 * P : NULL, *tfirst = now ? now + 6 * P : NULL;
    double *cpu = now ? now + 7 * P : NULL, *first = now ? now + 8 * P : NULL;
    double t = -1.0;
    int ok = now != NULL;
    /* a circulant among sources runs first and starts their trees */
    if (ok && tb_plan_xchg_first(p)) {
        if (xstart)
            memcpy(xstart, now, sizeof(double) * (size_t)P);
        ok = xchg_phase(c, world, p, spec, bytes, now, port) == 0;
    }
    for (int r = 0; ok && r < P; r++)
        start[r] = now[r];
    /* two trees run at once: each rank done when both are (their sharing
     * of the rank's links is not modelled here: the resource term counts it),
     * and one CPU serves both: each tree is replayed as if the rank's CPU
     * were its own, so a rank is done no earlier than its first piece of
     * either tree plus the CPU time of both (at 64 KiB in 4 KiB pieces on 8
     * FRAM-like ranks, two-tree plans measured 1.85x a replay without it) */
    int nt = p->ntrees > 1 ? p->ntrees : 1;
    for (int k = 0; ok && k < nt; k++) {
        ok = tree_phase(c, world, h, fanout, tb_plan_tree(p, k), p->ntrees, spec, bytes, start, tdone, tport, tcpu,
                        tfirst) == 0;
        for (int r = 0; ok && r < P; r++) {
            if (k == 0 || tdone[r] > now[r])
                now[r] = tdone[r];
            if (k == 0 || tport[r] > port[r])
                port[r] = tport[r];
            cpu[r] = k == 0 ? tcpu[r] : cpu[r] + tcpu[r];
            if (k == 0 || tfirst[r] < first[r])
                first[r] = tfirst[r];
        }
    }
    for (int r = 0; ok && nt > 1 && r < P; r++)
        if (first[r] + cpu[r] > now[r])
            now[r] = first[r] + cpu[r];
    if (ok && rfirst)
        memcpy(rfirst, first, sizeof(double) * (size_t)P);
    if (ok && p->xchg != TB_XCHG_NONE && !tb_plan_xchg_first(p)) {
        if (xstart)
            memcpy(xstart, now, sizeof(double) * (size_t)P);
        ok = xchg_phase(c, world, p, spec, bytes, now, port) == 0;
    }
    if (ok) {
        t = 0.0;
        for (int r = 0; r < P; r++)
            if (now[r] > t)
                t = now[r];
    }
    free(now);
    return t;
}

double tn_model_plan_time(const tn_costs *c, const int *world, const tb_plan *p, const tb_hier *h,
                          const double *fanout, const tb_alg_spec *spec, size_t bytes)
{
    return replay_plan(c, world, p, h, fanout, spec, bytes, NULL, NULL);
}

static double resource_time(const tn_machine *m, const tb_plan *p, size_t bytes, const double *xstart,
                            const double *rfirst);

double tn_model_plan_predict(const tn_costs *c, const int *world, const tb_plan *p, const tb_hier *h,
                             const double *fanout, const tn_machine *m, const tb_alg_spec *spec, size_t bytes,
                             double *replay)
{
    const int P = p->tree.size;
    double *xstart = m && p->xchg != TB_XCHG_NONE && P > 1 ? malloc(sizeof(double) * (size_t)P) : NULL;
    double *rfirst = m && P > 1 ? malloc(sizeof(double) * (size_t)P) : NULL;
    double t = replay_plan(c, world, p, h, fanout, spec, bytes, xstart, rfirst);
    if (replay)
        *replay = t;
    double b = t < 0 ? 0.0 : resource_time(m, p, bytes, xstart, rfirst);
    free(xstart);
    free(rfirst);
    return t < 0 || b <= t ? t : b;
}

int tn_model_predict(const tn_costs *c, const int *world, const tb_hier *h, const double *fanout,
                     const tn_machine *m, int size, int root, const tb_alg_spec *spec, size_t bytes, double *seconds,
                     char *err, size_t errlen)
{
    if (spec->id == TB_ALG_DEFAULT) {
        snprintf(err, errlen, "the MPI library's own broadcast has no model");
        return -1;
    }
    tb_plan p;
    /* as comm_state.c hands it to the builders */
    if (tb_plan_build(&p, size, root, spec, h && h->size ? h : NULL, err, errlen) != 0)
        return -1;
    double t = tn_model_plan_predict(c, world, &p, h && h->size ? h : NULL, fanout, m, spec, bytes, NULL);
    tb_plan_free(&p);
    if (t < 0) {
        snprintf(err, errlen, "%s: the plan's exchange steps do not match up", tb_alg_name(spec->id));
        return -1;
    }
    *seconds = t;
    return 0;
}

/* Whether p sends any MPI message: a tree edge that is not shared memory,
 * or an exchange.  Without one the spec's segment and send mode change
 * nothing (the rings have their own pieces). */
static int plan_has_messages(const tb_plan *p)
{
    if (p->xchg != TB_XCHG_NONE)
        return 1;
    for (int k = 0; k < (p->ntrees > 1 ? p->ntrees : 1); k++) {
        const tb_tree *t = tb_plan_tree(p, k);
        for (int r = 0; r < t->size; r++)
            if (t->parent[r] >= 0 && !tb_tree_edge_shm(t, r))
                return 1;
    }
    return 0;
}

uint64_t tn_plan_signature(const tb_plan *p, const tb_alg_spec *spec, size_t bytes)
{
    const tb_tree *t = &p->tree;
    uint64_t h = TB_FNV_BASIS;
    const int msgs = plan_has_messages(p);
    size_t seg = !msgs || spec->segment == 0 || spec->segment >= bytes ? 0 : spec->segment;
    h = tb_hash_u64(h, (uint64_t)seg);
    h = tb_hash_u64(h, (uint64_t)(msgs && spec->nonblocking));
    h = tb_hash_u64(h, (uint64_t)(msgs && spec->nonblocking ? spec->outstanding : 0));
    h = tb_hash_u64(h, (uint64_t)t->size);
    h = tb_hash_u64(h, (uint64_t)t->root);
    h = tb_hash_u64(h, (uint64_t)t->nblocks);
    for (int k = 0; k < (p->ntrees > 1 ? p->ntrees : 1); k++) {
        t = tb_plan_tree(p, k);
        for (int r = 0; r < t->size; r++) {
            h = tb_hash_u64(h, (uint64_t)(int64_t)t->parent[r]);
            h = tb_hash_u64(h, (uint64_t)t->blk_lo[r]);
            h = tb_hash_u64(h, (uint64_t)t->blk_hi[r]);
            if (tb_tree_edge_shm(t, r)) /* through the parent's ring: in its pieces, not the edge's */
                h = tb_hash_u64(h, UINT64_C(0xfffffffffffffffd));
            else if (t->seg) /* an edge's own segment, as far as it cuts the message */
                h = tb_hash_u64(h, (uint64_t)(t->seg[r] >= bytes ? 0 : t->seg[r]));
            const int *ch = tb_tree_children(t, r);
            for (int i = 0; i < tb_tree_nchildren(t, r); i++)
                h = tb_hash_u64(h, (uint64_t)ch[i]);
            h = tb_hash_u64(h, UINT64_C(0xfffffffffffffffe)); /* end of a child list */
        }
    }
    t = &p->tree;
    h = tb_hash_u64(h, (uint64_t)p->xchg);
    if ((p->xchg == TB_XCHG_RING || p->xchg == TB_XCHG_RDBL || p->xchg == TB_XCHG_CIRC) && p->order)
        for (int v = 0; v < (p->norder > 0 ? p->norder : t->size); v++)
            h = tb_hash_u64(h, (uint64_t)p->order[v]);
    if (p->xchg == TB_XCHG_PAIR && p->partner)
        for (int r = 0; r < t->size; r++)
            h = tb_hash_u64(h, (uint64_t)(int64_t)p->partner[r]);
    return h;
}

/* The resources the plan's messages cross (machine.h): every message of
 * the tree (a rank's block range from its parent) and of the exchange
 * steps is charged to the resources of its route, in bytes; a resource
 * carries them no faster than its capacity, starting no earlier than the
 * least latency of the routes that cross it.  The replay above gives every
 * rank links of its own (16 ranks of a node sending at once look 16 times
 * as fast as they are); this is the same reasoning as the lower bound
 * (topology/bound.h), applied to the bytes this schedule moves. */
double tn_model_resource_time(const tn_machine *m, const tb_plan *p, size_t bytes)
{
    return resource_time(m, p, bytes, NULL, NULL);
}

/* xstart (may be NULL): when each rank may start its exchange steps (the
 * replay's end of its tree part).  The exchange's bytes then also count
 * apart, from the earliest start of the senders crossing each resource:
 * they come in a burst after the tree, which the whole run's average
 * hides (31 pairs swapping halves over a dragonfly's global links).
 * rfirst (may be NULL): when each rank holds its first piece (the replay).
 * A resource carries a tree edge's bytes no earlier than its parent has
 * them, so it finishes no earlier than its first such start plus its load:
 * the pipeline's fill up to it comes before its own time, not beside it
 * (FRAM-like, P=512: chains of socket leaders in 64 KiB pieces, each
 * socket fed twice, were predicted the memory's load from time 0 -- 6 x
 * 4 MiB / 25 GB/s = 1007 us at 4 MiB, measured 1442 us; at 2 MiB the
 * replay has the last leader's first piece 164 us after the start). */
static double resource_time(const tn_machine *m, const tb_plan *p, size_t bytes, const double *xstart,
                            const double *rfirst)
{
    const tb_tree *t = &p->tree;
    const int P = t->size;
    if (!m || P <= 1 || bytes == 0 || P > m->P)
        return 0.0;
    const tt_net *n = &m->net;
    size_t R = (size_t)n->nres + 1;
    double *load = calloc(2 * R, sizeof *load), *first = malloc(sizeof *first * 2 * R);
    if (!load || !first) {
        free(load);
        free(first);
        return -1.0;
    }
    double *xload = load + R, *xfirst = first + R;
    for (size_t i = 0; i < 2 * R; i++)
        first[i] = INFINITY;
    double worst = 0.0;
    for (int k = 0; k < (p->ntrees > 1 ? p->ntrees : 1); k++) {
        t = tb_plan_tree(p, k);
        /* tree: r gets its block range from its parent.  A shared-memory
         * edge is charged the same, on the route from the parent's host to
         * r's (its memory, both being on one node): that is r's copy out of
         * the ring; the parent's one copy into it is not charged. */
        for (int r = 0; r < P; r++)
            if (t->parent[r] >= 0) {
                size_t lo = tb_block_offset(bytes, t->nblocks, t->blk_lo[r]);
                size_t hi = tb_block_offset(bytes, t->nblocks, t->blk_hi[r]);
                if (hi > lo)
                    tt_net_charge(n, m->host_of[t->parent[r]], m->host_of[r], (double)(hi - lo),
                                  rfirst ? rfirst[t->parent[r]] : 0.0, load, first);
            }
    }
    t = &p->tree;
    if (p->xchg != TB_XCHG_NONE)
        for (int r = 0; r < P && worst >= 0; r++) {
            tb_xchg_step *st = NULL;
            int ns = tb_plan_xchg_steps(p, r, &st);
            if (ns < 0) {
                worst = -1.0;
                break;
            }
            for (int j = 0; j < ns; j++)
                if (st[j].send_peer >= 0) {
                    /* a circulant's period step recurs every q rounds: about
                     * the whole message over its q peers */
                    size_t b = p->xchg == TB_XCHG_CIRC ? bytes / (size_t)ns
                                                       : range_bytes(bytes, t->nblocks, &st[j].send[0]) +
                                                             range_bytes(bytes, t->nblocks, &st[j].send[1]);
                    if (b == 0)
                        continue;
                    int a = m->host_of[r], d = m->host_of[st[j].send_peer];
                    tt_net_charge(n, a, d, (double)b, 0.0, load, first);
                    if (xstart) /* first: the sender's start + its route's latency */
                        tt_net_charge(n, a, d, (double)b, xstart[r], xload, xfirst);
                }
            free(st);
        }
    if (worst >= 0) {
        worst = tt_net_load_time(n, load, first, NULL);
        if (xstart) {
            double x = tt_net_load_time(n, xload, xfirst, NULL);
            worst = x > worst ? x : worst;
        }
    }
    free(load);
    free(first);
    return worst;
}
