/* Algorithm names, their parameters, and the "name:key=value,..." syntax
 * used by TOPOBCAST_ALGORITHM, the selection table and the tools. */
#ifndef TB_ALGORITHM_H
#define TB_ALGORITHM_H

#include <stddef.h>
#include <stdint.h>

#include "hier.h" /* TB_MAX_LEVELS */

typedef enum tb_alg_id {
    TB_ALG_DEFAULT = 0, /* PMPI_Bcast */
    TB_ALG_FLAT,
    TB_ALG_CHAIN,
    TB_ALG_BINARY,
    TB_ALG_SPLIT_BINARY,
    TB_ALG_BINOMIAL,
    TB_ALG_KNOMIAL,
    TB_ALG_PIPELINE,
    TB_ALG_SCATTER_ALLGATHER,
    TB_ALG_MAGPIE,
    TB_ALG_MAGPIE2,
    TB_ALG_INTERPIPE,
    TB_ALG_DISTANCE_TREE,
    TB_ALG_DBT,
    TB_ALG_BINE,
    TB_ALG_CIRCULANT,
    TB_ALG_SHM,
    TB_ALG_COUNT
} tb_alg_id;

enum { TB_AG_RING = 0, TB_AG_RECURSIVE_DOUBLING = 1 };
enum { TB_RING_RANK = 0, TB_RING_DISTANCE = 1 };

/* feeds=F of magpie2 / interpipe: at most this many entries per finest group */
#define TB_MAX_FEEDS 16
/* leaders=L of magpie2 / interpipe: 1 (one per group) or 2 (one per tree) */
#define TB_MAX_LEADERS 2

typedef struct tb_alg_spec {
    tb_alg_id id;
    size_t segment;   /* bytes per pipeline segment; 0 = whole message (per-level: the coarsest level's) */
    int nlevel_seg;   /* 0, or >= 2 per-level segments (segment=A/B/...), coarsest first, the last for every finer level */
    size_t level_seg[TB_MAX_LEVELS]; /* level_seg[0] == segment */
    int nonblocking;  /* 1: MPI_Isend with at most `outstanding` in flight */
    int outstanding;
    int chains;       /* chain: number of chains hanging off the root */
    int radix;        /* knomial */
    int allgather;    /* scatter_allgather: TB_AG_* */
    int ring;         /* scatter_allgather: TB_RING_* */
    /* hierarchical algorithms */
    char levels[64];  /* '/'-separated level names to use ("" = all levels) */
    int nbase;        /* 0: default base; 1: one base for every level; else per level, coarsest first */
    tb_alg_id base[TB_MAX_LEVELS];
    int feeds;        /* magpie2, interpipe: ranks of each finest group fed from outside it (1: its leader) */
    int leaders;      /* magpie2, interpipe: 2 = a two-tree plan's second tree enters each group at its last rank */
    /* not a parameter (never parsed, printed, hashed or compared): which
     * tree of a two-tree plan a base builder is making, 0 or 1, set by the
     * plan builders on their copy of a base's spec */
    int tree_index;
} tb_alg_spec;

/* \brief The segment of level j (0 = coarsest) of a hierarchical spec:
 * its per-level segment, the last one for finer levels, or spec->segment.
 * \return bytes (0 = whole message). */
static inline size_t tb_alg_level_segment(const tb_alg_spec *s, int j)
{
    if (s->nlevel_seg < 2)
        return s->segment;
    return s->level_seg[j < s->nlevel_seg ? j : s->nlevel_seg - 1];
}

/* \brief The name of an algorithm, as TOPOBCAST_ALGORITHM spells it.
 * \return a static string; "?" for an id out of range. */
const char *tb_alg_name(tb_alg_id id);
/* \brief The algorithm called name (exact, case-sensitive).
 * \return its tb_alg_id, or -1 if no algorithm has that name. */
int tb_alg_lookup(const char *name);
/* \brief Trees one plan of id holds when id is a level's base (dbt: 2; a
 * plan of two trees refuses shm as a base, tb_plan_build).
 * \return 1 or 2; 1 for ids out of range. */
int tb_alg_ntrees(tb_alg_id id);
/* \brief Sets *s to id with its defaults (segment for pipeline and
 * interpipe, radix 4, chains 1, non-blocking sends, 8 outstanding, the
 * descriptor's level base ...).
 * \return nothing; *s is fully written. */
void tb_alg_spec_default(tb_alg_spec *s, tb_alg_id id);
/* \brief Whether a spec runs a shared-memory stage: shm itself, or shm as
 * a level's base of an algorithm that takes base=.
 * \return 1 or 0. */
int tb_alg_spec_uses_shm(const tb_alg_spec *s);
/* \brief The spec that runs where shared memory cannot: s with binomial
 * in place of every shm (the algorithm and its bases), other parameters
 * kept.
 * \return nothing; *out is fully written (a copy of s when it has no shm). */
void tb_alg_spec_without_shm(const tb_alg_spec *s, tb_alg_spec *out);
/* \brief Parses "name[:key=value,...]" into *out (defaults for what is not
 * given).  Level names in levels= are not checked here (tb_config_parse_spec).
 * \return 0, or -1 with a message in err naming the offending part and what
 * was expected. */
int tb_alg_spec_parse(const char *text, tb_alg_spec *out, char *err, size_t errlen);
/* \brief The rules of a base list (magpie2, interpipe) that hold for any
 *        communicator, so that a spec is refused when parsed rather than
 *        when a plan is built: circulant (an exchange among leaders) only
 *        as the first of two or more bases; shm not with a two-tree base
 *        (dbt); and, when nlevels >= 0 levels are used, at most
 *        nlevels + 1 bases (one per level, then one inside the finest
 *        groups), and as many per-level segments (segment=A/B/...).  what names those levels in the message ("levels=node").
 *        tb_alg_spec_parse applies it (nlevels from levels=, when given).
 * \return 0, or -1 with a message in err. */
int tb_alg_spec_check_bases(const tb_alg_spec *s, int nlevels, const char *what, char *err, size_t errlen);
/* \brief Canonical text of a spec: its name and every parameter that
 * matters for the algorithm, so equal specs print (and hash) equal.
 * \return nothing; buf holds the text, truncated to len - 1 bytes. */
void tb_alg_spec_format(const tb_alg_spec *s, char *buf, size_t len);
/* \brief FNV-1a of the canonical text (tb_alg_spec_format).
 * \return the hash; equal specs hash equal on every rank. */
uint64_t tb_alg_spec_hash(const tb_alg_spec *s);
/* \brief Field-wise equality of two specs (every parameter, levels= and
 * the base list included).
 * \return 1 if equal, else 0. */
int tb_alg_spec_equal(const tb_alg_spec *a, const tb_alg_spec *b);
/* \brief Parses a byte count: digits, an optional fraction, an optional
 * K/M/G suffix (binary units; "Ki" and a trailing "B" accepted: 64K = 64KiB
 * = 64KB = 65536, 1.5K = 1536).  The one size parser of the library and the
 * tools.
 * \return 0 with *out set, or -1 if malformed, not a whole number of bytes,
 * or beyond SIZE_MAX. */
int tb_parse_size(const char *text, size_t *out);
/* \brief Parses a decimal integer (strtol: optional sign, leading blanks,
 * nothing after the digits) that must lie in [lo, hi] and fit an int.  The
 * one integer parser of the library's spec parameters and the probe's
 * options.
 * \return 0 with *out set, or -1 (*out untouched) if malformed, out of
 * range or beyond the range of long. */
int tb_parse_int(const char *text, long lo, long hi, int *out);

#endif
