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

/* \brief Builds the whole plan of an algorithm (never TB_ALG_DEFAULT) for
 * size ranks from root: its builder from the descriptor table (alg_desc.c).
 * h may be NULL; hierarchical algorithms then treat the communicator as
 * flat.  Pure, deterministic: every rank builds the same plan.
 * \return 0 (release with tb_plan_free), or -1 with err set and nothing
 * allocated. */
int tb_plan_build(tb_plan *p, int size, int root, const tb_alg_spec *spec,
                  const tb_hier *h, char *err, size_t errlen);
/* \brief Frees a plan's arrays and zeroes it.
 * \return nothing. */
void tb_plan_free(tb_plan *p);
/* \brief Exchange steps of rank me, in order (the generator of p->xchg).
 * \return the count, *steps malloc'd (NULL when 0); -1 on allocation
 * failure. */
int tb_plan_xchg_steps(const tb_plan *p, int me, tb_xchg_step **steps);
/* \brief rank's position in the exchange order of p.
 * \return v with p->order[v] == rank, or -1 (also without an order). */
int tb_plan_position(const tb_plan *p, int rank);
/* \brief Rank me's schedule from a plan: parent, children with their
 * blocks, exchange steps; spec is kept in it.
 * \return 0 (release with tb_schedule_free), or -1 on allocation failure
 * (*s then empty). */
int tb_schedule_from_plan(tb_schedule *s, const tb_plan *p, int me, const tb_alg_spec *spec);
/* \brief tb_plan_build, then tb_schedule_from_plan for me.
 * \return 0, or -1 with err set. */
int tb_schedule_build(tb_schedule *s, int size, int root, int me, const tb_alg_spec *spec,
                      const tb_hier *h, char *err, size_t errlen);
/* \brief A copy of src that owns its arrays (for operations that outlive
 * the cache entry).
 * \return 0, or -1 on allocation failure (dst then empty). */
int tb_schedule_copy(tb_schedule *dst, const tb_schedule *src);
/* \brief Frees a schedule's arrays and zeroes it.
 * \return nothing. */
void tb_schedule_free(tb_schedule *s);


#endif
