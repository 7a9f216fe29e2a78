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

/** \brief Index of the unordered pair {i,j}, i != j, of n objects in the
 *  upper triangle (row by row).
 *  \return the index, in 0 .. n(n-1)/2 - 1. */
static inline size_t tt_pair_index(int n, int i, int j)
{
    if (i > j) { int t = i; i = j; j = t; }
    return (size_t)i * (size_t)(2 * n - i - 1) / 2 + (size_t)(j - i - 1);
}

/** \brief Makes p hold n >= 1 ranks, every pair unmeasured (nsizes 0).
 *  \return 0 (p owns its pairs: tt_plogp_free); -1 on n < 1 or out of
 *  memory. */
int tt_plogp_alloc(tt_plogp *p, int n);
/** \brief Frees everything p owns and empties it (p itself is not freed);
 *  NULL is ignored.
 *  \return nothing. */
void tt_plogp_free(tt_plogp *p);
/** \brief Copies one pair's measurements into p (replacing earlier ones of
 *  that pair): latency L and nsizes >= 1 strictly ascending sizes m with
 *  o_s, o_r and g at each.
 *  \return 0; -1 (p unchanged) on i == j, a rank out of range, sizes not
 *  ascending, a NULL array or out of memory. */
int tt_plogp_set_pair(tt_plogp *p, int i, int j, double L, int nsizes, const double *m,
                      const double *o_s, const double *o_r, const double *g);

/* How a parameter is evaluated at a size m that was not measured:
 * PIECEWISE = straight line between the two measured neighbours (the probe
 * inserts sizes until this is within epsilon), extrapolated from the last
 * two sizes above the largest and clamped below the smallest;
 * LINFIT = least-squares line a*m + b over all measured sizes. */
typedef enum { TT_INTERP_PIECEWISE = 0, TT_INTERP_LINFIT = 1 } tt_interp;

/** \brief y(x) from the samples (m[k], y[k]), k < ns, m ascending, by how.
 *  \return the value; NAN when ns < 1. */
double tt_interp_at(const double *m, const double *y, int ns, double x, tt_interp how);
/** \brief The time of one message of m bytes, t(m) = L + (o_s(m) +
 *  o_r(m))/2 + g(m), of one pair, parameters interpolated by how.
 *  \return t(m) in seconds; NAN when the pair is unmeasured. */
double tt_plogp_time(const tt_plogp_pair *p, double m, tt_interp how);
/** \brief Fills the n x n matrix D (caller's, n = p->n) with D[i][j] =
 *  t_ij(m); unmeasured pairs are NAN, the diagonal 0.
 *  \return 0; -1 on a NULL argument. */
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
/** \brief Fills the n x n matrix D (caller's, n = p->n) with the distances
 *  of the ranks' parameter vectors at size m, as described above.
 *  \return 0; -1 on a NULL argument or out of memory. */
int tt_distance_vectors(const tt_plogp *p, double m, tt_interp how, unsigned flags, double *D);
/** \brief Checks that D is a valid distance matrix (see top).
 *  \return 0 if it is, else -1. */
int tt_distance_check(const double *D, int n);
/** \brief D = (D + D^T) / 2 in place, diagonal set to 0 (for data measured
 *  both ways).
 *  \return nothing. */
void tt_distance_symmetrize(double *D, int n);
/** \brief Smallest positive and largest off-diagonal entry of D.
 *  \return nothing; *dmin and *dmax are set (both 0 if n < 2). */
void tt_distance_range(const double *D, int n, double *dmin, double *dmax);

/* ------------------------------------------------------------------ */
/* Labels                                                              */
/* ------------------------------------------------------------------ */

/** \brief Renumbers labels in place to 0..k-1 by first appearance (noise
 *  stays -1).
 *  \return k; -1 only if out of memory (labels unchanged). */
int tt_labels_canonical(int *labels, int n);
/** \brief Counts the distinct non-noise labels.
 *  \return the count; -1 only if out of memory. */
int tt_labels_count(const int *labels, int n);
/** \brief Counts the noise (-1) entries.
 *  \return the count. */
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

/** \brief Builds the dendrogram of the n x n distance matrix D with the
 *  given linkage, in O(n^2) time with the nearest-neighbour chain.
 *  \return 0 with out filled (merges malloc'd, owned by out:
 *  tt_dendrogram_free); -1 on bad input or out of memory, out then holds
 *  no merges. */
int tt_agglomerative(const double *D, int n, tt_linkage link, tt_dendrogram *out);
/** \brief Frees the merges dg owns and empties it; NULL is ignored.
 *  \return nothing. */
void tt_dendrogram_free(tt_dendrogram *dg);
/** \brief Flat clustering with k clusters (1 <= k <= n): the first n-k
 *  merges, written to labels[n] (canonical).
 *  \return k; -1 on k out of range or out of memory. */
int tt_dendrogram_cut_k(const tt_dendrogram *dg, int k, int *labels);
/** \brief Flat clustering applying every merge with dist <= height,
 *  written to labels[n] (canonical).
 *  \return the number of clusters; -1 on bad input or out of memory. */
int tt_dendrogram_cut_height(const tt_dendrogram *dg, double height, int *labels);
/** \brief Name of a linkage ("single", "average", "complete").
 *  \return a static string; "?" for a value out of range. */
const char *tt_linkage_name(tt_linkage link);

/* ------------------------------------------------------------------ */
/* Flat methods                                                        */
/* ------------------------------------------------------------------ */

/** \brief k-medoids by FasterPAM (Schubert & Rousseeuw 2021): k-medoids++
 *  seeding, then eager swaps until a full pass finds no improving swap.
 *  Labels to labels[n]; medoids[k] (ascending) and cost (total distance to
 *  the nearest medoid) are optional (NULL).
 *  \return the number of clusters; -1 on bad input (k out of 1..n) or out
 *  of memory. */
int tt_kmedoids(const double *D, int n, int k, unsigned long seed, int *labels, int *medoids,
                double *cost);

/** \brief DBSCAN: a core point has >= minpts points (itself included)
 *  within eps (d <= eps).  Labels to labels[n], noise -1.
 *  \return the number of clusters; -1 on bad input or out of memory. */
int tt_dbscan(const double *D, int n, double eps, int minpts, int *labels);

/** \brief HDBSCAN (Campello, Moulavi & Sander 2013): core distance =
 *  distance to the min_samples-th nearest point counting the point itself
 *  (1 = single linkage), mutual reachability MST, condensed tree with
 *  min_cluster_size, clusters selected by excess of mass (the root is never
 *  selected).  Labels to labels[n], noise -1.  If mr is not NULL it
 *  receives the single-linkage dendrogram of the mutual reachability
 *  distances (merges malloc'd, owned by mr: tt_dendrogram_free).
 *  \return the number of clusters; -1 on bad input or out of memory (mr
 *  then holds no merges). */
int tt_hdbscan(const double *D, int n, int min_samples, int min_cluster_size, int *labels,
               tt_dendrogram *mr);

/** \brief Connected components of the graph with an edge wherever
 *  d < threshold, as labels[n] (canonical).
 *  \return the number of components; -1 on bad input or out of memory. */
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

/** \brief Builds the SSSTree of the n x n matrix D (alpha > 0; min_size
 *  below 2 counts as 2).
 *  \return 0 with t filled (arrays malloc'd, owned by t: tt_ssstree_free);
 *  -1 on bad input or out of memory. */
int tt_ssstree_build(const double *D, int n, double alpha, int min_size, tt_ssstree *t);
/** \brief Frees the arrays t owns and zeroes it; NULL is ignored.
 *  \return nothing. */
void tt_ssstree_free(tt_ssstree *t);
/** \brief Flat clustering: the nodes at depth `depth` (branches ending
 *  above keep their leaf), as labels[n] (canonical).
 *  \return the number of clusters; -1 on bad input or out of memory. */
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
    char (*name)[TT_NAME_MAX];  /* [nlevels] "level-N" until named */
} tt_hierarchy;

/** \brief Makes h a hierarchy of nlevels >= 0 levels of n >= 1 objects:
 *  labels all 0, nclusters 0, cut and gap NAN, names "level-N".
 *  \return 0 (arrays malloc'd, owned by h: tt_hierarchy_free); -1 on bad
 *  input or out of memory, h then empty. */
int tt_hierarchy_alloc(tt_hierarchy *h, int n, int nlevels);
/** \brief Frees what h owns and zeroes it; NULL is ignored.
 *  \return nothing. */
void tt_hierarchy_free(tt_hierarchy *h);

typedef struct tt_levels_opts {
    double rel_gap;      /* cut where h[i+1] >= (1 + rel_gap) * h[i]; default 0.25 */
    double min_abs_frac; /* and h[i+1] - h[i] >= min_abs_frac * max merge distance; default 0.02 */
    int max_levels;      /* keep the largest gaps only; 0 = no limit */
} tt_levels_opts;

/** \brief Multi-level hierarchy from the dendrogram: one level per gap in
 *  the sorted merge distances (cut in the middle of the gap, geometric
 *  mean), trivial levels (one cluster, or all singletons) dropped; opts
 *  may be NULL (defaults).
 *  \return 0 with out filled, possibly with no level (owned by out:
 *  tt_hierarchy_free); -1 on bad input or out of memory. */
int tt_levels_from_dendrogram(const tt_dendrogram *dg, const tt_levels_opts *opts,
                              tt_hierarchy *out);
/** \brief One level per depth of an SSSTree (depths giving the same
 *  partition merged).
 *  \return 0 with out filled (owned by out: tt_hierarchy_free); -1 on bad
 *  input or out of memory. */
int tt_levels_from_ssstree(const tt_ssstree *t, tt_hierarchy *out);

/* A named ground-truth partition (e.g. "node" from host names, "socket" from
 * host+package, "island" from a platform file).  labels may use any ints. */
typedef struct tt_truth {
    const char *name;
    const int *labels;
} tt_truth;

/** \brief Names each level of h after the truth it matches (accuracy >=
 *  min_accuracy, the best-matching level wins when several do); others
 *  become "level-N" with N the level index counted from the coarsest,
 *  starting at 1.
 *  \return the number of levels named after a truth; -1 on bad input or
 *  out of memory. */
int tt_levels_name(tt_hierarchy *h, const tt_truth *truth, int ntruth, double min_accuracy);

/* ------------------------------------------------------------------ */
/* Validation                                                          */
/* ------------------------------------------------------------------ */

/** \brief Seed thesis eq. 3.7-3.9: the fraction of objects mapped to their
 *  correct group, where clusters are mapped one-to-one onto true groups so
 *  that the number of correctly mapped objects is maximal (Hungarian
 *  method).  Noise is never correct.  Two clusters covering one true group
 *  count only once.
 *  \return the accuracy in [0, 1]; NAN on bad input or out of memory. */
double tt_accuracy(const int *pred, const int *truth, int n);
/** \brief Adjusted Rand index (Hubert & Arabie 1985); noise points are
 *  treated as singletons.
 *  \return 1 for identical partitions, ~0 for chance; NAN on bad input or
 *  out of memory. */
double tt_ari(const int *pred, const int *truth, int n);
/** \brief For each truth: the level with the highest accuracy, its
 *  accuracy and ARI, as a small table on out (NULL: nothing printed).
 *  \return the minimum best accuracy over the truths; NAN on bad input. */
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

/** \brief Name of a method (as tt_method_from_name takes it).
 *  \return a static string; "?" for a value out of range. */
const char *tt_method_name(tt_method m);
/** \brief Method by name ("single", "average", "complete", "kmedoids",
 *  "dbscan", "hdbscan", "ssstree", "components").
 *  \return the method, or -1 if name is none of them. */
int tt_method_from_name(const char *name);

/** \brief Mean silhouette width (Rousseeuw 1987) with noise points as
 *  singletons (silhouette 0).
 *  \return the mean in [-1, 1]; 0 for a single cluster, all singletons or
 *  n < 2; NAN if out of memory. */
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
    tt_search_point *trace;   /* every evaluated point (malloc'd) */
} tt_search_result;

/** \brief Runs method m over its parameter range and keeps the clustering
 *  with the best silhouette (see cluster_search.c for the ranges); below
 *  opts->min_score the result is one cluster.  opts may be NULL
 *  (defaults).
 *  \return 0 with res filled (labels and trace malloc'd, owned by res:
 *  tt_search_result_free); -1 on bad input or out of memory, res then
 *  freed. */
int tt_search(const double *D, int n, tt_method m, const tt_search_opts *opts,
              tt_search_result *res);
/** \brief Frees what res owns and zeroes it; NULL is ignored.
 *  \return nothing. */
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

/** \brief Minimal latency graph of the n x n latency matrix lat,
 *  equal-latency cliques replaced by switches until none is left (lowest
 *  latency first, one clique of one vertex kind at a time; pairs only when
 *  a third vertex sees both alike), virtual switch-to-switch edges removed
 *  after every insertion, switches joined by ~zero-latency edges merged.
 *  Latencies compare relatively (eps), and a path is also "longer" than a
 *  link when it exceeds it by half of its own shortest hop, so a 0.3 us hop
 *  on top of 4 us is not lost in a 10% tolerance.  Needs latencies precise
 *  relative to the smallest hop: with +-2% noise on 0.3/0.6/2/4 us it
 *  recovers the exact tree, with +-5% it leaves extra links.  Edge
 *  latencies are the clique-derived estimates; call tt_graph_fit to refine
 *  them.  opts may be NULL (defaults).
 *  \return 0 with g filled (edges malloc'd, owned by g: tt_graph_free); -1
 *  on bad input or out of memory, g then holds no edges. */
int tt_graph_build(const double *lat, int n, const tt_graph_opts *opts, tt_graph *g);
/** \brief Least-squares edge latencies: every object pair's measured
 *  latency lat (n x n) is the sum of the edges on its shortest path in g
 *  (Bufe sec. 2.4); sets g's edge latencies, fitted, r2 and rank_deficient.
 *  \return 0; -1 on bad input (fewer than 2 objects, no edges), a system
 *  it cannot solve or out of memory, g's edge latencies then unchanged. */
int tt_graph_fit(tt_graph *g, const double *lat);
/** \brief Frees the edges g owns and zeroes it; NULL is ignored.
 *  \return nothing. */
void tt_graph_free(tt_graph *g);
/** \brief Number of switches of g (nvert - nobj).
 *  \return the count; 0 for NULL. */
int tt_graph_switches(const tt_graph *g);
/** \brief Writes g as DOT to out; names[i] labels object i (NULL: "r<i>").
 *  Latencies are printed in microseconds.
 *  \return 0; -1 on bad input or a write error on out. */
int tt_graph_write_dot(const tt_graph *g, const char *const *names, FILE *out);
/** \brief Writes g as TGF to out, otherwise as tt_graph_write_dot.
 *  \return 0; -1 on bad input or a write error on out. */
int tt_graph_write_tgf(const tt_graph *g, const char *const *names, FILE *out);

#endif
