/* From measurements to the selection table of config/README.md: pick a
 * winner per (communicator, message size), keeping `default` where it wins
 * or ties within noise; merge adjacent message sizes with the same winner
 * into ranges; key the rules on each measured communicator's shape class
 * and size, with a block per kind of shape for the shapes not timed; write
 * the YAML (with the topology the run used, so one file serves both) and
 * check that it loads and selects what was measured. */
#ifndef TN_TUNER_TABLE_H
#define TN_TUNER_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "candidates.h"
#include "config.h"
#include "results.h"
#include "options.h" /* TN_MAX_COMMS */
#include "shapes.h"

/* \brief A range of counts as a rule key writes it: "2-inf" (hi
 * LONG_MAX), "1", "2-16".
 * \return nothing; buf holds the text. */
void tn_count_range(long lo, long hi, char *buf, size_t len);

/* Winner among n measured records of one (comm, bytes).  default wins if
 * its score is within a factor (1 + tie) of the best or the two
 * interquartile ranges overlap; otherwise the previous size's winner
 * (prev, may be NULL) if measured here and within (1 + tie) of the best,
 * so the table does not alternate between near-equals; otherwise the best.
 * Records with status != OK never win.  Returns the index, or -1 if none
 * is usable. */
int tn_table_pick(const tn_result *const *r, int n, const char *prev, double tie);

typedef struct tn_table_range {
    size_t lo, hi;           /* inclusive; hi = SIZE_MAX for inf */
    char spec[TN_CAND_TEXT];
} tn_table_range;

/* One measured communicator: its shape and its winners as size ranges. */
typedef struct tn_table_comm {
    char label[TN_SHAPE_LABEL]; /* "job", "one-per-node" ... (shapes.h) */
    tb_shape shape;             /* the library's shape of it */
    int measured;               /* its size */
    int nranges;
    tn_table_range *ranges;
} tn_table_comm;

/* One rule of the table, the final default excepted. */
typedef struct tn_table_rule {
    char comment[512];          /* YAML comment lines written before it ("" none; '\n' between lines) */
    long clo, chi;              /* communicator sizes, inclusive; chi = LONG_MAX for inf */
    tb_shape_cond cond;         /* its shape keys */
    size_t lo, hi;              /* message bytes, inclusive; hi = SIZE_MAX for inf */
    char spec[TN_CAND_TEXT];
} tn_table_rule;

typedef struct tn_table {
    int site;                   /* a site's table (tn_table_build_blocks): its last rule serves every other shape */
    int ncomm;
    tn_table_comm *comm;        /* the run's communicators, in its order */
    int nrules;
    tn_table_rule *rule;        /* tn_table_build's */
} tn_table;

/* Kinds of shape a table has a block for (bits of tn_table_build's kinds). */
enum { TN_KIND_SINGLE_NODE, TN_KIND_ONE_PER_NODE, TN_KIND_MULTI_NODE, TN_KIND_COUNT };

/* \brief The kind of a shape: all on one node, one rank per node, or
 *        several nodes with several ranks on some.
 * \return a TN_KIND_* value. */
int tn_table_kind(const tb_shape *s);

/* \brief The kinds of sub-communicator a job of this shape can have (one
 *        node: only with 2+ ranks on a node; one per node and several nodes
 *        with 2+ nodes; several ranks on some of several nodes: also 2+
 *        ranks on a node).
 * \return bits (1 << TN_KIND_*). */
unsigned tn_table_kinds_of_job(const tb_shape *job);

/* Communicator ranges for the measured sizes (any order, duplicates
 * ignored): the largest applies up to inf, the boundaries lie at the
 * geometric means of neighbours, the smallest reaches down to half its
 * size (but not below 2).  out[] receives the distinct sizes, largest
 * first; returns their count. */
int tn_table_comm_ranges(const int *sizes, int n, int *out, long *lo, long *hi);

/* Message-size ranges for one communicator: winners[i] at sizes[i]
 * (ascending); adjacent equal winners merge; boundaries at the geometric
 * means of neighbouring sizes; the first range starts at 0, the last ends
 * at inf.  Returns 0 or -1 (allocation). */
int tn_table_merge(const size_t *sizes, const char (*winners)[TN_CAND_TEXT], int n, tn_table_comm *out);

/* \brief The rules of t's measured communicators (t->comm), keyed by
 *        shape (config/README.md; levels numbered by cfg's list):
 *        1. one block per shape class measured -- its kind (nodes: 1;
 *           ppn: 1; ppn: 2-inf) and its levels -- the class's measured
 *           sizes ranged as tn_table_comm_ranges does, for the kinds
 *           measured in more than one class;
 *        2. for each kind in `kinds` (the job can have it), a block of the
 *           kind alone (nodes: 1; ppn: 1; nodes: 2-inf, in that order),
 *           every size from 2 up given to the nearest measured size of
 *           that kind, or of any kind when none was measured: the nearest
 *           measured shape class for every shape that was not timed.
 *        A block whose communicators all span several nodes, several ranks
 *        on some, each a different number of nodes, is ranged by nodes
 *        instead of sizes (nodes keys, no comm key): a job of another size
 *        keeps its nodes (64 ranks may be 64 nodes x 1 or 4 x 16).
 *        Rules that earlier ones shadow are left out.
 * \return 0, or -1 out of memory. */
int tn_table_build(tn_table *t, const tb_config *cfg, unsigned kinds);

/* One block of shape-keyed rules (a site table's cell, merged): its keys,
 * its message-size ranges and their winners, a comment for its first
 * rule. */
typedef struct tn_table_block {
    tb_shape_cond cond;
    const tn_table_range *r;
    int nr;
    char comment[256];
} tn_table_block;

/* \brief t->rule: the ranges of blocks b[0..n) under their keys, in order,
 *        without a comm key; ranges whose winner is default left out when
 *        skip_default (the last rule sends them to default), and rules that
 *        earlier ones shadow.
 * \return 0, or -1 out of memory. */
int tn_table_build_blocks(tn_table *t, const tn_table_block *b, int n, int skip_default);

void tn_table_free(tn_table *t);

/* \brief Shape keys as YAML flow-map entries, e.g. "ppn: 1, levels:
 *        island/node" ("" when c matches every shape); levels named by
 *        cfg's list.
 * \return the length written. */
int tn_table_cond_keys(const tb_shape_cond *c, const tb_config *cfg, char *buf, size_t len);

/* \brief Writes the YAML: t's rules, then {algorithm: default} (reached by
 *        1-rank communicators only when every kind has a block).  topo may
 *        be NULL (no topology section: zero configuration hierarchies); cfg
 *        names the levels of `levels:` keys (NULL: zero configuration);
 *        meta: "key: value" pairs already formatted as YAML flow-map
 *        entries (may be NULL).
 * \return 0, or -1 on a write error. */
int tn_table_write(FILE *f, const tn_table *t, const tb_config *cfg, const tb_topology *topo, const char *meta);

/* \brief Loads path with tb_config_load and checks that every measured
 *        communicator's shape selects its winner at every size.
 * \return 0, or -1 with err describing the first mismatch or the
 *         loader's message. */
int tn_table_verify(const char *path, const tn_table *t, const size_t *sizes, int nsizes, char *err,
                    size_t errlen);

#endif
