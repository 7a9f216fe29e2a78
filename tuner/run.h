/* The state of one tuning run, which its phases fill in order:
 *   setup.c     topology, communicators, costs, fan-out;
 *   plan.c      per (communicator, size) item: candidates, predictions,
 *               the set to time;
 *   measure.c   the partial-results file and the timing of that set;
 *   winners.c   the winner of every item and the table's ranges;
 *   output.c    the reports, the table file and its check.
 * Only rank 0 holds costs, plan, results and the partial file. */
#ifndef TN_TUNER_RUN_H
#define TN_TUNER_RUN_H

#include <mpi.h>
#include <stdio.h>

#include "candidates.h"
#include "config.h"
#include "costs.h"
#include "hier.h"
#include "machine.h"
#include "options.h"
#include "results.h"
#include "shape.h"
#include "shapes.h"

/* One communicator tuned: a shape of the job or of the site (shapes.h), or
 * its first ranks; or (site.h) a shape priced by the model alone. */
typedef struct tn_comm {
    int size;
    char label[TN_SHAPE_LABEL];       /* "job", "one-per-node", ... "first-N" */
    const int *world;                 /* [size] world rank of each of its ranks, in its rank order */
    const int *node;                  /* [size] each rank's node (shapes.h: the lowest world rank on it) */
    int shm;                          /* offer the shared-memory stage (setup.c: not under SMPI, a node
                                         holds 2 or more of its ranks) */
    MPI_Comm comm;                    /* MPI_COMM_NULL on non-members */
    const tb_hier *hier;              /* the library's hierarchy for it */
    tb_shape shape;                   /* the library's shape of it (members only) */
    double fanout[TB_MAX_LEVELS + 1]; /* per pair class of hier (fanout.h) */
    tn_machine mach;                  /* rank 0: its links and memories (machine.h) */
    int have_mach;
} tn_comm;

/* The plan of one item (communicator, message size): what to time. */
typedef struct tn_item {
    int ci;                         /* index in tn_run.comms */
    size_t bytes;
    int ncand;                      /* candidates that build here (exhaustive) */
    int ndistinct;                  /* of those, with distinct schedules */
    int nprune;                     /* how many pruning keeps (within factor, + default) */
    int ntime;                      /* timed in this run's mode */
    char (*spec)[TN_CAND_TEXT];     /* [ntime] */
    double *pred;                   /* [ntime], < 0: none */
    char *pruned;                   /* [ntime]: kept by pruning */
    double best_pred;
    char best_pred_spec[TN_CAND_TEXT];
    int nrun;                       /* timed in this run (not resumed) */
    double sim_seconds;             /* MPI_Wtime of this run's timings (simulated under SMPI) */
    double wall_seconds;            /* wall time of them */
} tn_item;

typedef struct tn_run {
    tn_opts o;
    int wrank, wsize;               /* in MPI_COMM_WORLD */
    tb_config topo_cfg;
    int have_topo;
    tn_comm comms[TN_MAX_TUNED];
    tn_shape_pick picks[TN_MAX_TUNED]; /* their members (comms.h) */
    MPI_Comm pick_comm[TN_MAX_TUNED];
    int ncomm;
    const tb_hier *world_hier;
    tb_shape world_shape;           /* the job's: which kinds of shape its table needs */
    tn_site_nodes site_nodes;       /* --site: the allocation's nodes the shapes are drawn from */
    double world_fanout[TB_MAX_LEVELS + 1]; /* --site: per pair class of world_hier (fanout.h) */
    tn_costs costs;
    int have_costs;
    tn_item *items;                 /* [ncomm * o.nsizes], communicator-major */
    int nitems;
    long total_cand, total_distinct, total_prune;
    tn_results rs;
    FILE *pf;                       /* the partial-results file */
    int prior;                      /* results loaded from it (--resume) */
    long new_runs, failed;
    int lost_writes;                /* the partial file or --model-csv is not whole (rank 0) */
    double start;                   /* wall clock at start (tn_progress_now) */
    double setup_seconds;           /* wall, start to the plan */
    double plan_seconds;            /* wall, of the plan (pricing) */
    double seconds;                 /* of timing, wall */
    double wtime_seconds;           /* of timing, MPI_Wtime (simulated under SMPI) */
} tn_run;

#endif
