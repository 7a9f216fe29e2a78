/* Point-to-point costs between the ranks of a job, as PLogP curves
 * (Kielmann et al.): a latency L per pair and, per message size m, the send
 * and receive overheads o_s(m), o_r(m) and the gap g(m) (the time the
 * sender's link is busy with one message).  A message of m bytes sent at time t is complete at the
 * receiver at t + g(m) + L, which is what RTT(m) = 2L + g(m) + g(0) says.
 *
 * Pairs share curves: either one curve per pair (from the probe's save
 * file) or one per class of pairs (the coarsest topology level at which the
 * two ranks differ; from a quick calibration or averaged measurements).
 * Used by the cost model (model.c); pure data, no MPI. */
#ifndef TN_TUNER_COSTS_H
#define TN_TUNER_COSTS_H

#include <stddef.h>

#include "hier.h"

typedef struct tn_costs {
    int nprocs;         /* world ranks covered */
    int ncurves;
    int *off;           /* [ncurves + 1]: curve k's samples are [off[k], off[k+1]) */
    double *m;          /* sample sizes in bytes, ascending within a curve */
    double *os, *orv, *g; /* seconds, per sample: o_s, o_r, g */
    double *L;          /* [ncurves] seconds */
    int *pair;          /* [nprocs * nprocs] curve of (a, b); NULL: by classes, or curve 0 for every pair */
    tb_hier classes;    /* without pair: the curve of (a, b) is their class here (tn_costs_pair_class; the
                           quick calibration's, O(P x levels) where a pair table is O(P^2)); size 0: none */
    size_t eager_limit; /* blocking sends of at least this many bytes wait for delivery */
    char source[512];   /* where the figures came from, for messages */
} tn_costs;

/* Cost of one message on one edge at one size. */
typedef struct tn_edge_cost {
    double L, os, orv, g;
    double gbw; /* the bandwidth part of g: bytes / tn_costs_bandwidth (at most g) */
} tn_edge_cost;

/* Allocates ncurves zeroed curves of nm samples each; with_pairs
 * allocates the pair table (filled with 0).  Returns 0 or -1. */
int tn_costs_alloc(tn_costs *c, int nprocs, int ncurves, int nm, int with_pairs);
/* Same with curve lengths counts[0..ncurves). */
int tn_costs_alloc_counts(tn_costs *c, int nprocs, int ncurves, const int *counts, int with_pairs);
void tn_costs_free(tn_costs *c);

static inline int tn_costs_n(const tn_costs *c, int k) { return c->off[k + 1] - c->off[k]; }
static inline double *tn_costs_m(const tn_costs *c, int k) { return c->m + c->off[k]; }
static inline double *tn_costs_os(const tn_costs *c, int k) { return c->os + c->off[k]; }
static inline double *tn_costs_or(const tn_costs *c, int k) { return c->orv + c->off[k]; }
static inline double *tn_costs_g(const tn_costs *c, int k) { return c->g + c->off[k]; }

/* Piecewise-linear value of y (sampled at x[0..n), ascending) at v: clamped
 * below x[0], extended with the last segment's slope above x[n-1] (costs of
 * big messages grow linearly with size). */
double tn_costs_interp(const double *x, const double *y, int n, double v);

/* \brief Bandwidth of curve k: the slope of g(m) over the top octave of its
 *        sizes (fixed costs such as the latency and a rendezvous handshake
 *        cancel), else m / g(m) at its largest size.
 * \return bytes/s, 0 if the curve has neither. */
double tn_costs_bandwidth(const tn_costs *c, int k);

/* Cost of a message of `bytes` from world rank a to world rank b. */
void tn_costs_edge(const tn_costs *c, int a, int b, size_t bytes, tn_edge_cost *out);

/* Class of a pair in a hierarchy: the index of the coarsest level whose
 * group differs, or h->nlevels when the two ranks share every group
 * (h NULL or without levels: 0 for every pair). */
int tn_costs_pair_class(const tb_hier *h, int a, int b);

/* Curve of a pair: its pair table's, else its class's, else 0. */
static inline int tn_costs_curve(const tn_costs *c, int a, int b)
{
    return c->pair ? c->pair[(size_t)a * (size_t)c->nprocs + (size_t)b]
                   : c->classes.size ? tn_costs_pair_class(&c->classes, a, b) : 0;
}

/* \brief c->classes = a copy of h (its levels and groups over c's ranks):
 *        the curve of a pair is its class in h, without a pair table.
 * \return 0, or -1 out of memory or h of another size (nothing held). */
int tn_costs_set_classes(tn_costs *c, const tb_hier *h);

#endif
