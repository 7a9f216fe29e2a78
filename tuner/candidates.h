/* The algorithms the tuner considers for one communicator and message size:
 * every base algorithm over a small parameter grid, every hierarchical
 * algorithm over every non-empty subset of the communicator's levels (so
 * dropping levels is a candidate too) and every combination of per-level
 * fan-outs (a second, smaller grid pairs the newer bases at the coarsest
 * level with one base below, and adds per-level segments), blocking and
 * non-blocking sends, and "default" (the MPI library's own broadcast);
 * with the grid's shm flag, the shared-memory stage alone and as the
 * finest level's base (never a coarser one's).  Variants that cannot
 * differ at this size are generated once (a segment at least as long as
 * the message is no segmentation; a pipeline without segmentation is a
 * chain). */
#ifndef TN_TUNER_CANDIDATES_H
#define TN_TUNER_CANDIDATES_H

#include <stddef.h>

#include "algorithm.h"
#include "hier.h"

#define TN_CAND_TEXT 256

typedef struct tn_cand_grid {
    int nseg;
    size_t seg[16];          /* segment sizes of segmented variants */
    size_t seg_short;        /* segments below this ... */
    int seg_short_max;       /* ... only where the message has at most this many */
    int max_segments;        /* no segment that cuts the message into more (0: no limit) */
    int nradix;
    int radix[8];            /* knomial radices (2 is binomial) */
    int nchains;
    int chains[8];           /* chain and pipeline: chains hanging off the root */
    int nbase;
    tb_alg_id base[8];       /* per-level fan-outs of magpie2 / interpipe, every combination */
    int ncoarse, nfine;      /* and a coarsest-level base over one base for the finer levels: */
    tb_alg_id coarse[8];     /* circulant, dbt, bine, chain, binary */
    tb_alg_id fine[8];       /* binomial, binary, chain, flat, bine, dbt */
    int nlevel_seg;          /* per-level segments of those interpipes: the coarsest level's ... */
    size_t level_seg[8][2];  /* ... and every finer level's */
    int send_variants;       /* 2: blocking and non-blocking, 1: non-blocking only */
    int nfeeds;              /* magpie2 / interpipe with feeds=F (several ranks of each finest group
                                fed from outside it), under ... */
    int feeds[4];
    size_t feeds_min;        /* ... from this message size on (below, the model's gain is not there) ... */
    int nfed_top, nfed_leaf; /* ... one base for the levels above the ranks and one inside the finest */
    tb_alg_id fed_top[4];    /* groups: chain (also with F chains, one per rail), binary, dbt, binomial */
    tb_alg_id fed_leaf[4];   /* flat, binomial, chain */
    size_t leaders_min;      /* magpie2 / interpipe with a two-tree base (dbt) also with leaders=2
                                (each tree enters a group at its own rank) from this size on */
    int shm;                 /* 1: the shared-memory stage too: shm alone, and as the finest level's
                                base under the coarse (and per-level) bases (0 by default; the tuner
                                sets it where a node holds 2 or more ranks, never under SMPI) */
} tn_cand_grid;

typedef struct tn_cand {
    tb_alg_spec spec;
    char text[TN_CAND_TEXT]; /* canonical spec (tb_alg_spec_format) */
} tn_cand;

typedef struct tn_cand_list {
    int n, cap;
    tn_cand *v;
} tn_cand_list;

/* Segments 1K..1M (powers of two; those below 8K only where the message
 * has at most 64 of them), radices 3..8, chains 1/2/4/8, every combination
 * of the bases flat/chain/binary/binomial per level, a coarsest level's
 * circulant/dbt/bine/chain/binary over one of binomial/binary/chain/flat/
 * bine/dbt below (those interpipes also with per-level segments 64K, 256K
 * or 1M over 4K or 16K), dbt, bine and circulant alone, both send modes;
 * no shm (g->shm = 0). */
void tn_cand_grid_default(tn_cand_grid *g);

/* Appends the candidates for a communicator of comm_size ranks with
 * hierarchy h (NULL or no levels: no hierarchical algorithms) and messages
 * of `bytes`; "default" first.  Returns the number appended, or -1 on
 * allocation failure. */
int tn_cand_generate(const tn_cand_grid *g, const tb_hier *h, int comm_size, size_t bytes, tn_cand_list *out);

/* \brief Doubles s's segment, and each per-level segment, until a message
 *        of `bytes` is cut into no more than max_segments pieces (nothing
 *        when max_segments <= 0). */
void tn_cand_fit_pieces(tb_alg_spec *s, size_t bytes, int max_segments);

/* Appends one spec (parsed from text) unless an equal one is there.
 * Returns 1 if added, 0 if present, -1 on a bad spec or no memory. */
int tn_cand_add_text(tn_cand_list *l, const char *text);

void tn_cand_list_free(tn_cand_list *l);

#endif
