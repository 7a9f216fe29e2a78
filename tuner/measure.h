/* Timing the planned candidates: every candidate is first checked once for
 * correct data (a broadcast of a pattern from the last rank), then timed
 * with the shared timing method (timing/timing.h: warm-up, synchronised
 * repetitions, max over ranks) for root 0, a rotating root or both.  Calls
 * go through the library's own dispatch with a parsed spec: what an
 * application gets when the table selects it.  Each result is appended to
 * the partial-results file at once, so an interrupted run loses at most the
 * measurement in progress, and --resume skips what is there. */
#ifndef TN_TUNER_MEASURE_H
#define TN_TUNER_MEASURE_H

#include "run.h"

/* \brief The partial-results file's path: --partial, else OUT.partial.
 * \return path (len bytes at most, truncated). */
char *tn_measure_partial_path(const tn_opts *o, char *path, size_t len);

/* \brief Rank 0 loads the partial file (--resume: it must come from the
 *        same job size and settings) and rewrites it whole, so a line cut by
 *        an interruption is gone; T->pf stays open for appending.
 * \return 0, or -1 on every rank if rank 0 cannot (said on stderr). */
int tn_measure_open_partial(tn_run *T);

/* \brief All ranks: warms up every communicator, then validates and times
 *        every planned candidate not already in T->rs, each communicator's
 *        members together, others waiting; rank 0 records each result in
 *        T->rs and the partial file, counts T->new_runs and T->failed, and
 *        shows progress on stderr.
 * \return 0, or -1 on every rank when the message buffer cannot be had. */
int tn_measure_all(tn_run *T);

#endif
