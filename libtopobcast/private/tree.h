/* Broadcast trees: who receives from whom, in which order, and which part
 * of the message travels along each edge.  Pure data, no MPI, so every
 * builder can be unit-tested without mpiexec. */
#ifndef TB_TREE_H
#define TB_TREE_H

#include <stddef.h>

/* The message is cut into `nblocks` balanced blocks; an edge carries a
 * contiguous block range [lo, hi).  Whole-message trees use nblocks = 1. */
typedef struct tb_tree {
    int size;         /* ranks 0..size-1 */
    int root;
    int nblocks;
    int *parent;      /* parent[r]; -1 for the root and for ranks not yet attached */
    int *blk_lo;      /* blocks rank r receives from its parent: [blk_lo[r], blk_hi[r]) */
    int *blk_hi;
    int *child_start; /* CSR after tb_tree_finalize: children of r are */
    int *children;    /* children[child_start[r] .. child_start[r+1]) in send order */
    /* construction state: edges in the order they were added */
    int nedges;
    int *edge_parent;
    int *edge_child;
} tb_tree;

/* \brief An empty tree over ranks 0..size-1 rooted at root, the message in
 * nblocks blocks (the root holds them all).
 * \return 0 (release with tb_tree_free), or -1 on bad arguments or
 * allocation failure (*t then empty). */
int tb_tree_init(tb_tree *t, int size, int root, int nblocks);
/* \brief Frees t's arrays and zeroes it.
 * \return nothing. */
void tb_tree_free(tb_tree *t);
/* \brief Adds parent -> child carrying blocks [lo, hi).  Send order of a
 * parent's children is the order of the calls.
 * \return 0, or -1 if a rank or the range is out of bounds, child already
 * has a parent or is the root, or the tree is complete. */
int tb_tree_add_edge(tb_tree *t, int parent, int child, int lo, int hi);
/* \brief The tree builders number a member list's ranks virtually, 0 at
 * the root.
 * \return virtual rank v: members[(root_index + v) % k]. */
static inline int tb_tree_member_at(const int *members, int k, int root_index, int v)
{
    return members[(root_index + v) % k];
}
/* \brief Builds the CSR children lists; call once after the last edge.
 * \return 0, or -1 on allocation failure. */
int tb_tree_finalize(tb_tree *t);

/* \brief After tb_tree_finalize: r's children, in send order.
 * \return their number (tb_tree_nchildren), or where they start in
 * t->children (tb_tree_children). */
static inline int tb_tree_nchildren(const tb_tree *t, int r)
{
    return t->child_start[r + 1] - t->child_start[r];
}
static inline const int *tb_tree_children(const tb_tree *t, int r)
{
    return t->children + t->child_start[r];
}

/* \brief Checks the invariants every builder must keep (on a finalized
 * tree): spans all ranks, one parent per non-root, acyclic, every child's
 * blocks inside what its parent holds.
 * \return 0, or -1 with a description in err. */
int tb_tree_check(const tb_tree *t, char *err, size_t errlen);
/* \brief Depth of t.  \return the edges on its longest root-leaf path. */
int tb_tree_depth(const tb_tree *t);
/* \brief Fan-out of t (finalized).  \return the most children of a rank. */
int tb_tree_max_fanout(const tb_tree *t);

/* \brief Where block b starts when n bytes are split into nblocks balanced
 * blocks (the first n % nblocks blocks are one byte longer).
 * \return its byte offset (n for b = nblocks). */
static inline size_t tb_block_offset(size_t n, int nblocks, int b)
{
    size_t q = n / (size_t)nblocks, r = n % (size_t)nblocks;
    return q * (size_t)b + ((size_t)b < r ? (size_t)b : r);
}

#endif
