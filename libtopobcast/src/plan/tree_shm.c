/* Shared-memory stage: the leader (members[root_index]) copies each piece
 * of its range once into its node-shared ring of slots, and every other
 * member copies it out, all at once (the engine's shm stage, shm.c).  As a
 * tree it is flat -- the leader is every member's parent -- with each edge
 * marked shared-memory (tb_tree_set_shm); the schedule folds a leader's
 * shared-memory children into one ring it writes once.  Usable as a level's
 * base (interpipe:levels=node,base=binomial/shm) when that level's groups
 * share memory, and as an algorithm of its own on a one-node communicator;
 * where they do not (comm_state.c checks every shm edge against the ranks'
 * shared-memory nodes), binomial takes its place.
 *
 * Time complexity: the leader writes each byte once and the k - 1 members
 * read it concurrently: about n (w + r) for n bytes (w, r: copy-in and
 * copy-out time per byte), pipelined in pieces of s bytes (tb_shm_piece:
 * 8 KiB up to a 64 KiB slot), so roughly n max(w, r) + s (w + r), against
 * ceil(log2 k) (a + n b) for a binomial tree.  No message, no tag.
 * Building: O(k).
 *
 * Example (test/unit/test_trees.c builds it and compares this text):
 *   shm, P = 5, root 1
 *   1 -> 2 3 4 0
 *   depth 1, rounds 4
 */
#include "plan/builders.h"

int tb_tree_shm_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo,
                      int hi)
{
    int first = t->nedges;
    if (tb_tree_flat_build(t, members, k, root_index, spec, lo, hi) != 0)
        return -1;
    return tb_tree_set_shm(t, first);
}
