/* Distance-aware broadcast tree (Ma, Herault, Bosilca, Dongarra, "Process
 * distance-aware adaptive MPI collective communications", Algorithm 1).
 *
 * The paper runs Kruskal on the rank-pair distances with the queue ordered
 * by (distance, edges touching the root first, then ranks): among equal
 * distances the root's edges come first ordered by the other end, the rest
 * by (smaller end, larger end).  That order is a strict total order on the
 * edges, so the minimum spanning tree under it is unique.
 *
 * Distances here are classes (tb_hier_distance): two ranks are dclass[l]
 * apart when l is the coarsest level at which their groups differ, and the
 * classes never grow toward finer levels.  Then Kruskal's tree has a closed
 * form, built without looking at pairs.  Call a level effective when its
 * class is larger than the next finer one (a level whose class equals the
 * next one's separates nothing Kruskal can see).  Weights grow from the
 * finest effective groups up, and when Kruskal reaches the edges inside a
 * group G between its subgroups (at the next effective level, or single
 * ranks), the subgroups are exactly its components.  The first of those
 * edges are the root's, to the first rank of each other subgroup, if the
 * root is in G; else those of G's first rank m, to the first rank of each
 * other subgroup; each joins one subgroup and then nothing more is added.
 * So with c(G) = the root if G holds it, else its first rank, every rank x
 * that is first in its group S at some effective level, S not holding the
 * root, hangs from c(parent of S) for the coarsest such S, with S below it;
 * every other rank hangs from c(its finest effective group).
 *
 * Ties: the paper breaks them by MPI rank, which makes the lowest rank of
 * each group its leader.  With unequal groups that leaks the numbering into
 * the shape: a node with sockets of 2 and 1 ranks gets depth 1 below its
 * leader when the lowest rank is in the pair, depth 2 when it is alone.  So
 * "rank", and "first" above, is the canonical position
 * tb_hier_canonical_order gives from the levels (bigger subgroups first,
 * then by shape, then lowest rank): leaders sit in their group's biggest
 * part, and the tree is the same up to interchangeable parts for every
 * numbering of one layout.  Without levels the position is the rank itself,
 * as in the paper.
 *
 * With level distances the result is the paper's shape: one edge per group
 * boundary, each group hanging off the root or its first member, everything
 * at equal distance from a leader attached to that leader directly (the
 * minimum-depth tree among the minimum spanning trees).  Without any
 * distance information all ranks are equally far apart and the tree is the
 * root's flat fan-out.  Classes that grow toward finer levels (never from a
 * topology file: the loader refuses them) are refused.
 *
 * Time complexity: set by the distances.  With levels, one edge per group
 * boundary as in the hierarchical trees, each rank receiving the message
 * once; without any distance information, the flat tree (P - 1 rounds).
 * Building: O(P L + P log P) time for L levels (the canonical order and the
 * children's send order are the sorts), O(P L) memory.
 *
 * Example (test/unit/test_hier_trees.c builds it and compares this text;
 * rank 5 leads the other node, being in its biggest socket, where magpie
 * takes the lowest rank 4):
 *   distance_tree, P = 8, root 0, node {0 1 2 3} {4 5 6 7}; socket {0 1} {2 3} {4} {5 6 7}
 *   0 -> 5 2 1
 *   5 -> 4 6 7
 *   2 -> 3
 *   depth 2, rounds 4
 */
#include "plan/builders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Send order of one parent's children.  Farthest first: in this tree the far
 * children are the leaders of whole remote groups, so their sends start the
 * longest remaining paths, and their slow links' latency then overlaps the
 * cheap local sends that follow (MagPIe's "slow links first" too).  Equal
 * distance: the bigger subtree first, as binomial does, since it has the
 * most left to do.  Then canonical position, for determinism. */
typedef struct child_rec {
    int parent;
    double w;
    int subtree;
    int pos;
    int rank;
} child_rec;

static int child_cmp(const void *pa, const void *pb)
{
    const child_rec *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    if (a->subtree != b->subtree)
        return a->subtree > b->subtree ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Class of level l (l = nlevels: inside a finest group). */
static double class_of(const tb_hier *h, int l)
{
    return h->dclass ? h->dclass[l] : (double)(h->nlevels - l + 1);
}

int tb_plan_distance_tree(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen)
{
    if (size < 1 || root < 0 || root >= size) {
        snprintf(err, errlen, "%s: root %d outside 0..%d", env->name(spec->id), root, size - 1);
        return -1;
    }
    int L = h ? h->nlevels : 0;
    if (L > 0 && h->size != size) {
        snprintf(err, errlen, "%s: hierarchy has %d ranks, communicator %d", env->name(spec->id), h->size,
                 size);
        return -1;
    }
    if (L > 0 && !tb_hier_classes_monotone(h)) {
        snprintf(err, errlen, "%s: distance classes grow toward finer levels", env->name(spec->id));
        return -1;
    }
    int K = 0, *eff = malloc(sizeof(int) * (size_t)(L > 0 ? L : 1)); /* effective levels, coarsest first */
    int **leader = calloc((size_t)(L > 0 ? L : 1), sizeof(int *)); /* per effective level and group */
    int **gsize = calloc((size_t)(L > 0 ? L : 1), sizeof(int *));
    child_rec *ch = malloc(sizeof *ch * (size_t)(size > 1 ? size - 1 : 1));
    int *pos = malloc(sizeof(int) * (size_t)size);
    int rc = -1;
    if (!eff || !leader || !gsize || !ch || !pos)
        goto oom;
    if (L > 0) {
        if (tb_hier_canonical_order(h, pos) != 0)
            goto oom;
    } else {
        for (int v = 0; v < size; v++)
            pos[v] = v;
    }
    for (int l = 0; l < L; l++)
        if (class_of(h, l) > class_of(h, l + 1))
            eff[K++] = l;
    for (int k = 0; k < K; k++) {
        int ng = h->ngroups[eff[k]];
        const int *g = h->group[eff[k]];
        leader[k] = malloc(sizeof(int) * (size_t)ng);
        gsize[k] = calloc((size_t)ng, sizeof(int));
        if (!leader[k] || !gsize[k])
            goto oom;
        for (int i = 0; i < ng; i++)
            leader[k][i] = -1;
        for (int x = 0; x < size; x++) {
            int *ld = &leader[k][g[x]];
            gsize[k][g[x]]++;
            if (*ld < 0 || pos[x] < pos[*ld])
                *ld = x;
        }
    }
    int nc = 0;
    for (int x = 0; x < size; x++) {
        if (x == root)
            continue;
        /* the coarsest group S that x leads without the root (k = K: x
         * alone), and the connector of the group above it */
        int k = 0;
        while (k < K) {
            int gx = h->group[eff[k]][x];
            if (leader[k][gx] == x && gx != h->group[eff[k]][root])
                break;
            k++;
        }
        int parent = root;
        if (k > 0) {
            int gp = h->group[eff[k - 1]][x];
            if (gp != h->group[eff[k - 1]][root])
                parent = leader[k - 1][gp];
        }
        int sub = k < K ? gsize[k][h->group[eff[k]][x]] : 1;
        ch[nc++] = (child_rec){parent, tb_hier_distance(h, parent, x), sub, pos[x], x};
    }
    qsort(ch, (size_t)nc, sizeof *ch, child_cmp);
    if (tb_tree_init(&p->tree, size, root, 1) != 0)
        goto oom;
    for (int i = 0; i < nc; i++)
        if (tb_tree_add_edge(&p->tree, ch[i].parent, ch[i].rank, 0, 1) != 0)
            goto fail;
    if (tb_tree_finalize(&p->tree) != 0)
        goto fail;
    p->xchg = TB_XCHG_NONE;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
    goto out;
fail:
    snprintf(err, errlen, "%s: cannot build tree for %d ranks", env->name(spec->id), size);
out:
    for (int k = 0; k < K; k++) {
        free(leader[k]);
        free(gsize[k]);
    }
    free(eff);
    free(leader);
    free(gsize);
    free(ch);
    free(pos);
    return rc;
}
