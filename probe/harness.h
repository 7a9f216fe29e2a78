/* The LGate-style harness: all pairs i<j of ranks, each tested by its two
 * ranks while the others either wait or test pairs known not to disturb
 * them.  Pairs are scheduled into rounds of independent pairs; a round
 * starts after a dissemination barrier among only the ranks of that round
 * and the previous one, so idle ranks send nothing and measurements of
 * independent pairs overlap.
 * Which pairs are independent, and the rounds: pair_rounds.h. */
#ifndef TBP_HARNESS_H
#define TBP_HARNESS_H

#include <mpi.h>

#include "pair_rounds.h"

/* Called on both ranks of a pair; sender is the lower rank.  Returns 0 or
 * an MPI error code (the run then aborts). */
typedef int (*tbp_pair_fn)(MPI_Comm comm, int sender, int receiver, void *ctx);

/* Progress on rank 0's stderr: pairs done, rate and ETA, redrawn in place
 * (TBP_PROGRESS_TTY) or as a few plain lines (TBP_PROGRESS_PLAIN); AUTO
 * picks by isatty(stderr) (launchers often forward stderr through a pipe,
 * hence the explicit choices).  Every rank must pass the same mode. */
typedef enum {
    TBP_PROGRESS_NONE = 0,
    TBP_PROGRESS_PLAIN = 1,
    TBP_PROGRESS_TTY = 2,
    TBP_PROGRESS_AUTO = 3
} tbp_progress_mode;
typedef struct tbp_progress tbp_progress;

/** \brief Runs the rounds s on comm, calling fn on both ranks of each pair
 *  (every rank of comm calls it with the same rounds and mode).  Pairs are
 *  measured on comm; barriers and progress use a private duplicate.
 *  \return 0, or an MPI error code (of fn or of the harness). */
int tbp_harness_run(MPI_Comm comm, const tbp_rounds *s, tbp_pair_fn fn, void *ctx, tbp_progress_mode progress);

/* Barrier among ranks[0..k) of comm (ascending, containing the caller),
 * by dissemination: ceil(log2 k) steps of one send and one receive. */
int tbp_subset_barrier(MPI_Comm comm, const int *ranks, int k, int tag_base);

/* Sample mode (sample_run.c, planned by sample_plan.h). */
typedef struct tbp_sample_opts {
    tt_concurrency conc;
    double rel_gap;        /* times split at this relative jump (the analysis' --rel-gap) */
    unsigned long seed;
    double at;             /* the distance: t(at) ... */
    tt_interp interp;      /* ... interpolated so */
    tbp_progress_mode progress; /* NONE, or a line per phase on rank 0's stderr */
} tbp_sample_opts;
typedef struct tbp_sample_stats {
    int phases;
    long pairs, rounds;
} tbp_sample_stats;
struct tbp_measure_ctx;
/** \brief Sample mode: phases of pairs planned on rank 0 from the times
 *  measured so far, each broadcast as rounds and run by the harness with
 *  tbp_measure_pair into c; collective on comm, groups the same on every
 *  rank.  On rank 0, measured[0..n) is set to 1 for the ranks measured
 *  between groups (the leaders), 0 else; *st holds the phases, pairs and
 *  rounds (every rank).
 *  \return MPI_SUCCESS, or an MPI error code (a failed plan aborts). */
int tbp_sample_run(MPI_Comm comm, const int *group, const tbp_sample_opts *o, struct tbp_measure_ctx *c,
                   int *measured, tbp_sample_stats *st);

/** \brief Broadcasts the rounds s from root (collective on comm); the
 *  other ranks receive a copy into s, owned by s (tbp_rounds_free); out of
 *  memory there aborts the job (the others would wait forever).
 *  \return MPI_SUCCESS or the error code of PMPI_Bcast. */
int tbp_rounds_bcast(tbp_rounds *s, int root, MPI_Comm comm);

#endif
