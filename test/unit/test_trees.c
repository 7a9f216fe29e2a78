/* Base tree builders: structural invariants for every size and root, the
 * shapes promised by their definitions, hand-written trees for small sizes,
 * and building on a subset of ranks as hierarchical algorithms do. */
#include "plan/alg_desc.h"
#include "tap.h"
#include "tree_text.h"

#include <stdlib.h>
#include <string.h>

static tb_alg_spec spec_of(tb_alg_id id, int chains, int radix)
{
    tb_alg_spec s;
    memset(&s, 0, sizeof s);
    s.id = id;
    s.chains = chains;
    s.radix = radix;
    return s;
}

/* Whole-communicator tree over ranks 0..k-1 with one block. */
static int build(tb_tree *t, tb_tree_builder b, int k, int root, const tb_alg_spec *spec)
{
    int *members = malloc(sizeof(int) * (size_t)k);
    for (int i = 0; i < k; i++)
        members[i] = i;
    int rc = tb_tree_init(t, k, root, 1);
    if (rc == 0)
        rc = b(t, members, k, root, spec, 0, 1);
    if (rc == 0)
        rc = tb_tree_finalize(t);
    free(members);
    return rc;
}

static int floor_log(long k, long r)
{
    int d = 0;
    for (long p = r; p <= k; p *= r)
        d++;
    return d;
}

static int ceil_log(long k, long r)
{
    int d = 0;
    for (long p = 1; p < k; p *= r)
        d++;
    return d;
}

/* Depth of a k-nomial tree: the most non-zero base-r digits any v < k has.
 * With D = ceil(log_r k) digits, that is D iff 11...1 (D ones) <= k-1. */
static int knomial_depth(int k, int r)
{
    int D = ceil_log(k, r);
    long ones = 0;
    for (int i = 0; i < D; i++)
        ones = ones * r + 1;
    return k - 1 >= ones ? D : D - 1;
}

/* v with its lowest non-zero base-r digit cleared (binomial: v & (v-1)). */
static int knomial_parent(int v, int r)
{
    int p = 1;
    while ((v / p) % r == 0)
        p *= r;
    return v - ((v / p) % r) * p;
}

/* Send order of every node in the root-0 (virtual) tree: child offsets
 * c - v are single-digit base-r numbers i*r^j, sent with j descending
 * (nominal subtree r^j, largest first) and i ascending for equal j.  Actual
 * sizes can be smaller than nominal when k cuts the top level short, as in
 * MPICH's binomial tree; the round count checks that this costs nothing. */
static int nominal_largest_first(const tb_tree *t, int r)
{
    for (int v = 0; v < t->size; v++) {
        const int *c = tb_tree_children(t, v);
        long prev_w = -1, prev_i = 0;
        for (int n = 0; n < tb_tree_nchildren(t, v); n++) {
            long d = c[n] - v, w = 1;
            if (d <= 0)
                return 0;
            while (d % (w * r) == 0)
                w *= r;
            long i = d / w;
            if (i >= r)
                return 0; /* more than one non-zero digit */
            if (prev_w >= 0 && (w > prev_w || (w == prev_w && i <= prev_i)))
                return 0;
            prev_w = w;
            prev_i = i;
        }
    }
    return 1;
}

typedef struct config {
    const char *name;
    tb_alg_id id;
    int chains, radix;
} config;

/* What the definition says, for size k (root-independent). */
typedef struct expect {
    int depth, max_fanout, root_fanout, rounds; /* rounds -1: not checked exactly */
    int round_bound;
} expect;

static expect expected(const config *c, int k)
{
    expect e = {0, 0, 0, -1, 1 << 30};
    if (k == 1)
        return (expect){0, 0, 0, 0, 0};
    switch (c->id) {
    case TB_ALG_FLAT:
        e.depth = 1;
        e.max_fanout = e.root_fanout = e.rounds = k - 1;
        break;
    case TB_ALG_CHAIN:
    case TB_ALG_PIPELINE: {
        int ch = c->chains < 1 ? 1 : c->chains > k - 1 ? k - 1 : c->chains;
        e.depth = (k - 1 + ch - 1) / ch;
        e.max_fanout = e.root_fanout = ch;
        /* chain j (0-based) starts at round j+1 and the longer chains come
         * first, so the last of the shortest chains finishes last */
        e.rounds = (k - 1) / ch + ch - 1;
        break;
    }
    case TB_ALG_BINARY:
        e.depth = floor_log(k, 2);
        e.max_fanout = e.root_fanout = k - 1 < 2 ? k - 1 : 2;
        break;
    case TB_ALG_BINOMIAL:
        e.depth = floor_log(k, 2);
        e.max_fanout = e.root_fanout = e.rounds = ceil_log(k, 2);
        break;
    case TB_ALG_KNOMIAL: {
        int r = c->radix;
        e.depth = knomial_depth(k, r);
        for (int v = 1; v < k; v++)
            e.root_fanout += knomial_parent(v, r) == 0;
        e.max_fanout = e.root_fanout;
        e.round_bound = (r - 1) * ceil_log(k, r);
        if (r == 2)
            e.rounds = ceil_log(k, 2);
        break;
    }
    default: break;
    }
    return e;
}

static void check_config(const config *c)
{
    static const int extra_sizes[] = {100, 257};
    tb_alg_spec spec = spec_of(c->id, c->chains, c->radix);
    tb_tree_builder b = tb_tree_builder_for(c->id);
    TAP_OK(b != NULL, "%s: tb_tree_builder_for gives a builder", c->name);
    if (!b)
        return;
    for (int si = 0; si < 64 + 2; si++) {
        int k = si < 64 ? si + 1 : extra_sizes[si - 64];
        expect e = expected(c, k);
        char why[256] = "";
        tb_tree t0; /* root 0: reference shape for the rotation check */
        if (build(&t0, b, k, 0, &spec) != 0) {
            TAP_OK(0, "%s k=%d: builds", c->name, k);
            tb_tree_free(&t0);
            continue;
        }
        for (int root = 0; root < k && !why[0]; root++) {
            tb_tree t;
            char err[200];
            if (build(&t, b, k, root, &spec) != 0)
                snprintf(why, sizeof why, "root %d: builder failed", root);
            else if (tb_tree_check(&t, err, sizeof err) != 0)
                snprintf(why, sizeof why, "root %d: %s", root, err);
            else if (tb_tree_depth(&t) != e.depth)
                snprintf(why, sizeof why, "root %d: depth %d, want %d", root, tb_tree_depth(&t), e.depth);
            else if (tb_tree_max_fanout(&t) != e.max_fanout)
                snprintf(why, sizeof why, "root %d: max fanout %d, want %d", root, tb_tree_max_fanout(&t),
                         e.max_fanout);
            else if (tb_tree_nchildren(&t, root) != e.root_fanout)
                snprintf(why, sizeof why, "root %d: root fanout %d, want %d", root, tb_tree_nchildren(&t, root),
                         e.root_fanout);
            else if (e.rounds >= 0 && tree_rounds(&t, root, 0) != e.rounds)
                snprintf(why, sizeof why, "root %d: %d rounds, want %d", root, tree_rounds(&t, root, 0), e.rounds);
            else if (tree_rounds(&t, root, 0) > e.round_bound)
                snprintf(why, sizeof why, "root %d: %d rounds > bound %d", root, tree_rounds(&t, root, 0),
                         e.round_bound);
            else {
                for (int v = 1; v < k && !why[0]; v++) {
                    int r = (root + v) % k, pv = t0.parent[v];
                    if (t.parent[r] != (root + pv) % k)
                        snprintf(why, sizeof why, "root %d: rank %d has parent %d, rotation of root-0 tree says %d",
                                 root, r, t.parent[r], (root + pv) % k);
                    else if (t.blk_lo[r] != 0 || t.blk_hi[r] != 1)
                        snprintf(why, sizeof why, "root %d: rank %d gets blocks [%d,%d)", root, r, t.blk_lo[r],
                                 t.blk_hi[r]);
                }
                /* same send order too */
                for (int v = 0; v < k && !why[0]; v++) {
                    int r = (root + v) % k;
                    for (int i = 0; i < tb_tree_nchildren(&t0, v); i++)
                        if (tb_tree_children(&t, r)[i] != (root + tb_tree_children(&t0, v)[i]) % k) {
                            snprintf(why, sizeof why, "root %d: send order of rank %d is not the rotated one", root,
                                     r);
                            break;
                        }
                }
            }
            tb_tree_free(&t);
        }
        /* definitions in terms of the parent function (root 0 = virtual) */
        if (!why[0] && (c->id == TB_ALG_BINOMIAL || c->id == TB_ALG_KNOMIAL)) {
            int r = c->id == TB_ALG_BINOMIAL ? 2 : c->radix;
            for (int v = 1; v < k && !why[0]; v++)
                if (t0.parent[v] != knomial_parent(v, r))
                    snprintf(why, sizeof why, "parent of %d is %d, want %d", v, t0.parent[v], knomial_parent(v, r));
            if (!why[0] && !nominal_largest_first(&t0, r))
                snprintf(why, sizeof why, "some node does not send to its largest (nominal) subtree first");
        }
        if (!why[0] && c->id == TB_ALG_BINARY)
            for (int v = 1; v < k && !why[0]; v++)
                if (t0.parent[v] != (v - 1) / 2)
                    snprintf(why, sizeof why, "parent of %d is %d, want %d", v, t0.parent[v], (v - 1) / 2);
        tb_tree_free(&t0);
        TAP_OK(!why[0], "%s k=%d, every root: valid, depth %d, fanout %d, rotation of root 0", c->name, k, e.depth,
               e.max_fanout);
        if (why[0])
            printf("#   %s\n", why);
    }
}

/* Builds with root `root` and compares the parent array and each rank's
 * children list (in send order) with hand-written ones; children lists are
 * given as a flat array: for rank r, count then the children. */
static void check_exact(const char *what, tb_alg_id id, int chains, int radix, int k, int root, const int *parent,
                        const int *kids)
{
    tb_alg_spec spec = spec_of(id, chains, radix);
    tb_tree t;
    int ok = build(&t, tb_tree_builder_for(id), k, root, &spec) == 0;
    for (int r = 0; ok && r < k; r++)
        ok = t.parent[r] == parent[r];
    TAP_OK(ok, "%s: parent array", what);
    ok = t.children != NULL;
    const int *q = kids;
    for (int r = 0; ok && r < k; r++) {
        int n = *q++;
        ok = tb_tree_nchildren(&t, r) == n;
        for (int i = 0; ok && i < n; i++)
            ok = tb_tree_children(&t, r)[i] == *q++;
    }
    TAP_OK(ok, "%s: children in send order", what);
    tb_tree_free(&t);
}

static void exact_trees(void)
{
    /* binomial k=6 root 0: 0 -> 4,2,1; 2 -> 3; 4 -> 5 */
    static const int bn6p[] = {-1, 0, 0, 2, 0, 4};
    static const int bn6k[] = {3, 4, 2, 1, 0, 1, 3, 0, 1, 5, 0};
    check_exact("binomial k=6 root 0", TB_ALG_BINOMIAL, 0, 0, 6, 0, bn6p, bn6k);
    /* root 2: virtual v is rank (v+2)%6, so 2 -> 0,4,3; 4 -> 5; 0 -> 1 */
    static const int bn6r2p[] = {2, 0, -1, 2, 2, 4};
    static const int bn6r2k[] = {1, 1, 0, 3, 0, 4, 3, 0, 1, 5, 0};
    check_exact("binomial k=6 root 2", TB_ALG_BINOMIAL, 0, 0, 6, 2, bn6r2p, bn6r2k);
    /* binomial k=8 root 5: virtual 4,2,1 -> ranks 1,7,6; v2(7)->v3(0); v4(1)->v6(3),v5(2); v6(3)->v7(4) */
    static const int bn8p[] = {7, 5, 1, 1, 3, -1, 5, 5};
    static const int bn8k[] = {0, 2, 3, 2, 0, 1, 4, 0, 3, 1, 7, 6, 0, 1, 0};
    check_exact("binomial k=8 root 5", TB_ALG_BINOMIAL, 0, 0, 8, 5, bn8p, bn8k);
    static const int bi7p[] = {-1, 0, 0, 1, 1, 2, 2};
    static const int bi7k[] = {2, 1, 2, 2, 3, 4, 2, 5, 6, 0, 0, 0, 0};
    check_exact("binary k=7 root 0", TB_ALG_BINARY, 0, 0, 7, 0, bi7p, bi7k);
    /* binary k=6 root 4: virtual v -> (v+4)%6: 4 -> 5,0; 5 -> 1,2; 0 -> 3 */
    static const int bi6p[] = {4, 5, 5, 0, -1, 4};
    static const int bi6k[] = {1, 3, 0, 0, 0, 2, 5, 0, 2, 1, 2};
    check_exact("binary k=6 root 4", TB_ALG_BINARY, 0, 0, 6, 4, bi6p, bi6k);
    /* knomial r=3 k=9: 0 -> 3,6,1,2; 3 -> 4,5; 6 -> 7,8 */
    static const int kn9p[] = {-1, 0, 0, 0, 3, 3, 0, 6, 6};
    static const int kn9k[] = {4, 3, 6, 1, 2, 0, 0, 2, 4, 5, 0, 0, 2, 7, 8, 0, 0};
    check_exact("knomial r=3 k=9 root 0", TB_ALG_KNOMIAL, 0, 3, 9, 0, kn9p, kn9k);
    /* knomial r=3 k=11: 0 -> 9,3,6,1,2; 3 -> 4,5; 6 -> 7,8; 9 -> 10 (10 = 101_3:
     * clearing the lowest digit gives 9) */
    static const int kn11p[] = {-1, 0, 0, 0, 3, 3, 0, 6, 6, 0, 9};
    static const int kn11k[] = {5, 9, 3, 6, 1, 2, 0, 0, 2, 4, 5, 0, 0, 2, 7, 8, 0, 0, 1, 10, 0};
    check_exact("knomial r=3 k=11 root 0", TB_ALG_KNOMIAL, 0, 3, 11, 0, kn11p, kn11k);
    /* chain k=7, 2 chains: 0 -> 1,4; 1->2->3; 4->5->6 */
    static const int ch7p[] = {-1, 0, 1, 2, 0, 4, 5};
    static const int ch7k[] = {2, 1, 4, 1, 2, 1, 3, 0, 1, 5, 1, 6, 0};
    check_exact("chain k=7 chains=2 root 0", TB_ALG_CHAIN, 2, 0, 7, 0, ch7p, ch7k);
    /* chain k=7, 4 chains: runs {1,2},{3,4},{5},{6} */
    static const int ch74p[] = {-1, 0, 1, 0, 3, 0, 0};
    static const int ch74k[] = {4, 1, 3, 5, 6, 1, 2, 0, 1, 4, 0, 0, 0};
    check_exact("chain k=7 chains=4 root 0", TB_ALG_CHAIN, 4, 0, 7, 0, ch74p, ch74k);
    /* chain k=5 chains=1 root 3: 3->4->0->1->2 */
    static const int ch5p[] = {4, 0, 1, -1, 3};
    static const int ch5k[] = {1, 1, 1, 2, 0, 1, 4, 1, 0};
    check_exact("chain k=5 chains=1 root 3", TB_ALG_CHAIN, 1, 0, 5, 3, ch5p, ch5k);
    static const int fl4p[] = {1, -1, 1, 1};
    static const int fl4k[] = {0, 3, 2, 3, 0, 0, 0};
    check_exact("flat k=4 root 1", TB_ALG_FLAT, 0, 0, 4, 1, fl4p, fl4k);
}

static void knomial_radix_edges(void)
{
    /* an unset radix (composed specs) falls back to the documented 4 */
    tb_alg_spec s0 = spec_of(TB_ALG_KNOMIAL, 0, 0), s4 = spec_of(TB_ALG_KNOMIAL, 0, 4);
    tb_tree a, b;
    build(&a, tb_tree_knomial_build, 23, 0, &s0);
    build(&b, tb_tree_knomial_build, 23, 0, &s4);
    TAP_OK(same_tree(&a, &b), "knomial: radix 0 builds the radix-4 tree");
    tb_tree_free(&a);
    tb_tree_free(&b);
    /* radix >= k is a flat tree */
    tb_alg_spec big = spec_of(TB_ALG_KNOMIAL, 0, 1 << 30);
    build(&a, tb_tree_knomial_build, 9, 3, &big);
    build(&b, tb_tree_flat_build, 9, 3, NULL);
    TAP_OK(same_tree(&a, &b), "knomial: huge radix builds the flat tree");
    tb_tree_free(&a);
    tb_tree_free(&b);
    /* radix 2 is the binomial tree */
    int same = 1;
    tb_alg_spec s2 = spec_of(TB_ALG_KNOMIAL, 0, 2);
    for (int k = 1; k <= 40 && same; k++) {
        build(&a, tb_tree_knomial_build, k, k / 3, &s2);
        build(&b, tb_tree_binomial_build, k, k / 3, NULL);
        same = same_tree(&a, &b);
        tb_tree_free(&a);
        tb_tree_free(&b);
    }
    TAP_OK(same, "knomial: radix 2 builds the binomial tree (k=1..40)");
}

static void subsets(void)
{
    /* hierarchical use: binomial among {5,2,9,0} rooted at 5 inside a
     * 10-rank tree; virtual 0..3 = 5,2,9,0 so 5 -> 9,2 and 9 -> 0 */
    static const int m1[] = {5, 2, 9, 0};
    tb_tree t;
    tb_tree_init(&t, 10, 5, 1);
    int rc = tb_tree_binomial_build(&t, m1, 4, 0, NULL, 0, 1);
    int others_free = 1;
    for (int r = 0; r < 10; r++)
        if (r != 5 && r != 2 && r != 9 && r != 0)
            others_free &= t.parent[r] == -1;
    TAP_OK(rc == 0 && t.nedges == 3 && t.parent[9] == 5 && t.parent[2] == 5 && t.parent[0] == 9 && others_free,
           "subset binomial {5,2,9,0}: edges only among members, right parents");
    /* the rest of the ranks hang off 9 (a flat lower level) */
    static const int m2[] = {9, 1, 3, 4, 6, 7, 8};
    rc = tb_tree_flat_build(&t, m2, 7, 0, NULL, 0, 1);
    rc |= tb_tree_finalize(&t);
    char err[200] = "";
    rc |= tb_tree_check(&t, err, sizeof err);
    static const int kids9[] = {0, 1, 3, 4, 6, 7, 8};
    int ok = rc == 0 && tb_tree_nchildren(&t, 9) == 7 && tb_tree_nchildren(&t, 5) == 2 &&
             tb_tree_children(&t, 5)[0] == 9 && tb_tree_children(&t, 5)[1] == 2;
    for (int i = 0; ok && i < 7; i++)
        ok = tb_tree_children(&t, 9)[i] == kids9[i];
    TAP_OK(ok, "two-level composition {5,2,9,0} + flat under 9 is a valid tree %s", err);
    tb_tree_free(&t);

    /* same members rotated: root_index picks the root, virtual order follows */
    static const int m1r[] = {2, 9, 0, 5};
    tb_tree_init(&t, 10, 5, 1);
    rc = tb_tree_binomial_build(&t, m1r, 4, 3, NULL, 0, 1);
    TAP_OK(rc == 0 && t.parent[9] == 5 && t.parent[2] == 5 && t.parent[0] == 9 && tb_tree_finalize(&t) == 0 &&
               tb_tree_children(&t, 5)[0] == 9,
           "subset binomial {2,9,0,5} root_index 3: same virtual order 5,2,9,0, same tree");
    tb_tree_free(&t);

    /* chain among {7,3,1,8,6} rooted at 1 with 2 chains, carrying blocks [1,3) of 4:
     * virtual order 1,8,6,7,3 -> runs {8,6} and {7,3} */
    static const int m3[] = {7, 3, 1, 8, 6};
    tb_alg_spec two = spec_of(TB_ALG_CHAIN, 2, 0);
    tb_tree_init(&t, 9, 1, 4);
    rc = tb_tree_chain_build(&t, m3, 5, 2, &two, 1, 3);
    ok = rc == 0 && t.nedges == 4 && t.parent[8] == 1 && t.parent[6] == 8 && t.parent[7] == 1 && t.parent[3] == 7;
    for (int i = 0; ok && i < 5; i++)
        if (m3[i] != 1)
            ok = t.blk_lo[m3[i]] == 1 && t.blk_hi[m3[i]] == 3;
    TAP_OK(ok, "subset chain {7,3,1,8,6} root_index 2: runs 8->6 and 7->3, blocks [1,3) on every edge");
    tb_tree_free(&t);

    /* every builder on a scattered subset of a 40-rank tree, every root */
    static const tb_alg_id ids[] = {TB_ALG_FLAT, TB_ALG_CHAIN, TB_ALG_BINARY, TB_ALG_BINOMIAL, TB_ALG_KNOMIAL};
    for (size_t a = 0; a < sizeof ids / sizeof ids[0]; a++) {
        tb_alg_spec s = spec_of(ids[a], 3, 3);
        int members[13];
        for (int i = 0; i < 13; i++)
            members[i] = (i * 17 + 5) % 40; /* 13 distinct ranks in scrambled order */
        int good = 1;
        for (int ri = 0; ri < 13 && good; ri++) {
            tb_tree_init(&t, 40, members[ri], 1);
            good = tb_tree_builder_for(ids[a])(&t, members, 13, ri, &s, 0, 1) == 0 && t.nedges == 12;
            for (int r = 0; good && r < 40; r++) {
                int in = 0;
                for (int i = 0; i < 13; i++)
                    in |= members[i] == r;
                int attached = t.parent[r] != -1 || r == members[ri];
                good = in == attached && (t.parent[r] == -1 || t.parent[r] != r);
                /* parents are members too */
                if (good && t.parent[r] != -1) {
                    int pin = 0;
                    for (int i = 0; i < 13; i++)
                        pin |= members[i] == t.parent[r];
                    good = pin;
                }
            }
            tb_tree_free(&t);
        }
        TAP_OK(good, "%s on 13 of 40 ranks, every root: exactly the members attached, 12 edges",
               tb_alg_name(ids[a]));
    }
}

static void bad_arguments(void)
{
    static const int m[] = {0, 1, 2};
    static const tb_alg_id ids[] = {TB_ALG_FLAT, TB_ALG_CHAIN, TB_ALG_BINARY, TB_ALG_BINOMIAL, TB_ALG_KNOMIAL,
                                    TB_ALG_BINE, TB_ALG_DBT, TB_ALG_SHM};
    for (size_t a = 0; a < sizeof ids / sizeof ids[0]; a++) {
        tb_tree t;
        tb_tree_init(&t, 3, 0, 1);
        tb_tree_builder b = tb_tree_builder_for(ids[a]);
        int r1 = b(&t, m, 3, 3, NULL, 0, 1), r2 = b(&t, m, 0, 0, NULL, 0, 1), r3 = b(&t, m, 3, -1, NULL, 0, 1);
        int none = t.nedges == 0;
        /* a member that already has a parent makes the builder fail */
        int r4 = b(&t, m, 3, 0, NULL, 0, 1);
        int r5 = b(&t, m, 3, 0, NULL, 0, 1);
        TAP_OK(r1 == -1 && r2 == -1 && r3 == -1 && none && r4 == 0 && r5 == -1,
               "%s: bad root_index / k rejected, re-attaching a member fails", tb_alg_name(ids[a]));
        tb_tree_free(&t);
    }
    TAP_OK(tb_tree_builder_for(TB_ALG_SCATTER_ALLGATHER) == NULL && tb_tree_builder_for(TB_ALG_DEFAULT) == NULL,
           "no base builder for scatter_allgather / default");
}

/* Tree `which` (0/1) of a builder over ranks 0..k-1 with ntrees blocks. */
static int build_k(tb_tree *t, tb_tree_builder b, int k, int root, int which, int ntrees)
{
    tb_alg_spec spec = spec_of(TB_ALG_DEFAULT, 0, 0);
    spec.tree_index = which;
    int *members = malloc(sizeof(int) * (size_t)k);
    for (int i = 0; i < k; i++)
        members[i] = i;
    int rc = tb_tree_init(t, k, root, ntrees);
    if (rc == 0)
        rc = b(t, members, k, root, &spec, which, which + 1);
    if (rc == 0)
        rc = tb_tree_finalize(t);
    free(members);
    return rc;
}

/* Bine: valid for every k 1..64 and root, the rotation of the root-0 tree,
 * ceil(log2 k) rounds at a power of two and at most one more elsewhere,
 * every child of a power-of-two tree a negabinary distance away; dbt: both
 * trees valid, each carrying its half, no rank inner in both, depth at most
 * floor(log2(k-1)) + 1, the root sending once per tree. */
static void new_bases(void)
{
    for (int k = 1; k <= 64; k++) {
        char why[256] = "";
        int lg = ceil_log(k, 2);
        for (int root = 0; root < k && !why[0]; root++) {
            tb_tree t, t0;
            char err[200];
            if (build_k(&t, tb_tree_bine_build, k, root, 0, 1) != 0 || build_k(&t0, tb_tree_bine_build, k, 0, 0, 1) != 0)
                snprintf(why, sizeof why, "bine root %d: builder failed", root);
            else if (tb_tree_check(&t, err, sizeof err) != 0)
                snprintf(why, sizeof why, "bine root %d: %s", root, err);
            else if (tree_rounds(&t, root, 0) > lg + ((k & (k - 1)) != 0) ||
                     ((k & (k - 1)) == 0 && tree_rounds(&t, root, 0) != lg))
                snprintf(why, sizeof why, "bine root %d: %d rounds for ceil(log2 k) = %d", root, tree_rounds(&t, root, 0),
                         lg);
            for (int v = 1; v < k && !why[0]; v++) {
                if (t.parent[(root + v) % k] != (root + t0.parent[v]) % k)
                    snprintf(why, sizeof why, "bine root %d: not the rotation of root 0's tree", root);
                int d = v - t0.parent[v], ok = (k & (k - 1)) != 0;
                d = d < 0 ? -d : d;
                for (int j = 1, e = 1, f = 1; !ok && e <= k; j++) { /* e runs 1, 1, 3, 5, 11, ... */
                    ok = d == e || d == k - e;
                    int g = f + 2 * e;
                    e = f, f = g;
                    (void)j;
                }
                if (!ok && !why[0])
                    snprintf(why, sizeof why, "bine k=%d: edge %d -> %d is no negabinary distance", k, t0.parent[v], v);
            }
            tb_tree_free(&t);
            tb_tree_free(&t0);
            tb_tree a, b;
            if (build_k(&a, tb_tree_dbt_build, k, root, 0, 2) != 0 || build_k(&b, tb_tree_dbt_build, k, root, 1, 2) != 0) {
                snprintf(why, sizeof why, "dbt root %d: builder failed", root);
            } else if (tb_tree_check(&a, err, sizeof err) != 0 || tb_tree_check(&b, err, sizeof err) != 0) {
                snprintf(why, sizeof why, "dbt root %d: %s", root, err);
            } else if (k > 1 && (tb_tree_nchildren(&a, root) != 1 || tb_tree_nchildren(&b, root) != 1)) {
                snprintf(why, sizeof why, "dbt root %d: sends %d and %d times", root, tb_tree_nchildren(&a, root),
                         tb_tree_nchildren(&b, root));
            } else if (k > 1 && (tb_tree_depth(&a) > floor_log(k - 1, 2) + 1 || tb_tree_depth(&b) > floor_log(k - 1, 2) + 1)) {
                snprintf(why, sizeof why, "dbt root %d: depths %d, %d", root, tb_tree_depth(&a), tb_tree_depth(&b));
            } else {
                for (int r = 0; r < k && !why[0]; r++) {
                    if (r != root && (a.blk_lo[r] != 0 || a.blk_hi[r] != 1 || b.blk_lo[r] != 1 || b.blk_hi[r] != 2))
                        snprintf(why, sizeof why, "dbt root %d: rank %d's halves", root, r);
                    if (r != root && tb_tree_nchildren(&a, r) > 0 && tb_tree_nchildren(&b, r) > 0)
                        snprintf(why, sizeof why, "dbt root %d: rank %d is inner in both trees", root, r);
                }
            }
            tb_tree_free(&a);
            tb_tree_free(&b);
        }
        TAP_OK(!why[0], "bine and dbt k=%d, every root: valid, rounds, distances, halves, inner in one tree only", k);
        if (why[0])
            printf("#   %s\n", why);
    }
}

/* The example in each tree builder's header comment is the tree it builds. */
static void builder_examples(void)
{
    check_plan_example("libtopobcast/src/plan/tree_flat.c", "flat", 6, 2, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_chain.c", "chain:chains=2", 8, 0, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_binary.c", "binary", 8, 0, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_binomial.c", "binomial", 8, 0, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_knomial.c", "knomial:radix=3", 9, 0, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_bine.c", "bine", 8, 0, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_dbt.c", "dbt", 8, 0, NULL, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/tree_shm.c", "shm", 5, 1, NULL, EXAMPLE_TREE);
}

int main(void)
{
    static const config configs[] = {
        {"flat", TB_ALG_FLAT, 0, 0},
        {"chain", TB_ALG_CHAIN, 1, 0},
        {"chain:chains=2", TB_ALG_CHAIN, 2, 0},
        {"chain:chains=3", TB_ALG_CHAIN, 3, 0},
        {"chain:chains=7", TB_ALG_CHAIN, 7, 0},
        {"chain:chains=0 (as 1)", TB_ALG_CHAIN, 0, 0},
        {"pipeline", TB_ALG_PIPELINE, 1, 0},
        {"binary", TB_ALG_BINARY, 0, 0},
        {"binomial", TB_ALG_BINOMIAL, 0, 0},
        {"knomial:radix=2", TB_ALG_KNOMIAL, 0, 2},
        {"knomial:radix=3", TB_ALG_KNOMIAL, 0, 3},
        {"knomial:radix=4", TB_ALG_KNOMIAL, 0, 4},
        {"knomial:radix=8", TB_ALG_KNOMIAL, 0, 8},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        check_config(&configs[i]);
    new_bases();
    exact_trees();
    knomial_radix_edges();
    subsets();
    bad_arguments();
    builder_examples();
    TAP_DONE();
}
