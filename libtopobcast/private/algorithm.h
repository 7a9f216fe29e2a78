/* Algorithm names, their parameters, and the "name:key=value,..." syntax
 * used by TOPOBCAST_ALGORITHM, the selection table and the tools. */
#ifndef TB_ALGORITHM_H
#define TB_ALGORITHM_H

#include <stddef.h>
#include <stdint.h>

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
    TB_ALG_COUNT
} tb_alg_id;

enum { TB_AG_RING = 0, TB_AG_RECURSIVE_DOUBLING = 1 };
enum { TB_RING_RANK = 0, TB_RING_DISTANCE = 1 };

#define TB_MAX_LEVELS 8

typedef struct tb_alg_spec {
    tb_alg_id id;
    size_t segment;   /* bytes per pipeline segment; 0 = whole message */
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
} tb_alg_spec;

const char *tb_alg_name(tb_alg_id id);
/* -1 if unknown */
int tb_alg_lookup(const char *name);
/* Defaults for an algorithm (segment for pipeline, radix 4 ...). */
void tb_alg_spec_default(tb_alg_spec *s, tb_alg_id id);
/* Parses "name[:key=value,...]".  Returns 0, or -1 with a message naming
 * the offending part and what was expected. */
int tb_alg_spec_parse(const char *text, tb_alg_spec *out, char *err, size_t errlen);
/* Canonical text of a spec (all parameters that matter for this algorithm),
 * so equal specs print equal and hash equal. */
void tb_alg_spec_format(const tb_alg_spec *s, char *buf, size_t len);
uint64_t tb_alg_spec_hash(const tb_alg_spec *s);
/* Field-wise equality of the parameters that matter for the algorithm. */
int tb_alg_spec_equal(const tb_alg_spec *a, const tb_alg_spec *b);
/* Parses a byte count: digits, an optional fraction, an optional K/M/G
 * suffix (binary units; "Ki" and a trailing "B" accepted: 64K = 64KiB =
 * 64KB = 65536, 1.5K = 1536).  The one size parser of the library and the
 * tools.  Returns 0, or -1 if malformed, not a whole number of bytes, or
 * beyond SIZE_MAX. */
int tb_parse_size(const char *text, size_t *out);

#endif
