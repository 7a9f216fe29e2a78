/* A site shape priced by the model alone (--site): the communicator a job
 * of that shape would have, built as data, no MPI -- its members drawn
 * from the allocation's nodes (shapes.h), its hierarchy the job's
 * restricted to them (what the library derives for a sub-communicator:
 * the topology's groups restricted to its members, trivial and repeated
 * levels dropped), its shape (shape.h), its fan-out per class taken from
 * the job's classes, and its ranks placed on the job's machine.  What
 * tn_price needs of a timed communicator, so one model prices both.
 * Rank 0 only.  O(size of the shape) memory per point. */
#ifndef TN_TUNER_SITE_POINTS_H
#define TN_TUNER_SITE_POINTS_H

#include "run.h"

/* What points are built from. */
typedef struct tn_site_base {
    const tn_site_nodes *nodes;  /* the allocation's nodes */
    const tb_hier *world;        /* the job's hierarchy in world ranks, or NULL (no levels) */
    const double *fanout;        /* [world->nlevels + 1] fan-out per pair class of world (fanout.h) */
    const tn_machine *mach;      /* the job's machine (machine.h), or NULL */
    const struct tb_config *cfg; /* the level list shapes number their levels by */
} tn_site_base;

/* One priced shape. */
typedef struct tn_site_point {
    tn_site_shape sh;
    tn_comm c;     /* its communicator as the model sees it (c.comm is MPI_COMM_NULL) */
    tb_hier hier;  /* c.hier points here */
    int *members;  /* c.world */
    int *node;     /* c.node */
} tn_site_point;

/* \brief out = world restricted to the ranks members[0..n) (out's rank i
 *        is world's rank members[i]): the same levels and distance classes,
 *        then normalised (tb_hier_normalize) and levels that repeat the
 *        one above dropped, as the library derives a communicator's
 *        hierarchy.  world NULL or without levels: none.
 * \return 0 (tb_hier_free), or -1 out of memory or a member outside
 *         world. */
int tn_site_hier_restrict(const tb_hier *world, const int *members, int n, tb_hier *out);

/* \brief fanout[0..h->nlevels] of a communicator whose rank i is world
 *        rank world[i], hierarchy h: each class takes the job's fan-out of
 *        the class its first pair has in the job's hierarchy (1 where the
 *        class has no pair).
 * \return nothing. */
void tn_site_fanout_map(const tb_hier *h, const int *world, const tb_hier *job, const double *job_fanout,
                        double *fanout);

/* \brief Builds the point of shape s from b.
 * \return 0 (tn_site_point_free), 1 when the nodes cannot hold s (nothing
 *         held), or -1 out of memory. */
int tn_site_point_make(const tn_site_base *b, const tn_site_shape *s, tn_site_point *p);

/* \brief Frees what p holds.
 * \return nothing. */
void tn_site_point_free(tn_site_point *p);

#endif
