/* The YAML configuration: a measured topology (topo.h) and a
 * selection table.  Schema: config/README.md.  Parsed with libyaml,
 * validated fully at load time so that every rank either has a usable
 * config or a reason why not. */
#ifndef TB_CONFIG_H
#define TB_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "algorithm.h"
#include "hash.h"
#include "hier.h"
#include "shape.h"
#include "topo.h"

/* A rule's shape keys (config/README.md, "Shape keys"), compared with a
 * tb_shape; tb_shape_cond_any's values match every shape, unknown ones
 * included. */
typedef struct tb_shape_cond {
    long nodes_lo, nodes_hi;   /* nodes: LO-HI; any: 0-LONG_MAX */
    long ppn_lo, ppn_hi;       /* ppn: every node's rank count in LO-HI; any: 0-LONG_MAX */
    long pmax_lo, pmax_hi;     /* ppn_max: the fullest node's rank count in LO-HI; any: 0-LONG_MAX */
    int consecutive;           /* consecutive: -1 any, 0 no, 1 yes */
    int has_levels;            /* levels: given, then the shape's levels must equal `levels` */
    unsigned levels;           /* bit l: level l of the configuration's list */
    long groups_lo[TB_MAX_LEVELS], groups_hi[TB_MAX_LEVELS]; /* groups: per level; any: 0-LONG_MAX */
} tb_shape_cond;

typedef struct tb_rule {
    long comm_lo, comm_hi;     /* communicator size range, inclusive; comm_hi = LONG_MAX for inf */
    size_t msg_lo, msg_hi;     /* message bytes, inclusive; msg_hi = SIZE_MAX for inf */
    tb_shape_cond shape;       /* the communicator's shape */
    tb_alg_spec spec;
    int line;                  /* line in the file, for messages and stats */
} tb_rule;

typedef struct tb_config {
    char source[512];          /* file name, or "<built-in>" */
    uint64_t hash;             /* of the file's bytes; equal files hash equal */
    int has_topology;
    tb_topology topo;
    int nrules;
    tb_rule *rules;            /* first match wins; the last rule always matches */
} tb_config;

/* \brief Loads and validates a configuration file into *cfg.  Only a
 * regular file of at most tb_config_max_bytes(NULL) is read; anything else
 * (directory, device, FIFO, socket, larger file) fails at once, without
 * blocking.
 * \return 0 (release with tb_config_free), or -1 with nothing allocated and
 * err = "FILE:LINE:COLUMN: what was expected". */
int tb_config_load(const char *path, tb_config *cfg, char *err, size_t errlen);
/* \brief The reading half of tb_config_load: the whole of a regular file
 * of at most max bytes, opened non-blocking (a FIFO cannot block it),
 * refused before the first read when not a regular file, and never read
 * past max + 1 bytes even if it grows meanwhile.
 * \return a malloc'd buffer of *len bytes (NUL-terminated), or NULL with
 * err = "PATH: expected ...". */
char *tb_config_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* \brief The size check of tb_config_read_file: a file of size bytes
 * against the limit max.
 * \return 0, or -1 with err = "PATH: expected at most MAX bytes
 * (TOPOBCAST_CONFIG_MAX_BYTES), the file has SIZE". */
int tb_config_check_size(const char *path, unsigned long long size, size_t max, char *err, size_t errlen);
/* Default of TOPOBCAST_CONFIG_MAX_BYTES. */
#define TB_CONFIG_MAX_BYTES_DEFAULT ((size_t)64 << 20)
/* \brief The largest file tb_config_load reads: TOPOBCAST_CONFIG_MAX_BYTES,
 * or the default when it is unset or not a size; *bad (unless NULL) says
 * the latter (the library's settings then say so once, by world rank 0, as
 * for every bad knob).
 * \return that many bytes. */
size_t tb_config_max_bytes(int *bad);
/* \brief tb_config_load from len bytes in memory, called name in messages
 * (the fuzzer and the tests).
 * \return as tb_config_load. */
int tb_config_load_buffer(const char *data, size_t len, const char *name, tb_config *cfg, char *err,
                          size_t errlen);
/* \brief The conservative built-in table used without TOPOBCAST_CONFIG (no
 * topology, "<built-in>" as source).
 * \return nothing; out of memory leaves cfg with no rules, which selects
 * nothing (the callers then use MPI_Bcast). */
void tb_config_builtin(tb_config *cfg);
/* \brief Frees what a load or tb_config_builtin allocated and zeroes *cfg.
 * \return nothing. */
void tb_config_free(tb_config *cfg);
/* \brief The first rule matching (communicator shape, bytes); the
 * communicator's size is shape->size (tb_shape_unknown for a size alone).
 * \return the rule (never NULL for a loaded configuration, whose last rule
 * matches everything) with its position in *index (if not NULL); NULL and
 * *index = -1 when none matches. */
const tb_rule *tb_config_select(const tb_config *cfg, const tb_shape *shape, size_t bytes, int *index);
/* \brief The largest B such that every message of 1..B bytes on a
 * communicator of this shape selects default (MPI_Bcast).  Lets the
 * dispatch decide small calls with one comparison.
 * \return B: 0 if 1 byte already selects another algorithm, SIZE_MAX if
 * every size selects default. */
size_t tb_config_default_upto(const tb_config *cfg, const tb_shape *shape);
/* \brief The same for every shape a communicator of `size` ranks may have:
 * the largest B such that 1..B bytes select default whatever the shape, so
 * that a call of at most B bytes needs neither the communicator's
 * hierarchy nor its shape.
 * \return B (at most tb_config_default_upto of any shape of that size). */
size_t tb_config_default_upto_any(const tb_config *cfg, long size);
/* \brief The level list rule keys and shapes number levels by: the
 * topology's levels, or node, package, numa (the zero-configuration
 * hierarchy's) without one.
 * \return the number of names, *names pointing at them (valid while cfg
 * lives). */
int tb_config_level_names(const tb_config *cfg, const char (**names)[TB_LEVEL_NAME_MAX]);
/* \brief Sets c to match every shape (a rule without shape keys).
 * \return nothing. */
void tb_shape_cond_any(tb_shape_cond *c);
/* \brief Whether two rules' shape keys are the same.
 * \return 1 or 0. */
int tb_shape_cond_equal(const tb_shape_cond *a, const tb_shape_cond *b);
/* \brief Whether a rule's shape keys accept shape s.
 * \return 1 or 0. */
int tb_shape_cond_matches(const tb_shape_cond *c, const tb_shape *s);

/* Table checks applied by the loader (also usable by the tuner before it
 * writes a table). */
/* \brief Whether the rule matches every (communicator shape, bytes): no
 * comm, bytes or shape keys that restrict anything.
 * \return 1 or 0. */
int tb_rule_matches_all(const tb_rule *r);
/* \brief Whether every case rules[i] matches is already matched by
 * rules[0..i), so it can never fire (first match wins).  Every key is an
 * axis (size, bytes, nodes, fewest and most ranks per node, consecutive,
 * the level set, groups per level) and a rule a box; the rule is shadowed
 * when the earlier boxes cover its box (a sufficient test: the axes are
 * treated as independent, so a rule is never refused by mistake).
 * \return 1 if shadowed; 0 if not, for i = 0, if memory ran out or if the
 * earlier rules cut its box into more than ~10^6 pieces (the rule is then
 * accepted). */
int tb_rule_is_shadowed(const tb_rule *rules, int i);
/* \brief tb_alg_spec_parse, then (cfg not NULL) checks that every name in
 * levels= is a level of cfg's topology, or of the zero-configuration
 * hierarchy (node, package, numa) when cfg has none, and, without levels=,
 * that a base list and a per-level segment list have no more entries than
 * those levels use (their count + 1, tb_alg_spec_check_bases).
 * \return 0, or -1 with why in err. */
int tb_config_parse_spec(const tb_config *cfg, const char *text, tb_alg_spec *spec, char *err, size_t errlen);
/* \brief The topology of cfg, for tb_topo_derive and the tools.
 * \return &cfg->topo, or NULL when cfg is NULL or has none. */
static inline const tb_topology *tb_config_topology(const tb_config *cfg)
{
    return cfg && cfg->has_topology ? &cfg->topo : NULL;
}
/* \brief The configuration hash of len bytes (FNV-1a).
 * \return the hash: equal files hash equal. */
static inline uint64_t tb_config_hash_bytes(const void *data, size_t len)
{
    return tb_hash_bytes(TB_FNV_BASIS, data, len);
}

#endif
