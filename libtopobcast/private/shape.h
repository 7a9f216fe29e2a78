/* A communicator's shape: what the selection table may key on besides its
 * size (config/README.md, "Shape keys").  A pure function of the
 * communicator's hierarchy (hier.h) and of which node each rank is on, both
 * of which every rank holds identically (the hierarchy is derived from the
 * allgathered identities and the agreed configuration, the node ids come
 * from the same allgather), so every rank of a communicator derives the
 * same shape and the table's decision stays collective.
 *
 * Levels are numbered by the configuration's level list (its topology's
 * levels, or node/package/numa without one: tb_config_level_names), so a
 * shape is compared with rules as integers, not names. */
#ifndef TB_SHAPE_H
#define TB_SHAPE_H

#include <stddef.h>

#include "hier.h"

struct tb_config;

/* Bit of tb_shape.levels for a hierarchy level that is not in the
 * configuration's list: such a shape matches no rule with `levels:`. */
#define TB_SHAPE_LEVEL_OTHER (1u << TB_MAX_LEVELS)

typedef struct tb_shape {
    int size;                   /* ranks */
    int nodes;                  /* shared-memory nodes it spans; 0: unknown */
    int ppn_min, ppn_max;       /* fewest and most ranks on one of its nodes; 0: unknown */
    int consecutive;            /* 1: each node's ranks are consecutive ranks; 0: not; -1: unknown */
    unsigned levels;            /* bit l: level l of the configuration's list is in its hierarchy */
    int ngroups[TB_MAX_LEVELS]; /* groups at level l of the list; 0 when not in its hierarchy */
} tb_shape;

/* \brief A shape of which only the size is known (nodes, ppn, consecutive
 * and levels unknown): it matches the rules without shape keys only.
 * \return nothing. */
void tb_shape_unknown(tb_shape *s, int size);

/* \brief The shape of a communicator of size ranks whose hierarchy is h
 * (NULL or empty: no levels) and whose rank r is on node node_of[r] (any
 * integers, equal for ranks of one node), its levels numbered by cfg's
 * level list (tb_config_level_names).  Deterministic: equal inputs give
 * equal shapes on every rank.
 * \return 0, or -1 on bad arguments or allocation failure (*s is then the
 * tb_shape_unknown shape). */
int tb_shape_derive(const tb_hier *h, const int *node_of, int size, const struct tb_config *cfg, tb_shape *s);

/* \brief The shape as one line of words without commas, for CSV files and
 * reports: "size=512 nodes=64 ppn=8-8 consecutive=no levels=island/node/socket
 * groups=2/32/64" (ppn as min-max, groups per level of `levels`).
 * \return the length written (snprintf's). */
int tb_shape_format(const tb_shape *s, const struct tb_config *cfg, char *buf, size_t len);

/* \brief Parses tb_shape_format's text back (words in any order, each at
 * most once; levels named by cfg's list).
 * \return 0, or -1 with why in err. */
int tb_shape_parse(const char *text, const struct tb_config *cfg, tb_shape *s, char *err, size_t errlen);

#endif
