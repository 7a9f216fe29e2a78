/* topobcast-bench's options, shared by its two modes: blocking broadcasts
 * against PMPI_Bcast (bench_main.c) and the overlap of non-blocking ones
 * with computation (overlap.c). */
#ifndef TBB_BENCH_H
#define TBB_BENCH_H

#include <stddef.h>
#include <stdio.h>

#define TBB_MAX_ALGS 64
#define TBB_MAX_SIZES 64
#define TBB_SPEC_LEN 256

typedef struct tbb_opts {
    char algs[TBB_MAX_ALGS][TBB_SPEC_LEN]; /* algs[0] is "default" */
    int nalgs;
    size_t sizes[TBB_MAX_SIZES];
    int nsizes;
    int reps, warmup;
    int root;     /* -1: rotate */
    const char *csv;
    int overlap;  /* --overlap */
    int tests;    /* --tests: MPI_Test calls during the computation */
} tbb_opts;

/* One broadcast from root of the buffer tbb_validate filled (collective). */
typedef int (*tbb_bcast_fn)(void *ctx, int root);
/* \brief One broadcast of a known pattern through run (the root's buf holds
 * it, the others' a filler), then the bytes checked on every rank.
 * \return 0 when every rank holds the pattern, 1 on every rank if any rank
 * received wrong bytes, -1 if the call failed on a rank (collective). */
int tbb_validate(unsigned char *buf, size_t bytes, int root, tbb_bcast_fn run, void *ctx);

/* \brief The --overlap mode (collective over MPI_COMM_WORLD): for each size
 * and algorithm, the time of MPI_Ibcast + MPI_Wait alone (t_pure), of a
 * computation as long as t_pure (t_cpu), and of MPI_Ibcast, the computation
 * (with o->tests MPI_Test calls spread over it) and MPI_Wait (t_total);
 * overlap = 100 (1 - (t_total - t_cpu) / t_pure), clamped to 0..100, as
 * osu_ibcast defines it.  Prints a table on rank 0 (and o->csv).
 * \return 0, or 1 if a broadcast failed or delivered wrong bytes. */
int tbb_overlap(const tbb_opts *o);

/* \brief The root of repetition rep (tbtime_op's numbering: warm-up calls
 * negative) for --root: root itself, or (root < 0, rotate) rep's magnitude
 * mod np.
 * \return a rank of 0..np-1 (root when root >= 0). */
int tbb_root_at(int root, int np, int rep);

/* \brief The --root as the tables' headers and CSV files name it: the rank,
 * or "rotate" (root < 0), written into buf of len bytes.
 * \return buf. */
const char *tbb_root_name(int root, char *buf, size_t len);

/* \brief The width of a table's algorithm column: the longest of o's specs,
 * and at least 12.
 * \return that width in characters. */
int tbb_alg_width(const tbb_opts *o);

#endif
