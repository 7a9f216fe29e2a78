/* From measurements to a topology: fast-mode extension, distance matrix,
 * clustering into levels (via the clustering library, cluster.h), level
 * names from ground truth, and the YAML topology.  No MPI: the same code
 * runs on rank 0 after a measurement and in --analyze. */
#ifndef TBP_ANALYZE_H
#define TBP_ANALYZE_H

#include <stdio.h>

#include "cluster.h"
#include "probe.h"

typedef enum { TBP_DIST_TIME = 0, TBP_DIST_VECTORS = 1 } tbp_dist_kind;

typedef struct tbp_analysis_opts {
    tbp_dist_kind dist;
    double at;            /* message size m of D(m) */
    tbp_interp interp;
    tbp_method method;    /* single/average/complete: levels from dendrogram gaps; others: one flat level */
    double rel_gap;       /* relative merge-distance jump that makes a level (0: library default) */
    double name_accuracy; /* a level takes a truth's name at this accuracy or better */
    unsigned long seed;
} tbp_analysis_opts;

void tbp_analysis_opts_default(tbp_analysis_opts *o);

typedef struct tbp_analysis {
    int n;
    double *D;        /* n*n clustered distances: seconds, or standardised units for vectors */
    double *T;        /* n*n t(m) in seconds (the topology's distance matrix, the graph view) */
    int *rep;         /* [n]: the rank whose inter-group measurements stand in for each rank */
    int extended;     /* pairs filled in from representatives (fast mode) */
    tbp_hierarchy h;  /* named levels, coarsest first, at least one */
    char desc[256];   /* how D and the levels were made */
} tbp_analysis;

int tbp_analyze(const tbp_meas *m, const tbp_analysis_opts *o, const tbp_truthset *truth, tbp_analysis *a,
                char *err, size_t errlen);
void tbp_analysis_free(tbp_analysis *a);

/* The topology YAML (config/README.md): fingerprint, levels, leaves,
 * groups and, with with_distance, the distance matrix in microseconds. */
int tbp_topo_write(FILE *out, const tbp_meas *m, const tbp_analysis *a, int with_distance);

/* Bufe's graph view of D: DOT to dot, TGF to tgf (either may be NULL). */
int tbp_graph_files(const tbp_meas *m, const tbp_analysis *a, FILE *dot, FILE *tgf, char *err, size_t errlen);

#endif
