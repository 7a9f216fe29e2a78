/* A communicator's own hierarchy (island > node > socket ...), expressed in
 * that communicator's ranks.  Derived from the topology file or from
 * MPI_Comm_split_type + hwloc; consumed by the hierarchical tree builders. */
#ifndef TB_HIER_H
#define TB_HIER_H

/* Levels of a hierarchy (and of a topology, a spec's levels=): at most
 * TB_MAX_LEVELS, names of at most TB_LEVEL_NAME_MAX - 1 characters. */
#define TB_MAX_LEVELS 8
#define TB_LEVEL_NAME_MAX 32

typedef struct tb_hier {
    int size;       /* ranks of the communicator */
    int nlevels;    /* grouping levels, coarsest first; the ranks themselves are below the last */
    char (*level_name)[TB_LEVEL_NAME_MAX];
    int *ngroups;   /* ngroups[l] */
    int **group;    /* group[l][r]: group of rank r at level l, 0..ngroups[l]-1; level l+1 refines level l */
    double *dclass; /* optional nlevels + 1 distance classes, NULL if none: [l] between ranks whose
                       coarsest differing level is l, [nlevels] inside a finest group; non-increasing */
    /* names of levels that group this communicator's ranks exactly as a kept
     * level does (tb_hier_drop_repeats): alias[i] is level alias_of[i] */
    int nalias;
    int alias_of[TB_MAX_LEVELS];
    char alias[TB_MAX_LEVELS][TB_LEVEL_NAME_MAX];
} tb_hier;

/* \brief Allocates a hierarchy of size ranks with nlevels levels, every
 * rank in group 0 of every level (names empty, no distance classes).
 * \return 0 (release with tb_hier_free), or -1 on bad arguments or
 * allocation failure (*h then empty). */
int tb_hier_alloc(tb_hier *h, int size, int nlevels);
/* \brief Frees h's arrays and zeroes it (an empty or zeroed h is fine).
 * \return nothing. */
void tb_hier_free(tb_hier *h);
/* \brief Renumbers groups densely (first appearance), makes each level
 * refine the one above, and drops trivial levels (one group of everyone, or
 * as many groups as ranks), keeping the distance classes in step: a dropped
 * level's class goes, except that when a level splits every rank apart its
 * class becomes the distance inside the finest group left.
 * \return 0, or -1 on inconsistent input (negative group, missing level) or
 * allocation failure. */
int tb_hier_normalize(tb_hier *h);
/* \brief Dense ids of the intersection of two partitions of ranks 0..n-1
 * (coarse may be NULL: fine alone), numbered by first appearance in rank
 * order, into out[n] (which may alias either input).
 * \return the number of groups, or -1 on allocation failure. */
int tb_hier_refine(int n, const int *coarse, const int *fine, int *out);
/* \brief order[0..n) = the indexes 0..n-1 sorted by their key rows
 * (keys[i * width .. + width), compared lexicographically), ties by index.
 * The one sort of ranks (and leaves) by integer keys of the library:
 * O(width (n + range)) for keys within a range of about 4 n, as group ids
 * and ranks are; a comparison sort otherwise.
 * \return 0. */
int tb_sort_ranks_by_keys(const int *keys, int width, int n, int *order);
/* \brief Distance between ranks a and b: dclass[l] for the coarsest
 * level l at which their groups differ (dclass[nlevels] when they share
 * every group); without classes the number of levels below the coarsest one
 * they share, plus one (1 inside the finest group); 1 for any pair when h is
 * NULL.  O(levels).
 * \return the distance, 0 for a == b. */
double tb_hier_distance(const tb_hier *h, int a, int b);
/* \brief Drops level l of h (its groups and its distance class: no pair
 * of ranks has l as its coarsest differing level any more, as when l
 * repeats the level above).
 * \return nothing; l outside 0..nlevels-1 is ignored. */
void tb_hier_drop_level(tb_hier *h, int l);
/* \brief Drops every level that refines the one above without splitting
 * any of its groups (one package per node, one node per island in this
 * communicator): it would only add an empty step to every hierarchical
 * tree.  Its name (and its own aliases) become aliases of the level it
 * repeats, so that a spec naming it (levels=node) still finds that level.
 * \return nothing. */
void tb_hier_drop_repeats(tb_hier *h);
/* \brief Whether h's distance classes never grow toward finer levels
 * (what distance_tree needs; the loader guarantees it for files).
 * \return 1 (also without classes), or 0. */
int tb_hier_classes_monotone(const tb_hier *h);
/* \brief The finest name of level l: the last level that tb_hier_drop_repeats
 * merged into it (host, where a communicator's hosts each sit on their own
 * node of their own island), else its own.  A spec naming it keeps the
 * groups it was measured with on communicators where the names differ.
 * \return the name (l must be a level of h). */
const char *tb_hier_finest_name(const tb_hier *h, int l);
/* \brief Index of the level called name, or of the level it repeats in
 * this communicator (an alias left by tb_hier_drop_repeats).
 * \return the index, or -1 (also for h or name NULL). */
int tb_hier_level_index(const tb_hier *h, const char *name);
/* \brief pos[r] = place of rank r in an order fixed by the physical layout
 * alone: depth-first over the levels, among sibling groups bigger first,
 * then by shape (isomorphism class), then lowest rank (which then only
 * decides between interchangeable groups).  Two numberings of the same
 * layout give orders that correspond under a layout-preserving map.
 * Identity without levels.
 * \return 0, or -1 on allocation failure or h == NULL. */
int tb_hier_canonical_order(const tb_hier *h, int *pos);
/* \brief Ring order starting at root in which consecutive ranks are
 * physically close: depth-first over the levels, the root's groups first,
 * every group contiguous.  O(P log P).  Works with h == NULL (rank order
 * from root).
 * \return 0 with order[0] = root, or -1 on bad size/root, a hierarchy of
 * another size, or allocation failure. */
int tb_hier_ring_order(const tb_hier *h, int size, int root, int *order);

#endif
