/* The tuning plan: for every item (communicator, message size), which
 * candidates to time.  Every candidate of the grid (candidates.c) in the
 * families asked for is priced (price.c); candidates that run the schedule
 * of an earlier one are timed once, under the first name; of the rest,
 * those predicted within --factor of the best prediction are kept, capped
 * by --max-timed (the K best predicted, plus the best predicted of every
 * other algorithm within the factor, an algorithm's plans with feeds=F
 * counting as an algorithm of their own), and default is always kept.  With
 * --exhaustive every distinct schedule is timed and the pruned set is only
 * marked.  Rank 0 only.
 * Time per item: pricing (price.h), then O(n log n) in the n candidates
 * to order them by prediction, and O(n) to prune. */
#ifndef TN_TUNER_PLAN_H
#define TN_TUNER_PLAN_H

#include "run.h"

/* Up to this message size the best predicted candidate of every algorithm
 * is timed, however far from the best prediction (plan.c). */
#define TN_ALL_FAMILIES_UPTO 4096

/* \brief Rank 0: plans every item of T->items (communicator-major, sizes
 *        ascending), adds up the candidate counts, shows progress on stderr
 *        and prints the totals.  Aborts the job when out of memory.
 * \return nothing. */
void tn_plan_all(tn_run *T);

/* \brief Rank 0, --dry-run: prints each item's counts and best prediction,
 *        with -v every candidate it would time and its prediction.
 * \return nothing. */
void tn_plan_print(const tn_run *T);

#endif
