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

/** \brief Broadcasts the rounds s from root (collective on comm); the
 *  other ranks receive a copy into s, owned by s (tbp_rounds_free); out of
 *  memory there aborts the job (the others would wait forever).
 *  \return MPI_SUCCESS or the error code of PMPI_Bcast. */
int tbp_rounds_bcast(tbp_rounds *s, int root, MPI_Comm comm);

#endif
