/* Topology-aware trees (magpie, magpie2, interpipe, distance_tree) and the
 * hierarchy helpers they stand on (normalize, distance, ring order). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithm.h"
#include "hier.h"
#include "on_valgrind.h"
#include "schedule.h"
#include "tap.h"
#include "tree_text.h"

/* ------------------------------------------------------------------ */
/* A physical layout: positions with (island, node, socket) ids.  A
 * numbering puts rank r at position pos_of[r]. */

#define NPOS 12
/* island 0: node A {0,1,2} sockets {0,1}{2}; node B {3..6} sockets {3,4}{5,6}
 * island 1: node C {7,8} sockets {7}{8};    node D {9,10,11} one socket */
static const int phys_island[NPOS] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
static const int phys_node[NPOS] = {0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3};
static const int phys_socket[NPOS] = {0, 0, 1, 2, 2, 3, 3, 4, 5, 6, 6, 6};
static const char *const level_names[3] = {"island", "node", "socket"};

static unsigned long long lcg_state = 12345;
static int lcg(int n)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((lcg_state >> 33) % (unsigned long long)n);
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = lcg(i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Island, node and socket ids of `size` consecutive positions, group
 * boundaries at random: a new island with odds 1/island_odds, else a new
 * node with odds 1/4, else a new socket with odds 1/3. */
static void random_layout(int size, int island_odds, int *isl, int *nod, int *soc)
{
    int gi = 0, gn = 0, gs = 0;
    for (int x = 0; x < size; x++) {
        if (x > 0 && lcg(island_odds) == 0)
            gi++, gn++, gs++;
        else if (x > 0 && lcg(4) == 0)
            gn++, gs++;
        else if (x > 0 && lcg(3) == 0)
            gs++;
        isl[x] = gi, nod[x] = gn, soc[x] = gs;
    }
}

/* Hierarchy for `size` ranks from per-level physical ids, ranks placed by
 * pos_of; levels[] picks which of the nl physical levels to include. */
static tb_hier make_hier(int size, int nl, const int *const *phys, const char *const *names, const int *pos_of)
{
    tb_hier h;
    if (tb_hier_alloc(&h, size, nl) != 0) {
        printf("Bail out! tb_hier_alloc\n");
        exit(1);
    }
    for (int l = 0; l < nl; l++) {
        snprintf(h.level_name[l], TB_LEVEL_NAME_MAX, "%s", names[l]);
        for (int r = 0; r < size; r++)
            h.group[l][r] = phys[l][pos_of[r]];
    }
    if (tb_hier_normalize(&h) != 0) {
        printf("Bail out! tb_hier_normalize\n");
        exit(1);
    }
    return h;
}

static tb_hier make_h1(const int *pos_of)
{
    const int *phys[3] = {phys_island, phys_node, phys_socket};
    return make_hier(NPOS, 3, phys, level_names, pos_of);
}

static tb_alg_spec spec_of(const char *text)
{
    tb_alg_spec s;
    char err[256];
    if (tb_alg_spec_parse(text, &s, err, sizeof err) != 0) {
        printf("Bail out! cannot parse %s: %s\n", text, err);
        exit(1);
    }
    return s;
}

static int build(tb_plan *p, int size, int root, const tb_alg_spec *s, const tb_hier *h, char *err, size_t errlen)
{
    err[0] = '\0';
    return tb_plan_build(p, size, root, s, h, err, errlen);
}

/* Whether specs a and b build the same plan (every tree, same_tree) for
 * size ranks from root over h; both must build. */
static int same_plan(const char *a, const char *b, int size, int root, const tb_hier *h)
{
    tb_alg_spec sa = spec_of(a), sb = spec_of(b);
    tb_plan pa, pb;
    char err[256];
    int ra = build(&pa, size, root, &sa, h, err, sizeof err);
    int rb = build(&pb, size, root, &sb, h, err, sizeof err);
    int ok = ra == 0 && rb == 0 && pa.ntrees == pb.ntrees;
    for (int k = 0; ok && k < pa.ntrees; k++)
        ok = same_tree(tb_plan_tree(&pa, k), tb_plan_tree(&pb, k));
    if (ra == 0)
        tb_plan_free(&pa);
    if (rb == 0)
        tb_plan_free(&pb);
    return ok;
}

/* Edges whose ends lie in different groups of level l. */
static int crossings(const tb_tree *t, const tb_hier *h, int l)
{
    int n = 0;
    for (int r = 0; r < t->size; r++)
        if (t->parent[r] >= 0 && h->group[l][r] != h->group[l][t->parent[r]])
            n++;
    return n;
}

/* Every parent sends over its slowest links first. */
static int slow_links_first(const tb_tree *t, const tb_hier *h)
{
    for (int r = 0; r < t->size; r++) {
        const int *c = tb_tree_children(t, r);
        for (int i = 1; i < tb_tree_nchildren(t, r); i++)
            if (tb_hier_distance(h, r, c[i]) > tb_hier_distance(h, r, c[i - 1]))
                return 0;
    }
    return 1;
}

/* Canonical text of the rooted tree below r with edges labelled by their
 * distance; equal for isomorphic trees whatever the rank numbers.  ordered:
 * children kept in send order (isomorphism that also keeps send order). */
static char *canon(const tb_tree *t, const tb_hier *h, int r, int ordered)
{
    int n = tb_tree_nchildren(t, r);
    char **sub = malloc(sizeof(char *) * (size_t)(n ? n : 1));
    size_t len = 3;
    for (int i = 0; i < n; i++) {
        int c = tb_tree_children(t, r)[i];
        char *cs = canon(t, h, c, ordered);
        sub[i] = malloc(strlen(cs) + 16);
        sprintf(sub[i], "%g%s", tb_hier_distance(h, r, c), cs);
        free(cs);
        len += strlen(sub[i]);
    }
    for (int i = 1; i < n && !ordered; i++) /* insertion sort: tiny lists */
        for (int j = i; j > 0 && strcmp(sub[j - 1], sub[j]) > 0; j--) {
            char *x = sub[j];
            sub[j] = sub[j - 1];
            sub[j - 1] = x;
        }
    char *s = malloc(len);
    strcpy(s, "(");
    for (int i = 0; i < n; i++) {
        strcat(s, sub[i]);
        free(sub[i]);
    }
    strcat(s, ")");
    free(sub);
    return s;
}

/* The paper's Algorithm 1 literally: sort all edges, Kruskal, orient. */
typedef struct ref_edge {
    double w;
    int not_root, lo, hi, a, b;
} ref_edge;

static int ref_cmp(const void *pa, const void *pb)
{
    const ref_edge *x = pa, *y = pb;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    if (x->not_root != y->not_root)
        return x->not_root - y->not_root;
    if (x->lo != y->lo)
        return x->lo - y->lo;
    return x->hi - y->hi;
}

static int uf_find(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* pos: the "MPI rank" the queue is ordered by (the canonical position). */
static void kruskal_reference(const tb_hier *h, const int *pos, int size, int root, int *parent)
{
    int ne = size * (size - 1) / 2, k = 0;
    ref_edge *e = malloc(sizeof *e * (size_t)(ne ? ne : 1));
    for (int a = 0; a < size; a++)
        for (int b = a + 1; b < size; b++) {
            int pa = pos[a], pb = pos[b];
            ref_edge x = {tb_hier_distance(h, a, b), 1, pa < pb ? pa : pb, pa < pb ? pb : pa, a, b};
            if (a == root || b == root)
                x.not_root = 0, x.lo = a == root ? pb : pa, x.hi = 0;
            e[k++] = x;
        }
    qsort(e, (size_t)ne, sizeof *e, ref_cmp);
    int *uf = malloc(sizeof(int) * (size_t)size), *adj = calloc((size_t)size * (size_t)size, sizeof(int));
    for (int r = 0; r < size; r++)
        uf[r] = r;
    for (int i = 0; i < ne; i++) {
        int x = uf_find(uf, e[i].a), y = uf_find(uf, e[i].b);
        if (x != y) {
            uf[x] = y;
            adj[e[i].a * size + e[i].b] = adj[e[i].b * size + e[i].a] = 1;
        }
    }
    /* orient by BFS from the root */
    int *queue = malloc(sizeof(int) * (size_t)size), head = 0, tail = 0;
    for (int r = 0; r < size; r++)
        parent[r] = -2;
    parent[root] = -1;
    queue[tail++] = root;
    while (head < tail) {
        int u = queue[head++];
        for (int v = 0; v < size; v++)
            if (adj[u * size + v] && parent[v] == -2) {
                parent[v] = u;
                queue[tail++] = v;
            }
    }
    free(e);
    free(uf);
    free(adj);
    free(queue);
}

/* ------------------------------------------------------------------ */

static void test_normalize(void)
{
    /* trivial levels dropped, ids renumbered by first appearance */
    tb_hier h;
    tb_hier_alloc(&h, 6, 3);
    const int world[6] = {7, 7, 7, 7, 7, 7}, node[6] = {5, 5, 2, 2, 9, 9}, core[6] = {0, 1, 2, 3, 4, 5};
    const char *names[3] = {"world", "node", "core"};
    for (int l = 0; l < 3; l++)
        snprintf(h.level_name[l], TB_LEVEL_NAME_MAX, "%s", names[l]);
    memcpy(h.group[0], world, sizeof world);
    memcpy(h.group[1], node, sizeof node);
    memcpy(h.group[2], core, sizeof core);
    /* classes: apart at world 10, at node 5, at core 2; same core 1 */
    h.dclass = malloc(sizeof(double) * 4);
    const double cls[4] = {10, 5, 2, 1};
    memcpy(h.dclass, cls, sizeof cls);
    int rc = tb_hier_normalize(&h);
    TAP_OK(rc == 0 && h.nlevels == 1 && strcmp(h.level_name[0], "node") == 0 && h.ngroups[0] == 3,
           "normalize drops the one-group and the singleton level (nlevels=%d, first=%s)", h.nlevels,
           h.nlevels ? h.level_name[0] : "-");
    int dense = h.nlevels == 1;
    const int want[6] = {0, 0, 1, 1, 2, 2};
    for (int r = 0; dense && r < 6; r++)
        dense = h.group[0][r] == want[r];
    TAP_OK(dense, "normalize renumbers {5,5,2,2,9,9} to {0,0,1,1,2,2}");
    /* the one-group level's class goes; the singleton level's class is
     * now that of two ranks in one node (they first differ at core) */
    TAP_OK(h.dclass && h.dclass[0] == 5 && h.dclass[1] == 2, "normalize keeps the classes in step: node 5, within 2 (got %g %g)",
           h.dclass ? h.dclass[0] : -1, h.dclass ? h.dclass[1] : -1);
    TAP_OK(tb_hier_distance(&h, 1, 4) == 5 && tb_hier_distance(&h, 4, 1) == 5 && tb_hier_distance(&h, 0, 1) == 2 &&
               tb_hier_distance(&h, 3, 3) == 0.0,
           "distance from classes: by the coarsest differing level, 0 to itself");
    tb_hier_drop_level(&h, 0);
    TAP_OK(h.nlevels == 0 && h.dclass[0] == 2 && tb_hier_distance(&h, 1, 4) == 2,
           "dropping a level drops its class (one class left: %g)", h.dclass[0]);
    tb_hier_free(&h);

    /* a level repeated below: dropping it keeps the other classes */
    tb_hier_alloc(&h, 4, 3);
    const int n3[4] = {0, 0, 1, 1}, s3[4] = {0, 0, 1, 1}, c3[4] = {0, 1, 2, 2};
    memcpy(h.group[0], n3, sizeof n3);
    memcpy(h.group[1], s3, sizeof s3);
    memcpy(h.group[2], c3, sizeof c3);
    h.ngroups[0] = h.ngroups[1] = 2;
    h.ngroups[2] = 3;
    h.dclass = malloc(sizeof(double) * 4);
    const double c4[4] = {9, 4, 2, 1};
    memcpy(h.dclass, c4, sizeof c4);
    tb_hier_drop_level(&h, 1);
    TAP_OK(h.nlevels == 2 && h.dclass[0] == 9 && h.dclass[1] == 2 && h.dclass[2] == 1 &&
               tb_hier_distance(&h, 0, 2) == 9 && tb_hier_distance(&h, 0, 1) == 2 && tb_hier_distance(&h, 2, 3) == 1,
           "drop a repeated level: classes 9/2/1 left");
    TAP_OK(tb_hier_classes_monotone(&h), "classes 9/2/1 are monotone");
    h.dclass[2] = 3;
    TAP_OK(!tb_hier_classes_monotone(&h) && tb_hier_classes_monotone(NULL), "classes 9/2/3 are not");
    tb_hier_free(&h);

    /* a level that does not refine the previous one is intersected with it */
    tb_hier_alloc(&h, 6, 2);
    const int a[6] = {0, 0, 1, 1, 0, 0}, b[6] = {0, 1, 1, 1, 2, 2};
    memcpy(h.group[0], a, sizeof a);
    memcpy(h.group[1], b, sizeof b);
    snprintf(h.level_name[0], TB_LEVEL_NAME_MAX, "node");
    snprintf(h.level_name[1], TB_LEVEL_NAME_MAX, "socket");
    rc = tb_hier_normalize(&h);
    const int refined[6] = {0, 1, 2, 2, 3, 3};
    int ok = rc == 0 && h.nlevels == 2 && h.ngroups[0] == 2 && h.ngroups[1] == 4;
    for (int r = 0; ok && r < 6; r++)
        ok = h.group[1][r] == refined[r];
    TAP_OK(ok, "non-refining level is refined: {0,1,1,1,2,2} under {0,0,1,1,0,0} -> {0,1,2,2,3,3}");
    int refines = 1;
    for (int x = 0; x < 6; x++)
        for (int y = 0; y < 6; y++)
            if (h.group[1][x] == h.group[1][y] && h.group[0][x] != h.group[0][y])
                refines = 0;
    TAP_OK(refines, "after normalize level 1 refines level 0");
    TAP_OK(tb_hier_distance(&h, 2, 3) == 1.0 && tb_hier_distance(&h, 0, 1) == 2.0 && tb_hier_distance(&h, 0, 2) == 3.0,
           "level distance: 1 same socket, 2 same node, 3 apart");
    TAP_OK(tb_hier_level_index(&h, "socket") == 1 && tb_hier_level_index(&h, "node") == 0 &&
               tb_hier_level_index(&h, "rack") == -1 && tb_hier_level_index(NULL, "node") == -1,
           "level_index finds names, -1 otherwise");
    tb_hier_free(&h);

    /* refinement can make a level trivial (all singletons): dropped */
    tb_hier_alloc(&h, 4, 2);
    const int c0[4] = {0, 0, 1, 1}, c1[4] = {0, 1, 0, 1};
    memcpy(h.group[0], c0, sizeof c0);
    memcpy(h.group[1], c1, sizeof c1);
    rc = tb_hier_normalize(&h);
    TAP_OK(rc == 0 && h.nlevels == 1 && h.ngroups[0] == 2, "level that refines to singletons is dropped");
    tb_hier_free(&h);

    tb_hier_alloc(&h, 3, 1);
    h.group[0][1] = -1;
    TAP_OK(tb_hier_normalize(&h) == -1, "negative group id is rejected");
    tb_hier_free(&h);

    TAP_OK(tb_hier_distance(NULL, 0, 1) == 1.0 && tb_hier_distance(NULL, 2, 2) == 0.0,
           "no hierarchy: every pair at distance 1");
}

/* Every group of every level occupies consecutive ring positions. */
static int groups_contiguous(const tb_hier *h, const int *order)
{
    for (int l = 0; l < h->nlevels; l++) {
        for (int i = 0; i < h->size; i++)
            for (int j = i + 2; j < h->size; j++)
                if (h->group[l][order[i]] == h->group[l][order[j]])
                    for (int m = i + 1; m < j; m++)
                        if (h->group[l][order[m]] != h->group[l][order[i]])
                            return 0;
    }
    return 1;
}

static int is_perm(const int *order, int n)
{
    char seen[256] = {0};
    for (int i = 0; i < n; i++) {
        if (order[i] < 0 || order[i] >= n || seen[order[i]])
            return 0;
        seen[order[i]] = 1;
    }
    return 1;
}

static void test_ring_order(void)
{
    int pos[NPOS], order[NPOS];
    for (int i = 0; i < NPOS; i++)
        pos[i] = (i * 5) % NPOS; /* groups scattered over the ranks */
    tb_hier h = make_h1(pos);
    int ok = 1, inc = 1;
    for (int root = 0; root < NPOS; root++) {
        if (tb_hier_ring_order(&h, NPOS, root, order) != 0 || order[0] != root || !is_perm(order, NPOS) ||
            !groups_contiguous(&h, order))
            ok = 0;
        /* inside a finest group other than the root's: increasing ranks */
        for (int i = 1; i < NPOS; i++) {
            int a = order[i - 1], b = order[i];
            int l = h.nlevels - 1;
            if (h.group[l][a] == h.group[l][b] && h.group[l][a] != h.group[l][root] && a > b)
                inc = 0;
        }
    }
    TAP_OK(ok, "ring order (levels): starts at root, permutation, every group contiguous, all roots");
    TAP_OK(inc, "ring order (levels): increasing ranks inside a group");
    tb_hier_ring_order(&h, NPOS, 0, order);
    /* rank 0 sits at position 0 (island 0, node A, socket {0,1}); its
     * socket mate is position 1 = rank 5 (5*5 % 12 = 1) */
    TAP_OK(order[0] == 0 && order[1] == 5, "ring order: root's socket mate comes next (got %d %d)", order[0],
           order[1]);

    /* distance classes do not change the walk: it is by the levels */
    int plain[NPOS];
    tb_hier_ring_order(&h, NPOS, 4, plain);
    h.dclass = malloc(sizeof(double) * 4);
    const double cls[4] = {100, 10, 3, 1};
    memcpy(h.dclass, cls, sizeof cls);
    ok = 1;
    for (int root = 0; root < NPOS; root++)
        if (tb_hier_ring_order(&h, NPOS, root, order) != 0 || order[0] != root || !is_perm(order, NPOS) ||
            !groups_contiguous(&h, order) || (root == 4 && memcmp(order, plain, sizeof plain) != 0))
            ok = 0;
    TAP_OK(ok, "ring order (classes): starts at root, permutation, groups contiguous, the levels' walk");
    tb_hier_free(&h);

    ok = tb_hier_ring_order(NULL, 5, 3, order) == 0;
    for (int i = 0; ok && i < 5; i++)
        ok = order[i] == (3 + i) % 5;
    TAP_OK(ok, "ring order without hierarchy: rank order from the root");
}

/* Hand-checked magpie: node {0,1,2,3} sockets {0,2}{1,3}; node {4,5,6}
 * sockets {4}{5,6}. */
static void test_magpie_shape(void)
{
    const int node[7] = {0, 0, 0, 0, 1, 1, 1}, sock[7] = {0, 1, 0, 1, 2, 3, 3};
    const int *phys[2] = {node, sock};
    const char *names[2] = {"node", "socket"};
    int id[7] = {0, 1, 2, 3, 4, 5, 6};
    tb_hier h = make_hier(7, 2, phys, names, id);
    tb_alg_spec s = spec_of("magpie");
    char err[256];
    tb_plan p;

    /* root 5: 5->0 (node), 5->4 (socket), 5->6 (rank); 0->1 (socket), 0->2; 1->3 */
    int rc = build(&p, 7, 5, &s, &h, err, sizeof err);
    const int par5[7] = {5, 0, 0, 1, 5, -1, 5};
    int ok = rc == 0;
    for (int r = 0; ok && r < 7; r++)
        ok = p.tree.parent[r] == par5[r];
    const int *c5 = ok ? tb_tree_children(&p.tree, 5) : NULL;
    const int *c0 = ok ? tb_tree_children(&p.tree, 0) : NULL;
    ok = ok && tb_tree_nchildren(&p.tree, 5) == 3 && c5[0] == 0 && c5[1] == 4 && c5[2] == 6 &&
         tb_tree_nchildren(&p.tree, 0) == 2 && c0[0] == 1 && c0[1] == 2;
    TAP_OK(ok, "magpie root 5: exact hand-written tree and send order");
    if (rc == 0)
        tb_plan_free(&p);

    /* root 2: 2->4 (node), 2->1 (socket), 2->0 (rank); 1->3; 4->5; 5->6 */
    rc = build(&p, 7, 2, &s, &h, err, sizeof err);
    const int par2[7] = {2, 2, -1, 1, 2, 4, 5};
    ok = rc == 0;
    for (int r = 0; ok && r < 7; r++)
        ok = p.tree.parent[r] == par2[r];
    const int *c2 = ok ? tb_tree_children(&p.tree, 2) : NULL;
    ok = ok && tb_tree_nchildren(&p.tree, 2) == 3 && c2[0] == 4 && c2[1] == 1 && c2[2] == 0;
    TAP_OK(ok, "magpie root 2: exact hand-written tree and send order");
    if (rc == 0)
        tb_plan_free(&p);
    tb_hier_free(&h);
}

static const char *const all_specs[] = {
    "magpie",
    "magpie2",
    "magpie2:base=flat",
    "magpie2:base=chain",
    "magpie2:base=binary",
    "magpie2:base=binomial",
    "magpie2:base=knomial",
    "magpie2:base=pipeline",
    "magpie2:base=chain/binary/flat/knomial",
    "magpie2:base=flat/binomial",
    "magpie2:base=binary/chain/binomial",
    "interpipe",
    "interpipe:base=chain/flat",
    "distance_tree",
};
#define NSPECS (int)(sizeof all_specs / sizeof all_specs[0])

/* For one numbering of the 12-rank layout: every algorithm, every root. */
static void test_all_roots(const char *what, const int *pos)
{
    tb_hier h = make_h1(pos);
    for (int si = 0; si < NSPECS; si++) {
        tb_alg_spec s = spec_of(all_specs[si]);
        int valid = 1, minimal = 1, order = 1;
        char why[256] = "";
        for (int root = 0; root < NPOS; root++) {
            tb_plan p;
            char err[256];
            if (build(&p, NPOS, root, &s, &h, err, sizeof err) != 0) {
                valid = 0;
                snprintf(why, sizeof why, "root %d: %s", root, err);
                continue;
            }
            if (tb_tree_check(&p.tree, err, sizeof err) != 0 || p.tree.nblocks != 1 || p.xchg != TB_XCHG_NONE) {
                valid = 0;
                snprintf(why, sizeof why, "root %d: %s", root, err);
            }
            for (int l = 0; l < h.nlevels; l++)
                if (crossings(&p.tree, &h, l) != h.ngroups[l] - 1) {
                    minimal = 0;
                    snprintf(why, sizeof why, "root %d level %s: %d crossings for %d groups", root,
                             h.level_name[l], crossings(&p.tree, &h, l), h.ngroups[l]);
                }
            if (!slow_links_first(&p.tree, &h))
                order = 0;
            tb_plan_free(&p);
        }
        TAP_OK(valid, "%s %s: valid tree for all %d roots %s", all_specs[si], what, NPOS, why);
        TAP_OK(minimal, "%s %s: each level's boundaries crossed once per group %s", all_specs[si], what, why);
        TAP_OK(order, "%s %s: every parent sends over slower links first", all_specs[si], what);
    }
    tb_hier_free(&h);
}

/* The two-tree and circulant bases, per-level segments: every tree of the
 * plan valid, each level's boundaries crossed once per group by every tree
 * (with a circulant among the coarsest level's leaders, which then have no
 * parent, once per group below the coarsest), slow links first, and the
 * per-level segments on the edges of their level. */
static const char *const new_specs[] = {
    "magpie2:base=dbt",
    "magpie2:base=bine",
    "interpipe:base=bine/dbt/binomial",
    "interpipe:segment=128K/16K/4K,base=chain/binary/dbt",
    "interpipe:base=circulant/binomial",
    "magpie2:base=circulant/dbt/bine",
    "interpipe:segment=256K/32K/4K,base=circulant/bine/chain",
    "magpie2:base=dbt,leaders=2",
    "interpipe:segment=128K/16K/4K,base=chain/binary/dbt,leaders=2",
    "interpipe:base=dbt/dbt/chain,feeds=2,leaders=2",
    /* leaders=2 under a circulant: the exchange's members are both trees'
     * sources (the second tree's own leaders start one level down) */
    "interpipe:segment=128K/16K,base=circulant/dbt,leaders=2",
};

static void test_new_bases(const char *what, const int *pos)
{
    tb_hier h = make_h1(pos);
    for (size_t si = 0; si < sizeof new_specs / sizeof new_specs[0]; si++) {
        tb_alg_spec s = spec_of(new_specs[si]);
        int circ = strstr(new_specs[si], "circulant") != NULL, two = strstr(new_specs[si], "dbt") != NULL;
        int fed = strstr(new_specs[si], "feeds=2") != NULL; /* its finest groups are entered up to twice */
        char why[256] = "";
        for (int root = 0; root < NPOS && !why[0]; root++) {
            tb_plan p;
            char err[256];
            if (build(&p, NPOS, root, &s, &h, err, sizeof err) != 0) {
                snprintf(why, sizeof why, "root %d: %s", root, err);
                continue;
            }
            if (p.ntrees != (two ? 2 : 1) || (p.xchg == TB_XCHG_CIRC) != circ ||
                (circ && (p.norder != h.ngroups[0] || p.order[0] != root)))
                snprintf(why, sizeof why, "root %d: %d trees, exchange %d over %d", root, p.ntrees, p.xchg, p.norder);
            for (int k = 0; k < p.ntrees && !why[0]; k++) {
                const tb_tree *t = tb_plan_tree(&p, k);
                if (tb_tree_check(t, err, sizeof err) != 0 || t->nblocks != p.ntrees || t->nsources != (circ ? h.ngroups[0] - 1 : 0))
                    snprintf(why, sizeof why, "root %d tree %d: %s", root, k, err);
                /* a tree's sources are the circulant's members: they are
                 * what holds the whole message when the trees start */
                for (int i = 1; circ && i < p.norder && !why[0]; i++)
                    if (t->parent[p.order[i]] >= 0)
                        snprintf(why, sizeof why, "root %d tree %d: exchange member %d has a parent", root, k,
                                 p.order[i]);
                for (int l = 0; l < h.nlevels && !why[0]; l++)
                    if (!(fed && l == h.nlevels - 1) && crossings(t, &h, l) != h.ngroups[l] - (circ ? h.ngroups[0] : 1))
                        snprintf(why, sizeof why, "root %d tree %d level %s: %d crossings for %d groups", root, k,
                                 h.level_name[l], crossings(t, &h, l), h.ngroups[l]);
                if (!why[0] && !slow_links_first(t, &h))
                    snprintf(why, sizeof why, "root %d tree %d: a slow link after a fast one", root, k);
                /* per-level segments: an edge leaving a group of level l (and
                 * no coarser one) carries level l's segment, the finest the last */
                for (int r = 0; r < NPOS && !why[0] && s.nlevel_seg > 1; r++) {
                    if (t->parent[r] < 0)
                        continue;
                    int l = 0;
                    while (l < h.nlevels && h.group[l][r] == h.group[l][t->parent[r]])
                        l++;
                    if (t->seg[r] != tb_alg_level_segment(&s, l))
                        snprintf(why, sizeof why, "root %d tree %d: edge into %d (level %d) has segment %zu", root, k, r,
                                 l, t->seg[r]);
                }
            }
            tb_plan_free(&p);
        }
        TAP_OK(!why[0], "%s %s: every tree valid, minimal crossings, slow links first, per-level segments %s",
               new_specs[si], what, why);
    }
    tb_hier_free(&h);
}

/* Random layouts of unequal groups, 3 levels, 20..60 ranks, scattered. */
static void test_random_layouts(void)
{
    int failures = 0, trees = 0;
    char why[300] = "";
    for (int trial = 0; trial < 12; trial++) {
        int size = 20 + lcg(41);
        int *isl = malloc(sizeof(int) * (size_t)size), *nod = malloc(sizeof(int) * (size_t)size),
            *soc = malloc(sizeof(int) * (size_t)size), *pos = malloc(sizeof(int) * (size_t)size);
        random_layout(size, 8, isl, nod, soc);
        for (int x = 0; x < size; x++)
            pos[x] = x;
        shuffle(pos, size);
        const int *phys[3] = {isl, nod, soc};
        tb_hier h = make_hier(size, 3, phys, level_names, pos);
        for (int si = 0; si < NSPECS; si++) {
            tb_alg_spec s = spec_of(all_specs[si]);
            for (int root = 0; root < size; root += 3) {
                tb_plan p;
                char err[256];
                trees++;
                if (build(&p, size, root, &s, &h, err, sizeof err) != 0) {
                    failures++;
                    snprintf(why, sizeof why, "%s P=%d root %d: %s", all_specs[si], size, root, err);
                    continue;
                }
                int bad = tb_tree_check(&p.tree, err, sizeof err) != 0 || !slow_links_first(&p.tree, &h);
                for (int l = 0; l < h.nlevels; l++)
                    bad |= crossings(&p.tree, &h, l) != h.ngroups[l] - 1;
                if (bad) {
                    failures++;
                    snprintf(why, sizeof why, "%s P=%d root %d", all_specs[si], size, root);
                }
                tb_plan_free(&p);
            }
        }
        tb_hier_free(&h);
        free(isl);
        free(nod);
        free(soc);
        free(pos);
    }
    TAP_OK(failures == 0, "random 3-level layouts: %d trees valid, minimal crossings, slow links first %s", trees,
           why);
}

static void test_bases_used(void)
{
    /* three nodes of three ranks, one level */
    const int node[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    const int *phys[1] = {node};
    const char *names[1] = {"node"};
    int id[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    tb_hier h = make_hier(9, 1, phys, names, id);
    char err[256];
    tb_plan p;

    tb_alg_spec s = spec_of("magpie2:base=flat/chain");
    int rc = build(&p, 9, 0, &s, &h, err, sizeof err);
    TAP_OK(rc == 0 && p.tree.parent[3] == 0 && p.tree.parent[6] == 0 && p.tree.parent[1] == 0 &&
               p.tree.parent[2] == 1 && p.tree.parent[5] == 4 && p.tree.parent[8] == 7,
           "magpie2 base=flat/chain: leaders from the root, chains inside nodes");
    if (rc == 0)
        tb_plan_free(&p);

    s = spec_of("magpie2:base=chain/flat");
    rc = build(&p, 9, 0, &s, &h, err, sizeof err);
    TAP_OK(rc == 0 && p.tree.parent[3] == 0 && p.tree.parent[6] == 3 && p.tree.parent[1] == 0 &&
               p.tree.parent[2] == 0 && p.tree.parent[5] == 3 && p.tree.parent[8] == 6,
           "magpie2 base=chain/flat: chain of leaders, flat inside nodes");
    if (rc == 0)
        tb_plan_free(&p);

    /* magpie is flat inside the nodes too */
    s = spec_of("magpie");
    rc = build(&p, 9, 4, &s, &h, err, sizeof err);
    TAP_OK(rc == 0 && p.tree.parent[0] == 4 && p.tree.parent[6] == 4 && p.tree.parent[1] == 0 &&
               p.tree.parent[2] == 0 && p.tree.parent[3] == 4 && p.tree.parent[5] == 4 &&
               tb_tree_max_fanout(&p.tree) == 4,
           "magpie: flat to the leaders, flat inside nodes (root 4)");
    if (rc == 0)
        tb_plan_free(&p);

    /* interpipe: magpie2's tree, plus a segment for the engine */
    const char *pairs[][2] = {{"magpie2", "interpipe"}, {"magpie2:base=chain/flat", "interpipe:base=chain/flat"}};
    for (int i = 0; i < 2; i++) {
        tb_alg_spec a = spec_of(pairs[i][0]), b = spec_of(pairs[i][1]);
        int same = 1;
        for (int root = 0; root < 9; root++) {
            tb_plan pa, pb;
            if (build(&pa, 9, root, &a, &h, err, sizeof err) != 0)
                same = 0;
            else {
                if (build(&pb, 9, root, &b, &h, err, sizeof err) != 0)
                    same = 0;
                else {
                    same &= same_tree(&pa.tree, &pb.tree) && tb_tree_check(&pb.tree, err, sizeof err) == 0;
                    tb_plan_free(&pb);
                }
                tb_plan_free(&pa);
            }
        }
        TAP_OK(same && b.segment > 0, "%s builds the tree of %s (segment %zu)", pairs[i][1], pairs[i][0],
               b.segment);
    }

    /* a base that is not a tree fan-out is refused with a message */
    s = spec_of("magpie2");
    s.nbase = 1;
    s.base[0] = TB_ALG_SCATTER_ALLGATHER;
    rc = build(&p, 9, 0, &s, &h, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "scatter_allgather"), "magpie2 with a non-tree base fails: %s", err);
    if (rc == 0)
        tb_plan_free(&p);
    tb_hier_free(&h);
}

static void test_no_hierarchy(void)
{
    char err[256];
    tb_hier empty;
    tb_hier_alloc(&empty, 10, 0);
    const tb_hier *hs[2] = {NULL, &empty};
    const char *cases[][2] = {{"magpie", "binomial"}, {"magpie2", "binomial"},
                              {"magpie2:base=chain", "chain"}, {"magpie2:base=flat/knomial", "knomial"},
                              {"interpipe:base=binary", "binary"}};
    for (int hi = 0; hi < 2; hi++)
        for (int c = 0; c < 5; c++) {
            tb_alg_spec a = spec_of(cases[c][0]), b = spec_of(cases[c][1]);
            int same = 1;
            for (int root = 0; root < 10; root++) {
                tb_plan pa, pb;
                if (build(&pa, 10, root, &a, hs[hi], err, sizeof err) != 0) {
                    same = 0;
                    continue;
                }
                if (build(&pb, 10, root, &b, NULL, err, sizeof err) == 0) {
                    same &= same_tree(&pa.tree, &pb.tree);
                    tb_plan_free(&pb);
                } else
                    same = 0;
                tb_plan_free(&pa);
            }
            TAP_OK(same, "%s without hierarchy (%s) is the %s tree", cases[c][0], hi ? "0 levels" : "NULL",
                   cases[c][1]);
        }
    /* levels= cannot be checked against nothing: degrade, don't fail */
    tb_alg_spec s = spec_of("magpie:levels=node");
    tb_plan p;
    int rc = build(&p, 10, 3, &s, NULL, err, sizeof err);
    TAP_OK(rc == 0 && tb_tree_check(&p.tree, err, sizeof err) == 0, "magpie:levels=node without hierarchy builds");
    if (rc == 0)
        tb_plan_free(&p);
    s = spec_of("distance_tree");
    rc = build(&p, 10, 3, &s, NULL, err, sizeof err);
    int flat = rc == 0;
    for (int r = 0; flat && r < 10; r++)
        flat = p.tree.parent[r] == (r == 3 ? -1 : 3);
    TAP_OK(flat && tb_tree_children(&p.tree, 3)[0] == 0, "distance_tree without distances: flat from the root");
    if (rc == 0)
        tb_plan_free(&p);
    tb_hier_free(&empty);
}

static void test_levels_selection(void)
{
    int pos[NPOS];
    for (int i = 0; i < NPOS; i++)
        pos[i] = (i * 7) % NPOS;
    tb_hier h = make_h1(pos);
    const int *phys[3] = {phys_island, phys_node, phys_socket};
    /* expected: the same algorithm on a hierarchy holding only those levels */
    const int *p_island[1] = {phys_island};
    const int *p_isl_sock[2] = {phys_island, phys_socket};
    const int *p_node[1] = {phys_node};
    const char *n_island[1] = {"island"}, *n_isl_sock[2] = {"island", "socket"}, *n_node[1] = {"node"};
    tb_hier only_island = make_hier(NPOS, 1, p_island, n_island, pos);
    tb_hier isl_sock = make_hier(NPOS, 2, p_isl_sock, n_isl_sock, pos);
    tb_hier only_node = make_hier(NPOS, 1, p_node, n_node, pos);
    (void)phys;
    struct {
        const char *with, *without;
        const tb_hier *ref;
    } cases[] = {
        {"magpie:levels=island", "magpie", &only_island},
        {"magpie:levels=node", "magpie", &only_node},
        {"magpie2:levels=island/socket,base=binary/chain", "magpie2:base=binary/chain", &isl_sock},
        {"magpie2:levels=socket/island,base=binary/chain", "magpie2:base=binary/chain", &isl_sock},
        {"interpipe:levels=node,base=chain/flat", "interpipe:base=chain/flat", &only_node},
    };
    char err[256];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tb_alg_spec a = spec_of(cases[c].with), b = spec_of(cases[c].without);
        int same = 1;
        for (int root = 0; root < NPOS; root++) {
            tb_plan pa, pb;
            if (build(&pa, NPOS, root, &a, &h, err, sizeof err) != 0) {
                same = 0;
                continue;
            }
            if (build(&pb, NPOS, root, &b, cases[c].ref, err, sizeof err) == 0) {
                same &= same_tree(&pa.tree, &pb.tree);
                tb_plan_free(&pb);
            } else
                same = 0;
            tb_plan_free(&pa);
        }
        TAP_OK(same, "%s equals %s on a hierarchy of just those levels", cases[c].with, cases[c].without);
    }
    /* the selection really changes the tree: node-only magpie crosses
     * islands once per node, not once per island */
    tb_alg_spec s = spec_of("magpie:levels=node");
    tb_plan p;
    int rc = build(&p, NPOS, 0, &s, &h, err, sizeof err);
    TAP_OK(rc == 0 && crossings(&p.tree, &h, 0) == 2, "magpie:levels=node crosses the island boundary %d times (2 nodes over there)",
           rc == 0 ? crossings(&p.tree, &h, 0) : -1);
    if (rc == 0)
        tb_plan_free(&p);

    /* a level this communicator lacks (e.g. island, in a communicator
     * inside one island) is left out: the same tree as without the name */
    const char *absent[][2] = {{"magpie:levels=island/rack", "magpie:levels=island"},
                               {"magpie2:levels=rack/node", "magpie2:levels=node"}};
    for (int c = 0; c < 2; c++)
        TAP_OK(same_plan(absent[c][0], absent[c][1], NPOS, 0, &h), "%s builds the tree of %s", absent[c][0],
               absent[c][1]);
    /* only absent levels: the base tree over no levels, as with no hierarchy */
    s = spec_of("magpie:levels=rack");
    rc = build(&p, NPOS, 0, &s, &h, err, sizeof err);
    TAP_OK(rc == 0 && p.tree.size == NPOS && tb_tree_check(&p.tree, err, sizeof err) == 0,
           "magpie:levels=rack (absent) still builds a spanning tree of all %d ranks", NPOS);
    if (rc == 0)
        tb_plan_free(&p);
    /* a level that groups these ranks as a coarser one does (one node per
     * island here) is that level: levels=node is levels=island, not the
     * flat tree of a communicator without levels */
    {
        const int *p_rep[3] = {phys_island, phys_island, phys_socket};
        const char *n_rep[3] = {"island", "node", "socket"};
        tb_hier rep = make_hier(NPOS, 3, p_rep, n_rep, pos);
        tb_hier_drop_repeats(&rep);
        TAP_OK(rep.nlevels == 2 && tb_hier_level_index(&rep, "node") == 0 && tb_hier_level_index(&rep, "island") == 0 &&
                   tb_hier_level_index(&rep, "socket") == 1,
               "drop_repeats: node repeats island and is found as level 0 (nlevels %d, node %d)", rep.nlevels,
               tb_hier_level_index(&rep, "node"));
        TAP_OK(strcmp(tb_hier_finest_name(&rep, 0), "node") == 0 && strcmp(tb_hier_finest_name(&rep, 1), "socket") == 0,
               "the finest name of level 0 is node, of level 1 socket (%s, %s)", tb_hier_finest_name(&rep, 0),
               tb_hier_finest_name(&rep, 1));
        const char *alias[][2] = {{"interpipe:levels=node,base=dbt/flat", "interpipe:levels=island,base=dbt/flat"},
                                  {"magpie2:levels=node/socket,base=binary/chain", "magpie2:base=binary/chain"}};
        int ok = 1;
        for (int c = 0; c < 2; c++)
            for (int root = 0; root < NPOS; root++)
                ok &= same_plan(alias[c][0], alias[c][1], NPOS, root, &rep);
        TAP_OK(ok, "levels=node builds the trees of levels=island, every root, when node repeats island");
        tb_hier_drop_level(&rep, 0);
        TAP_OK(rep.nlevels == 1 && tb_hier_level_index(&rep, "node") == -1 && tb_hier_level_index(&rep, "socket") == 0,
               "dropping a level drops its aliases and renumbers the others");
        tb_hier_free(&rep);
    }
    s = spec_of("magpie2:levels=island//node");
    rc = build(&p, NPOS, 0, &s, &h, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "bad level name ''"), "empty level name is an error: %s", err);
    if (rc == 0)
        tb_plan_free(&p);
    tb_hier_free(&only_island);
    tb_hier_free(&isl_sock);
    tb_hier_free(&only_node);
    tb_hier_free(&h);
}

/* Same physical layout under two numberings: trees of both must match. */
static int iso_check(const int *const *phys, int size, int nl, const int *pos_a, const int *pos_b, int *ordered_ok)
{
    tb_alg_spec dt = spec_of("distance_tree");
    char err[256];
    tb_hier ha = make_hier(size, nl, phys, level_names, pos_a), hb = make_hier(size, nl, phys, level_names, pos_b);
    int *rank_b = malloc(sizeof(int) * (size_t)size); /* position -> rank in numbering b */
    for (int r = 0; r < size; r++)
        rank_b[pos_b[r]] = r;
    int ok = 1;
    for (int root = 0; root < size; root++) {
        int root_b = rank_b[pos_a[root]];
        tb_plan pa, pb;
        if (build(&pa, size, root, &dt, &ha, err, sizeof err) != 0) {
            ok = 0;
            continue;
        }
        if (build(&pb, size, root_b, &dt, &hb, err, sizeof err) == 0) {
            for (int ord = 0; ord < 2; ord++) {
                char *a = canon(&pa.tree, &ha, root, ord), *b = canon(&pb.tree, &hb, root_b, ord);
                if (strcmp(a, b) != 0)
                    *(ord ? ordered_ok : &ok) = 0;
                free(a);
                free(b);
            }
            tb_plan_free(&pb);
        } else
            ok = 0;
        tb_plan_free(&pa);
    }
    free(rank_b);
    tb_hier_free(&ha);
    tb_hier_free(&hb);
    return ok;
}

static void test_canonical_order(void)
{
    /* node {0,1,2} with sockets {0} {1,2}, node {3}: the pair comes first */
    const int node[4] = {0, 0, 0, 1}, sock[4] = {0, 1, 1, 2};
    const int *phys[2] = {node, sock};
    const char *names[2] = {"node", "socket"};
    int id[4] = {0, 1, 2, 3}, pos[4];
    tb_hier h = make_hier(4, 2, phys, names, id);
    int rc = tb_hier_canonical_order(&h, pos);
    TAP_OK(rc == 0 && pos[1] == 0 && pos[2] == 1 && pos[0] == 2 && pos[3] == 3,
           "canonical order: bigger groups first (got %d %d %d %d)", pos[0], pos[1], pos[2], pos[3]);
    /* root 3: the node's leader is in the pair, so depth 2, not 3 */
    tb_alg_spec dt = spec_of("distance_tree");
    char err[256];
    tb_plan p;
    rc = build(&p, 4, 3, &dt, &h, err, sizeof err);
    TAP_OK(rc == 0 && p.tree.parent[1] == 3 && p.tree.parent[2] == 1 && p.tree.parent[0] == 1 &&
               tb_tree_depth(&p.tree) == 2,
           "distance_tree: a group's leader sits in its biggest part");
    if (rc == 0)
        tb_plan_free(&p);
    tb_hier_free(&h);

    /* H1 under many numberings: the canonical order maps positions the same
     * way up to interchangeable ranks (same socket) */
    int base[NPOS], ok = 1;
    for (int i = 0; i < NPOS; i++)
        base[i] = i;
    tb_hier h0 = make_h1(base);
    int pos0[NPOS];
    tb_hier_canonical_order(&h0, pos0);
    for (int trial = 0; trial < 20; trial++) {
        int at[NPOS], cp[NPOS];
        memcpy(at, base, sizeof at);
        shuffle(at, NPOS);
        tb_hier hp = make_h1(at);
        tb_hier_canonical_order(&hp, cp);
        /* rank r sits at physical position at[r]; identity rank at[r] has
         * canonical place pos0[at[r]]; they must agree up to socket mates */
        for (int r = 0; r < NPOS; r++) {
            int q = -1;
            for (int x = 0; x < NPOS; x++)
                if (pos0[x] == cp[r])
                    q = x;
            /* orbits of H1's symmetries: socket mates, node B's two
             * 2-rank sockets, node C's two 1-rank sockets */
            static const int orbit[NPOS] = {0, 0, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4};
            int same = q >= 0 && orbit[q] == orbit[at[r]];
            if (!same) {
                if (ok)
                    printf("# trial %d: rank %d at position %d has place %d, held by position %d\n", trial, r,
                           at[r], cp[r], q);
                ok = 0;
            }
        }
        tb_hier_free(&hp);
    }
    TAP_OK(ok, "canonical order is the same physical walk for 20 numberings of one layout");
    tb_hier_free(&h0);
    TAP_OK(tb_hier_canonical_order(NULL, pos) == -1, "canonical order needs a hierarchy");
}

/* Builds spec over h from root: a valid tree crossing each group boundary
 * once; its build time printed as a figure, never a verdict. */
static void big_build(const char *label, const tb_alg_spec *spec, int root, const tb_hier *h)
{
    char err[256];
    tb_plan p;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = build(&p, h->size, root, spec, h, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int ok = rc == 0 && tb_tree_check(&p.tree, err, sizeof err) == 0;
    for (int l = 0; ok && l < h->nlevels; l++)
        ok = crossings(&p.tree, h, l) == h->ngroups[l] - 1;
    TAP_OK(ok, "%s P=%d: valid with minimal crossings", label, h->size);
    /* a figure, not a verdict: wall time depends on the machine's load */
    printf("# %s P=%d built in %.3f s\n", label, h->size, secs);
    if (rc == 0)
        tb_plan_free(&p);
}

static void test_distance_tree(void)
{
    tb_alg_spec dt = spec_of("distance_tree"), mp = spec_of("magpie");
    char err[256];
    int ident[NPOS];
    for (int i = 0; i < NPOS; i++)
        ident[i] = i;
    const int *phys[3] = {phys_island, phys_node, phys_socket};
    int iso = 1, iso_ordered = 1, trials = 0;
    for (int trial = 0; trial < 8; trial++) {
        int pos[NPOS];
        memcpy(pos, ident, sizeof pos);
        shuffle(pos, NPOS);
        iso &= iso_check(phys, NPOS, 3, ident, pos, &iso_ordered);
        trials++;
    }
    for (int trial = 0; trial < 8; trial++) { /* random unequal layouts */
        int size = 16 + lcg(30);
        int *isl = malloc(sizeof(int) * (size_t)size), *nod = malloc(sizeof(int) * (size_t)size),
            *soc = malloc(sizeof(int) * (size_t)size), *pa = malloc(sizeof(int) * (size_t)size),
            *pb = malloc(sizeof(int) * (size_t)size);
        random_layout(size, 7, isl, nod, soc);
        for (int x = 0; x < size; x++)
            pa[x] = pb[x] = x;
        shuffle(pa, size);
        shuffle(pb, size);
        const int *rp[3] = {isl, nod, soc};
        iso &= iso_check(rp, size, 3, pa, pb, &iso_ordered);
        trials++;
        free(isl);
        free(nod);
        free(soc);
        free(pa);
        free(pb);
    }
    TAP_OK(iso, "distance_tree: %d pairs of numberings of one layout give isomorphic trees, every root", trials);
    TAP_OK(iso_ordered, "distance_tree: ... with the same send order too");

    int kruskal = 1, checked = 0;
    for (int trial = 0; trial < 6; trial++) {
        int pos[NPOS], cpos[NPOS];
        memcpy(pos, ident, sizeof pos);
        shuffle(pos, NPOS);
        tb_hier h = make_h1(pos);
        tb_hier_canonical_order(&h, cpos);
        for (int root = 0; root < NPOS; root++) {
            tb_plan p;
            if (build(&p, NPOS, root, &dt, &h, err, sizeof err) != 0) {
                kruskal = 0;
                continue;
            }
            int ref[NPOS];
            kruskal_reference(&h, cpos, NPOS, root, ref);
            for (int r = 0; r < NPOS; r++)
                kruskal &= ref[r] == p.tree.parent[r];
            checked++;
            tb_plan_free(&p);
        }
        tb_hier_free(&h);
    }
    TAP_OK(kruskal, "distance_tree equals a literal Kruskal run of the paper's queue order (%d trees)", checked);

    /* symmetric layout (2 islands x 2 nodes x 2 sockets x 2 ranks): leaders
     * are the lowest ranks, so the tree has magpie's parents */
    int sym_i[16], sym_n[16], sym_s[16];
    for (int x = 0; x < 16; x++)
        sym_i[x] = x / 8, sym_n[x] = x / 4, sym_s[x] = x / 2;
    const int *sym[3] = {sym_i, sym_n, sym_s};
    int like_magpie = 1;
    for (int trial = 0; trial < 4; trial++) {
        int pos[16];
        for (int x = 0; x < 16; x++)
            pos[x] = x;
        if (trial)
            shuffle(pos, 16);
        tb_hier h = make_hier(16, 3, sym, level_names, pos);
        for (int root = 0; root < 16; root++) {
            tb_plan p, pm;
            if (build(&p, 16, root, &dt, &h, err, sizeof err) != 0) {
                like_magpie = 0;
                continue;
            }
            if (build(&pm, 16, root, &mp, &h, err, sizeof err) == 0) {
                for (int r = 0; r < 16; r++)
                    like_magpie &= pm.tree.parent[r] == p.tree.parent[r];
                tb_plan_free(&pm);
            } else
                like_magpie = 0;
            tb_plan_free(&p);
        }
        tb_hier_free(&h);
    }
    TAP_OK(like_magpie, "distance_tree on a symmetric layout has magpie's parents, 4 numberings, all roots");
    /* distance classes: strictly decreasing, with ties (a level Kruskal
     * cannot see), all equal, each against a literal Kruskal run */
    static const double class_sets[][4] = {{100, 10, 3, 1}, {10, 3, 3, 1}, {10, 10, 3, 1}, {5, 5, 5, 1}, {2, 2, 2, 2},
                                           {7, 3, 1, 1}};
    int nsets = (int)(sizeof class_sets / sizeof class_sets[0]), valid = 1, far_first = 1;
    kruskal = 1;
    checked = 0;
    for (int cset = 0; cset < nsets; cset++)
        for (int trial = 0; trial < 3; trial++) {
            int pos[NPOS], cpos[NPOS];
            memcpy(pos, ident, sizeof pos);
            shuffle(pos, NPOS);
            tb_hier h = make_h1(pos);
            h.dclass = malloc(sizeof(double) * 4);
            memcpy(h.dclass, class_sets[cset], sizeof(double) * 4);
            tb_hier_canonical_order(&h, cpos);
            for (int root = 0; root < NPOS; root++) {
                tb_plan p;
                if (build(&p, NPOS, root, &dt, &h, err, sizeof err) != 0 ||
                    tb_tree_check(&p.tree, err, sizeof err) != 0) {
                    valid = kruskal = 0;
                    continue;
                }
                int ref[NPOS];
                kruskal_reference(&h, cpos, NPOS, root, ref);
                for (int r = 0; r < NPOS; r++)
                    kruskal &= ref[r] == p.tree.parent[r];
                far_first &= slow_links_first(&p.tree, &h);
                checked++;
                tb_plan_free(&p);
            }
            tb_hier_free(&h);
        }
    TAP_OK(valid && kruskal, "distance_tree with distance classes (ties included): valid, equals literal Kruskal (%d trees)",
           checked);
    TAP_OK(far_first, "distance_tree: children sent to farthest first");
    {
        /* all classes equal: Kruskal sees no level, the root's flat fan-out */
        tb_hier h = make_h1(ident);
        h.dclass = malloc(sizeof(double) * 4);
        memcpy(h.dclass, class_sets[4], sizeof(double) * 4);
        tb_plan p;
        int flat = build(&p, NPOS, 5, &dt, &h, err, sizeof err) == 0;
        for (int r = 0; flat && r < NPOS; r++)
            flat = p.tree.parent[r] == (r == 5 ? -1 : 5);
        TAP_OK(flat, "distance_tree with equal classes: flat from the root");
        if (flat)
            tb_plan_free(&p);
        /* classes growing toward finer levels: refused, not a wrong tree */
        const double up[4] = {1, 2, 3, 4};
        memcpy(h.dclass, up, sizeof up);
        int rc = build(&p, NPOS, 0, &dt, &h, err, sizeof err);
        TAP_OK(rc != 0 && strstr(err, "grow toward finer levels"), "distance_tree refuses growing classes: %s", err);
        if (rc == 0)
            tb_plan_free(&p);
        tb_hier_free(&h);
    }

    /* size: P = 4096 (1024 under valgrind), 4 islands x 16 nodes x 2 sockets */
    int P = RUNNING_ON_VALGRIND ? 1024 : 4096;
    int *isl = malloc(sizeof(int) * (size_t)P), *nod = malloc(sizeof(int) * (size_t)P),
        *soc = malloc(sizeof(int) * (size_t)P), *pos = malloc(sizeof(int) * (size_t)P);
    for (int x = 0; x < P; x++) {
        isl[x] = x / (P / 4);
        nod[x] = x / (P / 64);
        soc[x] = x / (P / 128);
        pos[x] = x;
    }
    shuffle(pos, P);
    const int *bigphys[3] = {isl, nod, soc};
    tb_hier big = make_hier(P, 3, bigphys, level_names, pos);
    big_build("distance_tree", &dt, 17, &big);
    {
        /* no pair is looked at: P = 65536 (8192 under valgrind), 4 levels */
        int Q = RUNNING_ON_VALGRIND ? 8192 : 65536;
        int *q[4], *qpos = malloc(sizeof(int) * (size_t)Q);
        for (int l = 0; l < 4; l++)
            q[l] = malloc(sizeof(int) * (size_t)Q);
        for (int x = 0; x < Q; x++) {
            q[0][x] = x / (Q / 4), q[1][x] = x / 128, q[2][x] = x / 64, q[3][x] = x / 16;
            qpos[x] = x;
        }
        shuffle(qpos, Q);
        const char *qnames[4] = {"island", "node", "socket", "numa"};
        const int *qphys[4] = {q[0], q[1], q[2], q[3]};
        tb_hier hq = make_hier(Q, 4, qphys, qnames, qpos);
        hq.dclass = malloc(sizeof(double) * 5);
        const double qc[5] = {4, 1.5, 0.6, 0.4, 0.3};
        memcpy(hq.dclass, qc, sizeof qc);
        big_build("distance_tree, 4 levels with classes,", &dt, 12345 % Q, &hq);
        tb_hier_free(&hq);
        for (int l = 0; l < 4; l++)
            free(q[l]);
        free(qpos);
    }
    tb_alg_spec m2 = spec_of("magpie2:base=binomial/flat");
    big_build("magpie2", &m2, 17, &big);
    tb_hier_free(&big);
    free(isl);
    free(nod);
    free(soc);
    free(pos);
}

static void test_bad_input(void)
{
    int id[NPOS];
    for (int i = 0; i < NPOS; i++)
        id[i] = i;
    tb_hier h = make_h1(id);
    char err[256];
    tb_plan p;
    tb_alg_spec s = spec_of("magpie");
    int rc = build(&p, NPOS + 1, 0, &s, &h, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "12"), "hierarchy of another size is refused: %s", err);
    if (rc == 0)
        tb_plan_free(&p);
    s = spec_of("distance_tree");
    rc = build(&p, NPOS - 1, 0, &s, &h, err, sizeof err);
    TAP_OK(rc != 0, "distance_tree refuses a hierarchy of another size: %s", err);
    if (rc == 0)
        tb_plan_free(&p);
    tb_hier_free(&h);
}

/* 4 nodes x 2 sockets x 4 ranks, ranks round robin over the 8 sockets:
 * node[r] and sock[r] of each rank, and the hierarchy node > socket. */
enum { RR_P = 32 };
static tb_hier rr_sockets(int *node, int *sock)
{
    int ident[RR_P];
    for (int r = 0; r < RR_P; r++) {
        sock[r] = r % 8;
        node[r] = sock[r] / 2;
        ident[r] = r;
    }
    const int *phys[2] = {node, sock};
    const char *names[2] = {"node", "socket"};
    return make_hier(RR_P, 2, phys, names, ident);
}

/* feeds=F: 4 nodes x 2 sockets x 4 ranks, ranks round robin over the 8
 * sockets.  levels=socket (the node level left out, so every socket leader
 * is fed over the network), chain over the sockets, flat inside: with
 * feeds=2 every socket has exactly 2 ranks fed from outside it, one by a
 * socket of another node (its leader) and one by the other socket of its
 * own node; the sockets' chain never joins two sockets of one node (rail
 * order); each node sends at most 2 messages to other nodes.  feeds=1 is
 * the plain tree; feeds beyond the siblings' count is capped. */
static void test_feeds(void)
{
    enum { P = RR_P };
    int node[P], sock[P];
    tb_hier h = rr_sockets(node, sock);
    char err[256];
    for (int root = 0; root < P; root += 5) {
        for (int F = 1; F <= 3; F++) {
            char text[128];
            snprintf(text, sizeof text, "interpipe:levels=socket,base=chain/flat,feeds=%d", F);
            tb_alg_spec s = spec_of(text);
            tb_plan p;
            if (tb_plan_build(&p, P, root, &s, &h, err, sizeof err) != 0) {
                TAP_OK(0, "%s root %d builds (%s)", text, root, err);
                continue;
            }
            int outside[8] = {0}, same_node[8] = {0}, chain_same_node = 0, node_sends[4] = {0}, ok = 1;
            for (int r = 0; r < P; r++) {
                int q = p.tree.parent[r];
                if (q < 0)
                    continue;
                if (sock[q] != sock[r]) {
                    outside[sock[r]]++;
                    same_node[sock[r]] += node[q] == node[r];
                    /* a socket leader's edge from a socket of its own node would be the chain's */
                    int leader = r == root || (sock[r] != sock[root] && r == sock[r]); /* lowest rank of its socket */
                    chain_same_node += leader && node[q] == node[r];
                }
                node_sends[node[q]] += node[q] != node[r];
            }
            int want = F < 2 ? 1 : 2; /* two sockets per node: at most 2 entries each */
            for (int k = 0; k < 8; k++) {
                int mine = k == sock[root];
                ok &= outside[k] == want - mine;
                ok &= F < 2 || same_node[k] == 1; /* the cross feed comes from the other socket of the node */
            }
            for (int n = 0; n < 4; n++)
                ok &= node_sends[n] <= (F < 2 ? 2 : 2) + (n == node[root]);
            TAP_OK(ok && (F < 2 || chain_same_node == 0),
                   "%s, root %d: %d rank(s) of each socket fed from outside it%s, rail order (%d chain edges in a node), node sends %d %d %d %d",
                   text, root, want, F < 2 ? "" : " (1 from the other socket of its node)", chain_same_node, node_sends[0],
                   node_sends[1], node_sends[2], node_sends[3]);
            tb_plan_free(&p);
        }
    }
    /* F = 1 is the plan without the parameter */
    tb_alg_spec a = spec_of("magpie2:base=binary/flat,feeds=1"), b = spec_of("magpie2:base=binary/flat");
    char ta[256], tb[256];
    tb_alg_spec_format(&a, ta, sizeof ta);
    tb_alg_spec_format(&b, tb, sizeof tb);
    TAP_OK(tb_alg_spec_equal(&a, &b) && strcmp(ta, tb) == 0 && !strstr(ta, "feeds"),
           "feeds=1 is the default, not printed (%s)", ta);
    tb_alg_spec c = spec_of("interpipe:feeds=2,chains=3");
    tb_alg_spec_format(&c, ta, sizeof ta);
    TAP_OK(strstr(ta, "chains=3") && strstr(ta, "feeds=2") && !tb_alg_spec_equal(&c, &b), "feeds and chains printed when set (%s)", ta);
    tb_alg_spec bad;
    TAP_OK(tb_alg_spec_parse("interpipe:feeds=0", &bad, err, sizeof err) != 0 && strstr(err, "feeds=0"),
           "feeds=0 refused: %s", err);
    TAP_OK(tb_alg_spec_parse("magpie:feeds=2", &bad, err, sizeof err) != 0, "magpie has no feeds: %s", err);
    tb_hier_free(&h);
}

/* leaders=2: 4 nodes x 2 sockets x 4 ranks, ranks round robin over the 8
 * sockets, dbt at every level.  Tree 0 enters each group without the root
 * at its lowest rank, tree 1 at its last (of a socket, its highest rank;
 * of a node, the highest rank of its second socket), so for every root no
 * rank but the root receives from outside its socket in both trees.  With
 * a one-tree base, and with leaders=1, the plan is the one without the
 * parameter. */
static void test_leaders(void)
{
    enum { P = RR_P };
    int node[P], sock[P];
    tb_hier h = rr_sockets(node, sock);
    char err[256];
    const char *texts[] = {"interpipe:levels=socket,base=dbt,leaders=2", "interpipe:base=dbt,leaders=2"};
    for (size_t ti = 0; ti < 2; ti++)
        for (int root = 0; root < P; root += 3) {
            tb_alg_spec s = spec_of(texts[ti]);
            tb_plan p;
            if (tb_plan_build(&p, P, root, &s, &h, err, sizeof err) != 0) {
                TAP_OK(0, "%s root %d builds (%s)", texts[ti], root, err);
                continue;
            }
            int ok = p.ntrees == 2, both = 0;
            int entry[2][8];
            for (int k = 0; k < 2 && ok; k++) {
                const tb_tree *t = tb_plan_tree(&p, k);
                ok &= tb_tree_check(t, err, sizeof err) == 0;
                for (int g = 0; g < 8; g++)
                    entry[k][g] = -1;
                for (int r = 0; r < P; r++)
                    if (t->parent[r] >= 0 && sock[t->parent[r]] != sock[r]) {
                        ok &= entry[k][sock[r]] < 0; /* one entry per socket and tree */
                        entry[k][sock[r]] = r;
                    }
            }
            for (int g = 0; g < 8 && ok; g++) {
                if (g == sock[root]) {
                    ok &= entry[0][g] < 0 && entry[1][g] < 0;
                    continue;
                }
                /* lowest and highest rank of socket g: g and g + 24 (with
                 * the node level, tree 1 enters a node at its odd socket's
                 * highest rank, which then feeds the even one's) */
                ok &= entry[0][g] == g && entry[1][g] == g + 24;
                both += entry[0][g] == entry[1][g];
            }
            TAP_OK(ok && both == 0, "%s, root %d: each tree enters each other socket once, tree 0 at its lowest rank, tree 1 at its highest",
                   texts[ti], root);
            tb_plan_free(&p);
        }
    /* one tree, or leaders=1: the same plan as without */
    const char *same[][2] = {{"interpipe:levels=socket,base=chain/flat,leaders=2", "interpipe:levels=socket,base=chain/flat"},
                             {"magpie2:base=dbt,leaders=1", "magpie2:base=dbt"}};
    for (int i = 0; i < 2; i++)
        TAP_OK(same_plan(same[i][0], same[i][1], P, 5, &h), "%s builds the plan of %s", same[i][0], same[i][1]);
    tb_alg_spec a = spec_of("magpie2:base=dbt,leaders=1"), b = spec_of("magpie2:base=dbt"), c = spec_of("interpipe:leaders=2");
    char ta[256], tc[256];
    tb_alg_spec_format(&a, ta, sizeof ta);
    tb_alg_spec_format(&c, tc, sizeof tc);
    TAP_OK(tb_alg_spec_equal(&a, &b) && !strstr(ta, "leaders") && strstr(tc, "leaders=2") && !tb_alg_spec_equal(&a, &c),
           "leaders=1 is the default, not printed; leaders=2 printed (%s, %s)", ta, tc);
    tb_alg_spec bad;
    TAP_OK(tb_alg_spec_parse("interpipe:leaders=3", &bad, err, sizeof err) != 0 && strstr(err, "leaders=3"),
           "leaders=3 refused: %s", err);
    TAP_OK(tb_alg_spec_parse("magpie:leaders=2", &bad, err, sizeof err) != 0, "magpie has no leaders: %s", err);
    tb_hier_free(&h);
}

/* The example in the header comments of the hierarchical and distance
 * builders is what they build: 2 nodes of 4 ranks, sockets of 2, 2, 1, 3. */
static void builder_examples(void)
{
    static const int node[8] = {0, 0, 0, 0, 1, 1, 1, 1}, socket[8] = {0, 0, 1, 1, 2, 3, 3, 3};
    static const char *const names[2] = {"node", "socket"};
    static const int ident[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int *phys[2] = {node, socket};
    tb_hier h = make_hier(8, 2, phys, names, ident);
    check_plan_example("libtopobcast/src/plan/plan_hierarchical.c", "magpie", 8, 0, &h, EXAMPLE_TREE);
    check_plan_example("libtopobcast/src/plan/plan_distance.c", "distance_tree", 8, 0, &h, EXAMPLE_TREE);
    tb_hier_free(&h);
}

/* tb_sort_ranks_by_keys (the radix sort, and the comparison sort it
 * falls back to for keys of a wide range) against a plain insertion sort:
 * lexicographic by key rows, ties by index. */
static int row_before(const int *keys, int width, int a, int b)
{
    for (int c = 0; c < width; c++)
        if (keys[a * width + c] != keys[b * width + c])
            return keys[a * width + c] < keys[b * width + c];
    return a < b;
}

static void test_sort_ranks(void)
{
    unsigned seed = 12345;
    int bad = 0, runs = 0;
    for (int t = 0; t < 400 && !bad; t++) {
        int width = 1 + t % 4, n = 1 + (t * 37) % 300;
        int wide = t % 5 == 4; /* keys up to 2^30 and negative: the comparison sort */
        int *keys = malloc(sizeof(int) * (size_t)(n * width)), *got = malloc(sizeof(int) * (size_t)n),
            *want = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n * width; i++) {
            seed = seed * 1103515245u + 12345u;
            int v = (int)((seed >> 8) % (unsigned)(1 + (t % 3 == 0 ? 3 : n)));
            keys[i] = wide ? (int)(seed >> 1) - (1 << 29) : v - (t % 7 == 1 ? n / 2 : 0);
        }
        for (int i = 0; i < n; i++) {
            int j = i;
            for (; j > 0 && row_before(keys, width, i, want[j - 1]); j--)
                want[j] = want[j - 1];
            want[j] = i;
        }
        if (tb_sort_ranks_by_keys(keys, width, n, got) != 0 || memcmp(got, want, sizeof(int) * (size_t)n) != 0)
            bad = 1;
        runs++;
        free(keys);
        free(got);
        free(want);
    }
    TAP_OK(!bad, "tb_sort_ranks_by_keys: %d random key sets (1-4 columns, narrow, shifted negative and wide "
                 "ranges) sorted as an insertion sort sorts them",
           runs);
}

int main(void)
{
    test_normalize();
    test_ring_order();
    test_magpie_shape();
    int pos[NPOS];
    for (int i = 0; i < NPOS; i++)
        pos[i] = i;
    test_all_roots("(contiguous ranks)", pos);
    for (int i = 0; i < NPOS; i++)
        pos[i] = (i * 5) % NPOS;
    test_all_roots("(round-robin ranks)", pos);
    for (int i = 0; i < NPOS; i++)
        pos[i] = i;
    shuffle(pos, NPOS);
    test_all_roots("(shuffled ranks)", pos);
    test_new_bases("(shuffled ranks)", pos);
    for (int i = 0; i < NPOS; i++)
        pos[i] = (i * 5) % NPOS;
    test_new_bases("(round-robin ranks)", pos);
    test_random_layouts();
    test_bases_used();
    test_no_hierarchy();
    test_levels_selection();
    test_canonical_order();
    test_distance_tree();
    test_bad_input();
    test_feeds();
    test_leaders();
    builder_examples();
    test_sort_ranks();
    TAP_DONE();
}
