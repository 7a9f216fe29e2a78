/* The cost model's error per algorithm family: measured / predicted over
 * the timed candidates, as quantiles, so a reader sees which families the
 * pruning can trust.  Time: O(n log n) in the results. */
#ifndef TN_TUNER_MODEL_ERROR_H
#define TN_TUNER_MODEL_ERROR_H

#include <stdio.h>

#include "results.h"

/* \brief Prints to f, per family with at least one measured result that
 *        has a prediction: n, the 10th, 50th and 90th percentile of
 *        measured / predicted, and the median |ratio - 1|.
 * \return nothing. */
void tn_model_error_report(const tn_results *rs, FILE *f);

#endif
