/* Whole broadcasts, simulated symbolically from the per-rank schedules: the
 * tree phase moves block ranges from parents to children in every tree of
 * the plan (each tree on its own: a rank forwards in tree k only what tree k
 * brought it, in pieces its child expects), the exchange steps run with
 * rendezvous semantics (a send completes only when the peer's current step
 * posts the matching receive), before the trees when the plan says so (a
 * circulant among sources, unrolled for several block counts), so schedules
 * that would deadlock with synchronous sends, send blocks their sender does
 * not have, or disagree with the receiver about what travels are all
 * caught.  At the end every rank must hold every block. */
#include "plan/alg_desc.h"
#include "on_valgrind.h"
#include "schedule.h"
#include "tap.h"
#include "tree_text.h"

#include <stdlib.h>
#include <string.h>

typedef struct sim {
    int size, root, nblocks;
    tb_schedule *s;    /* size schedules */
    unsigned char *hold; /* hold[r * nblocks + b] */
    int xnb;             /* blocks of a periodic exchange (its own block system), else nblocks */
    unsigned char *xhold; /* xhold[r * xnb + b] for a periodic exchange, else hold */
} sim;

static int holds_range(int nb, const unsigned char *h, tb_blocks b)
{
    if (b.lo >= b.hi)
        return 1;
    if (b.lo < 0 || b.hi > nb)
        return 0;
    for (int i = b.lo; i < b.hi; i++)
        if (!h[i])
            return 0;
    return 1;
}

static void add_range(unsigned char *h, tb_blocks b)
{
    for (int i = b.lo; i < b.hi; i++)
        h[i] = 1;
}

/* Non-empty ranges of a step side, in order. */
static int nonempty(const tb_blocks in[2], tb_blocks out[2])
{
    int n = 0;
    for (int i = 0; i < 2; i++)
        if (in[i].lo < in[i].hi)
            out[n++] = in[i];
    return n;
}

static int same_message(const tb_blocks a[2], const tb_blocks b[2])
{
    tb_blocks x[2], y[2];
    int n = nonempty(a, x);
    if (n != nonempty(b, y))
        return 0;
    for (int i = 0; i < n; i++)
        if (x[i].lo != y[i].lo || x[i].hi != y[i].hi)
            return 0;
    return 1;
}

/* Unrolls rank r's periodic (circulant) exchange for xnb blocks. */
static int unroll(tb_schedule *s, int xnb)
{
    int n = xnb - 1 + s->xperiod;
    tb_xchg_step *all = calloc((size_t)n, sizeof *all);
    for (int i = 0; i < n; i++)
        if (!tb_xchg_round(s->steps, s->xperiod, xnb, i, &all[i]))
            return -1;
    free(s->steps);
    s->steps = all;
    s->nsteps = n;
    return 0;
}

static int build_all(sim *m, int size, int root, const tb_alg_spec *spec, const tb_hier *h, int xnb, char *why,
                     size_t len)
{
    memset(m, 0, sizeof *m);
    m->size = size;
    m->root = root;
    m->s = calloc((size_t)size, sizeof *m->s);
    for (int r = 0; r < size; r++) {
        char err[200];
        if (tb_schedule_build(&m->s[r], size, root, r, spec, h, err, sizeof err) != 0) {
            snprintf(why, len, "rank %d: tb_schedule_build: %s", r, err);
            return -1;
        }
    }
    m->nblocks = m->s[0].nblocks;
    m->hold = calloc((size_t)size * (size_t)m->nblocks, 1);
    m->xnb = m->nblocks;
    m->xhold = m->hold;
    if (m->s[0].xperiod > 0 || m->s[root].xchg_first) {
        m->xnb = xnb;
        m->xhold = calloc((size_t)size * (size_t)xnb, 1);
        for (int r = 0; r < size; r++)
            if (m->s[r].xperiod > 0 && unroll(&m->s[r], xnb) != 0) {
                snprintf(why, len, "rank %d: cannot unroll its exchange", r);
                return -1;
            }
    }
    return 0;
}

static void free_all(sim *m)
{
    for (int r = 0; m->s && r < m->size; r++)
        tb_schedule_free(&m->s[r]);
    free(m->s);
    if (m->xhold != m->hold)
        free(m->xhold);
    free(m->hold);
    memset(m, 0, sizeof *m);
}

static int xchg_phase(sim *m, char *why, size_t len);

/* Tree k of every schedule: headers, matched edges (blocks and segment
 * sizes), then breadth first from the root and the sources, a parent
 * forwarding only what it holds in this tree.  Sources (no parent, every
 * block) must hold the whole exchange's message first when the exchange
 * runs before the trees.  What tree k brings is added to hold. */
static int tree_phase_k(sim *m, int k, char *why, size_t len)
{
    int size = m->size, nb = m->nblocks;
    unsigned char *own = calloc((size_t)size * (size_t)nb, 1); /* what tree k brought */
    int *queue = malloc(sizeof(int) * (size_t)size), qh = 0, qt = 0;
    unsigned char *seen = calloc((size_t)size, 1);
    int rc = 0, nkids = 0, nsrc = 0;
    for (int r = 0; r < size && rc == 0; r++) {
        tb_sched_tree *t = &m->s[r].tree[k];
        nkids += t->nchildren + t->nshm;
        if (t->parent >= size) {
            snprintf(why, len, "tree %d rank %d: parent %d", k, r, t->parent);
            rc = -1;
        } else if (t->parent < 0) {
            if (t->mine.lo != 0 || t->mine.hi != nb) {
                snprintf(why, len, "tree %d: rank %d without parent holds [%d,%d) of %d", k, r, t->mine.lo,
                         t->mine.hi, nb);
                rc = -1;
            } else if (r != m->root && !m->s[r].xchg_first) {
                snprintf(why, len, "tree %d: rank %d has no parent and no exchange before the trees", k, r);
                rc = -1;
            } else if (r != m->root) {
                for (int b = 0; b < m->xnb && rc == 0; b++)
                    if (!m->xhold[(size_t)r * (size_t)m->xnb + (size_t)b]) {
                        snprintf(why, len, "source %d lacks exchange block %d of %d", r, b, m->xnb);
                        rc = -1;
                    }
                nsrc++;
            }
            if (rc == 0) {
                add_range(own + (size_t)r * (size_t)nb, t->mine);
                queue[qt++] = r;
                seen[r] = 1;
            }
        } else if (t->shm_parent) {
            /* a shared-memory child reads its parent's ring: the parent
             * writes it for readers of exactly these blocks */
            tb_sched_tree *p = &m->s[t->parent].tree[k];
            if (p->nshm < 1 || p->shm_blocks.lo != t->mine.lo || p->shm_blocks.hi != t->mine.hi) {
                snprintf(why, len, "tree %d: rank %d reads [%d,%d) from %d's ring, which holds %d readers of [%d,%d)",
                         k, r, t->mine.lo, t->mine.hi, t->parent, p->nshm, p->shm_blocks.lo, p->shm_blocks.hi);
                rc = -1;
            }
        } else {
            tb_sched_tree *p = &m->s[t->parent].tree[k];
            int found = 0;
            for (int i = 0; i < p->nchildren; i++)
                if (p->children[i] == r) {
                    size_t cs = p->child_seg ? p->child_seg[i] : 0;
                    found++;
                    if (p->child_blocks[i].lo != t->mine.lo || p->child_blocks[i].hi != t->mine.hi) {
                        snprintf(why, len, "tree %d: rank %d expects [%d,%d) but parent %d sends [%d,%d)", k, r,
                                 t->mine.lo, t->mine.hi, t->parent, p->child_blocks[i].lo, p->child_blocks[i].hi);
                        rc = -1;
                    } else if (cs != t->seg) {
                        snprintf(why, len, "tree %d: rank %d receives pieces of %zu but parent %d sends %zu", k, r,
                                 t->seg, t->parent, cs);
                        rc = -1;
                    }
                }
            if (rc == 0 && found != 1) {
                snprintf(why, len, "tree %d: rank %d appears %d times among its parent's children", k, r, found);
                rc = -1;
            }
        }
    }
    if (rc == 0 && nkids != size - 1 - nsrc) {
        snprintf(why, len, "tree %d: %d child entries for %d ranks and %d sources", k, nkids, size, nsrc);
        rc = -1;
    }
    while (qh < qt && rc == 0) {
        int pr = queue[qh++];
        tb_sched_tree *p = &m->s[pr].tree[k];
        for (int i = 0; i < p->nchildren && rc == 0; i++) {
            int c = p->children[i];
            if (c < 0 || c >= size || seen[c] || !holds_range(nb, own + (size_t)pr * (size_t)nb, p->child_blocks[i])) {
                snprintf(why, len, "tree %d: rank %d cannot send [%d,%d) to child %d", k, pr, p->child_blocks[i].lo,
                         p->child_blocks[i].hi, c);
                rc = -1;
                break;
            }
            seen[c] = 1;
            add_range(own + (size_t)c * (size_t)nb, p->child_blocks[i]);
            queue[qt++] = c;
        }
        /* its ring: written once, from what it holds, read by exactly nshm ranks */
        int readers = 0;
        for (int c = 0; c < size && rc == 0 && p->nshm > 0; c++) {
            tb_sched_tree *ct = &m->s[c].tree[k];
            if (!ct->shm_parent || ct->parent != pr)
                continue;
            readers++;
            if (seen[c] || !holds_range(nb, own + (size_t)pr * (size_t)nb, p->shm_blocks)) {
                snprintf(why, len, "tree %d: rank %d cannot write [%d,%d) for reader %d", k, pr, p->shm_blocks.lo,
                         p->shm_blocks.hi, c);
                rc = -1;
                break;
            }
            seen[c] = 1;
            add_range(own + (size_t)c * (size_t)nb, p->shm_blocks);
            queue[qt++] = c;
        }
        if (rc == 0 && readers != p->nshm) {
            snprintf(why, len, "tree %d: rank %d writes its ring for %d readers, %d read it", k, pr, p->nshm, readers);
            rc = -1;
        }
    }
    if (rc == 0 && qt != size) {
        snprintf(why, len, "tree %d: only %d of %d ranks reached", k, qt, size);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < (size_t)size * (size_t)nb; i++)
        m->hold[i] |= own[i];
    free(own);
    free(queue);
    free(seen);
    return rc;
}

static int tree_phase(sim *m, char *why, size_t len)
{
    int size = m->size, nb = m->nblocks;
    for (int r = 0; r < size; r++) {
        tb_schedule *s = &m->s[r];
        if (s->size != size || s->root != m->root || s->me != r || s->nblocks != nb || s->ntrees != m->s[0].ntrees ||
            s->ntrees < 1 || s->ntrees > TB_MAX_TREES) {
            snprintf(why, len, "rank %d: schedule header disagrees", r);
            return -1;
        }
        for (int k = 0; k < s->ntrees; k++)
            if ((r == m->root) != (s->tree[k].parent == -1) && !(s->xchg_first && s->tree[k].parent == -1)) {
                snprintf(why, len, "rank %d: parent %d in tree %d", r, s->tree[k].parent, k);
                return -1;
            }
    }
    tb_sched_tree *rs = &m->s[m->root].tree[0];
    if (rs->mine.lo != 0 || rs->mine.hi != nb) {
        snprintf(why, len, "root holds [%d,%d) of %d", rs->mine.lo, rs->mine.hi, nb);
        return -1;
    }
    for (int k = 0; k < m->s[0].ntrees; k++)
        if (tree_phase_k(m, k, why, len) != 0)
            return -1;
    return 0;
}

/* Every rank holds every block of hold (nb blocks). */
static int all_held(sim *m, const unsigned char *hold, int nb, const char *what, char *why, size_t len)
{
    for (int r = 0; r < m->size; r++)
        for (int b = 0; b < nb; b++)
            if (!hold[(size_t)r * (size_t)nb + (size_t)b]) {
                snprintf(why, len, "rank %d ends without %s block %d of %d", r, what, b, nb);
                return -1;
            }
    return 0;
}

/* The phases in the schedule's order; every rank ends with every block. */
static int run_phases(sim *m, char *why, size_t len)
{
    if (m->s[m->root].xchg_first) {
        add_range(m->xhold + (size_t)m->root * (size_t)m->xnb, (tb_blocks){0, m->xnb});
        if (xchg_phase(m, why, len) != 0 || tree_phase(m, why, len) != 0)
            return -1;
        return all_held(m, m->hold, m->nblocks, "tree", why, len);
    }
    if (tree_phase(m, why, len) != 0 || xchg_phase(m, why, len) != 0)
        return -1;
    return all_held(m, m->hold, m->nblocks, "", why, len);
}

static unsigned char *xheld(sim *m, int r)
{
    return m->xhold + (size_t)r * (size_t)m->xnb;
}

static int xchg_phase(sim *m, char *why, size_t len)
{
    int size = m->size, nb = m->xnb, rc = 0;
    int *pc = calloc((size_t)size, sizeof(int));
    unsigned char *sent = calloc((size_t)size, 1), *got = calloc((size_t)size, 1);
    unsigned char *pending = calloc((size_t)size * (size_t)nb, 1);
    for (int r = 0; r < size && rc == 0; r++)
        for (int i = 0; i < m->s[r].nsteps; i++) {
            tb_xchg_step *st = &m->s[r].steps[i];
            tb_blocks tmp[2];
            if (st->send_peer < -1 || st->send_peer >= size || st->recv_peer < -1 || st->recv_peer >= size ||
                st->send_peer == r || st->recv_peer == r || (st->send_peer < 0 && nonempty(st->send, tmp)) ||
                (st->recv_peer < 0 && nonempty(st->recv, tmp))) {
                snprintf(why, len, "rank %d step %d: bad peers %d/%d", r, i, st->send_peer, st->recv_peer);
                rc = -1;
                break;
            }
        }
    for (int progress = 1; progress && rc == 0;) {
        progress = 0;
        /* match every current send with its receiver's current receive */
        for (int a = 0; a < size && rc == 0; a++) {
            if (pc[a] >= m->s[a].nsteps || sent[a])
                continue;
            tb_xchg_step *sa = &m->s[a].steps[pc[a]];
            int b = sa->send_peer;
            if (b < 0 || pc[b] >= m->s[b].nsteps || got[b] || m->s[b].steps[pc[b]].recv_peer != a)
                continue;
            tb_xchg_step *sb = &m->s[b].steps[pc[b]];
            if (!same_message(sa->send, sb->recv)) {
                snprintf(why, len, "rank %d step %d sends [%d,%d)+[%d,%d) to %d, whose step %d expects [%d,%d)+[%d,%d)",
                         a, pc[a], sa->send[0].lo, sa->send[0].hi, sa->send[1].lo, sa->send[1].hi, b, pc[b],
                         sb->recv[0].lo, sb->recv[0].hi, sb->recv[1].lo, sb->recv[1].hi);
                rc = -1;
                break;
            }
            /* holdings only change when a step completes, so held() is
             * what a sends at the start of its step */
            if (!holds_range(nb, xheld(m, a), sa->send[0]) || !holds_range(nb, xheld(m, a), sa->send[1])) {
                snprintf(why, len, "rank %d step %d sends blocks it does not hold", a, pc[a]);
                rc = -1;
                break;
            }
            if (sb->dup && !holds_range(nb, xheld(m, b), sb->recv[0])) {
                snprintf(why, len, "rank %d step %d: receives as a copy a block it does not hold", b, pc[b]);
                rc = -1;
                break;
            }
            add_range(pending + (size_t)b * (size_t)nb, sa->send[0]);
            add_range(pending + (size_t)b * (size_t)nb, sa->send[1]);
            sent[a] = got[b] = 1;
            progress = 1;
        }
        /* complete the steps whose send and receive are both done */
        for (int r = 0; r < size && rc == 0; r++) {
            if (pc[r] >= m->s[r].nsteps)
                continue;
            tb_xchg_step *st = &m->s[r].steps[pc[r]];
            if ((st->send_peer >= 0 && !sent[r]) || (st->recv_peer >= 0 && !got[r]))
                continue;
            for (int b = 0; b < nb; b++)
                xheld(m, r)[b] |= pending[(size_t)r * (size_t)nb + (size_t)b];
            memset(pending + (size_t)r * (size_t)nb, 0, (size_t)nb);
            sent[r] = got[r] = 0;
            pc[r]++;
            progress = 1;
        }
    }
    for (int r = 0; r < size && rc == 0; r++)
        if (pc[r] < m->s[r].nsteps) {
            snprintf(why, len, "deadlock: rank %d stuck in step %d of %d (send %d, recv %d)", r, pc[r],
                     m->s[r].nsteps, m->s[r].steps[pc[r]].send_peer, m->s[r].steps[pc[r]].recv_peer);
            rc = -1;
        }
    free(pc);
    free(sent);
    free(got);
    free(pending);
    return rc;
}

/* Steps every rank must have, or -1 when it differs per rank (pair). */
typedef int (*steps_rule)(int size, int rank, int root);

static int no_steps(int size, int rank, int root)
{
    (void)size, (void)rank, (void)root;
    return 0;
}

static int ring_steps(int size, int rank, int root)
{
    (void)rank, (void)root;
    return size - 1;
}

/* ceil(log2 P) rounds at any P: pairwise exchanges at a power of two,
 * dissemination steps otherwise */
static int rdbl_steps(int size, int rank, int root)
{
    (void)rank, (void)root;
    int lg = 0;
    while ((1 << lg) < size)
        lg++;
    return lg;
}

/* split_binary: one swap per non-root rank; the root serves the one rank
 * left without partner when the non-root count is odd */
static int pair_steps(int size, int rank, int root)
{
    if (rank == root)
        return (size - 1) % 2;
    return 1;
}

typedef struct alg_case {
    const char *name;
    tb_alg_id id;
    int chains, radix, allgather, ring;
    int nblocks; /* 0: size, -1: not checked */
    steps_rule steps;
    int periodic; /* a circulant: its period is unrolled for several block counts */
} alg_case;

static tb_alg_spec spec_for(const alg_case *c)
{
    tb_alg_spec s;
    tb_alg_spec_default(&s, c->id);
    if (c->chains)
        s.chains = c->chains;
    if (c->radix)
        s.radix = c->radix;
    s.allgather = c->allgather;
    s.ring = c->ring;
    return s;
}

/* Block counts a periodic (circulant) exchange is unrolled for. */
static const int xblock_counts[] = {1, 2, 3, 5, 8, 13};

static int simulate_n(int size, int root, const tb_alg_spec *spec, const tb_hier *h, const alg_case *c, int xnb,
                      char *why, size_t len)
{
    sim m;
    int rc = build_all(&m, size, root, spec, h, xnb, why, len);
    if (rc == 0 && c->nblocks >= 0 && m.nblocks != (c->nblocks ? c->nblocks : size)) {
        snprintf(why, len, "%d blocks", m.nblocks);
        rc = -1;
    }
    for (int r = 0; rc == 0 && c->steps && r < size; r++) {
        int want = c->steps(size, r, root);
        if (m.s[r].xperiod > 0)
            want = want > 0 ? xnb - 1 + want : 0; /* rounds of the unrolled period */
        if (m.s[r].nsteps != want) {
            snprintf(why, len, "rank %d has %d exchange steps, want %d", r, m.s[r].nsteps, want);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = run_phases(&m, why, len);
    if (rc != 0 && xnb > 0 && m.xnb != m.nblocks)
        snprintf(why + strlen(why), len - strlen(why), " (%d exchange blocks)", xnb);
    free_all(&m);
    return rc;
}

static int simulate(int size, int root, const tb_alg_spec *spec, const tb_hier *h, const alg_case *c, char *why,
                    size_t len)
{
    for (size_t i = 0; i < sizeof xblock_counts / sizeof xblock_counts[0]; i++) {
        if (simulate_n(size, root, spec, h, c, xblock_counts[i], why, len) != 0)
            return -1;
        if (!c->periodic)
            break;
    }
    return 0;
}

/* every P from 1 to 64; under valgrind (memory errors, not coverage: 25 s
 * natively, over 600 s there) 1 to 24 */
#define MAX_P (RUNNING_ON_VALGRIND ? 24 : 64)

static void run_case(const alg_case *c)
{
    tb_alg_spec spec = spec_for(c);
    for (int size = 1; size <= MAX_P; size++) {
        char why[300] = "";
        int bad_root = -1;
        for (int root = 0; root < size && bad_root < 0; root++)
            if (simulate(size, root, &spec, NULL, c, why, sizeof why) != 0)
                bad_root = root;
        TAP_OK(bad_root < 0, "%s P=%d, every root: tree + exchange leave every rank with every block", c->name,
               size);
        if (bad_root >= 0)
            printf("#   root %d: %s\n", bad_root, why);
    }
}

/* ---- hand-checked plans ------------------------------------------------ */

/* p = the plan of id with its default parameters (*s) for size ranks. */
static int default_plan(tb_plan *p, tb_alg_spec *s, tb_alg_id id, int size, int root)
{
    char err[200];
    tb_alg_spec_default(s, id);
    return tb_plan_build(p, size, root, s, NULL, err, sizeof err) == 0;
}

static void split_binary_shape(void)
{
    /* P=8 root 0: L = 1..4 (binary 1->2,3; 2->4) with block 0, R = 5..7
     * (5->6,7) with block 1; pairs 1-5, 2-6, 3-7; 4 gets block 1 from 0 */
    tb_alg_spec s;
    tb_plan p;
    int ok = default_plan(&p, &s, TB_ALG_SPLIT_BINARY, 8, 0);
    static const int parent[] = {-1, 0, 1, 1, 2, 0, 5, 5};
    static const int lo[] = {0, 0, 0, 0, 0, 1, 1, 1};
    static const int partner[] = {-1, 5, 6, 7, -1, 1, 2, 3};
    for (int r = 0; ok && r < 8; r++)
        ok = p.tree.parent[r] == parent[r] && p.partner[r] == partner[r] &&
             (r == 0 || (p.tree.blk_lo[r] == lo[r] && p.tree.blk_hi[r] == lo[r] + 1));
    ok = ok && p.xchg == TB_XCHG_PAIR && p.tree.nblocks == 2 && tb_tree_nchildren(&p.tree, 0) == 2 &&
         tb_tree_children(&p.tree, 0)[0] == 1 && tb_tree_children(&p.tree, 0)[1] == 5;
    TAP_OK(ok, "split_binary P=8 root 0: halves, binary subtrees, partners as drawn");
    tb_xchg_step *st = NULL;
    int n0 = ok ? tb_plan_xchg_steps(&p, 0, &st) : -1;
    TAP_OK(n0 == 1 && st[0].send_peer == 4 && st[0].recv_peer == -1 && same_message(st[0].send,
           (tb_blocks[2]){{1, 2}, {2, 2}}), "split_binary P=8: root sends block 1 to unpaired rank 4");
    free(st);
    int n4 = ok ? tb_plan_xchg_steps(&p, 4, &st) : -1;
    TAP_OK(n4 == 1 && st[0].recv_peer == 0 && st[0].send_peer == -1 &&
           same_message(st[0].recv, (tb_blocks[2]){{1, 2}, {0, 0}}), "split_binary P=8: rank 4 receives block 1 from root");
    free(st);
    int n6 = ok ? tb_plan_xchg_steps(&p, 6, &st) : -1;
    TAP_OK(n6 == 1 && st[0].recv_peer == 2 && st[0].send_peer == 2 &&
           same_message(st[0].send, (tb_blocks[2]){{1, 2}, {0, 0}}) &&
           same_message(st[0].recv, (tb_blocks[2]){{0, 1}, {0, 0}}), "split_binary P=8: rank 6 swaps block 1 for block 0 with 2");
    free(st);
    tb_plan_free(&p);
}

static void scatter_shape(void)
{
    /* P=6 root 2: positions 0..5 = ranks 2,3,4,5,0,1; binomial scatter
     * 0 -> 4 [4,6), 2 [2,4), 1 [1,2); 2 -> 3 [3,4); 4 -> 5 [5,6) */
    tb_alg_spec s;
    tb_plan p;
    char err[200];
    int ok = default_plan(&p, &s, TB_ALG_SCATTER_ALLGATHER, 6, 2);
    static const int parent[] = {2, 0, -1, 2, 2, 4};
    static const int lo[] = {4, 5, 0, 1, 2, 3}, hi[] = {6, 6, 6, 2, 4, 4};
    for (int r = 0; ok && r < 6; r++)
        ok = p.tree.parent[r] == parent[r] && p.tree.blk_lo[r] == lo[r] && p.tree.blk_hi[r] == hi[r] &&
             p.order[r] == (2 + r) % 6;
    ok = ok && p.xchg == TB_XCHG_RING && tb_tree_children(&p.tree, 2)[0] == 0 && tb_tree_children(&p.tree, 2)[1] == 4 &&
         tb_tree_children(&p.tree, 2)[2] == 3;
    TAP_OK(ok, "scatter_allgather P=6 root 2: binomial scatter of subtree blocks as drawn");
    /* ring: position 3 (rank 5) at step 1 sends block 2 to rank 0, receives block 1 from rank 4 */
    tb_xchg_step *st = NULL;
    int n = ok ? tb_plan_xchg_steps(&p, 5, &st) : -1;
    TAP_OK(n == 5 && st[1].send_peer == 0 && st[1].recv_peer == 4 && st[1].send[0].lo == 2 && st[1].send[0].hi == 3 &&
           st[1].recv[0].lo == 1 && st[1].recv[0].hi == 2, "ring P=6: position 3 step 1 passes block 2 on, gets block 1");
    free(st);
    tb_plan_free(&p);

    /* recursive doubling P=6 root 0 (not a power of two): dissemination,
     * position v sends its [v, v + d) to v - d, gets [v + d, v + 2d) from
     * v + d, d = 1, 2, 4; the last round only the 2 blocks still missing */
    s.allgather = TB_AG_RECURSIVE_DOUBLING;
    ok = tb_plan_build(&p, 6, 0, &s, NULL, err, sizeof err) == 0 && p.xchg == TB_XCHG_RDBL;
    st = NULL;
    n = ok ? tb_plan_xchg_steps(&p, 1, &st) : -1;
    ok = n == 3 && st[0].send_peer == 0 && same_message(st[0].send, (tb_blocks[2]){{1, 2}, {0, 0}}) &&
         st[0].recv_peer == 2 && same_message(st[0].recv, (tb_blocks[2]){{2, 3}, {0, 0}}) && st[1].send_peer == 5 &&
         same_message(st[1].send, (tb_blocks[2]){{1, 3}, {0, 0}}) && st[1].recv_peer == 3 &&
         same_message(st[1].recv, (tb_blocks[2]){{3, 5}, {0, 0}}) && st[2].send_peer == 3 &&
         same_message(st[2].send, (tb_blocks[2]){{1, 3}, {0, 0}}) && st[2].recv_peer == 5 &&
         same_message(st[2].recv, (tb_blocks[2]){{5, 6}, {0, 1}});
    TAP_OK(ok, "rdbl P=6: position 1 sends to 0, 5, 3 and gets [2,3), [3,5), then [5,6) + [0,1) from 2, 3, 5");
    free(st);
    st = NULL;
    n = ok ? tb_plan_xchg_steps(&p, 4, &st) : -1;
    TAP_OK(n == 3 && st[0].send_peer == 3 && st[0].recv_peer == 5 && same_message(st[1].send, (tb_blocks[2]){{4, 6}, {0, 0}}) &&
           st[1].recv_peer == 0 && same_message(st[1].recv, (tb_blocks[2]){{0, 2}, {0, 0}}) && st[2].send_peer == 0 &&
           st[2].recv_peer == 2 && same_message(st[2].recv, (tb_blocks[2]){{2, 4}, {0, 0}}),
           "rdbl P=6: position 4's blocks wrap around: [4,6) to 2, [0,2) from 0, [2,4) from 2");
    free(st);
    tb_plan_free(&p);
}

/* distance ring over a 2-node hierarchy: the ring order comes from
 * tb_hier_ring_order, must be a permutation starting at the root, and the
 * broadcast must still complete */
static void distance_ring(void)
{
    tb_hier h;
    if (tb_hier_alloc(&h, 8, 1) != 0) {
        TAP_OK(0, "tb_hier_alloc");
        return;
    }
    snprintf(h.level_name[0], TB_LEVEL_NAME_MAX, "node");
    h.ngroups[0] = 2;
    for (int r = 0; r < 8; r++)
        h.group[0][r] = r % 2; /* ranks round-robin over 2 nodes */
    for (int ag = 0; ag < 2; ag++) {
        alg_case c = {ag ? "scatter_allgather:allgather=recursive_doubling,ring=distance"
                         : "scatter_allgather:ring=distance",
                      TB_ALG_SCATTER_ALLGATHER, 0, 0, ag, TB_RING_DISTANCE, 0, ag ? rdbl_steps : ring_steps, 0};
        tb_alg_spec s = spec_for(&c);
        int ok = 1, changes_ok = 1;
        char why[300] = "";
        for (int root = 0; root < 8 && ok; root++) {
            ok = simulate(8, root, &s, &h, &c, why, sizeof why) == 0;
            tb_plan p;
            char err[200];
            if (ok && tb_plan_build(&p, 8, root, &s, &h, err, sizeof err) == 0) {
                int seen[8] = {0}, node_changes = 0;
                for (int v = 0; v < 8; v++) {
                    seen[p.order[v]]++;
                    node_changes += v > 0 && p.order[v] % 2 != p.order[v - 1] % 2;
                }
                for (int r = 0; r < 8; r++)
                    ok &= seen[r] == 1;
                ok &= p.order[0] == root;
                changes_ok &= node_changes == 1;
                tb_plan_free(&p);
            }
        }
        TAP_OK(ok, "%s P=8 on 2 nodes, every root: completes, order is a permutation from the root %s", c.name, why);
        TAP_OK(changes_ok, "%s: ring order crosses between the nodes once (plus the wrap-around)", c.name);
    }
    tb_hier_free(&h);
}

/* Two levels over P ranks placed round robin on nodes of 4 (so groups
 * interleave in rank order), sockets of 2 inside: the hierarchical plans
 * with the new bases and per-level segments, every P 1..64, every root,
 * the circulant at the coarsest level unrolled for several block counts. */
static void hierarchical_bases(void)
{
    static const struct {
        const char *text;
        int nblocks;
    } specs[] = {
        {"magpie2:base=dbt", 2},
        {"magpie2:base=bine", 1},
        {"interpipe:base=binomial/dbt", 2},
        {"interpipe:segment=64K/16K/4K,base=dbt/chain/binary", -1}, /* one tree where no level is left */
        {"interpipe:segment=128K/8K", 1},
        {"interpipe:base=circulant/binomial", 1},
        {"magpie2:base=circulant/dbt/bine", -1},
        {"interpipe:segment=128K/8K,base=circulant/chain/binary", 1},
        {"interpipe:levels=node,base=binomial/shm", 1},
        {"magpie2:base=binomial/shm", 1},
        {"magpie2:base=binomial/shm/binomial", 1}, /* socket leaders by shm, then binomial inside sockets */
        {"interpipe:segment=128K/8K,base=circulant/shm", 1},
        /* feeds: finest groups entered from their siblings too */
        {"interpipe:segment=128K/8K,feeds=2", 1},
        {"magpie2:base=dbt,feeds=2", 2},
        {"interpipe:levels=socket,base=chain/flat,chains=2,feeds=2", 1},
        {"magpie2:levels=socket,base=binary/binomial,feeds=4", 1},
        {"magpie2:base=binomial/shm,feeds=2", 1},
        {"interpipe:base=circulant/binomial,feeds=3", 1},
        {"magpie2:levels=socket,base=circulant/flat,feeds=2", 1},
        {"interpipe:levels=node,base=bine/dbt,feeds=2", 2}, /* the node level is h's coarsest: siblings are all nodes */
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        alg_case c = {specs[i].text, TB_ALG_DEFAULT, 0, 0, 0, 0, specs[i].nblocks, NULL,
                      strstr(specs[i].text, "circulant") != NULL};
        tb_alg_spec spec;
        char err[200];
        if (tb_alg_spec_parse(specs[i].text, &spec, err, sizeof err) != 0) {
            TAP_OK(0, "%s parses (%s)", specs[i].text, err);
            continue;
        }
        int bad_p = 0, bad_root = -1;
        char why[300] = "";
        for (int size = 1; size <= MAX_P && bad_root < 0; size++) {
            tb_hier h;
            if (tb_hier_alloc(&h, size, 2) != 0)
                break;
            int nodes = (size + 3) / 4;
            snprintf(h.level_name[0], TB_LEVEL_NAME_MAX, "node");
            snprintf(h.level_name[1], TB_LEVEL_NAME_MAX, "socket");
            for (int r = 0; r < size; r++) {
                h.group[0][r] = r % nodes;
                h.group[1][r] = 2 * (r % nodes) + (r / nodes) % 2;
            }
            if (tb_hier_normalize(&h) != 0)
                break;
            for (int root = 0; root < size && bad_root < 0; root++)
                if (simulate(size, root, &spec, &h, &c, why, sizeof why) != 0)
                    bad_p = size, bad_root = root;
            tb_hier_free(&h);
        }
        TAP_OK(bad_root < 0, "%s on 2 interleaved levels, P=1..%d, every root: every rank ends with every block",
               specs[i].text, MAX_P);
        if (bad_root >= 0)
            printf("#   P=%d root %d: %s\n", bad_p, bad_root, why);
    }
}

/* shm: the plan marks its edges; every shared-memory edge of the node
 * stage stays inside a node of the hierarchy it was built on, and the
 * check names one that crosses nodes; two-tree plans refuse it; the
 * fallback spec swaps it for binomial. */
static void shm_plans(void)
{
    char err[200];
    tb_alg_spec spec, sub;
    tb_plan p;
    /* P = 8 on nodes {0..3} {4..7}, root 5 */
    tb_hier h;
    int node_of[8], own[8];
    TAP_OK(tb_hier_alloc(&h, 8, 1) == 0, "shm: hierarchy of 8");
    snprintf(h.level_name[0], TB_LEVEL_NAME_MAX, "node");
    for (int r = 0; r < 8; r++) {
        h.group[0][r] = r / 4;
        node_of[r] = (r / 4) * 4;
        own[r] = r;
    }
    TAP_OK(tb_hier_normalize(&h) == 0, "shm: hierarchy normalised");
    TAP_OK(tb_alg_spec_parse("interpipe:levels=node,base=binomial/shm", &spec, err, sizeof err) == 0, "shm: parses");
    int built = tb_plan_build(&p, 8, 5, &spec, &h, err, sizeof err) == 0;
    TAP_OK(built, "shm: interpipe:levels=node,base=binomial/shm builds (%s)", built ? "" : err);
    if (built) {
        int nshm = 0;
        for (int r = 0; r < 8; r++)
            nshm += tb_tree_edge_shm(&p.tree, r);
        TAP_OK(tb_plan_has_shm(&p) && nshm == 6, "shm: 6 shared-memory edges (3 per node), got %d", nshm);
        TAP_OK(p.tree.parent[0] == 5 && !tb_tree_edge_shm(&p.tree, 0) && p.tree.parent[1] == 0 &&
                   tb_tree_edge_shm(&p.tree, 1) && p.tree.parent[4] == 5 && tb_tree_edge_shm(&p.tree, 4),
               "shm: root 5 reaches leader 0 point-to-point, its node by shared memory");
        TAP_OK(tb_plan_shm_outside(&p, node_of) == -1, "shm: every shared-memory edge inside its node");
        TAP_OK(tb_plan_shm_outside(&p, own) >= 0, "shm: one rank per node: an edge crosses nodes");
        tb_schedule s;
        TAP_OK(tb_schedule_from_plan(&s, &p, 0, &spec) == 0 && s.shm && s.tree[0].nshm == 3 &&
                   s.tree[0].nchildren == 0 && !s.tree[0].shm_parent && s.tree[0].shm_blocks.hi == 1,
               "shm: leader 0 writes its ring for 3 readers and sends nothing");
        tb_schedule_free(&s);
        TAP_OK(tb_schedule_from_plan(&s, &p, 2, &spec) == 0 && s.tree[0].shm_parent && s.tree[0].parent == 0,
               "shm: rank 2 reads leader 0's ring");
        tb_schedule_free(&s);
        tb_plan_free(&p);
    }
    /* the parser refuses it (tb_alg_spec_check_bases); a spec made
     * otherwise is still refused by the plan */
    TAP_OK(tb_alg_spec_parse("magpie2:base=dbt/shm", &spec, err, sizeof err) != 0 &&
               strstr(err, "shm cannot be combined with dbt"),
           "shm: magpie2:base=dbt/shm refused when parsed (%s)", err);
    tb_alg_spec_default(&spec, TB_ALG_MAGPIE2);
    spec.nbase = 2;
    spec.base[0] = TB_ALG_DBT;
    spec.base[1] = TB_ALG_SHM;
    TAP_OK(tb_plan_build(&p, 8, 0, &spec, &h, err, sizeof err) != 0 && strstr(err, "two-tree"),
           "shm: refused in a two-tree plan (%s)", err);
    tb_hier_free(&h);
    TAP_OK(tb_alg_spec_uses_shm(&spec), "shm: magpie2:base=dbt/shm uses shm");
    tb_alg_spec_without_shm(&spec, &sub);
    TAP_OK(!tb_alg_spec_uses_shm(&sub) && sub.id == TB_ALG_MAGPIE2 && sub.nbase == 2 && sub.base[0] == TB_ALG_DBT &&
               sub.base[1] == TB_ALG_BINOMIAL,
           "shm: fallback spec magpie2:base=dbt/binomial");
    tb_alg_spec_default(&spec, TB_ALG_SHM);
    tb_alg_spec_without_shm(&spec, &sub);
    TAP_OK(tb_alg_spec_uses_shm(&spec) && sub.id == TB_ALG_BINOMIAL, "shm: fallback of shm itself is binomial");
    tb_alg_spec_default(&spec, TB_ALG_INTERPIPE);
    TAP_OK(!tb_alg_spec_uses_shm(&spec), "shm: interpipe's default bases do not use shm");
}

/* The simulator itself must reject broken schedules. */
static void simulator_catches(void)
{
    alg_case ring = {"ring", TB_ALG_SCATTER_ALLGATHER, 0, 0, TB_AG_RING, TB_RING_RANK, 0, ring_steps, 0};
    tb_alg_spec s = spec_for(&ring);
    char why[300];
    sim m;

    build_all(&m, 5, 0, &s, NULL, 0, why, sizeof why);
    m.s[2].steps[1].send[0] = (tb_blocks){4, 5}; /* should be block 1 */
    int rc = run_phases(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects a send that disagrees with the receive (%s)", why);
    free_all(&m);

    build_all(&m, 5, 0, &s, NULL, 0, why, sizeof why);
    m.s[3].steps[3].recv_peer = 4; /* waits for someone who never sends */
    rc = run_phases(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects an unmatched receive (%s)", why);
    free_all(&m);

    build_all(&m, 5, 0, &s, NULL, 0, why, sizeof why);
    m.s[1].nsteps = 3; /* stops one step early */
    rc = run_phases(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects a rank that leaves early (%s)", why);
    free_all(&m);

    build_all(&m, 5, 0, &s, NULL, 0, why, sizeof why);
    m.s[0].tree[0].child_blocks[0].hi = m.s[0].tree[0].child_blocks[0].lo; /* parent sends less than the child expects */
    rc = tree_phase(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects a tree edge that disagrees with the child (%s)", why);
    free_all(&m);

    /* two ranks that both send first and receive second deadlock under rendezvous */
    build_all(&m, 2, 0, &s, NULL, 0, why, sizeof why);
    for (int r = 0; r < 2; r++) {
        tb_xchg_step *st = realloc(m.s[r].steps, 2 * sizeof *st);
        m.s[r].steps = st;
        m.s[r].nsteps = 2;
        st[0] = (tb_xchg_step){1 - r, -1, {{r, r + 1}, {0, 0}}, {{0, 0}, {0, 0}}, 0};
        st[1] = (tb_xchg_step){-1, 1 - r, {{0, 0}, {0, 0}}, {{1 - r, 2 - r}, {0, 0}}, 0};
    }
    rc = run_phases(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects send-send/recv-recv ordering as a deadlock (%s)", why);
    free_all(&m);

    /* a send of a block the sender only gets in the same step */
    alg_case rd = {"rdbl", TB_ALG_SCATTER_ALLGATHER, 0, 0, TB_AG_RECURSIVE_DOUBLING, TB_RING_RANK, 0, rdbl_steps, 0};
    s = spec_for(&rd);
    build_all(&m, 4, 0, &s, NULL, 0, why, sizeof why);
    m.s[1].steps[0].send[1] = (tb_blocks){3, 4}; /* rank 1 does not hold block 3 yet */
    m.s[0].steps[0].recv[1] = (tb_blocks){3, 4};
    rc = run_phases(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects sending a block not yet held (%s)", why);
    free_all(&m);

    /* shm: a ring written for fewer readers than read it, and a reader
     * whose parent writes no ring */
    tb_alg_spec_default(&s, TB_ALG_SHM);
    build_all(&m, 4, 1, &s, NULL, 0, why, sizeof why);
    m.s[1].tree[0].nshm--;
    rc = tree_phase(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects a ring read by more ranks than it is written for (%s)", why);
    free_all(&m);
    build_all(&m, 4, 1, &s, NULL, 0, why, sizeof why);
    m.s[3].tree[0].parent = 2; /* rank 2 writes no ring */
    rc = tree_phase(&m, why, sizeof why);
    TAP_OK(rc != 0, "simulator rejects a reader of a ring nobody writes (%s)", why);
    free_all(&m);
}

/* The descriptor table is the one place an algorithm is declared: every
 * entry but default builds a plan, every one with a tree builder is
 * accepted as a level's base, and names round-trip through the parser. */
static void descriptor_table(void)
{
    for (int i = 0; i < TB_ALG_COUNT; i++) {
        const tb_alg_desc *d = tb_alg_desc_of((tb_alg_id)i);
        char err[256] = "", text[96];
        tb_alg_spec spec;
        int parsed = tb_alg_spec_parse(d->name, &spec, err, sizeof err) == 0 && spec.id == (tb_alg_id)i;
        TAP_OK(parsed, "table: '%s' parses to its own id (%s)", d->name, err);
        if (i == TB_ALG_DEFAULT) {
            TAP_OK(!d->tree && !d->plan, "table: default has no builder (it is MPI_Bcast)");
            continue;
        }
        TAP_OK(d->tree || d->plan, "table: %s has a tree or plan builder", d->name);
        tb_plan p;
        int built = tb_plan_build(&p, 7, 3, &spec, NULL, err, sizeof err) == 0;
        TAP_OK(built && p.tree.size == 7, "table: %s builds a plan for 7 ranks, root 3 (%s)", d->name, built ? "" : err);
        if (built)
            tb_plan_free(&p);
        /* as the coarsest of two: where every base may stand (circulant
         * only there, tb_alg_spec_check_bases) */
        snprintf(text, sizeof text, "magpie2:base=%s/binomial", d->name);
        int as_base = tb_alg_spec_parse(text, &spec, err, sizeof err) == 0;
        TAP_OK(as_base == tb_alg_desc_is_base((tb_alg_id)i), "table: %s %s a level's base", d->name,
               tb_alg_desc_is_base((tb_alg_id)i) ? "is accepted as" : "is refused as");
    }
    TAP_OK(tb_alg_desc_of(TB_ALG_COUNT) == NULL, "table: out-of-range id has no descriptor");
}

/* The example in each plan builder's and exchange generator's header
 * comment is what it makes. */
static void builder_examples(void)
{
    check_plan_example("libtopobcast/src/plan/plan_split_binary.c", "split_binary", 8, 0, NULL,
                       EXAMPLE_TREE | EXAMPLE_STEPS);
    check_plan_example("libtopobcast/src/plan/plan_scatter_allgather.c", "scatter_allgather", 4, 0, NULL,
                       EXAMPLE_TREE | EXAMPLE_STEPS);
    check_plan_example("libtopobcast/src/plan/xchg_ring.c", "scatter_allgather", 6, 2, NULL, EXAMPLE_STEPS);
    check_plan_example("libtopobcast/src/plan/xchg_rdbl.c", "scatter_allgather:allgather=recursive_doubling", 5, 0, NULL,
                       EXAMPLE_STEPS);
    check_plan_example("libtopobcast/src/plan/xchg_pair.c", "split_binary", 6, 0, NULL, EXAMPLE_STEPS);
    check_plan_example("libtopobcast/src/plan/plan_circulant.c", "circulant", 4, 1, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/xchg_circ.c", "circulant", 5, 0, NULL, EXAMPLE_STEPS);
}

/* Two schedules equal in everything a rank runs. */
static int same_sched_tree(const tb_sched_tree *a, const tb_sched_tree *b)
{
    if (a->parent != b->parent || a->shm_parent != b->shm_parent || a->nshm != b->nshm ||
        a->mine.lo != b->mine.lo || a->mine.hi != b->mine.hi || a->seg != b->seg || a->nchildren != b->nchildren ||
        (a->nshm && (a->shm_blocks.lo != b->shm_blocks.lo || a->shm_blocks.hi != b->shm_blocks.hi)) ||
        !a->child_seg != !b->child_seg)
        return 0;
    for (int i = 0; i < a->nchildren; i++)
        if (a->children[i] != b->children[i] || a->child_blocks[i].lo != b->child_blocks[i].lo ||
            a->child_blocks[i].hi != b->child_blocks[i].hi || (a->child_seg && a->child_seg[i] != b->child_seg[i]))
            return 0;
    return 1;
}

static int same_schedule(const tb_schedule *a, const tb_schedule *b)
{
    if (a->size != b->size || a->root != b->root || a->me != b->me || a->nblocks != b->nblocks ||
        a->ntrees != b->ntrees || a->shm != b->shm || a->xchg_first != b->xchg_first || a->xperiod != b->xperiod ||
        a->nsteps != b->nsteps)
        return 0;
    for (int k = 0; k < a->ntrees; k++)
        if (!same_sched_tree(&a->tree[k], &b->tree[k]))
            return 0;
    return a->nsteps == 0 || memcmp(a->steps, b->steps, sizeof *a->steps * (size_t)a->nsteps) == 0;
}

/* tb_plan_rotates: for every algorithm that claims it, every rank's
 * schedule renumbered from the root-0 plan (tb_schedule_rotated, what the
 * library uses once its schedule cache is full) equals the schedule built
 * for that root, at every root and size up to MAX_P; and the algorithms
 * that read the topology or shared memory do not claim it. */
static void rotation(void)
{
    static const char *const rot[] = {
        "flat", "chain:chains=3", "pipeline:segment=1000", "binary", "binomial", "knomial:radix=3", "split_binary",
        "scatter_allgather", "scatter_allgather:allgather=recursive_doubling", "dbt", "bine",
        "circulant:segment=1000",
    };
    static const char *const fixed[] = {"magpie", "magpie2", "interpipe", "distance_tree", "shm",
                                        "scatter_allgather:ring=distance"};
    char err[256];
    for (size_t i = 0; i < sizeof rot / sizeof rot[0]; i++) {
        tb_alg_spec spec;
        if (tb_alg_spec_parse(rot[i], &spec, err, sizeof err) != 0 || !tb_plan_rotates(&spec)) {
            TAP_OK(0, "rotation: %s parses and rotates (%s)", rot[i], err);
            continue;
        }
        int bad = 0, compared = 0;
        char why[320] = "";
        for (int size = 1; size <= MAX_P && !bad; size++) {
            tb_plan p0, pr;
            if (tb_plan_build(&p0, size, 0, &spec, NULL, err, sizeof err) != 0) {
                snprintf(why, sizeof why, "P=%d root 0: %s", size, err);
                bad = 1;
                break;
            }
            for (int root = 0; root < size && !bad; root++) {
                if (tb_plan_build(&pr, size, root, &spec, NULL, err, sizeof err) != 0) {
                    snprintf(why, sizeof why, "P=%d root %d: %s", size, root, err);
                    bad = 1;
                    break;
                }
                for (int me = 0; me < size && !bad; me++) {
                    tb_schedule a, b;
                    int ra = tb_schedule_from_plan(&a, &pr, me, &spec), rb = tb_schedule_rotated(&b, &p0, root, me, &spec);
                    if (ra != 0 || rb != 0 || !same_schedule(&a, &b)) {
                        snprintf(why, sizeof why, "P=%d root %d rank %d differs", size, root, me);
                        bad = 1;
                    }
                    compared++;
                    tb_schedule_free(&a);
                    tb_schedule_free(&b);
                }
                tb_plan_free(&pr);
            }
            tb_plan_free(&p0);
        }
        TAP_OK(!bad, "rotation: %s, P=1..%d, every root and rank: renumbered root-0 schedule = built one (%d)%s%s",
               rot[i], MAX_P, compared, bad ? ": " : "", why);
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        tb_alg_spec spec;
        TAP_OK(tb_alg_spec_parse(fixed[i], &spec, err, sizeof err) == 0 && !tb_plan_rotates(&spec),
               "rotation: %s (topology or shared memory) is built for each root", fixed[i]);
    }
}

int main(void)
{
    descriptor_table();
    static const alg_case cases[] = {
        {"flat", TB_ALG_FLAT, 0, 0, 0, 0, 1, no_steps, 0},
        {"chain", TB_ALG_CHAIN, 1, 0, 0, 0, 1, no_steps, 0},
        {"chain:chains=3", TB_ALG_CHAIN, 3, 0, 0, 0, 1, no_steps, 0},
        {"pipeline", TB_ALG_PIPELINE, 0, 0, 0, 0, 1, no_steps, 0},
        {"binary", TB_ALG_BINARY, 0, 0, 0, 0, 1, no_steps, 0},
        {"binomial", TB_ALG_BINOMIAL, 0, 0, 0, 0, 1, no_steps, 0},
        {"knomial", TB_ALG_KNOMIAL, 0, 0, 0, 0, 1, no_steps, 0},
        {"knomial:radix=3", TB_ALG_KNOMIAL, 0, 3, 0, 0, 1, no_steps, 0},
        {"split_binary", TB_ALG_SPLIT_BINARY, 0, 0, 0, 0, 2, pair_steps, 0},
        {"scatter_allgather:allgather=ring", TB_ALG_SCATTER_ALLGATHER, 0, 0, TB_AG_RING, TB_RING_RANK, 0,
         ring_steps, 0},
        {"scatter_allgather:allgather=recursive_doubling", TB_ALG_SCATTER_ALLGATHER, 0, 0,
         TB_AG_RECURSIVE_DOUBLING, TB_RING_RANK, 0, rdbl_steps, 0},
        {"scatter_allgather:ring=distance (no hierarchy)", TB_ALG_SCATTER_ALLGATHER, 0, 0, TB_AG_RING,
         TB_RING_DISTANCE, 0, ring_steps, 0},
        {"dbt", TB_ALG_DBT, 0, 0, 0, 0, 2, no_steps, 0},
        {"bine", TB_ALG_BINE, 0, 0, 0, 0, 1, no_steps, 0},
        {"circulant", TB_ALG_CIRCULANT, 0, 0, 0, 0, 1, rdbl_steps, 1},
        {"shm", TB_ALG_SHM, 0, 0, 0, 0, 1, no_steps, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    hierarchical_bases();
    shm_plans();
    split_binary_shape();
    scatter_shape();
    distance_ring();
    simulator_catches();
    builder_examples();
    rotation();
    TAP_DONE();
}
