/* Pricing one candidate for one communicator and message size: the plan the
 * library would build (roots 0 and size-1, since rotating roots use both),
 * its schedule signature (model.h: equal signatures run the same messages),
 * and the cost model's prediction for root 0.  Predictions are memoised by
 * signature: at P = 512 thousands of magpie2/interpipe combinations collapse
 * onto a few hundred schedules, and the replay is most of the planning time.
 * The memo is also what tells a candidate whose schedule an earlier one
 * already runs.
 * Time: two plan builds and a hash per candidate, one model replay
 * (model.c) per distinct schedule; memo lookups O(1) expected (open
 * addressing, at most half full). */
#ifndef TN_TUNER_PRICE_H
#define TN_TUNER_PRICE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithm.h"
#include "costs.h"
#include "run.h"

/* Predictions made so far for one item, by schedule signature. */
typedef struct tn_price_memo {
    uint64_t *sig;
    double *t, *replay; /* t == -2.0: empty slot */
    size_t cap;         /* power of two */
} tn_price_memo;

/* \brief An empty memo with room for the schedules of n candidates.
 * \return 0, or -1 out of memory (then nothing is held). */
int tn_price_memo_init(tn_price_memo *m, int n);

/* \brief Frees what the memo holds.
 * \return nothing. */
void tn_price_memo_free(tn_price_memo *m);

/* \brief Prices spec at `bytes` on communicator ci: *t the prediction
 *        (seconds; -1 without costs), *replay the model's replay alone
 *        (left as it is without costs), which orders equal predictions.
 * \return 0 for a schedule not priced before (now in the memo), 1 for the
 *         schedule of an earlier candidate (its prediction), or -1 if the
 *         plan cannot be built for this communicator, the library would
 *         not run it as written (a shared-memory edge between two nodes
 *         of ci->node, or shm without ci->node) or the model cannot
 *         replay it (err says which). */
int tn_price(const tn_costs *costs, const tn_comm *ci, const tb_alg_spec *spec, size_t bytes, tn_price_memo *memo,
             double *t, double *replay, char *err, size_t errlen);

#endif
