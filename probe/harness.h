/* The LGate-style harness: all pairs i<j of ranks, each tested by its two
 * ranks while the others either wait or test pairs known not to disturb
 * them.  Pairs are scheduled into rounds of independent pairs; a round
 * starts after a dissemination barrier among only the ranks of that round
 * and the previous one, so idle ranks send nothing and measurements of
 * independent pairs overlap.
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
#ifndef TBP_HARNESS_H
#define TBP_HARNESS_H

#include "probe.h"

typedef struct tbp_schedule {
    int n;            /* ranks */
    int npairs;
    int nrounds;
    int (*pair)[2];   /* [npairs], i < j, ordered by round */
    int *round_start; /* [nrounds + 1]: pairs of round r are [round_start[r], round_start[r+1]) */
} tbp_schedule;

/* Which pairs are wanted: every pair inside a group, and pairs between
 * groups when both ranks are measured (fast mode leaves some out). */
int tbp_pair_wanted(const int *group, const int *measured, int i, int j);
/* Rounds for every wanted pair (group[i] >= 0 dense ids; measured may be
 * NULL for all).  Greedy first fit over a pair order built from round-robin
 * tournaments (of groups, then of ranks), which is optimal for equal
 * groups: groups mode needs s(s-1)/2 + (G-1)s^2 rounds for G (even) groups
 * of s ranks, ranks mode P-1 for even P.  Deterministic. */
int tbp_schedule_build(int n, const int *group, const int *measured, tbp_concurrency c,
                       tbp_schedule *s);
void tbp_schedule_free(tbp_schedule *s);
/* The resources a pair uses under c (ids: ranks 0..n-1, groups n..n+G-1,
 * the network n+G); returns how many were written to res[4]. */
int tbp_pair_resources(int n, int ngroups, const int *group, tbp_concurrency c, int i, int j,
                       int res[4]);

/* Fast mode: in each group keep max(1, round(f * size)) ranks, chosen by
 * a seeded shuffle, as measured[]; f >= 1 keeps all. */
void tbp_fast_select(int n, const int *group, double f, unsigned long seed, int *measured);
/* --fast auto: the F for which the inter-group pairs (run one at a time
 * under intra concurrency) take no more rounds than the intra-group pairs
 * of the largest group need anyway, s(s-1)/2, or than one rank per group
 * needs, G(G-1)/2: the largest k ranks per group within that, F = k/s_max
 * (1 when that keeps every rank). */
double tbp_fast_auto(int n, const int *group);

#ifdef MPI_VERSION
/* Called on both ranks of a pair; sender is the lower rank.  Returns 0 or
 * an MPI error code (the run then aborts). */
typedef int (*tbp_pair_fn)(MPI_Comm comm, int sender, int receiver, void *ctx);

/* Progress on rank 0's stderr: pairs done, rate and ETA, redrawn in place
 * (TBP_PROGRESS_TTY) or as a few plain lines (TBP_PROGRESS_PLAIN); AUTO
 * picks by isatty(stderr) (launchers often forward stderr through a pipe,
 * hence the explicit choices).  Every rank must pass the same mode. */
typedef enum {
    TBP_PROGRESS_NONE = 0,
    TBP_PROGRESS_PLAIN = 1,
    TBP_PROGRESS_TTY = 2,
    TBP_PROGRESS_AUTO = 3
} tbp_progress_mode;
typedef struct tbp_progress tbp_progress;

/* Runs the schedule on comm (every rank of comm calls it with the same
 * schedule).  Pairs are measured on comm; barriers and progress use a
 * private duplicate.  Returns 0 or an MPI error code. */
int tbp_harness_run(MPI_Comm comm, const tbp_schedule *s, tbp_pair_fn fn, void *ctx, tbp_progress_mode progress);

/* Barrier among ranks[0..k) of comm (ascending, containing the caller),
 * by dissemination: ceil(log2 k) steps of one send and one receive. */
int tbp_subset_barrier(MPI_Comm comm, const int *ranks, int k, int tag_base);

/* Broadcasts the schedule from root (other ranks receive a copy). */
int tbp_schedule_bcast(tbp_schedule *s, int root, MPI_Comm comm);
#endif

#endif
