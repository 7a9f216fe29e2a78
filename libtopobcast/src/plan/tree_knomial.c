/* k-nomial tree of radix r over virtual ranks (radix 2 is the binomial
 * tree).  Write v in base r; v's parent is v with its lowest non-zero digit
 * cleared.  If that digit is at position d (d = number of digits for the
 * root), v's children are v + i*r^j for j < d and i = 1..r-1.
 *
 * Send order: largest subtrees first, i.e. j from high to low, and for equal
 * j, i ascending (subtrees with larger i may be cut short by k, never the
 * other way round).  A higher radix lowers the depth at the price of more
 * sequential sends per node, which pays off for small messages.
 *
 * Time complexity: ceil(log_r P) levels of at most r - 1 sends each, so at
 * most (r - 1) ceil(log_r P) rounds; the root sends the whole message up to
 * (r - 1) ceil(log_r P) times: fewer levels than binomial where the latency
 * a dominates.  Building: O(P log_r P) (digit arithmetic per rank).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   knomial:radix=3, P = 9, root 0
 *   0 -> 3 6 1 2
 *   3 -> 4 5
 *   6 -> 7 8
 *   depth 2, rounds 4
 */
#include "plan/builders.h"

/* Used when a composed spec leaves the radix unset; matches the documented
 * knomial default. */
#define KNOMIAL_FALLBACK_RADIX 4

int tb_tree_knomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                          int hi)
{
    if (k < 1 || root_index < 0 || root_index >= k)
        return -1;
    long r = spec && spec->radix >= 2 ? spec->radix : KNOMIAL_FALLBACK_RADIX;
    if (r > k)
        r = k > 2 ? k : 2; /* same (flat) shape, and keeps r^j from overflowing */
    long top = 1;          /* smallest power of r >= k */
    while (top < k)
        top *= r;
    for (long v = 0; v < k; v++) {
        /* r^d where d is the position of v's lowest non-zero digit */
        long limit = top;
        if (v != 0) {
            limit = 1;
            while ((v / limit) % r == 0)
                limit *= r;
        }
        int parent = tb_tree_member_at(members, k, root_index, (int)v);
        for (long step = limit / r; step >= 1; step /= r)
            for (long i = 1; i < r && v + i * step < k; i++)
                if (tb_tree_add_edge(t, parent, tb_tree_member_at(members, k, root_index, (int)(v + i * step)), lo, hi) != 0)
                    return -1;
    }
    return 0;
}
