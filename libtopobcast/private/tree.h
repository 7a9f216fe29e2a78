/* Broadcast trees: who receives from whom, in which order, and which part
 * of the message travels along each edge.  Pure data, no MPI, so every
 * builder can be unit-tested without mpiexec. */
#ifndef TB_TREE_H
#define TB_TREE_H

#include <stddef.h>

/* The message is cut into `nblocks` balanced blocks; an edge carries a
 * contiguous block range [lo, hi).  Whole-message trees use nblocks = 1.
 * Besides the root, a tree may have sources: ranks that hold every block
 * before the tree phase starts (they got it from an exchange that runs
 * first, e.g. the circulant among a level's leaders) and so have no parent.
 * An edge may carry its own segment size (per-level segments); seg is NULL
 * while no edge has one. */
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
    int nsources;     /* ranks other than the root without a parent (tb_tree_add_source) */
    size_t *seg;      /* seg[r]: piece bytes on the edge into r, 0 = the spec's segment; NULL: all 0 */
    unsigned char *shm; /* shm[r]: 1 when the edge into r goes through the parent's shared-memory ring
                           (tree_shm.c); NULL: no such edge */
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
/* \brief Marks r (not the root, not attached) as a source: it holds every
 * block before the tree phase, without a parent.
 * \return 0, or -1 if r is out of range, the root, or already attached. */
int tb_tree_add_source(tb_tree *t, int r);
/* \brief Gives the edges added since edge number first (t->nedges before
 * they were added) pieces of seg bytes (0: the spec's segment).
 * \return 0, or -1 on allocation failure. */
int tb_tree_set_segment(tb_tree *t, int first, size_t seg);
/* \brief Marks the edges added since edge number first as shared-memory
 * edges: the parent copies each piece once into its node-shared ring and
 * every such child copies it out (the engine's shm stage).
 * \return 0, or -1 on allocation failure. */
int tb_tree_set_shm(tb_tree *t, int first);
/* \brief Whether the edge into r is a shared-memory edge.
 * \return 1 or 0. */
static inline int tb_tree_edge_shm(const tb_tree *t, int r)
{
    return t->shm && t->shm[r];
}
/* \brief The piece length on the edge into child r: its own segment, or
 * dflt when it has none.
 * \return bytes. */
static inline size_t tb_tree_edge_segment(const tb_tree *t, int r, size_t dflt)
{
    return t->seg && t->seg[r] ? t->seg[r] : dflt;
}
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
 * tree): spans all ranks, one parent per rank but the root and the
 * sources, acyclic, every child's blocks inside what its parent holds,
 * and a parent's shared-memory children all carry the same blocks (they
 * read one ring).
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
