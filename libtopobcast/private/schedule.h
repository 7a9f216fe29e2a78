/* A schedule is everything one rank needs to take part in a broadcast with
 * a given algorithm: its parent and children (with the blocks that travel on
 * each edge), followed by an exchange phase of paired steps (ring or
 * recursive-doubling allgather, split-binary swap).  Built once per
 * (communicator, root, algorithm, parameters), cached, run by tb_engine_run. */
#ifndef TB_SCHEDULE_H
#define TB_SCHEDULE_H

#include "algorithm.h"
#include "hier.h"
#include "tree.h"

typedef struct tb_blocks {
    int lo, hi; /* [lo, hi) of nblocks; empty when lo >= hi */
} tb_blocks;

/* One exchange step of one rank: send up to two block ranges to send_peer
 * and receive up to two from recv_peer (peers -1 when absent), concurrently. */
typedef struct tb_xchg_step {
    int send_peer, recv_peer;
    tb_blocks send[2], recv[2];
} tb_xchg_step;

typedef enum tb_xchg_kind {
    TB_XCHG_NONE = 0,
    TB_XCHG_RING,      /* order[]: ring allgather of block v held by order[v] */
    TB_XCHG_RDBL,      /* order[]: recursive doubling over virtual positions */
    TB_XCHG_PAIR       /* partner[]: swap of halves (split_binary) */
} tb_xchg_kind;

/* Whole-communicator plan, as built by the algorithm builders. */
typedef struct tb_plan {
    tb_tree tree;
    tb_xchg_kind xchg;
    int *order;   /* size entries, for RING/RDBL: order[v] = rank at virtual position v, order[0] = root */
    int *partner; /* size entries, for PAIR: partner rank or -1 */
} tb_plan;

/* Largest single message the engine sends or receives, so that byte counts
 * always fit MPI's int count; longer ranges go in several. */
#define TB_CHUNK_MAX ((size_t)1 << 30)

/* \brief The segment rule of the engine (engine.c), for the tools that model
 * it (tuner/model.c): a tree edge's range travels in pieces of this many
 * bytes, pipelined down the tree.  spec->segment, or the whole range when
 * it is 0 (sent TB_CHUNK_MAX bytes at a time).
 * \return the piece length, 1..TB_CHUNK_MAX. */
static inline size_t tb_segment_bytes(const tb_alg_spec *spec)
{
    size_t seg = spec->segment;
    return (seg == 0 || seg > TB_CHUNK_MAX) ? TB_CHUNK_MAX : seg;
}

/* What one rank keeps. */
typedef struct tb_schedule {
    tb_alg_spec spec;
    int size, root, me, nblocks;
    int parent;             /* -1 at the root */
    tb_blocks mine;         /* blocks received from the parent (all at the root) */
    int nchildren;
    int *children;          /* in send order */
    tb_blocks *child_blocks;
    int nsteps;
    tb_xchg_step *steps;
} tb_schedule;

/* Builds the whole plan for an algorithm (never TB_ALG_DEFAULT).  h may be
 * NULL for non-hierarchical algorithms; hierarchical ones then treat the
 * communicator as flat.  Returns 0 or -1 with err set. */
int tb_plan_build(tb_plan *p, int size, int root, const tb_alg_spec *spec,
                  const tb_hier *h, char *err, size_t errlen);
void tb_plan_free(tb_plan *p);
/* Exchange steps of rank me, in order.  Returns the count, or -1 on
 * allocation failure; *steps is malloc'd (NULL when 0). */
int tb_plan_xchg_steps(const tb_plan *p, int me, tb_xchg_step **steps);
/* rank's position v in p->order (order[v] == rank), or -1. */
int tb_plan_position(const tb_plan *p, int rank);
/* Extracts rank me's schedule from a plan. */
int tb_schedule_from_plan(tb_schedule *s, const tb_plan *p, int me, const tb_alg_spec *spec);
/* tb_plan_build + tb_schedule_from_plan. */
int tb_schedule_build(tb_schedule *s, int size, int root, int me, const tb_alg_spec *spec,
                      const tb_hier *h, char *err, size_t errlen);
/* A copy that owns its arrays (for operations that outlive the cache
 * entry).  0, or -1 on allocation failure (dst then empty). */
int tb_schedule_copy(tb_schedule *dst, const tb_schedule *src);
void tb_schedule_free(tb_schedule *s);

/* Builders (one file each).  Each adds edges to a tree whose members are
 * members[0..k) (global ranks), rooted at members[root_index], carrying
 * blocks [lo, hi) on every edge.  Hierarchical builders compose them. */
typedef int (*tb_tree_builder)(tb_tree *t, const int *members, int k, int root_index,
                               const tb_alg_spec *spec, int lo, int hi);
int tb_tree_flat_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
int tb_tree_chain_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
int tb_tree_binary_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
int tb_tree_binomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
int tb_tree_knomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* The binomial tree over virtual ranks 0..k-1 (0 the root), in send order:
 * visit(ctx, v, c, m) for each edge v -> c = v + m, largest subtree first.
 * Stops at the first non-zero return (then -1).  Shared by the binomial
 * tree and the scatter of scatter_allgather. */
typedef int (*tb_binomial_visit)(void *ctx, int v, int c, int m);
int tb_binomial_walk(int k, tb_binomial_visit visit, void *ctx);
/* Base builder for an algorithm id usable as a per-level fan-out, or NULL
 * (from the descriptor table, alg_desc.c). */
tb_tree_builder tb_tree_builder_for(tb_alg_id id);

/* Whole-plan builders for algorithms that are more than one base tree
 * (called by tb_plan_build, which has already initialised nothing). */
int tb_plan_split_binary(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h, char *err,
                         size_t errlen);
int tb_plan_scatter_allgather(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                              char *err, size_t errlen);
int tb_plan_hierarchical(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         char *err, size_t errlen);
int tb_plan_distance_tree(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                          char *err, size_t errlen);
/* Exchange-step generators, one per tb_xchg_kind (xchg_*.c). */
int tb_xchg_ring_steps(const tb_plan *p, int me, tb_xchg_step **steps);
int tb_xchg_rdbl_steps(const tb_plan *p, int me, tb_xchg_step **steps);
int tb_xchg_pair_steps(const tb_plan *p, int me, tb_xchg_step **steps);

#endif
