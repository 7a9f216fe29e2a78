/* topology/bound.h: the least time in which a broadcast can give every rank
 * m bytes on a given machine -- a lower bound no algorithm can beat, to
 * measure broadcasts against (efficiency = bound / measured) and to price
 * the shared resources of a schedule in the tuner's cost model.
 *
 * The machine is a tt_net: hosts (a SimGrid host, or a finest topology
 * group: ranks on one host share its memory), resources (directed links,
 * memories) with a capacity and a latency, and the route -- a list of
 * resources -- between every two hosts, including a host to itself (a copy
 * between two of its ranks).  Two front ends build one: a SimGrid platform
 * and hostfile (platform.h), or a probe's measured per-level bandwidths
 * (tt_net_from_levels below).
 *
 * The bound (derivation: topology/README.md, "Lower bound"): for a set S of
 * hosts and a set R of resources that every route ending in S crosses, the
 * k_S ranks of S (less the root) receive k_S x m bytes and each byte they
 * receive crosses R, which carries at most sum(cap R) bytes per second once
 * the first flow's latency has passed; when S does not hold the root, m
 * bytes must enter S through any set of resources that the routes from
 * outside S cross.  S runs over every host, every group of hosts joined by
 * routes of at most d links (for each d: sockets, nodes, islands ...) and
 * the complements of those holding the root; R is a small cover of the
 * routes (greedy weighted set cover: any cover gives a valid bound, a
 * smaller one a tighter bound).  A latency floor adds the path latency to
 * the farthest host and, with a CPU cost per send, the doubling limit of
 * LogP broadcast trees.  The terms do not depend on m: they are prepared
 * once per (machine, placement, root) and evaluated per size. */
#ifndef TT_BOUND_H
#define TT_BOUND_H

#include <stddef.h>

#define TT_NET_NAME_MAX 64

/* A machine: hosts, resources and a route between every two hosts. */
typedef struct tt_net {
    int nhost, nres;
    char (*host)[TT_NET_NAME_MAX]; /* [nhost] names */
    char (*res)[TT_NET_NAME_MAX];  /* [nres] names, e.g. "fram-trunk UP" */
    double *cap;                   /* [nres] bytes/s; 0 or INFINITY: no aggregate limit */
    int *roff;                     /* [nhost * nhost + 1]: route a -> b is rid[roff[a * nhost + b] ..] */
    int *rid;                      /* resource ids along the routes */
    double *rlat;                  /* [nhost * nhost] seconds of latency of each route */
    int *rok;                      /* [nhost * nhost] 1 if the route exists */
    double send_cpu;               /* least CPU seconds a rank spends per message it sends (0: unknown) */
    size_t rnext;                  /* pairs whose route is closed (tt_net_set_route order) */
} tt_net;

/* \brief An empty machine of nhost hosts (named "h0" ...) and no
 *        resources; routes are then added with tt_net_set_route in any
 *        order, resources with tt_net_add_res.
 * \return 0, or -1 out of memory (n then empty). */
int tt_net_init(tt_net *n, int nhost);

/* \brief Adds a resource of cap bytes/s (0 or INFINITY: unlimited) named
 *        name (truncated).
 * \return its id, or -1 out of memory. */
int tt_net_add_res(tt_net *n, const char *name, double cap);

/* \brief Sets the route from host a to host b: len resources ids[] with
 *        lat seconds of latency.  Routes must be set in order of a * nhost
 *        + b (tt_net_from_levels and the platform reader do), each once;
 *        an unset route means no path (tt_net_finish fills the gaps).
 * \return 0, or -1 on bad arguments, out of order or out of memory. */
int tt_net_set_route(tt_net *n, int a, int b, const int *ids, int len, double lat);

/* \brief Closes the route table after the last tt_net_set_route: pairs
 *        never set get an empty, missing route.
 * \return 0. */
int tt_net_finish(tt_net *n);

/* \brief Frees what n holds and zeroes it.
 * \return nothing. */
void tt_net_free(tt_net *n);

/* \brief A machine from a communicator's levels and per-class figures, as
 *        measured by the probe and the tuner: hosts are the finest groups
 *        of group[nlevels - 1] (one host with no levels); class l of a pair
 *        is the coarsest level where their groups differ (nlevels: same
 *        finest group).  Each group has two ways out and two in: to its
 *        sibling groups (its level's class) and beyond its parent (coarser
 *        classes).  A host's are agg[nlevels - 1] and max(agg[0..nlevels -
 *        1)), one shared way when the two are within 10 % (one wire: a
 *        node's adapter); a coarser group's carry what all its hosts' ways
 *        beyond carry at once (nothing measured says they share more); each
 *        host has a
 *        memory of capacity agg[nlevels] for copies between its ranks.
 *        agg[l] is the largest aggregate bandwidth measured for class l (a
 *        pair's bandwidth times the fan-out); lat[l] the class's latency.
 *        See topology/README.md for why this is an estimate on a real
 *        machine.
 * \return 0 with *host_of[P] (malloc'd: the host of every rank), or -1 on
 *         bad input or out of memory. */
int tt_net_from_levels(tt_net *n, int P, int nlevels, int *const *group, const double *agg, const double *lat,
                       int **host_of);

/* One term of the bound: at least lat + copies * m / cap seconds. */
typedef struct tt_bound_term {
    double lat, copies, cap;
    char what[256]; /* which hosts and resources, for people */
} tt_bound_term;

/* The bound of one (machine, placement, root). */
typedef struct tt_bound {
    int n, cap_terms;
    tt_bound_term *t;
    double lat_floor; /* the latency floor, seconds */
    char lat_what[160];
} tt_bound;

/* \brief Prepares the bound of a broadcast from rank root over P ranks,
 *        rank r on host host_of[r], on machine n; root -1: a bound for
 *        any root (every set may hold the root: one rank less, no entry
 *        terms; the latency floor without the farthest host), for
 *        broadcasts timed with rotating roots.
 * \return 0 with b filled (tt_bound_free), or -1 with a message in err on
 *         bad input (a host out of range, a rank's host without a route
 *         to another rank's host) or out of memory. */
int tt_bound_prepare(const tt_net *n, const int *host_of, int P, int root, tt_bound *b, char *err, size_t errlen);

/* \brief The bound at m bytes: the largest of b's terms and its latency
 *        floor (0 for m = 0 or fewer than 2 ranks).  *which (may be NULL)
 *        gets the index of the binding term, -1 for the latency floor.
 * \return seconds. */
double tt_bound_time(const tt_bound *b, double m, int *which);

/* \brief Describes the binding term at m (as tt_bound_time picks it) in
 *        out, e.g. "node of fram-n01-s0,fram-n01-s1: 16 copies through 74.5
 *        GB/s (...)".
 * \return out. */
const char *tt_bound_describe(const tt_bound *b, double m, char *out, size_t outlen);

/* \brief Frees b's terms and zeroes it.
 * \return nothing. */
void tt_bound_free(tt_bound *b);

/* \brief The least time of the latency part alone: the earliest the
 *        farthest host can hear from the root's host through any chain of
 *        routes, and, with send_cpu = o > 0, the LogP limit: a rank
 *        informed at t starts its k-th send at t + (k - 1) o, and the
 *        message arrives o + L after its start (L the smallest route
 *        latency), so f(t) ranks can be informed by t with f(t) = f(t - o)
 *        + f(t - o - L).
 * \return seconds (0 for P < 2). */
double tt_bound_latency_floor(const tt_net *n, const int *host_of, int P, int root);

/* \brief Loads on the resources of n: adds bytes to load[] for every
 *        resource of the route from host a to host b (a message of that
 *        many bytes, whose sender may start it at time `at`), and keeps in
 *        first[] the least at + route latency of any message that crossed
 *        each resource (INFINITY before the first).
 * \return nothing. */
void tt_net_charge(const tt_net *n, int a, int b, double bytes, double at, double *load, double *first);

/* \brief The least time in which the resources of n can carry load[]:
 *        the largest first[i] + load[i] / cap[i] over limited resources;
 *        *which (may be NULL) gets the resource, -1 if none carries any.
 * \return seconds. */
double tt_net_load_time(const tt_net *n, const double *load, const double *first, int *which);

#endif
