/* One descriptor per broadcast algorithm: its name, the parameters it
 * accepts, its defaults, and how its plan is built.  Adding an algorithm
 * means one enum value (algorithm.h), one row in alg_desc.c and one builder
 * file; everything else (parsing, defaults, which algorithms can be a
 * level's base, plan building) reads the table. */
#ifndef TB_ALG_DESC_H
#define TB_ALG_DESC_H

#include "plan/builders.h"

/* Parameter keys an algorithm accepts ("name:key=value,..."). */
enum {
    TB_PARAM_SEGMENT = 1 << 0,
    TB_PARAM_SEND = 1 << 1,
    TB_PARAM_OUTSTANDING = 1 << 2,
    TB_PARAM_CHAINS = 1 << 3,
    TB_PARAM_RADIX = 1 << 4,
    TB_PARAM_ALLGATHER = 1 << 5,
    TB_PARAM_RING = 1 << 6,
    TB_PARAM_LEVELS = 1 << 7,
    TB_PARAM_BASE = 1 << 8,
    TB_PARAM_FEEDS = 1 << 9,
    TB_PARAM_LEADERS = 1 << 10,
};
/* What every tree-shaped algorithm accepts: pipelining and send mode. */
#define TB_PARAM_TREE (TB_PARAM_SEGMENT | TB_PARAM_SEND | TB_PARAM_OUTSTANDING)

/* Builds an algorithm's whole-communicator plan; 0, or -1 with err set. */
typedef int (*tb_plan_builder)(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h,
                               const tb_plan_env *env, char *err, size_t errlen);

typedef struct tb_alg_desc {
    const char *name;
    unsigned params;      /* TB_PARAM_* */
    size_t segment;       /* default segment bytes (0: whole message) */
    tb_alg_id base;       /* hierarchical: default base of every level (TB_ALG_DEFAULT: none) */
    tb_tree_builder tree; /* one tree over a member list; non-NULL = usable as a level's base */
    tb_plan_builder plan; /* whole plan; NULL = the tree(s) of `tree` over the communicator */
    int ntrees;           /* trees of `tree` in one plan, each with its share of the blocks (0: 1) */
    tb_xchg_kind level_xchg; /* an exchange among a level's leaders that can be the coarsest level's base */
    int rotates;          /* 1: the plan for root r is the plan for root 0 with every rank x renumbered
                             (x + r) mod size (the builder numbers ranks from the root and reads no
                             topology; ring=distance aside): tb_plan_rotates */
} tb_alg_desc;

/* The descriptor of id, or NULL if id is out of range.  TB_ALG_DEFAULT
 * (the MPI library's own MPI_Bcast) has neither tree nor plan. */
const tb_alg_desc *tb_alg_desc_of(tb_alg_id id);
/* \brief The base builder of an algorithm, usable as a level's fan-out
 * (from the descriptor table, alg_desc.c).
 * \return the builder, or NULL if id has none (default, split_binary,
 * scatter_allgather, the hierarchical ones) or is out of range. */
tb_tree_builder tb_tree_builder_for(tb_alg_id id);
/* tb_alg_ntrees (trees of a base): algorithm.h, the tools read it too. */
/* \brief The exchange id runs among a level's leaders when it is that
 * level's base (circulant).
 * \return the kind, or TB_XCHG_NONE. */
tb_xchg_kind tb_alg_level_xchg(tb_alg_id id);
/* \brief Whether id may be named in base= (a tree builder or a leaders'
 * exchange).
 * \return 1 or 0. */
int tb_alg_desc_is_base(tb_alg_id id);

#endif
