/* A communicator's own hierarchy (island > node > socket ...), expressed in
 * that communicator's ranks.  Derived from the topology file or from
 * MPI_Comm_split_type + hwloc; consumed by the hierarchical tree builders. */
#ifndef TB_HIER_H
#define TB_HIER_H

#define TB_LEVEL_NAME_MAX 32

typedef struct tb_hier {
    int size;       /* ranks of the communicator */
    int nlevels;    /* grouping levels, coarsest first; the ranks themselves are below the last */
    char (*level_name)[TB_LEVEL_NAME_MAX];
    int *ngroups;   /* ngroups[l] */
    int **group;    /* group[l][r]: group of rank r at level l, 0..ngroups[l]-1; level l+1 refines level l */
    double *dist;   /* optional size*size distances (row-major), NULL if none */
} tb_hier;

/* Allocates a hierarchy with nlevels levels and zeroed groups. */
int tb_hier_alloc(tb_hier *h, int size, int nlevels);
void tb_hier_free(tb_hier *h);
/* Renumbers groups densely, drops levels with one group per rank-set change
 * (trivial levels: a single group, or as many groups as ranks), and makes each
 * level refine the one above.  Returns 0 or -1 on inconsistent input. */
int tb_hier_normalize(tb_hier *h);
/* Dense ids of the intersection of two partitions of ranks 0..n-1 (coarse
 * may be NULL), numbered by first appearance in rank order, into out[n]
 * (which may alias either input).  Returns the number of groups, or -1 on
 * allocation failure. */
int tb_hier_refine(int n, const int *coarse, const int *fine, int *out);
/* order[0..n) = the ranks 0..n-1 sorted by their key rows (keys[r * width
 * .. + width), compared lexicographically), ties by rank.  -1 on allocation
 * failure. */
int tb_sort_ranks_by_keys(const int *keys, int width, int n, int *order);
/* Distance between two ranks implied by the levels (number of levels below
 * the coarsest level they share), or dist[] when present. */
double tb_hier_distance(const tb_hier *h, int a, int b);
/* Index of the level called name, or -1. */
int tb_hier_level_index(const tb_hier *h, const char *name);
/* pos[r] = place of rank r in an order fixed by the physical layout alone:
 * depth-first over the levels, among sibling groups bigger first, then by
 * shape (isomorphism class), then lowest rank (which then only decides
 * between interchangeable groups).  Two numberings of the same layout give
 * orders that correspond under a layout-preserving map.  Identity without
 * levels.  Returns 0, or -1 on allocation failure or h == NULL. */
int tb_hier_canonical_order(const tb_hier *h, int *pos);
/* Ring order starting at root in which consecutive ranks are physically
 * close (depth-first over the levels, or nearest neighbour on dist).
 * order[0] = root.  Works with h == NULL (rank order from root). */
int tb_hier_ring_order(const tb_hier *h, int size, int root, int *order);

#endif
