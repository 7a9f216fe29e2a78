/* A schedule is everything one rank needs to take part in a broadcast with
 * a given algorithm: in each of the plan's trees (one, or two for the
 * double binary tree) its parent and children, with the blocks and the
 * segment size of each edge; and a phase of paired exchange steps (ring or
 * recursive-doubling allgather, split-binary swap, circulant rounds), run
 * after the trees or, for a circulant among a level's leaders, before them.
 * Built once per (communicator, root, algorithm, parameters), cached, run
 * by tb_engine_run. */
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
    int dup; /* 1: recv[0] is a block this rank already holds (a circulant's last block sent again): it
                lands in scratch memory, never over the message being sent from */
} tb_xchg_step;

typedef enum tb_xchg_kind {
    TB_XCHG_NONE = 0,
    TB_XCHG_RING,      /* order[]: ring allgather of block v held by order[v] */
    TB_XCHG_RDBL,      /* order[]: recursive doubling over virtual positions */
    TB_XCHG_PAIR,      /* partner[]: swap of halves (split_binary) */
    TB_XCHG_CIRC       /* order[0..norder): circulant-graph rounds among them (Traff), before the trees */
} tb_xchg_kind;

/* Trees a plan may hold, run together by the engine's one tree phase. */
#define TB_MAX_TREES 2

/* Whole-communicator plan, as built by the algorithm builders.  Every tree
 * spans all ranks, over the same nblocks; a rank's blocks in tree k are
 * its share of tree k (dbt: tree 0 carries block 0, tree 1 block 1). */
typedef struct tb_plan {
    tb_tree tree;  /* the first (usually the only) tree */
    tb_tree tree2; /* the second when ntrees == 2 */
    int ntrees;    /* 1 or 2 (a builder that leaves 0 built one) */
    tb_xchg_kind xchg;
    int norder;   /* entries of order (0: size); CIRC among leaders uses fewer */
    int *order;   /* for RING/RDBL/CIRC: order[v] = rank at virtual position v, order[0] = root */
    int *partner; /* size entries, for PAIR: partner rank or -1 */
} tb_plan;

/* \brief Tree k (0 .. ntrees-1) of a plan.  \return a pointer into p. */
static inline const tb_tree *tb_plan_tree(const tb_plan *p, int k)
{
    return k == 0 ? &p->tree : &p->tree2;
}
/* \brief Whether the plan's exchange runs before its trees (a circulant
 * among sources, which then feed the trees below them).
 * \return 1 or 0. */
static inline int tb_plan_xchg_first(const tb_plan *p)
{
    return p->xchg == TB_XCHG_CIRC;
}

/* Largest single message the engine sends or receives, so that byte counts
 * always fit MPI's int count; longer ranges go in several. */
#define TB_CHUNK_MAX ((size_t)1 << 30)

/* \brief The segment rule of the engine (engine.c), for the tools that model
 * it (tuner/model.c): a tree edge's range travels in pieces of this many
 * bytes, pipelined down the tree.  A segment seg, or the whole range when
 * it is 0 (sent TB_CHUNK_MAX bytes at a time): tb_segment_piece; the
 * spec's own segment: tb_segment_bytes (an edge with a segment of its own,
 * tb_tree_edge_segment, uses that).
 * \return the piece length, 1..TB_CHUNK_MAX. */
static inline size_t tb_segment_piece(size_t seg)
{
    return (seg == 0 || seg > TB_CHUNK_MAX) ? TB_CHUNK_MAX : seg;
}
static inline size_t tb_segment_bytes(const tb_alg_spec *spec)
{
    return tb_segment_piece(spec->segment);
}

/* \brief The shared-memory stage's ring (src/run/shm.c) and its piece rule, for
 * the engine and for the tools that model it: per rank TB_SHM_SLOTS x
 * TB_SHM_SLOT_BYTES of data plus a 64-byte header per slot, whatever the
 * message size; piece k of a leader's range goes into slot k mod
 * TB_SHM_SLOTS once its readers have all taken piece k - TB_SHM_SLOTS.
 * tb_shm_piece: the piece a ring carries for a range of len bytes, the
 * same on both sides of the edge (a shared-memory edge ignores the spec's
 * segment and its own): an eighth of the range (so that copy-in and
 * copy-out overlap even for a short range), in 4 KiB steps, between
 * TB_SHM_MIN_PIECE and one slot.
 * \return bytes. */
#define TB_SHM_SLOTS 8
#define TB_SHM_SLOT_BYTES ((size_t)64 * 1024)
#define TB_SHM_MIN_PIECE ((size_t)8 * 1024)
static inline size_t tb_shm_piece(size_t len)
{
    size_t p = (len / TB_SHM_SLOTS + 4095) & ~(size_t)4095;
    return p < TB_SHM_MIN_PIECE ? TB_SHM_MIN_PIECE : p > TB_SHM_SLOT_BYTES ? TB_SHM_SLOT_BYTES : p;
}

/* \brief How many blocks a circulant exchange cuts n bytes into: one per
 * segment of tb_segment_bytes(spec), blocks of at most
 * TB_XCHG_MAX_BLOCK_BYTES (a block received twice lands in scratch memory
 * of one block), at most TB_XCHG_MAX_BLOCKS of them.
 * \return 1 .. TB_XCHG_MAX_BLOCKS. */
#define TB_XCHG_MAX_BLOCKS (1 << 16)
#define TB_XCHG_MAX_BLOCK_BYTES ((size_t)4 << 20)
static inline int tb_xchg_blocks(const tb_alg_spec *spec, size_t n)
{
    size_t seg = tb_segment_bytes(spec);
    seg = seg < TB_XCHG_MAX_BLOCK_BYTES ? seg : TB_XCHG_MAX_BLOCK_BYTES;
    size_t b = n / seg + (n % seg != 0);
    return b < 1 ? 1 : b > TB_XCHG_MAX_BLOCKS ? TB_XCHG_MAX_BLOCKS : (int)b;
}

/* One rank's part of one tree.  Children reached through shared memory
 * (tb_tree_edge_shm) are not in children[]: the rank writes their pieces
 * once into its ring, for all nshm of them. */
typedef struct tb_sched_tree {
    int parent;             /* -1 at the root and at sources */
    int shm_parent;         /* 1: the parent edge is shared memory (pieces copied out of the parent's ring) */
    int nshm;               /* children reading this rank's ring */
    tb_blocks shm_blocks;   /* the blocks they all receive */
    tb_blocks mine;         /* blocks received from the parent (all at the root and at sources) */
    size_t seg;             /* piece bytes from the parent, 0 = the spec's segment */
    int nchildren;
    int *children;          /* in send order */
    tb_blocks *child_blocks;
    size_t *child_seg;      /* piece bytes to each child, 0 = the spec's; NULL: all 0 */
} tb_sched_tree;

/* What one rank keeps. */
typedef struct tb_schedule {
    tb_alg_spec spec;
    int size, root, me, nblocks;
    int ntrees;
    int shm;                /* the plan has shared-memory edges (on any rank): each run takes an epoch */
    tb_sched_tree tree[TB_MAX_TREES];
    int xchg_first;         /* 1: the exchange steps run before the trees */
    int xperiod;            /* 0: steps are the rounds; q > 0: steps are one period of a circulant (tb_xchg_round) */
    int nsteps;
    tb_xchg_step *steps;
} tb_schedule;

/* \brief Round i of a circulant exchange of nblocks blocks from its period
 * of q steps (tb_plan_xchg_steps of a TB_XCHG_CIRC plan): round i = j q + k
 * moves the period's step k with block indices shifted by j q - x, where x
 * aligns the last block with the last round; a block below 0 is no
 * transfer at all (its peer drops it too), one beyond the last is the last
 * block again (Traff's rule: some ranks get the last block only that way),
 * marked dup where this rank already holds it.
 * \return 1 with *out set (peers -1 where nothing moves), 0 when i is past
 * the last round (nblocks - 1 + q rounds). */
int tb_xchg_round(const tb_xchg_step *period, int q, int nblocks, int i, tb_xchg_step *out);

/* \brief Whether any tree of p has a shared-memory edge.
 * \return 1 or 0. */
int tb_plan_has_shm(const tb_plan *p);
/* \brief Whether every shared-memory edge of p joins two ranks of one
 * node: node_of[r] names rank r's node (equal on one node).
 * \return -1 when all do, else the child rank of the first that does not. */
int tb_plan_shm_outside(const tb_plan *p, const int *node_of);
/* \brief Builds the whole plan of an algorithm (never TB_ALG_DEFAULT) for
 * size ranks from root: its builder from the descriptor table (alg_desc.c).
 * h may be NULL; hierarchical algorithms then treat the communicator as
 * flat.  Pure, deterministic: every rank builds the same plan.  Shared-
 * memory edges (base shm) are refused in a two-tree plan (one ring per
 * rank).
 * \return 0 (release with tb_plan_free), or -1 with err set and nothing
 * allocated. */
int tb_plan_build(tb_plan *p, int size, int root, const tb_alg_spec *spec,
                  const tb_hier *h, char *err, size_t errlen);
/* \brief Frees a plan's arrays and zeroes it.
 * \return nothing. */
void tb_plan_free(tb_plan *p);
/* \brief Exchange steps of rank me, in order (the generator of p->xchg);
 * for TB_XCHG_CIRC one period of q = ceil(log2 norder) rounds, to expand
 * with tb_xchg_round for a block count.
 * \return the count, *steps malloc'd (NULL when 0); -1 on allocation
 * failure. */
int tb_plan_xchg_steps(const tb_plan *p, int me, tb_xchg_step **steps);
/* \brief rank's position in the exchange order of p.
 * \return v with p->order[v] == rank, or -1 (also without an order). */
int tb_plan_position(const tb_plan *p, int rank);
/* \brief Rank me's schedule from a plan: per tree its parent, children
 * with their blocks and segments, then the exchange steps; spec is kept in
 * it.
 * \return 0 (release with tb_schedule_free), or -1 on allocation failure
 * (*s then empty). */
int tb_schedule_from_plan(tb_schedule *s, const tb_plan *p, int me, const tb_alg_spec *spec);
/* \brief Whether spec's plan for root r is its plan for root 0 with every
 * rank x renumbered (x + r) mod size: the builders of the plain trees, dbt,
 * bine, split_binary, scatter_allgather (not with ring=distance) and
 * circulant number ranks from the root and read no topology (descriptor
 * table, alg_desc.c; test_plans checks it for every root and size up to
 * 64).  One plan then serves every root: tb_schedule_rotated.
 * \return 1 or 0. */
int tb_plan_rotates(const tb_alg_spec *spec);
/* \brief Rank me's schedule for root, from p0, spec's plan for root 0
 * (tb_plan_rotates(spec) must hold): the schedule of rank (me - root) mod
 * size in p0, its peers renumbered.  Equal to the schedule built for root,
 * at the cost of what me keeps (O(P) only for a ring's steps) instead of a
 * whole plan's build.
 * \return 0 (release with tb_schedule_free), or -1 on allocation failure
 * (*s then empty). */
int tb_schedule_rotated(tb_schedule *s, const tb_plan *p0, int root, int me, const tb_alg_spec *spec);
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
