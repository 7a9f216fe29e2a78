/* The decisions of a site table (--site): every job shape of the partition
 * gets, per message size, an algorithm only where it is clearly faster
 * than default.
 *
 * The shapes are cells of a grid -- one node (by ranks), one rank per
 * node (by nodes), several of each (by nodes x ranks per node x placement,
 * compact or scattered) -- whose axes are the counts of tn_site_grid_axis,
 * each standing for the counts up to the geometric means with its
 * neighbours.  A cell is decided on its points, shapes
 * built as data (site_points.h): its representative, the ends of its
 * ranges of nodes and of ranks per node, the representative's nodes taken
 * packed instead of spread and, for a scattered cell, in random order;
 * where its anchor has its counts drawn whole, the representative is
 * drawn so too, and spread as one more point.
 * Its anchor is the nearest timed shape of its kind and placement; the
 * candidates are those measured there faster than default.  At a point X,
 * candidate A's time is estimated as measured at the anchor S times the
 * model's ratio pred_A(X) / pred_A(S), and default's as measured at S
 * times the ratio of a proxy: of the algorithms MPI libraries broadcast
 * with, the one whose predictions follow the measured default best
 * between the timed shapes at that size.  A is chosen when, at every point, default's
 * estimate is at least the margin times A's (at S itself: measured, by
 * more than --tie and outside the quartiles); the fastest at the
 * representative among those wins.  The margin is --site-margin, or
 * (1 + tie) x exp(sum over the axes of q x d), d the distance
 * from the anchor along the axis (|log| of the ratio of nodes, of ranks
 * per node; another draw or order of the anchor's counts: one doubling of
 * nodes), q the 90th percentile of the log error per unit of distance of
 * that very extrapolation between timed neighbours along the axis -- of
 * the ratio default / candidate at that size where 8 were measured, else
 * of A's family plus of default's proxy -- measured on this run.  A
 * point further from its anchor on an axis than any such measured
 * extrapolation is out of the model's reach: its cell keeps default.
 * Message sizes are an axis too: a decision at a calibrated size holds up
 * to the geometric means with its neighbours, so every point is also
 * checked there, the error per unit of log size measured between
 * neighbouring calibrated sizes of each timed shape.
 * Without any pair, the model's error around its median serves, and only
 * other draws and orders of a timed shape are in reach.  Rank 0 only;
 * deterministic. */
#ifndef TN_TUNER_SITE_H
#define TN_TUNER_SITE_H

#include "run.h"
#include "table.h"

#define TN_SITE_POINTS 10
/* The axes a decision is carried along: nodes and ranks per node (the
 * grid's), and message bytes (from a calibrated size to the ends of its
 * range). */
enum { TN_SITE_NODES, TN_SITE_PPN, TN_SITE_BYTES, TN_SITE_AXES };

/* One cell of the grid and its decisions. */
typedef struct tn_site_cell {
    int kind;                        /* TN_KIND_* (table.h) */
    int place;                       /* TN_PLACE_COMPACT or _SCATTERED (compact: one node, one rank per node) */
    long nlo, nhi, klo, khi;         /* its nodes and ranks per node (hi LONG_MAX: inf) */
    int anchor;                      /* the timed communicator (T->comms) estimates start from; -1: none */
    int npt;                         /* points: pt[0] is the representative */
    tn_site_shape pt[TN_SITE_POINTS];
    tb_shape pt_shape[TN_SITE_POINTS]; /* their shapes (for the table's check) */
    char (*win)[TN_CAND_TEXT];       /* [nsizes]: the algorithm chosen, "default" where none */
    double *gain;                    /* [nsizes]: estimated default / chosen at the representative (1: default) */
} tn_site_cell;

/* The grid of a run. */
typedef struct tn_site_grid {
    int ncell;
    tn_site_cell *cell;  /* one node by ranks per node (mk), one rank per node by nodes (mn), then several
                            ranks per node: compact, then scattered, each by ranks per node, then nodes */
    int mn, mk;          /* buckets of nodes (2 and more), of ranks per node (2 and more) */
    int nsizes;
    long points, priced;             /* points built, predictions made for them */
    double seconds;                  /* wall time of the pricing */
    /* the margins (site.c), per axis (TN_SITE_*) */
    int proxy[TN_MAX_SIZES];         /* per size: the proxy standing for default's model */
    double q_default[TN_SITE_AXES][TN_MAX_SIZES]; /* log error of default's extrapolation per unit of
                                                     distance (90th percentile) */
    double q_fam[TN_SITE_AXES][TB_ALG_COUNT];     /* per family; < 0: too few pairs (q_all serves) */
    double q_ratio[TN_SITE_AXES][TN_MAX_SIZES];   /* of the ratio default / candidate; < 0: too few pairs
                                                     (q_family + q_default serve) */
    double q_all[TN_SITE_AXES];
    double span[TN_SITE_AXES];       /* the longest extrapolation measured: the reach of the model */
    int pairs[TN_SITE_AXES];         /* extrapolations measured between timed shapes */
} tn_site_grid;

/* \brief The axes' buckets: lo[i]..hi[i] for axis[0..m) (ascending):
 *        lo[0] = axis[0], boundaries at the geometric means of neighbours,
 *        hi[m-1] = last_hi.
 * \return nothing. */
void tn_site_buckets(const int *axis, int m, long last_hi, long *lo, long *hi);

/* \brief Rank 0, after timing: the grid of the partition's shapes and the
 *        decision of every cell at every size of T->o.sizes, with the
 *        margins measured on T's results (T->rs); cfg: the level list the
 *        shapes number their levels by (the library's configuration).
 *        Pure: no MPI.
 * \return 0 (tn_site_grid_free), or -1 out of memory. */
int tn_site_decide(const tn_run *T, const struct tb_config *cfg, tn_site_grid *g);

/* \brief Rank 0, before timing: the plan of a site calibration -- the
 *        nodes it draws from, each shape timed with its size and the
 *        candidates it times per message size (the K best predicted +
 *        default; the previous size's best measured joins while timing).
 * \return nothing. */
void tn_site_plan_print(const tn_run *T, FILE *f);

/* \brief Prints the margins and, per cell, its ranges, anchor and the
 *        sizes where it chose an algorithm, with the estimated gain.
 * \return nothing. */
void tn_site_print(const tn_run *T, const tn_site_grid *g, FILE *f);

/* \brief t->comm: one entry per point of every cell (its shape, the
 *        cell's decisions as size ranges), for tn_table_verify.
 * \return 0, or -1 out of memory. */
int tn_site_table_comms(const tn_site_grid *g, const size_t *sizes, int nsizes, tn_table *t);

/* \brief t->rule: the cells' decisions as shape-keyed rules (nodes,
 *        ppn_max: the fullest node's ranks, consecutive where the
 *        placements differ, bytes): adjacent cells with the same
 *        decisions merged into ranges, default left to the last rule.  A
 *        shape whose nodes hold different numbers of ranks takes the
 *        decisions of its fullest node's bucket.
 * \return 0, or -1 out of memory. */
int tn_site_rules(const tn_site_grid *g, const size_t *sizes, int nsizes, const tb_config *cfg, tn_table *t);

/* \brief Frees what g holds.
 * \return nothing. */
void tn_site_grid_free(tn_site_grid *g);

#endif
