/* The YAML configuration: a measured topology and a selection table.
 * Schema: config/README.md.  Parsed with libyaml, validated fully at load
 * time so that every rank either has a usable config or a reason why not. */
#ifndef TB_CONFIG_H
#define TB_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "algorithm.h"
#include "hash.h"
#include "hier.h"

typedef struct tb_topo_leaf {
    char host[256];
    int pu;        /* hwloc PU logical index the rank was bound to, -1 unknown */
    int core, package, numa; /* recorded ground truth, -1 unknown */
    int rank;      /* rank in the calibration job */
} tb_topo_leaf;

typedef struct tb_topology {
    int nlevels;                          /* coarsest first */
    char (*level_name)[TB_LEVEL_NAME_MAX];
    int nleaves;
    tb_topo_leaf *leaves;                 /* indexed by calibration rank */
    int *ngroups;                         /* per level */
    int **group;                          /* group[l][leaf] */
    double *dist;                         /* nleaves*nleaves or NULL */
    int nprocs;                           /* fingerprint: process count */
    int nhosts;
    char (*hosts)[256];                   /* fingerprint: host list */
} tb_topology;

typedef struct tb_rule {
    long comm_lo, comm_hi;     /* communicator size range, inclusive; comm_hi = LONG_MAX for inf */
    size_t msg_lo, msg_hi;     /* message bytes, inclusive; msg_hi = SIZE_MAX for inf */
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

/* Loads and validates a file.  On error returns -1 and err holds
 * "FILE:LINE:COLUMN: what was expected".  Only a regular file of at most
 * tb_config_max_bytes() is read; anything else (directory, device, FIFO,
 * socket, larger file) fails at once, without blocking. */
int tb_config_load(const char *path, tb_config *cfg, char *err, size_t errlen);
/* Default of TOPOBCAST_CONFIG_MAX_BYTES. */
#define TB_CONFIG_MAX_BYTES_DEFAULT ((size_t)64 << 20)
/* The largest file tb_config_load reads: TOPOBCAST_CONFIG_MAX_BYTES, or the
 * default.  Returns -1 (err set, *out = default) if the knob is not a size. */
int tb_config_max_bytes(size_t *out, char *err, size_t errlen);
/* Same from memory (name used in messages); used by the fuzzer and tests. */
int tb_config_load_buffer(const char *data, size_t len, const char *name, tb_config *cfg, char *err,
                          size_t errlen);
/* The conservative built-in table used without TOPOBCAST_CONFIG. */
void tb_config_builtin(tb_config *cfg);
void tb_config_free(tb_config *cfg);
/* First rule matching (communicator size, bytes); never NULL for a loaded
 * config.  *index receives the rule's position. */
const tb_rule *tb_config_select(const tb_config *cfg, int comm_size, size_t bytes, int *index);
/* The largest B such that every message of 1..B bytes on a communicator of
 * comm_size selects default (MPI_Bcast): 0 if 1 byte already selects another
 * algorithm, SIZE_MAX if every size selects default.  Lets the dispatch
 * decide small calls with one comparison. */
size_t tb_config_default_upto(const tb_config *cfg, int comm_size);

/* Table checks applied by the loader (also usable by the tuner before it
 * writes a table): the rule matches every (comm, bytes); every case rule i
 * matches is already matched by rules[0..i) (so it can never fire). */
int tb_rule_matches_all(const tb_rule *r);
int tb_rule_is_shadowed(const tb_rule *rules, int i);
/* tb_alg_spec_parse, then (cfg not NULL) every name in levels= must be a
 * level of cfg's topology, or of the zero-configuration hierarchy without
 * one.  -1 and why in err otherwise. */
int tb_config_parse_spec(const tb_config *cfg, const char *text, tb_alg_spec *spec, char *err, size_t errlen);
/* The configuration hash of len bytes (FNV-1a): equal files hash equal. */
static inline uint64_t tb_config_hash_bytes(const void *data, size_t len)
{
    return tb_hash_bytes(TB_FNV_BASIS, data, len);
}

#endif
