/* topobcast-report: the figures of the report page and the inputs they are
 * drawn from.  Each figure is a pure function from data to SVG text in a
 * tbr_buf (svg.h), so the unit tests can check it without files or a
 * browser; report_main.c loads the inputs, calls the clustering library
 * (topology/cluster.h) for the dendrogram and its level cuts, and assembles
 * the page (html.c) and the plain-text summary (summary.c). */
#ifndef TBR_REPORT_H
#define TBR_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "cluster.h"  /* topology: dendrogram, hierarchy, accuracy */
#include "config.h"   /* library: tb_topology, tb_config */
#include "svg.h"
#include "topology.h" /* topology: tt_meas, tt_truthset */

/* ---- distance heatmaps (heatmap.c) -------------------------------------- */

typedef struct tbr_heatmap {
    const char *id;             /* id of the <svg> */
    const char *title;          /* drawn above the matrix */
    const double *D;            /* n*n, seconds; NAN = not measured */
    int n;
    const int *order;           /* [n]: rank shown at position k; NULL = rank order */
    const char *const *names;   /* [n] rank labels for tooltips (host names), may be NULL */
    int nlevels;                /* partitions outlined along the diagonal, coarsest first */
    const int *const *groups;   /* [nlevels][n] group of each rank */
    double clip_pct;            /* colours saturate at this percentile of the off-diagonal entries */
    int max_cells;              /* a cell per rank up to this many ranks (0: 160) */
    /* Above max_cells ranks the cells aggregate ranks, at most agg_cells per
     * side (0: 64): the runs of cell_group along the order (a level's
     * groups, one cell per pair of groups) when there are no more, else
     * blocks of equal size. */
    int agg_cells;
    const int *cell_group;      /* [n] group of each rank, may be NULL */
    const char *cell_level;     /* the groups' name in tips ("node") */
} tbr_heatmap;

typedef struct tbr_heatmap_info {
    double vmin, vmax; /* off-diagonal range, seconds */
    double clip;       /* top of the colour scale */
    int nclipped;      /* off-diagonal entries above clip */
    int noff;          /* finite off-diagonal entries */
    int block;         /* ranks per cell side (the largest; 1: a cell per pair of ranks) */
    int grouped;       /* 1: a cell per pair of cell_group's groups */
    int ncells;        /* matrix cells drawn (rect class "cell") */
} tbr_heatmap_info;

/* p-th percentile (0..100) of the finite values of v[0..n), linear
 * interpolation between order statistics; NAN if none.  v is not changed. */
double tbr_percentile(const double *v, int n, double p);
/* \brief tbr_percentile of the finite off-diagonal entries of the n x n
 *        matrix D, without a copy or a sort (a few passes over D).
 * \return the same value as tbr_percentile on those entries; NAN if none
 *         or out of memory. */
double tbr_percentile_offdiag(const double *D, int n, double p);
/* \brief The heatmap of h->D (cells: tbr_heatmap above), a colour bar and
 *        the group outlines of h->groups.
 * \return 0 with *info (may be NULL) filled, -1 on bad input or out of
 *         memory. */
int tbr_heatmap_svg(tbr_buf *b, const tbr_heatmap *h, tbr_heatmap_info *info);

/* ---- dendrogram (dendrogram.c) ----------------------------------------- */

/* Leaves left to right so that no link crosses another. */
int tbr_dendrogram_order(const tt_dendrogram *dg, int *order);

typedef struct tbr_dendro {
    const char *id;
    const tt_dendrogram *dg;
    const tt_hierarchy *h;         /* level cuts (h->cut, h->name), may be NULL */
    const char *const *leaf_names; /* [n], may be NULL: "r<i>" */
    double unit_scale;             /* merge distances are multiplied by this for labels; 1e6 means
                                      seconds, shown in us, ms or s as their size suits */
    const char *unit;              /* axis unit when unit_scale is not 1e6 */
    int max_leaves;                /* every merge drawn up to this many ranks (0: 160) */
    int agg_leaves;                /* above: the top agg_leaves - 1 merges only (0: 64) */
} tbr_dendro;

/* \brief One polyline (class "link") per merge drawn, one line (class
 *        "cut") per level with a finite cut; above max_leaves ranks the
 *        top agg_leaves - 1 merges, and each node they join that is a merge
 *        a triangle (class "sub") up to its height, labelled with its
 *        number of ranks and its first rank.
 * \return 0, or -1 with fewer than 2 ranks or out of memory. */
int tbr_dendrogram_svg(tbr_buf *b, const tbr_dendro *d);

/* ---- topology tree (tree_view.c) --------------------------------------- */

typedef struct tbr_tnode {
    int level;    /* -1 for the root, else the topology level */
    int group;    /* the level's group id (topology numbering); -1 root */
    int parent;   /* node index, -1 for the root */
    int nmembers;
    int *members; /* ranks, ascending */
    int nchildren;
    int *child;   /* node indexes, ordered by smallest member */
    int row;      /* layout: first bottom-level row below this node */
    int nrows;
} tbr_tnode;

/* The topology's groups as a tree, root first, nodes in preorder. */
typedef struct tbr_tree {
    int nnodes;
    tbr_tnode *node;
    int nlevels;
    int nrows; /* groups of the finest level */
} tbr_tree;

int tbr_tree_build(const tb_topology *t, tbr_tree *tr);
void tbr_tree_free(tbr_tree *tr);
/* Ranks in the tree's order (the hierarchy's reordering); inside a group of
 * the finest level by pos[rank] ascending (NULL: by rank). */
void tbr_tree_order(const tbr_tree *tr, const int *pos, int *order);
/* Distinct hosts of a node's members in rank order, at most max_list named. */
void tbr_tree_hosts(const tb_topology *t, const tbr_tnode *nd, int max_list, char *out, size_t len);
/* Ranks as compact runs: "0-3, 8, 10-11". */
void tbr_rank_runs(const int *ranks, int n, char *out, size_t len);
/* One rect (class "tnode") per node. */
int tbr_tree_svg(tbr_buf *b, const char *id, const tb_topology *t, const tbr_tree *tr);

/* ---- ground-truth accuracy (accuracy.c) -------------------------------- */

typedef struct tbr_accuracy {
    int ntruth, nlevels;
    char truth[TT_MAX_TRUTH][32];
    int truth_groups[TT_MAX_TRUTH];
    double acc[TT_MAX_TRUTH][TB_MAX_LEVELS]; /* seed thesis eq. 3.7-3.9 */
    double ari[TT_MAX_TRUTH][TB_MAX_LEVELS];
    int best[TT_MAX_TRUTH];                  /* level with the highest accuracy */
} tbr_accuracy;

int tbr_accuracy_compute(const tb_topology *t, const tt_truthset *ts, tbr_accuracy *a);
/* HTML <table> (class "acc") with one row per truth, one column per level. */
void tbr_accuracy_html(tbr_buf *b, const char *id, const tb_topology *t, const tbr_accuracy *a);

/* ---- selection table (selection_map.c) --------------------------------- */

typedef struct tbr_selmap {
    const char *id;
    const tb_config *cfg; /* its rules */
    int max_comm;         /* communicator sizes 2..max_comm (when nshape == 0) */
    size_t max_bytes;     /* message sizes 1..max_bytes (powers of two) */
    tbr_catmap *colors;
    int nshape;           /* > 0: one row per shape instead of per communicator size */
    const tb_shape *shapes;              /* [nshape] */
    const char *const *shape_labels;     /* [nshape] row labels ("job (512)") */
} tbr_selmap;

/* One rect (class "cell") per (communicator size or shape, message size)
 * shown; *ncells (may be NULL) receives their number.  A size row stands
 * for a communicator of which only the size is known (tb_shape_unknown):
 * a table keyed on shapes needs the shape rows. */
int tbr_selection_svg(tbr_buf *b, const tbr_selmap *s, int *ncells);

/* ---- tuner --compare CSV (compare_csv.c) -------------------------------- */

#define TBR_MAX_SHAPES 16

typedef struct tbr_compare_row {
    double bytes, default_us, topobcast_us, speedup;
    char alg[256];
    double bound_us, efficiency; /* NAN where the CSV has none */
    double speedup_lo, speedup_hi; /* the lowest and highest speedup of the rounds, NAN where none */
    int shape;         /* index in tbr_compare.shape */
} tbr_compare_row;

/* A communicator the comparison timed (one per value of the shape column;
 * a single unnamed one without it). */
typedef struct tbr_compare_shape {
    char label[32];    /* "job", "one-per-node" ...; "" without a shape column */
    int nprocs;        /* 0 unknown */
    char keys[256];    /* tb_shape_format's text, "" unknown */
} tbr_compare_shape;

typedef struct tbr_compare {
    int n;
    tbr_compare_row *row;
    int nshape;        /* >= 1 once parsed */
    tbr_compare_shape shape[TBR_MAX_SHAPES];
    int has_bound;     /* some row has a bound */
} tbr_compare;

/* Columns found by name in the header line: size, default_us,
 * topobcast_us, speedup and algorithm are required, shape, nprocs,
 * shape_keys, bound_us and efficiency optional (topobcast-tuner --compare
 * writes them; the bound columns may be empty), any other column is
 * ignored; a field may be "quoted" ("" inside quotes is one quote). */
int tbr_compare_parse(const char *text, const char *name, tbr_compare *c, char *err, size_t errlen);
int tbr_compare_load(const char *path, tbr_compare *c, char *err, size_t errlen);
void tbr_compare_free(tbr_compare *c);
/* Speedups of one shape's rows. */
typedef struct tbr_speedups {
    int n, nmid;           /* rows with a speedup; of them in 64 KiB - 8 MiB */
    double geomean, geomean_mid; /* 0 when there are none */
    double lowest, lowest_bytes;
} tbr_speedups;
/* \brief Geometric means (all sizes, 64 KiB - 8 MiB) and the lowest
 *        speedup of the rows of shape k (k < 0: every row).
 * \return them (n = 0 when no row has a speedup). */
tbr_speedups tbr_compare_speedups(const tbr_compare *c, int k);
/* \brief The rows of shape k as a comparison of its own (rows copied,
 *        one shape, has_bound from those rows).
 * \return 0, or -1 out of memory (out empty). */
int tbr_compare_of_shape(const tbr_compare *c, int k, tbr_compare *out);

/* ---- speedup curve (speedup_plot.c) ------------------------------------- */

/* Speedup against default per size with the 1.0 line (one circle of class
 * "pt" per row), beside both absolute times. */
int tbr_speedup_svg(tbr_buf *b, const char *id, const tbr_compare *c, tbr_catmap *colors);

/* ---- efficiency against the lower bound (efficiency_plot.c) -------------- */

/* \brief Efficiency = bound / topobcast time per size (one circle of class
 *        "pt" per row with a bound, the 1.0 line the bound itself), beside
 *        the bound and both times against size.
 * \return 0, or -1 when no row has a bound or out of memory. */
int tbr_efficiency_svg(tbr_buf *b, const char *id, const tbr_compare *c);

/* ---- PLogP parameters (plogp_plot.c) ------------------------------------ */

typedef struct tbr_pair_pick {
    int i, j;
    char what[96]; /* "same socket", "other node, same island" ... */
} tbr_pair_pick;

/* One measured pair per distance class of the topology (the deepest level
 * both ranks share), the one with the median t(0) of its class; closest
 * class first.  Returns the number picked (<= cap). */
int tbr_plogp_pick(const tt_meas *m, const tb_topology *t, tbr_pair_pick *out, int cap);
/* Four panels L, o_s, o_r, g against m; one polyline (class "series") per
 * pair and panel. */
int tbr_plogp_svg(tbr_buf *b, const char *id, const tt_meas *m, const tbr_pair_pick *p, int np);

/* ---- the page (html.c) -------------------------------------------------- */

/* Document head with the inline style sheet, then <body><main>. */
void tbr_html_begin(tbr_buf *b, const char *title);
void tbr_html_end(tbr_buf *b);
/* <section id=...><h2>heading</h2>; closed by tbr_html_section_end. */
void tbr_html_section(tbr_buf *b, const char *id, const char *heading);
void tbr_html_section_end(tbr_buf *b);
/* <p class=...> with the formatted text escaped. */
void tbr_html_p(tbr_buf *b, const char *cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* <figure id=...>, the content as is (SVG or a table), <figcaption>. */
void tbr_html_figure(tbr_buf *b, const char *id, const char *content, const char *caption);
void tbr_html_row_begin(tbr_buf *b);
void tbr_html_row_end(tbr_buf *b);

/* ---- plain-text summary (summary.c) ------------------------------------- */

typedef struct tbr_summary {
    const tt_meas *meas;
    const tb_topology *topo;
    const tbr_tree *tree;
    const tbr_accuracy *acc;     /* NULL: no ground truth */
    const tbr_compare *compare;  /* NULL: no --compare */
    const tb_config *table;      /* NULL: no --table */
    const char *report_path;
} tbr_summary;

void tbr_summary_print(FILE *out, const tbr_summary *s);

#endif
