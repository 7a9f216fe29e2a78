/* Shared by the analysis files (analyze.c, sampled.c, pair_rec.c); not part of the
 * API. */
#ifndef TT_ANALYSIS_INTERNAL_H
#define TT_ANALYSIS_INTERNAL_H

#include "topology.h"

/** \brief Pair (i, j) of p takes the parameters (L, o_s, o_r, g per size)
 *  of the record q, whoever q's ranks are.
 *  \return 0; -1 if q's sizes are not ascending or out of memory. */
int tt_pair_set_from_rec(tt_plogp *p, int i, int j, const tt_pair_rec *q);

/** \brief Sample mode's distances (the probe's --sample): every pair not
 *  measured takes the time of the minimax path between its ranks through
 *  measured pairs (the largest time on the path whose largest time is
 *  smallest: the subdominant ultrametric of the measurements, built by
 *  Kruskal's merge order), which is its own time whenever the times form a
 *  hierarchy of clusters and every cluster is connected by measured pairs
 *  inside it, as the sampling guarantees.  Fills a->T (t(m)), a->D (T, or
 *  the vector distance with the pairs copied from the measured pair that
 *  closed the path), a->rep (the measured rank of each rank's group) and
 *  a->extended.
 *  \return 0; -1 with a message in err (at most errlen bytes) on unusable
 *  measurements, ranks no measured path joins, or out of memory. */
int tt_sampled_distances(const tt_meas *m, const tt_analysis_opts *o, tt_analysis *a, char *err, size_t errlen);

#endif
