/* Pair-test rounds (pair_rounds.c): which pairs the probe measures and in
 * which rounds of independent pairs, and fast mode's choice of ranks.  Pure
 * computation (no MPI): rank 0 builds the rounds, the harness (harness.h)
 * broadcasts and runs them.
 *
 * Independence is a matter of shared resources: every pair uses its two
 * ranks, and depending on the concurrency mode also the groups of its
 * ranks (hosts by default) and the network as a whole.  Pairs of a round
 * use disjoint resources:
 *   serial  every pair uses "the machine": one pair per round;
 *   intra   intra-group pair: its group; inter-group pair: both groups and
 *           the network (so inter-group pairs go one at a time, but overlap
 *           with intra-group pairs elsewhere) -- the LGate default;
 *   groups  a pair uses the groups of its ranks (a non-blocking fabric:
 *           pairs between disjoint groups do not disturb each other);
 *   ranks   only the two ranks (everything overlaps; for fabrics where
 *           contention does not matter, or quick looks). */
#ifndef TBP_PAIR_ROUNDS_H
#define TBP_PAIR_ROUNDS_H

#include <stdint.h>

#include "topology.h" /* tt_concurrency */

typedef struct tbp_rounds {
    int n;            /* ranks */
    int npairs;
    int nrounds;
    int (*pair)[2];   /* [npairs], i < j, ordered by round */
    int *round_start; /* [nrounds + 1]: pairs of round r are [round_start[r], round_start[r+1]) */
} tbp_rounds;

/** \brief Whether pair (i, j) is measured: every pair inside a group, and
 *  pairs between groups when both ranks are measured (fast mode leaves some
 *  out; measured NULL: all are).
 *  \return 1 if wanted, else 0. */
int tbp_pair_wanted(const int *group, const int *measured, int i, int j);
/** \brief How many pairs tbp_pair_wanted wants of n ranks (the pairs
 *  tbp_rounds_build schedules).
 *  \return the count; -1 if out of memory. */
long tbp_wanted_pairs(int n, const int *group, const int *measured);
/** \brief Rounds for every wanted pair of n ranks (group[i] >= 0 dense
 *  ids; measured may be NULL for all).  Greedy first fit over a pair order
 *  built from round-robin tournaments (of groups, then of ranks), which is
 *  optimal for equal groups: groups mode needs s(s-1)/2 + (G-1)s^2 rounds
 *  for G (even) groups of s ranks, ranks mode P-1 for even P.
 *  Deterministic.
 *  \return 0 with s filled (arrays malloc'd, owned by s: tbp_rounds_free);
 *  -1 on out of memory, s then freed. */
int tbp_rounds_build(int n, const int *group, const int *measured, tt_concurrency c, tbp_rounds *s);
/** \brief Rounds for an explicit list of pairs of n ranks (sample mode's
 *  phases): pair k uses the resources res[res_start[k] .. res_start[k+1])
 *  (ids in [0, nres); list its two ranks among them for rank-disjoint
 *  rounds), and is placed by first fit, in the order given, into the
 *  earliest round where none of its resources is busy.  Pairs are stored
 *  i < j, in the given order within a round.  Deterministic.
 *  \return 0 with s filled (arrays malloc'd, owned by s: tbp_rounds_free);
 *  -1 on a pair or resource out of range or out of memory, s then
 *  zeroed. */
int tbp_rounds_pack(int n, int npairs, const int (*pair)[2], const int *res_start, const int *res, int nres,
                    tbp_rounds *s);
/** \brief Frees the arrays s owns and zeroes it (s itself is not freed).
 *  \return nothing. */
void tbp_rounds_free(tbp_rounds *s);
/** \brief The resources pair (i, j) uses under c (ids: ranks 0..n-1,
 *  groups n..n+G-1, the network n+G), written to res[4].
 *  \return how many were written (2 to 4). */
int tbp_pair_resources(int n, int ngroups, const int *group, tt_concurrency c, int i, int j,
                       int res[4]);

/** \brief splitmix64: a small seeded generator, the same on every rank
 *  (fast mode's choice, sample mode's order and matchings).
 *  \return the next 64 random bits; *state advances. */
uint64_t tbp_rand_next(uint64_t *state);

/** \brief Fast mode: in each group keeps max(1, round(f * size)) ranks,
 *  chosen by a shuffle seeded with seed (the same on every rank); f >= 1
 *  keeps all.
 *  \return nothing; measured[0..n) is 1 for the ranks kept, else 0. */
void tbp_fast_select(int n, const int *group, double f, unsigned long seed, int *measured);
/** \brief --fast auto: the F for which the inter-group pairs (run one at a
 *  time under intra concurrency) take no more rounds than the intra-group
 *  pairs of the largest group need anyway, s(s-1)/2, or than one rank per
 *  group needs, G(G-1)/2.
 *  \return F = k/s_max for the largest such k ranks per group (1 when that
 *  keeps every rank). */
double tbp_fast_auto(int n, const int *group);

#endif
