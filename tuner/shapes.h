/* Which communicators the tuner times (and --compare compares): by default
 * representative shapes of the job, chosen from where its ranks run --
 * the whole job, one rank per node, the ranks of one node, the first row
 * of a 2D grid in rank order, the ranks of half of the nodes -- each only
 * when the job has it (two nodes at least for one per node, ...), of at
 * least TN_SHAPE_MIN_SIZE ranks, and not the same ranks as an earlier one;
 * or, with --comm-sizes, the first N ranks of the job.  Pure: the same
 * inputs give the same choice on every rank. */
#ifndef TN_TUNER_SHAPES_H
#define TN_TUNER_SHAPES_H

#include <stddef.h>

#define TN_SHAPE_LABEL 24
#define TN_SHAPE_MIN_SIZE 4 /* below, every algorithm is one or two sends */

/* The representative shapes, in the order they are timed. */
enum {
    TN_SHAPE_JOB,
    TN_SHAPE_ONE_PER_NODE,
    TN_SHAPE_ONE_NODE,
    TN_SHAPE_ROWS,
    TN_SHAPE_HALF_NODES,
    TN_SHAPE_COUNT
};

/* \brief Name of a representative shape ("job", "one-per-node",
 *        "one-node", "rows", "half-nodes"), as --shapes takes it.
 * \return the name, "?" out of range. */
const char *tn_shape_name(int kind);

/* \brief Parses --shapes: names of tn_shape_name separated by commas, or
 *        "all".
 * \return the set as bits (1 << kind), or -1 on an unknown name. */
int tn_shapes_parse(const char *text);

/* One communicator to time: its name and its members. */
typedef struct tn_shape_pick {
    char label[TN_SHAPE_LABEL]; /* a shape's name, "first-N", or a site shape's (tn_site_label) */
    int size;
    int *members;               /* [size] world ranks in the communicator's rank order: ascending for the
                                   job's shapes; world rank 0 always first */
    int *node;                  /* [size] each member's node: the lowest rank of the job on it */
    int ppn_max;                /* the most members on one node */
} tn_shape_pick;

/* \brief The communicators of a job of P ranks whose rank r is on node
 *        node_of[r] (equal ids: same node): the shapes in `which` (bits of
 *        the enum; the job whenever P >= 2, the others as said above),
 *        then the first comm_sizes[k] ranks for each k (2 <= N <= P), each
 *        set of ranks once.  The first row of a grid in rank order is its
 *        first c ranks, c the largest divisor of P not above sqrt(P) (what
 *        MPI_Dims_create makes a row); half of the nodes are the first
 *        floor(nodes/2) nodes by their lowest rank.  Each pick also gets
 *        its members' nodes and the most of them on one node.
 * \return how many were written to out[0..cap) (release with
 *         tn_shape_picks_free), or -1 out of memory. */
int tn_shapes_choose(int P, const int *node_of, unsigned which, const int *comm_sizes, int ncomm_sizes,
                     tn_shape_pick *out, int cap);

/* \brief Frees the member and node lists of out[0..n).
 * \return nothing. */
void tn_shape_picks_free(tn_shape_pick *out, int n);

/* ---- The site's shapes (--site) ------------------------------------------
 * A site calibration runs in one allocation covering a partition and times
 * communicators of the shapes jobs have: a number of nodes, a number of
 * ranks on each, and a placement of the ranks over them.  A shape is data
 * (tn_site_shape); its members follow from it and from where the
 * allocation's ranks run (tn_site_nodes), the same on every rank. */

/* How a shape's ranks are numbered over its nodes. */
enum {
    TN_PLACE_COMPACT,   /* consecutive ranks fill a node (consecutive: yes) */
    TN_PLACE_SCATTERED, /* round robin over the nodes (consecutive: no) */
    TN_PLACE_RANDOM,    /* a fixed pseudo-random order (consecutive: no; priced, never timed) */
    TN_PLACE_COUNT
};
/* Which nodes a shape takes. */
enum {
    TN_DRAW_SPREAD, /* across the partition: each next node as far as can be from those taken */
    TN_DRAW_PACKED, /* the lowest nodes in rank order (one island first, both sockets of a node ...) */
    TN_DRAW_WHOLE   /* whole groups of the finest level above the nodes (both sockets of a node, a
                       leaf switch), as a scheduler allocating whole units gives them, the groups
                       spread (tn_site_nodes.whole) */
};

typedef struct tn_site_shape {
    int nodes, ppn; /* nodes it spans, ranks on each */
    int place;      /* TN_PLACE_*: one node or one rank per node is always compact */
    int draw;       /* TN_DRAW_* */
} tn_site_shape;

/* The allocation's nodes, as shapes draw them.  O(P) memory. */
typedef struct tn_site_nodes {
    int P, n;    /* ranks, nodes */
    int *start;  /* [n + 1]: node i's ranks are rank[start[i] .. start[i + 1]) */
    int *rank;   /* [P] world ranks node by node, ascending inside one; nodes in the order of their
                    lowest ranks (node 0 holds world rank 0) */
    int *spread; /* [n] the nodes in spread order (node 0 first) */
    int *whole;  /* [n] the same with the finest level above the nodes kept whole: its groups in
                    spread order, each group's nodes together (= spread without such a level) */
    int ppn0;    /* ranks on node 0: a shape's "full" nodes */
    int ppn_max; /* the most ranks on one node */
} tn_site_nodes;

/* \brief The nodes of a job of P ranks whose rank r is on node node_of[r]
 *        (equal ids: same node), in spread order: nodes are ordered by
 *        their place in the levels that keep nodes whole (group[l][r],
 *        coarsest first, nlevels of them; nlevels 0: none) and by
 *        type_of[r] (their node type, NULL: one type), read from the
 *        finest place up, so that consecutive nodes of the order differ
 *        in their coarsest group and their type first (FRAM-like: a node
 *        of each island, then another node of each island, and the second
 *        socket of a node only once every node has one).  A level that
 *        splits some node is ignored.  Pure and deterministic.
 * \return 0 (release with tn_site_nodes_free), or -1 out of memory or
 *         P < 1. */
int tn_site_nodes_make(int P, const int *node_of, int nlevels, int *const *group, const int *type_of,
                       tn_site_nodes *sn);

/* \brief Frees what tn_site_nodes_make allocated.
 * \return nothing. */
void tn_site_nodes_free(tn_site_nodes *sn);

/* \brief The representative counts of an axis from lo to full: lo, the
 *        powers of two above it and below full, full / 2 and full, each
 *        once, ascending.
 * \return how many were written to out[0..cap). */
int tn_site_axis(int lo, int full, int *out, int cap);

/* \brief The grid's counts from lo to full: tn_site_axis's, and the
 *        midpoints 3 x 2^k between powers of two (2, 3, 4, 6, 8, 12, 16 ...),
 *        so that a cell's ends lie within a third of a doubling of its
 *        representative.
 * \return how many were written to out[0..cap). */
int tn_site_grid_axis(int lo, int full, int *out, int cap);

/* \brief The shapes a site calibration times, most telling first, at most
 *        `budget` of them: the whole partition and 2 nodes, full (the ranks
 *        of node 0) and one rank per node, compact and scattered; one node
 *        full; then the same at half the ranks per node; then the node
 *        counts of tn_site_axis(2, nodes) between, by bisection, full and
 *        one per node.  Then, up to cap, the shapes of at most `small`
 *        ranks (0: none) on the grid (nodes on tn_site_grid_axis, one, half
 *        or all of node 0's ranks per node, compact and scattered), fewest
 *        ranks first.  All drawn spread but the small ones of several nodes
 *        and several ranks on each, drawn whole (TN_DRAW_WHOLE: the jobs
 *        that fall in their cells, allocated whole nodes, have them so);
 *        each only where the nodes have the ranks, and once.
 * \return how many were written to out[0..cap). */
int tn_site_timed(const tn_site_nodes *sn, int budget, int small, tn_site_shape *out, int cap);

/* \brief A site shape's name: "NODESxPPN", with "-scattered", "-random"
 *        or "-packed" when it is not compact or not drawn spread.
 * \return buf. */
const char *tn_site_label(const tn_site_shape *s, char *buf, size_t len);

/* \brief The members of shape s (world ranks in its rank order, world rank
 *        0 first) into members[0..nodes*ppn), and each member's node (its
 *        lowest world rank) into node (may be NULL): node 0 and the first
 *        s->nodes - 1 other nodes of the draw's order holding at least
 *        s->ppn ranks, the lowest s->ppn ranks of each (of node 0, as many
 *        of them as it holds: a partition of two node types times the
 *        larger one's ranks per node with world rank 0 on the smaller),
 *        numbered by the placement.
 * \return the size, or -1 when too few nodes hold s->ppn ranks. */
int tn_site_members(const tn_site_nodes *sn, const tn_site_shape *s, int *members, int *node);

/* \brief The picks of shapes s[0..n) (tn_site_members, labelled by
 *        tn_site_label), skipping shapes the nodes cannot hold.
 * \return how many were written to out[0..cap), or -1 out of memory. */
int tn_site_picks(const tn_site_nodes *sn, const tn_site_shape *s, int n, tn_shape_pick *out, int cap);

#endif
