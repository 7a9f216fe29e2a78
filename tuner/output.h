/* The end of a tuning run: the summary of the timing, the per-communicator
 * winners (winners.c), the model's error (model_error.c), the pruning's
 * counts and, with --exhaustive, its agreement with exhaustive; then the
 * table file, loaded back to check it selects every measured winner.  Rank
 * 0 only. */
#ifndef TN_TUNER_OUTPUT_H
#define TN_TUNER_OUTPUT_H

#include "run.h"

/* \brief Rank 0: closes the partial file, prints the reports and writes and
 *        checks the table (-o).
 * \return the exit status: 0, 1 if the table does not load as written, 2
 *         if it cannot be made or written. */
int tn_output_write(tn_run *T);

/* \brief Before anything is measured (collective): every file the run
 *        will write -- the table (-o), the partial file, --model-csv -- can
 *        be written: not a directory, its directory there, opened for
 *        appending (nothing truncated; a file made by the check is removed
 *        again), and the partial file is not the table.  Rank 0 says what
 *        is wrong, one line each.
 * \return 0 on every rank, or -1 on every rank. */
int tn_output_check(const tn_run *T);

#endif
