/* The machine the tuner bounds broadcasts on and prices shared resources
 * with (topology/bound.h): hosts, links and memories, and the host of every
 * rank.  From a SimGrid platform and hostfile (--platform, --hostfile: the
 * exact machine of a simulated run), or built from the measured costs, a
 * communicator's levels and its fan-out per class (tt_net_from_levels: the
 * estimate on a real machine).  Pure, no MPI. */
#ifndef TN_TUNER_MACHINE_H
#define TN_TUNER_MACHINE_H

#include <stddef.h>

#include "bound.h"
#include "costs.h"
#include "hier.h"

typedef struct tn_machine {
    tt_net net;
    int *host_of;     /* [P]: host of each rank of the communicator */
    int P;
    int view;         /* 1: net belongs to another machine (tn_machine_view) */
    char source[512]; /* where it comes from, for people */
} tn_machine;

/* \brief The machine of a SimGrid platform file and a hostfile (line k:
 *        the host of world rank k) for P ranks: rank i is world rank
 *        world[i] (any order; NULL: world rank i).
 * \return 0 (tn_machine_free), or -1 with a message in err. */
int tn_machine_from_platform(tn_machine *m, const char *xml, const char *hostfile, const int *world, int P, char *err,
                             size_t errlen);

/* \brief The machine of measured costs for P ranks, rank i being world
 *        rank world[i] (any order; NULL: world rank i), seen through h
 *        (the communicator's levels in its ranks, NULL: none): per pair
 *        class of h, the largest pair bandwidth (slope of g(m) over the top
 *        octave of measured sizes) times fanout[class] (NULL: 1), and the
 *        least latency; the CPU cost per send is the least of o_s(0),
 *        o_r(0) and g(0) over the pairs.
 * \return 0 (tn_machine_free), or -1 with a message in err. */
int tn_machine_from_costs(tn_machine *m, const tn_costs *c, const int *world, const tb_hier *h, const double *fanout,
                          int P, char *err, size_t errlen);

/* \brief The machine of P ranks of whole's, rank i being its rank
 *        world[i]: the same hosts, links and memories (shared, not copied:
 *        whole must outlive it), each rank on its host there.  O(P).
 * \return 0 (tn_machine_free frees only what is its own), or -1 out of
 *         memory or a rank outside whole's. */
int tn_machine_view(const tn_machine *whole, const int *world, int P, tn_machine *out);

/* \brief Frees what m holds and zeroes it.
 * \return nothing. */
void tn_machine_free(tn_machine *m);

/* \brief Lower bounds of a broadcast over the first P ranks of m, per
 *        message size sizes[0..n): from root 0, or with all_roots one
 *        that holds for any root (rotating roots; tt_bound_prepare with
 *        root -1).  what[k] (may be NULL) names the binding term.
 * \return 0 with seconds[0..n), or -1 with a message in err. */
int tn_machine_bounds(const tn_machine *m, int P, int all_roots, const size_t *sizes, int n, double *seconds,
                      char (*what)[256], char *err, size_t errlen);

#endif
