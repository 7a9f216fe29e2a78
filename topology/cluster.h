/* Topology discovery from pairwise measurements: distance matrices from
 * PLogP, clustering (agglomerative, k-medoids, DBSCAN, HDBSCAN, SSSTree,
 * threshold components), parameter search without ground truth, multi-level
 * hierarchies from dendrogram gaps, validation against ground truth, and the
 * Bufe graph view (switches found as equal-latency cliques).
 *
 * Everything here is plain C with no MPI, so topobcast-probe --analyze and the
 * unit tests can run it offline (library: build/lib/libtbtopology.a).
 *
 * Conventions shared by all functions:
 *  - A distance matrix is a dense row-major n*n array of double, symmetric,
 *    finite, >= 0, zero diagonal (tt_distance_check tests this).
 *  - labels[i] is the cluster of object i, numbered 0..k-1 in order of first
 *    appearance ("canonical"); -1 marks noise (DBSCAN, HDBSCAN).
 *  - Functions returning int return 0 (or a count) on success and -1 on bad
 *    input or allocation failure; they never exit.
 *  - Randomised methods take an explicit seed and are deterministic for it. */
#ifndef TT_CLUSTER_H
#define TT_CLUSTER_H

#include <stddef.h>
#include <stdio.h>

#define TT_NAME_MAX 32

/* ------------------------------------------------------------------ */
/* PLogP measurements (filled by the probe) and distance matrices      */
/* ------------------------------------------------------------------ */

/* PLogP parameters of one pair, measured from the lower rank (sender) to the
 * higher (receiver).  Times in seconds, sizes in bytes.  The sizes may differ
 * between pairs because the probe inserts extra sizes where interpolation
 * misses; they must be ascending.  nsizes == 0 means "not measured". */
typedef struct tt_plogp_pair {
    int nsizes;
    double L;       /* latency (size independent in PLogP) */
    double *m;      /* [nsizes] message sizes */
    double *o_s;    /* [nsizes] send overhead o_s(m) */
    double *o_r;    /* [nsizes] receive overhead o_r(m) */
    double *g;      /* [nsizes] gap g(m) */
} tt_plogp_pair;

/* All pairs i<j of n ranks; owns its arrays (use tt_plogp_set_pair). */
typedef struct tt_plogp {
    int n;
    tt_plogp_pair *pair; /* n*(n-1)/2 entries, index tt_pair_index(n,i,j) */
} tt_plogp;

/* Index of the unordered pair {i,j}, i != j, in the upper triangle. */
static inline size_t tt_pair_index(int n, int i, int j)
{
    if (i > j) { int t = i; i = j; j = t; }
    return (size_t)i * (size_t)(2 * n - i - 1) / 2 + (size_t)(j - i - 1);
}

int tt_plogp_alloc(tt_plogp *p, int n);
void tt_plogp_free(tt_plogp *p);
/* Copies one pair's measurements (sizes ascending, nsizes >= 1). */
int tt_plogp_set_pair(tt_plogp *p, int i, int j, double L, int nsizes, const double *m,
                      const double *o_s, const double *o_r, const double *g);

/* How a parameter is evaluated at a size m that was not measured:
 * PIECEWISE = straight line between the two measured neighbours (the probe
 * inserts sizes until this is within epsilon), extrapolated from the last
 * two sizes above the largest and clamped below the smallest;
 * LINFIT = least-squares line a*m + b over all measured sizes. */
typedef enum { TT_INTERP_PIECEWISE = 0, TT_INTERP_LINFIT = 1 } tt_interp;

/* y(x) from samples (m[k], y[k]), k < ns. */
double tt_interp_at(const double *m, const double *y, int ns, double x, tt_interp how);
/* t(m) = L + (o_s(m) + o_r(m))/2 + g(m) of one pair; NAN when unmeasured. */
double tt_plogp_time(const tt_plogp_pair *p, double m, tt_interp how);
/* D(m)[i][j] = t_ij(m); unmeasured pairs are NAN, the diagonal 0. */
int tt_distance_time(const tt_plogp *p, double m, tt_interp how, double *D);
/* Euclidean distance between per-rank vectors V_i = [v_i0 .. v_i(n-1)] with
 * v_ij = (L, o_s(m), o_r(m), g(m)) of pair (i,j) (seed thesis eq. 3.5/3.6).
 * By default only the third ranks k != i,j are compared -- how i and j each
 * see everybody else -- because with the thesis's v_ii = 0 the pair's own
 * parameters enter twice and, when o_s/o_r are larger inside a socket (as
 * for large shared-memory copies), rank a socket's members further apart
 * than ranks of different sockets; TT_VEC_THESIS_DIAGONAL restores the
 * thesis's form.  TT_VEC_STANDARDIZE first divides each of the four
 * parameters by its standard deviation over all pairs, so that g(m) of large
 * messages does not drown L.  Unmeasured pairs contribute nothing. */
#define TT_VEC_STANDARDIZE 1u
#define TT_VEC_THESIS_DIAGONAL 2u
int tt_distance_vectors(const tt_plogp *p, double m, tt_interp how, unsigned flags, double *D);
/* 0 if D is a valid distance matrix (see top), else -1. */
int tt_distance_check(const double *D, int n);
/* D = (D + D^T) / 2, diagonal set to 0 (for data measured both ways). */
void tt_distance_symmetrize(double *D, int n);
/* Smallest positive and largest off-diagonal entry (both 0 if n < 2). */
void tt_distance_range(const double *D, int n, double *dmin, double *dmax);

/* ------------------------------------------------------------------ */
/* Labels                                                              */
/* ------------------------------------------------------------------ */

/* Renumbers labels to 0..k-1 by first appearance (noise stays -1); returns k
 * (-1 only if out of memory). */
int tt_labels_canonical(int *labels, int n);
/* Number of distinct non-noise labels. */
int tt_labels_count(const int *labels, int n);
/* Number of noise (-1) entries. */
int tt_labels_noise(const int *labels, int n);

/* ------------------------------------------------------------------ */
/* Agglomerative clustering and dendrograms                            */
/* ------------------------------------------------------------------ */

typedef enum { TT_LINK_SINGLE = 0, TT_LINK_AVERAGE = 1, TT_LINK_COMPLETE = 2 } tt_linkage;

/* One merge: clusters a and b (ids < n are objects, id n+i is the cluster
 * made by merge i) joined at distance dist into a cluster of size members. */
typedef struct tt_merge {
    int a, b;
    double dist;
    int size;
} tt_merge;

/* n-1 merges sorted by non-decreasing dist (the scipy "linkage" layout). */
typedef struct tt_dendrogram {
    int n;
    tt_merge *merge;
} tt_dendrogram;

/* Builds the dendrogram in O(n^2) time with the nearest-neighbour chain. */
int tt_agglomerative(const double *D, int n, tt_linkage link, tt_dendrogram *out);
void tt_dendrogram_free(tt_dendrogram *dg);
/* Flat clustering with k clusters (1 <= k <= n): the first n-k merges. */
int tt_dendrogram_cut_k(const tt_dendrogram *dg, int k, int *labels);
/* Flat clustering applying every merge with dist <= height; returns k. */
int tt_dendrogram_cut_height(const tt_dendrogram *dg, double height, int *labels);
const char *tt_linkage_name(tt_linkage link);

/* ------------------------------------------------------------------ */
/* Flat methods                                                        */
/* ------------------------------------------------------------------ */

/* k-medoids by FasterPAM (Schubert & Rousseeuw 2021): k-medoids++ seeding,
 * then eager swaps until a full pass finds no improving swap.  medoids[k]
 * and cost (total distance to the nearest medoid) are optional (NULL). */
int tt_kmedoids(const double *D, int n, int k, unsigned long seed, int *labels, int *medoids,
                double *cost);

/* DBSCAN: a core point has >= minpts points (itself included) within eps
 * (d <= eps).  Returns the number of clusters; noise is -1. */
int tt_dbscan(const double *D, int n, double eps, int minpts, int *labels);

/* HDBSCAN (Campello, Moulavi & Sander 2013): core distance = distance to the
 * min_samples-th nearest point counting the point itself (1 = single
 * linkage), mutual reachability MST, condensed tree with min_cluster_size,
 * clusters selected by excess of mass (the root is never selected).
 * Returns the number of clusters; noise is -1.  If mr is not NULL it receives
 * the single-linkage dendrogram of the mutual reachability distances. */
int tt_hdbscan(const double *D, int n, int min_samples, int min_cluster_size, int *labels,
               tt_dendrogram *mr);

/* Connected components of the graph with an edge wherever d < threshold. */
int tt_components(const double *D, int n, double threshold, int *labels);

/* SSSTree (Brisaboa, Pedreira, Seco, Solar & Uribe 2008) as described in the
 * seed thesis (sec. 2.5.3, 2.5.8, fig. 2.5): a node's first member is its
 * centre, M = 2 * radius (max distance from the centre); scanning the other
 * members in order, a member whose distance to the closest centre chosen so
 * far is >= alpha * M starts a new child cluster, else it joins the closest
 * one; recurse into every child.  A node with fewer than min_size members,
 * or whose scan yields a single child, is a leaf. */
typedef struct tt_ssstree {
    int n;
    int nnodes;
    int *parent;  /* [nnodes], -1 for the root (node 0) */
    int *depth;   /* [nnodes], root 0 */
    int *center;  /* [nnodes] object index */
    int *leaf;    /* [n] leaf node of each object */
    int height;   /* largest depth */
} tt_ssstree;

int tt_ssstree_build(const double *D, int n, double alpha, int min_size, tt_ssstree *t);
void tt_ssstree_free(tt_ssstree *t);
/* Flat clustering: the nodes at depth `depth` (branches ending above keep
 * their leaf).  Returns k. */
int tt_ssstree_labels(const tt_ssstree *t, int depth, int *labels);

/* ------------------------------------------------------------------ */
/* Hierarchies (levels, coarsest first)                                */
/* ------------------------------------------------------------------ */

typedef struct tt_hierarchy {
    int n;
    int nlevels;
    int **labels;               /* [nlevels][n]; level l+1 refines level l */
    int *nclusters;             /* [nlevels] */
    double *cut;                /* [nlevels] distance the level was cut at (NAN if none) */
    double *gap;                /* [nlevels] relative gap that made the level (NAN if none) */
    char (*name)[TT_NAME_MAX]; /* [nlevels] "level-N" until named */
} tt_hierarchy;

int tt_hierarchy_alloc(tt_hierarchy *h, int n, int nlevels);
void tt_hierarchy_free(tt_hierarchy *h);

typedef struct tt_levels_opts {
    double rel_gap;      /* cut where h[i+1] >= (1 + rel_gap) * h[i]; default 0.25 */
    double min_abs_frac; /* and h[i+1] - h[i] >= min_abs_frac * max merge distance; default 0.02 */
    int max_levels;      /* keep the largest gaps only; 0 = no limit */
} tt_levels_opts;

/* Multi-level hierarchy from the dendrogram: one level per gap in the sorted
 * merge distances (cut in the middle of the gap, geometric mean), trivial
 * levels (one cluster, or all singletons) dropped.  opts may be NULL. */
int tt_levels_from_dendrogram(const tt_dendrogram *dg, const tt_levels_opts *opts,
                              tt_hierarchy *out);
/* One level per depth of an SSSTree (depths giving the same partition merged). */
int tt_levels_from_ssstree(const tt_ssstree *t, tt_hierarchy *out);

/* A named ground-truth partition (e.g. "node" from host names, "socket" from
 * host+package, "island" from a platform file).  labels may use any ints. */
typedef struct tt_truth {
    const char *name;
    const int *labels;
} tt_truth;

/* Names each level after the truth it matches (accuracy >= min_accuracy, the
 * best-matching level wins when several do); others become "level-N" with N
 * the level index counted from the coarsest, starting at 1.  Returns the
 * number of levels named after a truth. */
int tt_levels_name(tt_hierarchy *h, const tt_truth *truth, int ntruth, double min_accuracy);

/* ------------------------------------------------------------------ */
/* Validation                                                          */
/* ------------------------------------------------------------------ */

/* Seed thesis eq. 3.7-3.9: the fraction of objects mapped to their correct
 * group, where clusters are mapped one-to-one onto true groups so that the
 * number of correctly mapped objects is maximal (Hungarian method).  Noise is
 * never correct.  Two clusters covering one true group count only once. */
double tt_accuracy(const int *pred, const int *truth, int n);
/* Adjusted Rand index (Hubert & Arabie 1985); noise points are treated as
 * singletons.  1 = identical partitions, ~0 = chance. */
double tt_ari(const int *pred, const int *truth, int n);
/* For each truth: the level with the highest accuracy, its accuracy and ARI,
 * as a small table.  Returns the minimum best accuracy over the truths. */
double tt_validate_print(FILE *out, const tt_hierarchy *h, const tt_truth *truth, int ntruth);

/* ------------------------------------------------------------------ */
/* Parameter search without ground truth                               */
/* ------------------------------------------------------------------ */

typedef enum {
    TT_M_SINGLE = 0,
    TT_M_AVERAGE,
    TT_M_COMPLETE,
    TT_M_KMEDOIDS,
    TT_M_DBSCAN,
    TT_M_HDBSCAN,
    TT_M_SSSTREE,
    TT_M_COMPONENTS,
    TT_M_COUNT
} tt_method;

const char *tt_method_name(tt_method m);
/* Method by name ("single", "average", "complete", "kmedoids", "dbscan",
 * "hdbscan", "ssstree", "components"), or -1. */
int tt_method_from_name(const char *name);

/* Mean silhouette width (Rousseeuw 1987) with noise points as singletons
 * (silhouette 0).  0 for a single cluster or all singletons. */
double tt_silhouette(const double *D, int n, const int *labels);

typedef struct tt_search_opts {
    int npoints;          /* grid points for real parameters; default 50 */
    int max_int_points;   /* integer ranges larger than this are sampled; default 512 */
    double min_score;     /* below: report one cluster ("no structure"); default 0.25 */
    int min_samples;      /* DBSCAN minpts / HDBSCAN min_samples; 0 = default (2 / = mcs) */
    int ssstree_min_size; /* default 2 */
    unsigned long seed;   /* k-medoids seeding */
} tt_search_opts;

typedef struct tt_search_point {
    double param;  /* k, eps, min_cluster_size, alpha or threshold */
    double param2; /* SSSTree depth, DBSCAN minpts, HDBSCAN min_samples, else 0 */
    int nclusters;
    int noise;
    double score;
} tt_search_point;

typedef struct tt_search_result {
    tt_method method;
    double param, param2;
    int nclusters;
    double score;
    int *labels;              /* [n] best clustering (malloc'd) */
    int ntrace;
    tt_search_point *trace;  /* every evaluated point (malloc'd) */
} tt_search_result;

/* Runs method over its parameter range and keeps the clustering with the
 * best silhouette (see cluster_search.c for the ranges).  opts may be NULL. */
int tt_search(const double *D, int n, tt_method m, const tt_search_opts *opts,
              tt_search_result *res);
void tt_search_result_free(tt_search_result *res);

/* ------------------------------------------------------------------ */
/* Graph view (Bufe 2014, ch. 2)                                       */
/* ------------------------------------------------------------------ */

typedef struct tt_gedge {
    int u, v;
    double lat; /* seconds */
} tt_gedge;

typedef struct tt_graph {
    int nobj;       /* vertices 0..nobj-1 are the measured objects */
    int nvert;      /* objects + switches (switches have ids >= nobj) */
    int nedges;
    tt_gedge *edge;
    int fitted;     /* 1 after tt_graph_fit */
    double r2;      /* coefficient of determination of the fit */
    int rank_deficient; /* the fit had fewer independent paths than edges */
} tt_graph;

typedef struct tt_graph_opts {
    double eps;            /* relative comparison tolerance (Bufe eq. 1.9); default 0.1 */
    long max_clique_steps; /* Bron-Kerbosch budget per search; default 1e6 */
} tt_graph_opts;

/* Minimal latency graph of the n x n latency matrix, equal-latency cliques
 * replaced by switches until none is left (lowest latency first, one clique
 * of one vertex kind at a time; pairs only when a third vertex sees both
 * alike), virtual switch-to-switch edges removed after every insertion,
 * switches joined by ~zero-latency edges merged.  Latencies compare
 * relatively (eps), and a path is also "longer" than a link when it exceeds
 * it by half of its own shortest hop, so a 0.3 us hop on top of 4 us is not
 * lost in a 10% tolerance.  Needs latencies precise relative to the smallest
 * hop: with +-2% noise on 0.3/0.6/2/4 us it recovers the exact tree, with
 * +-5% it leaves extra links.  Edge latencies are the clique-derived
 * estimates; call tt_graph_fit to refine them. */
int tt_graph_build(const double *lat, int n, const tt_graph_opts *opts, tt_graph *g);
/* Least-squares edge latencies: every object pair's measured latency is the
 * sum of the edges on its shortest path in g (Bufe sec. 2.4). */
int tt_graph_fit(tt_graph *g, const double *lat);
void tt_graph_free(tt_graph *g);
/* Number of switches (nvert - nobj). */
int tt_graph_switches(const tt_graph *g);
/* Writes the graph; names[i] labels object i (NULL: "r<i>").  Latencies are
 * printed in microseconds. */
int tt_graph_write_dot(const tt_graph *g, const char *const *names, FILE *out);
int tt_graph_write_tgf(const tt_graph *g, const char *const *names, FILE *out);

#endif
