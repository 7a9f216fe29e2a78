/* From measurements to the selection table of config/README.md: pick a
 * winner per (communicator size, message size), keeping `default` where it
 * wins or ties within noise; merge adjacent message sizes with the same
 * winner into ranges; give each measured communicator size a range of
 * communicator sizes; write the YAML (with the topology the run used, so
 * one file serves both) and check that it loads and selects what was
 * measured. */
#ifndef TN_TUNER_TABLE_H
#define TN_TUNER_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "candidates.h"
#include "config.h"
#include "results.h"

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

typedef struct tn_table_comm {
    int measured;            /* the communicator size that was measured */
    long lo, hi;             /* sizes the rules apply to, inclusive; hi = LONG_MAX for inf */
    int nranges;
    tn_table_range *ranges;
} tn_table_comm;

typedef struct tn_table {
    int ncomm;
    tn_table_comm *comm;     /* largest communicator first */
} tn_table;

/* Communicator ranges for the measured sizes (any order, duplicates
 * ignored): the largest applies up to inf, the boundaries lie at the
 * geometric means of neighbours, the smallest reaches down to half its
 * size (but not below 2); smaller communicators get the final default.
 * out[] receives the distinct sizes, largest first; returns their count. */
int tn_table_comm_ranges(const int *sizes, int n, int *out, long *lo, long *hi);

/* Message-size ranges for one communicator: winners[i] at sizes[i]
 * (ascending); adjacent equal winners merge; boundaries at the geometric
 * means of neighbouring sizes; the first range starts at 0, the last ends
 * at inf.  Returns 0 or -1 (allocation). */
int tn_table_merge(const size_t *sizes, const char (*winners)[TN_CAND_TEXT], int n, tn_table_comm *out);

void tn_table_free(tn_table *t);

/* Writes the YAML.  topo may be NULL (no topology section: zero
 * configuration hierarchies).  meta: "key: value" pairs already formatted
 * as YAML flow-map entries (may be NULL). */
int tn_table_write(FILE *f, const tn_table *t, const tb_topology *topo, const char *meta);

/* Loads path with tb_config_load and checks that every measured (comm,
 * size) selects its winner.  Returns 0, or -1 with err describing the
 * first mismatch or the loader's message. */
int tn_table_verify(const char *path, const tn_table *t, const size_t *sizes, int nsizes, char *err,
                    size_t errlen);

#endif
