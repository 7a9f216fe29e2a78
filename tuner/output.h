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

#endif
