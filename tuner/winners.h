/* Winner picking: per communicator and message size, the fastest measured
 * candidate (table.c's rules: default kept within --tie or overlapping
 * quartiles, the previous size's winner kept within the tie), printed with
 * default's time and the speedup, merged into the table's size ranges; and,
 * with --exhaustive, whether pruning alone would have picked the same
 * winner.  Rank 0 only. */
#ifndef TN_TUNER_WINNERS_H
#define TN_TUNER_WINNERS_H

#include "run.h"
#include "table.h"

/* What pruning alone would have chosen, against the exhaustive winners. */
typedef struct tn_prune_check {
    long cases, same, tied; /* same: the same schedule or the same time; tied: within --tie */
    double worst, logsum;   /* time of pruning's winner / exhaustive winner's */
} tn_prune_check;

/* \brief Rank 0: fills t with a rule set per measured communicator size
 *        (its range of sizes, its message-size ranges and winners),
 *        printing each communicator's report to stdout and, with
 *        --model-csv, every timed candidate's prediction and measurement;
 *        with --exhaustive adds each item to *pc (start it as
 *        {0, 0, 0, 1.0, 0.0}).  Sets this run's predictions on T->rs.
 * \return 0, or -1 out of memory (t may hold part, tn_table_free it). */
int tn_winners_pick(tn_run *T, tn_table *t, tn_prune_check *pc);

#endif
