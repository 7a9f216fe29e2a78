/* Candidate generation; see candidates.h. */
#include "candidates.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

void tn_cand_grid_default(tn_cand_grid *g)
{
    memset(g, 0, sizeof *g);
    /* Short segments pipeline short messages through deep trees (P=512 on
     * FRAM: 4 KiB in 1 KiB segments took 15.0 us, the best unsegmented tree
     * 19.9 us, SMPI's best built-in 17.7 us); in long messages their
     * thousands of per-message overheads lose, and they cost the model. */
    for (size_t s = 1024; s <= 1024 * 1024; s *= 2)
        g->seg[g->nseg++] = s;
    g->seg_short = 8 * 1024;
    g->seg_short_max = 64;
    for (int r = 3; r <= 8; r++)
        g->radix[g->nradix++] = r;
    const int chains[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++)
        g->chains[g->nchains++] = chains[i];
    const tb_alg_id base[] = {TB_ALG_FLAT, TB_ALG_CHAIN, TB_ALG_BINARY, TB_ALG_BINOMIAL};
    for (int i = 0; i < 4; i++)
        g->base[g->nbase++] = base[i];
    const tb_alg_id coarse[] = {TB_ALG_CIRCULANT, TB_ALG_DBT, TB_ALG_BINE, TB_ALG_CHAIN, TB_ALG_BINARY};
    for (int i = 0; i < 5; i++)
        g->coarse[g->ncoarse++] = coarse[i];
    const tb_alg_id fine[] = {TB_ALG_BINOMIAL, TB_ALG_BINARY, TB_ALG_CHAIN, TB_ALG_FLAT, TB_ALG_BINE, TB_ALG_DBT};
    for (int i = 0; i < 6; i++)
        g->fine[g->nfine++] = fine[i];
    /* large pieces across the coarse links, small ones inside */
    const size_t top[] = {64 * 1024, 256 * 1024, 1024 * 1024}, below[] = {4 * 1024, 16 * 1024};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            g->level_seg[g->nlevel_seg][0] = top[i];
            g->level_seg[g->nlevel_seg++][1] = below[j];
        }
    g->send_variants = 2;
    /* two entries per finest group (a socket of a 2-socket node); four
     * where a level above holds four (NUMA domains of a socket) */
    const int feeds[] = {2, 4};
    /* what feeds save is copies through a host's memory, which bound only
     * large messages; below 1 MiB the model's replay gives them a gain
     * they do not have.  From 1 MiB they can win: ARM1-like, 96 ranks,
     * 1 MiB, the NUMA domains entered twice measured 1184 us, 1.18x the
     * bound, the best without feeds 1252 us (plan.c prunes them against
     * the best of their own) */
    g->feeds_min = 1024 * 1024;
    for (int i = 0; i < 2; i++)
        g->feeds[g->nfeeds++] = feeds[i];
    /* leaders=2 from 1 MiB: BETZY-like, P=512, dbt in 16 KiB pieces over
     * nodes and sockets, 1 MiB in 311.2 us with one leader per group,
     * 244.7 us with one per tree (2 MiB: 572.5, 440.3 us) */
    g->leaders_min = 1024 * 1024;
    const tb_alg_id fed_top[] = {TB_ALG_CHAIN, TB_ALG_BINARY, TB_ALG_DBT, TB_ALG_BINOMIAL};
    for (int i = 0; i < 4; i++)
        g->fed_top[g->nfed_top++] = fed_top[i];
    const tb_alg_id fed_leaf[] = {TB_ALG_FLAT, TB_ALG_BINOMIAL, TB_ALG_CHAIN};
    for (int i = 0; i < 3; i++)
        g->fed_leaf[g->nfed_leaf++] = fed_leaf[i];
}

void tn_cand_list_free(tn_cand_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Open-addressing set of spec hashes, so that dedup stays linear for the
 * thousands of hierarchical combinations. */
typedef struct hset {
    uint64_t *h;
    size_t cap, n;
} hset;

static int hset_add(hset *s, uint64_t h)
{
    if (h == 0)
        h = 1;
    if ((s->n + 1) * 2 > s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 1024;
        uint64_t *nh = calloc(ncap, sizeof *nh);
        if (!nh)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->h[i]) {
                size_t j = s->h[i] & (ncap - 1);
                while (nh[j])
                    j = (j + 1) & (ncap - 1);
                nh[j] = s->h[i];
            }
        free(s->h);
        s->h = nh;
        s->cap = ncap;
    }
    size_t j = h & (s->cap - 1);
    while (s->h[j]) {
        if (s->h[j] == h)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->h[j] = h;
    s->n++;
    return 1;
}

static int list_push(tn_cand_list *l, const tb_alg_spec *s)
{
    tn_cand *nv = tn_array_room(l->v, l->n, &l->cap, sizeof *nv, 64);
    if (!nv)
        return -1;
    l->v = nv;
    tn_cand *c = &l->v[l->n++];
    c->spec = *s;
    tb_alg_spec_format(s, c->text, sizeof c->text);
    return 0;
}

typedef struct gen {
    tn_cand_list *out;
    hset seen;
    const tn_cand_grid *g;
    size_t bytes;
    int added, failed;
} gen;

/* Adds s in every send mode of the grid. */
static void emit(gen *G, const tb_alg_spec *s)
{
    for (int v = 0; v < G->g->send_variants && v < 2; v++) {
        tb_alg_spec x = *s;
        x.nonblocking = v == 0;
        if (x.id == TB_ALG_DEFAULT && v > 0)
            break;
        int r = hset_add(&G->seen, tb_alg_spec_hash(&x));
        if (r < 0 || (r > 0 && list_push(G->out, &x) != 0)) {
            G->failed = 1;
            return;
        }
        G->added += r;
    }
}

/* Whether segments of seg bytes cut the message into more pieces than
 * --max-segments allows. */
static int pieces_over(size_t bytes, size_t seg, int max_segments)
{
    return max_segments > 0 && seg > 0 && bytes > seg * (size_t)max_segments;
}

static int too_many_pieces(const gen *G, size_t seg)
{
    return pieces_over(G->bytes, seg, G->g->max_segments);
}

void tn_cand_fit_pieces(tb_alg_spec *s, size_t bytes, int max_segments)
{
    while (pieces_over(bytes, s->segment, max_segments))
        s->segment *= 2;
    for (int l = 0; l < s->nlevel_seg && l < TB_MAX_LEVELS; l++)
        while (pieces_over(bytes, s->level_seg[l], max_segments))
            s->level_seg[l] *= 2;
    if (s->nlevel_seg >= 2)
        s->segment = s->level_seg[0];
}

/* s with segment 0 and with every grid segment shorter than the message
 * (longer ones send the message in one piece, which segment 0 already is);
 * short segments only up to seg_short_max of them, any only up to
 * max_segments (per-level segments too, emit_hierarchical). */
static void emit_segments(gen *G, const tb_alg_spec *s, int with_zero)
{
    tb_alg_spec x = *s;
    if (with_zero) {
        x.segment = 0;
        emit(G, &x);
    }
    for (int i = 0; i < G->g->nseg; i++) {
        size_t seg = G->g->seg[i];
        if (seg == 0 || seg >= G->bytes)
            continue;
        if (seg < G->g->seg_short && G->bytes > seg * (size_t)G->g->seg_short_max)
            continue;
        if (too_many_pieces(G, seg))
            continue;
        x.segment = seg;
        emit(G, &x);
    }
}

/* levels= text for a subset (bitmask over h's levels, coarsest = bit 0);
 * every level -> "" (all levels, whatever their names).  Each level by its
 * finest name: where this communicator's hosts each sit on their own node,
 * levels=host (not node) names the groups timed here on a job whose hosts
 * share nodes; and there every level is named, so that such a job runs the
 * stages timed here, not one more. */
static void levels_text(const tb_hier *h, unsigned mask, char *buf, size_t len)
{
    buf[0] = '\0';
    if (mask == (1u << h->nlevels) - 1 && h->nalias == 0)
        return;
    size_t o = 0;
    for (int l = 0; l < h->nlevels; l++)
        if (mask & (1u << l))
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? "/" : "", tb_hier_finest_name(h, l));
}

static int popcount(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* magpie2 and interpipe over `levels` (k of them) with the per-slot bases
 * base[0..k], coarsest first, feeds, chains and leaders: unsegmented, with
 * the grid's segments, and (level_segs) with its per-level segment pairs. */
static void emit_per_level_leaders(gen *G, const char *levels, int k, const tb_alg_id *base, int level_segs,
                                   int feeds, int chains, int leaders)
{
    const tn_cand_grid *g = G->g;
    tb_alg_spec m2;
    tb_alg_spec_default(&m2, TB_ALG_MAGPIE2);
    snprintf(m2.levels, sizeof m2.levels, "%s", levels);
    /* spelled per slot like the grid's, one base when all are alike, so
     * that equal ones meet */
    int same = 1;
    for (int j = 0; j <= k; j++) {
        m2.base[j] = base[j];
        same &= base[j] == base[0];
    }
    m2.nbase = same ? 1 : k + 1;
    m2.feeds = feeds;
    m2.chains = chains;
    m2.leaders = leaders;
    m2.segment = 0;
    emit(G, &m2);
    tb_alg_spec ip = m2;
    ip.id = TB_ALG_INTERPIPE;
    emit_segments(G, &ip, 0);
    for (int i = 0; level_segs && i < g->nlevel_seg; i++) {
        if (g->level_seg[i][0] >= G->bytes || g->level_seg[i][1] >= g->level_seg[i][0])
            continue;
        /* the finer levels' segment sets how many pieces there are */
        if (too_many_pieces(G, g->level_seg[i][1]))
            continue;
        ip.segment = ip.level_seg[0] = g->level_seg[i][0];
        for (int j = 1; j <= k; j++)
            ip.level_seg[j] = g->level_seg[i][1];
        ip.nlevel_seg = k + 1;
        emit(G, &ip);
        ip.nlevel_seg = 0;
    }
}

/* emit_per_level_leaders with one leader per group and, from leaders_min
 * with a two-tree base among base[0..k], with one per tree. */
static void emit_per_level(gen *G, const char *levels, int k, const tb_alg_id *base, int level_segs, int feeds,
                           int chains)
{
    if (k + 1 > TB_MAX_LEVELS)
        return; /* more slots than a spec has bases */
    emit_per_level_leaders(G, levels, k, base, level_segs, feeds, chains, 1);
    int two = 0;
    for (int j = 0; j <= k; j++)
        two |= tb_alg_ntrees(base[j]) == 2;
    if (two && G->g->leaders_min > 0 && G->bytes >= G->g->leaders_min)
        emit_per_level_leaders(G, levels, k, base, level_segs, feeds, chains, 2);
}

/* Whether b is in list[0..n). */
static int listed(const tb_alg_id *list, int n, tb_alg_id b)
{
    for (int i = 0; i < n; i++)
        if (list[i] == b)
            return 1;
    return 0;
}

/* The shared-memory stage as the finest level's base (the last slot only:
 * only the finest groups can share a node's memory; where they do not, the
 * plan joins two nodes through shm and pricing drops it, price.c), under
 * a coarsest base from the coarse list or the per-level grid (binomial/shm
 * is the classic SMP-aware broadcast) and, with two levels or more, one
 * base of the fine list for the levels between.  Bases of two trees (dbt)
 * are left out: the library refuses shm in a two-tree plan.  Per-level
 * segments only with levels between: the finest level's segment is not
 * the ring's piece (tb_shm_piece). */
static void emit_shm_finest(gen *G, const char *levels, int k)
{
    const tn_cand_grid *g = G->g;
    tb_alg_id top[16];
    int ntop = 0;
    for (int i = 0; i < g->ncoarse + g->nbase; i++) {
        tb_alg_id b = i < g->ncoarse ? g->coarse[i] : g->base[i - g->ncoarse];
        if (b != TB_ALG_SHM && tb_alg_ntrees(b) == 1 && !listed(top, ntop, b))
            top[ntop++] = b;
    }
    for (int a = 0; a < ntop && !G->failed; a++)
        for (int b = 0; b < (k > 1 ? g->nfine : 1) && !G->failed; b++) {
            if (k > 1 && (g->fine[b] == TB_ALG_SHM || tb_alg_ntrees(g->fine[b]) != 1))
                continue;
            tb_alg_id base[TB_MAX_LEVELS + 1];
            base[0] = top[a];
            for (int j = 1; j < k; j++)
                base[j] = g->fine[b];
            base[k] = TB_ALG_SHM;
            emit_per_level(G, levels, k, base, k > 1, 1, 1);
        }
}

/* feeds=F: the finest groups entered by F ranks each, from their siblings
 * (plan_hierarchical.c), so that fewer copies go through each host's
 * memory -- what the lower bound counts (topology/README.md).  One base
 * for the levels above the ranks, one inside the finest groups; a chain
 * above also as F chains, one per rail of the finest groups. */
static void emit_fed(gen *G, const char *levels, int k)
{
    const tn_cand_grid *g = G->g;
    if (G->bytes < g->feeds_min)
        return;
    for (int f = 0; f < g->nfeeds && !G->failed; f++)
        for (int a = 0; a < g->nfed_top && !G->failed; a++)
            for (int b = 0; b < g->nfed_leaf && !G->failed; b++) {
                tb_alg_id base[TB_MAX_LEVELS + 1];
                for (int j = 0; j < k; j++)
                    base[j] = g->fed_top[a];
                base[k] = g->fed_leaf[b];
                emit_per_level(G, levels, k, base, 0, g->feeds[f], 1);
                if (g->fed_top[a] == TB_ALG_CHAIN)
                    emit_per_level(G, levels, k, base, 0, g->feeds[f], g->feeds[f]);
            }
}

static void emit_hierarchical(gen *G, const tb_hier *h)
{
    const tn_cand_grid *g = G->g;
    /* at most TB_MAX_LEVELS levels are usable; masks beyond 16 levels are
     * never generated (a hierarchy that deep is not a tuning target) */
    int nl = h->nlevels < 16 ? h->nlevels : 16;
    for (unsigned mask = 1; mask < (1u << nl); mask++) {
        int k = popcount(mask);
        if (k > TB_MAX_LEVELS)
            continue;
        tb_alg_spec s;
        tb_alg_spec_default(&s, TB_ALG_MAGPIE);
        levels_text(h, mask, s.levels, sizeof s.levels);
        emit_segments(G, &s, 1);

        /* one fan-out per used level plus the leaf level; a spec holds at
         * most TB_MAX_LEVELS bases, so with every level used only the
         * short spelling (one base for all) is written */
        int slots = k + 1 <= TB_MAX_LEVELS ? k + 1 : 1;
        long combos = 1;
        for (int i = 0; i < slots; i++)
            combos *= g->nbase;
        for (long c = 0; c < combos && !G->failed; c++) {
            tb_alg_spec m2;
            tb_alg_spec_default(&m2, TB_ALG_MAGPIE2);
            memcpy(m2.levels, s.levels, sizeof m2.levels);
            long x = c;
            int same = 1;
            m2.nbase = slots;
            for (int i = 0; i < slots; i++, x /= g->nbase) {
                m2.base[i] = g->base[x % g->nbase];
                same &= m2.base[i] == m2.base[0];
            }
            if (same)
                m2.nbase = 1; /* one base for every level: the short spelling */
            m2.segment = 0;
            emit(G, &m2);
            tb_alg_spec ip = m2;
            ip.id = TB_ALG_INTERPIPE;
            emit_segments(G, &ip, 0);
        }
        /* a coarsest-level base over one base for the finer levels */
        for (int a = 0; a < g->ncoarse && !G->failed; a++)
            for (int b = 0; b < g->nfine && !G->failed; b++) {
                tb_alg_id base[TB_MAX_LEVELS + 1];
                base[0] = g->coarse[a];
                for (int j = 1; j <= k; j++)
                    base[j] = g->fine[b];
                emit_per_level(G, s.levels, k, base, 1, 1, 1);
            }
        emit_fed(G, s.levels, k);
        if (g->shm)
            emit_shm_finest(G, s.levels, k);
    }
}

int tn_cand_generate(const tn_cand_grid *g, const tb_hier *h, int comm_size, size_t bytes, tn_cand_list *out)
{
    gen G = {out, {NULL, 0, 0}, g, bytes, 0, 0};
    for (int i = 0; i < out->n; i++)
        if (hset_add(&G.seen, tb_alg_spec_hash(&out->v[i].spec)) < 0)
            G.failed = 1;
    const int has_levels = h && h->nlevels > 0;
    tb_alg_spec s;

    tb_alg_spec_default(&s, TB_ALG_DEFAULT);
    emit(&G, &s);

    const tb_alg_id trees[] = {TB_ALG_FLAT, TB_ALG_BINARY, TB_ALG_SPLIT_BINARY, TB_ALG_BINOMIAL,
                               TB_ALG_DBT, TB_ALG_BINE, TB_ALG_CIRCULANT};
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        tb_alg_spec_default(&s, trees[i]);
        emit_segments(&G, &s, 1);
    }
    if (g->shm) { /* no segment, no send mode: the ring's pieces, copies (tree_shm.c) */
        tb_alg_spec_default(&s, TB_ALG_SHM);
        emit(&G, &s);
    }
    for (int i = 0; i < g->nradix; i++) {
        if (g->radix[i] < 3)
            continue; /* radix 2 is the binomial tree */
        tb_alg_spec_default(&s, TB_ALG_KNOMIAL);
        s.radix = g->radix[i];
        emit_segments(&G, &s, 1);
    }
    for (int i = 0; i < g->nchains; i++) {
        int c = g->chains[i];
        /* chains >= ranks - 1 is the flat tree */
        if (c < 1 || (c > 1 && c >= comm_size - 1))
            continue;
        tb_alg_spec_default(&s, TB_ALG_CHAIN);
        s.chains = c;
        s.segment = 0;
        emit(&G, &s);
        tb_alg_spec_default(&s, TB_ALG_PIPELINE);
        s.chains = c;
        emit_segments(&G, &s, 0);
    }
    for (int ag = 0; ag < 2; ag++)
        for (int ring = 0; ring < (has_levels ? 2 : 1); ring++) {
            tb_alg_spec_default(&s, TB_ALG_SCATTER_ALLGATHER);
            s.allgather = ag ? TB_AG_RECURSIVE_DOUBLING : TB_AG_RING;
            s.ring = ring ? TB_RING_DISTANCE : TB_RING_RANK;
            emit(&G, &s);
        }
    if (has_levels) {
        tb_alg_spec_default(&s, TB_ALG_DISTANCE_TREE);
        emit_segments(&G, &s, 1);
    }
    if (has_levels)
        emit_hierarchical(&G, h);
    free(G.seen.h);
    return G.failed ? -1 : G.added;
}

int tn_cand_add_text(tn_cand_list *l, const char *text)
{
    tb_alg_spec s;
    char err[256];
    if (tb_alg_spec_parse(text, &s, err, sizeof err) != 0)
        return -1;
    for (int i = 0; i < l->n; i++)
        if (tb_alg_spec_equal(&l->v[i].spec, &s))
            return 0;
    return list_push(l, &s) == 0 ? 1 : -1;
}
