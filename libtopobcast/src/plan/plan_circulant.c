/* Circulant broadcast as a whole plan: no tree edges, every rank but the
 * root a source of the (empty) tree, and the circulant exchange among all
 * ranks in rank order from the root (xchg_circ.c, which gives its cost and
 * an example).  The exchange runs before the (empty) tree phase.
 *
 * Time complexity: (n - 1 + ceil(log2 P))(a + b m / n) for m bytes in n
 * blocks of one segment each.  Building: O(P).
 *
 * Example (test/unit/test_plans.c builds it and compares this text; every
 * rank but the root is a source, so the tree has no edge):
 *   circulant, P = 4, root 1
 *   depth 0, rounds 0
 */
#include "plan/builders.h"

#include <stdio.h>
#include <stdlib.h>

int tb_plan_circulant(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                      const tb_plan_env *env, char *err, size_t errlen)
{
    (void)spec, (void)h, (void)env; /* the same rounds on any hierarchy */
    if (size < 1 || root < 0 || root >= size) {
        snprintf(err, errlen, "circulant: bad size %d / root %d", size, root);
        return -1;
    }
    p->order = malloc(sizeof(int) * (size_t)size);
    if (!p->order || tb_tree_init(&p->tree, size, root, 1) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->xchg = TB_XCHG_CIRC;
    p->norder = size;
    for (int v = 0; v < size; v++)
        p->order[v] = (root + v) % size;
    for (int v = 1; v < size; v++)
        if (tb_tree_add_source(&p->tree, p->order[v]) != 0) {
            snprintf(err, errlen, "circulant: cannot mark rank %d", p->order[v]);
            return -1;
        }
    if (tb_tree_finalize(&p->tree) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
