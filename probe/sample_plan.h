/* Sample mode (sample_plan.c): which pairs the probe measures when it does
 * not measure them all, decided phase by phase from what the previous
 * phases measured.  Pure computation (no MPI): rank 0 plans, the harness
 * runs each phase's rounds (sample_run.c), rank 0 feeds the results back.
 *
 * Two tiers over the independence groups (hosts):
 *   between groups  one rank per group, its leader, stands for the group;
 *   inside a group  the group's ranks.
 * Each tier is refined by pivots.  A class is a set of items known to lie
 * within one cluster of the level its bound names; the pivot of a class is
 * measured against every other item of it, and the times split the others
 * into groups at relative jumps (the analysis' level rule): with a
 * hierarchy of clusters (an ultrametric) everything between two groups is
 * then known, and each group of two or more items is a class of its own,
 * bounded by its largest time.  A pivot that finds nobody nearer than the
 * rest (it is alone below the class's level) leaves a class that looks
 * flat: a seeded random matching of it confirms that (every time near the
 * bound: done) or names pairs that are nearer, one of which pivots next.
 * Classes of one item are done.  See probe/README.md ("Sample mode") for
 * the cost. */
#ifndef TBP_SAMPLE_PLAN_H
#define TBP_SAMPLE_PLAN_H

#include "topology.h" /* tt_concurrency */

/* The pairs of one phase, in the order to place them into rounds, and the
 * resources each uses (tbp_rounds_pack). */
typedef struct tbp_phase {
    int npairs;
    int (*pair)[2];  /* [npairs], i < j */
    int *res_start;  /* [npairs + 1] */
    int *res;        /* pair k uses res[res_start[k] .. res_start[k+1]) */
    int nres;        /* resource ids lie in [0, nres) */
} tbp_phase;

typedef struct tbp_sampler tbp_sampler;

/** \brief A sampler for n ranks in independence groups group[0..n) (dense
 *  ids >= 0): pairs concurrent as c allows (intra: ranks, groups, and
 *  between groups one pair at a time per class; groups: ranks and groups;
 *  ranks: ranks; serial: nothing), times split at relative jumps of at
 *  least rel_gap (> 0), pivots, leaders and matchings chosen by a shuffle
 *  seeded with seed.  Deterministic.
 *  \return the sampler (tbp_sampler_free), or NULL on bad input or out of
 *  memory. */
tbp_sampler *tbp_sampler_new(int n, const int *group, tt_concurrency c, double rel_gap, unsigned long seed);
/** \brief Frees s; NULL is ignored.
 *  \return nothing. */
void tbp_sampler_free(tbp_sampler *s);
/** \brief Records the time t (seconds, the distance the analysis uses) of
 *  pair (i, j), measured in the last phase (either order).
 *  \return 0; -1 on a pair out of range, a time that is not finite, or out
 *  of memory. */
int tbp_sampler_feed(tbp_sampler *s, int i, int j, double t);
/** \brief The next phase: processes what the fed times tell, then lists
 *  the pairs still to measure.  ph->npairs == 0 means finished.
 *  \return 0 with ph filled (arrays malloc'd, owned by ph:
 *  tbp_phase_free); -1 if a pair asked for in the last phase was not fed,
 *  or out of memory (ph then zeroed). */
int tbp_sampler_next(tbp_sampler *s, tbp_phase *ph);
/** \brief Frees the arrays ph owns and zeroes it.
 *  \return nothing. */
void tbp_phase_free(tbp_phase *ph);
/** \brief --fast auto's choice between fast mode and sample mode: sample
 *  when fast mode's plan (tbp_fast_auto) would measure more than 4 pairs
 *  per rank; below that both are cheap and fast mode measures more.
 *  \return 1 for sample mode, 0 for fast mode. */
int tbp_sample_auto(int n, const int *group);
/** \brief Whether rank r is its group's leader (the rank measured between
 *  groups).
 *  \return 1 or 0. */
int tbp_sampler_is_leader(const tbp_sampler *s, int r);
/** \brief Pairs fed so far.
 *  \return their number. */
long tbp_sampler_npairs(const tbp_sampler *s);

#endif
