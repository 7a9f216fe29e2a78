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
    char label[TN_SHAPE_LABEL]; /* a shape's name, or "first-N" */
    int size;
    int *members;               /* [size] world ranks, ascending (rank 0 always among them) */
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

#endif
