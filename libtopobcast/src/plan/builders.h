/* The builders behind the descriptor table (alg_desc.c): one tree builder
 * per tree_*.c, one plan builder per plan_*.c, one exchange-step generator
 * per xchg_*.c.  Library-only (the tools build plans through tb_plan_build). */
#ifndef TB_BUILDERS_H
#define TB_BUILDERS_H

#include "schedule.h"

/* Tree builders, one file each (tree_*.c; each file's header gives its
 * costs and an example that test/unit/test_trees.c checks).
 * \brief Adds to t (initialised over the whole communicator) the edges of
 * one tree over members[0..k) (global ranks, none attached yet), rooted at
 * members[root_index], every edge carrying blocks [lo, hi); virtual rank v
 * is tb_tree_member_at(members, k, root_index, v).  Hierarchical builders
 * compose them.
 * \return 0, or -1 on bad k or root_index or if an edge cannot be added. */
typedef int (*tb_tree_builder)(tb_tree *t, const int *members, int k, int root_index,
                               const tb_alg_spec *spec, int lo, int hi);
/* \brief The root sends to every member.  \return as tb_tree_builder. */
int tb_tree_flat_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief spec->chains chains off the root.  \return as tb_tree_builder. */
int tb_tree_chain_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief Complete binary tree.  \return as tb_tree_builder. */
int tb_tree_binary_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief Binomial tree, largest subtree first.  \return as tb_tree_builder. */
int tb_tree_binomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief k-nomial tree of radix spec->radix (4 when unset).
 * \return as tb_tree_builder. */
int tb_tree_knomial_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief Tree spec->tree_index (0 or 1) of a double binary tree: the root
 * sends to the top of an in-order binary tree over the other members, the
 * second tree mirrored or shifted so that no member is inner in both.
 * \return as tb_tree_builder. */
int tb_tree_dbt_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief Bine tree: binomial over negabinary distances (peers at +-1, 1,
 * 3, 5, 11 ... ranks), largest subtree first.  \return as tb_tree_builder. */
int tb_tree_bine_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief Shared-memory stage: flat from the leader, every edge marked
 * shared-memory (the leader writes each piece once into its node ring,
 * the members copy it out).  \return as tb_tree_builder. */
int tb_tree_shm_build(tb_tree *t, const int *members, int k, int root_index, const tb_alg_spec *spec, int lo, int hi);
/* \brief The binomial tree over virtual ranks 0..k-1 (0 the root), in send
 * order: visit(ctx, v, c, m) for each edge v -> c = v + m, largest subtree
 * first.  Shared by the binomial tree and the scatter of scatter_allgather.
 * \return 0, or -1 at the first visit that returns non-zero (then stops). */
typedef int (*tb_binomial_visit)(void *ctx, int v, int c, int m);
int tb_binomial_walk(int k, tb_binomial_visit visit, void *ctx);

/* What a plan builder may ask of the algorithm table above it (names,
 * defaults, base tree builders).  tb_plan_build passes it down, so that no
 * builder calls up into the table that points to it: the library's call
 * graph stays acyclic (test/layout/call_cycles.sh). */
typedef struct tb_plan_env {
    const char *(*name)(tb_alg_id id);
    tb_tree_builder (*tree_builder)(tb_alg_id id); /* NULL: cannot be a level's base */
    void (*spec_default)(tb_alg_spec *s, tb_alg_id id);
    int (*ntrees)(tb_alg_id id);                  /* trees a base makes (dbt: 2) */
    tb_xchg_kind (*level_xchg)(tb_alg_id id);     /* a leaders' exchange base (circulant) */
} tb_plan_env;

/* Plan builders for the algorithms that are more than one base tree, one
 * file each (plan_*.c; each file's header gives its costs and an example
 * that test/unit/test_plans.c or test_hier_trees.c checks).
 * \brief Fill p (zeroed by tb_plan_build, which frees it again on failure)
 * with the tree, exchange kind and order or partners for size ranks from
 * root; h may be NULL; env gives what the builder needs of the table.
 * \return 0, or -1 with err set. */
/* \brief Two binary trees of half the message each, then pair exchange.
 * \return as above. */
int tb_plan_split_binary(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen);
/* \brief Binomial scatter of one block per rank, then ring or recursive
 * doubling allgather.  \return as above. */
int tb_plan_scatter_allgather(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen);
/* \brief magpie, magpie2, interpipe: base trees composed level by level.
 * \return as above. */
int tb_plan_hierarchical(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen);
/* \brief circulant: Traff's round-optimal circulant-graph broadcast among
 * all ranks (exchange only; every non-root rank a source of an empty tree).
 * \return as above. */
int tb_plan_circulant(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                      const tb_plan_env *env, char *err, size_t errlen);
/* \brief distance_tree: the minimum spanning tree of the distances grown
 * from the root.  \return as above. */
int tb_plan_distance_tree(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                         const tb_plan_env *env, char *err, size_t errlen);
/* Exchange-step generators, one per tb_xchg_kind (xchg_*.c; costs and a
 * checked example in each file's header).
 * \brief Rank me's steps of p's exchange, in order.
 * \return the count, *steps malloc'd (NULL when 0), or -1 on allocation
 * failure. */
/* \brief Ring allgather over p->order.  \return as above. */
int tb_xchg_ring_steps(const tb_plan *p, int me, tb_xchg_step **steps);
/* \brief Recursive doubling (dissemination when P is not a power of two)
 * over p->order.  \return as above. */
int tb_xchg_rdbl_steps(const tb_plan *p, int me, tb_xchg_step **steps);
/* \brief Swap of halves between p->partner pairs; the root completes an
 * unpaired rank.  \return as above. */
int tb_xchg_pair_steps(const tb_plan *p, int me, tb_xchg_step **steps);
/* \brief One period (ceil(log2 norder) rounds) of the circulant broadcast
 * among p->order[0..norder), block indices relative to the period
 * (tb_xchg_round expands them).  \return as above. */
int tb_xchg_circ_steps(const tb_plan *p, int me, tb_xchg_step **steps);

#endif
