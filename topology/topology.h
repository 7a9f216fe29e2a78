/* topology/: from a probe run's measurements to a topology, without MPI.
 *
 * The records of one run (tt_meas and its parts) are filled by the
 * probe's MPI measurement (rank 0 after the gather) and by reading a saved
 * measurement file, so that everything after the measurement is one code
 * path and a saved run re-clusters exactly as it did online; the tuner and
 * the report read the same files with the same reader.  Then: ground truth
 * from the recorded identities, the analysis (distances, clustering into
 * levels via cluster.h, level names), the topology YAML and the graph view.
 * Library: build/lib/libtbtopology.a.  Times are in seconds, sizes in
 * bytes.
 *
 * Conventions: functions returning int return 0 on success and -1 on
 * failure (bad input, a file that does not parse, out of memory), with a
 * message in err where they take one; they never exit and never call MPI.
 * A failed call frees what it had allocated into its output (each
 * function's contract says what is left). */
#ifndef TT_TOPOLOGY_H
#define TT_TOPOLOGY_H

#include <stddef.h>
#include <stdio.h>

#include "cluster.h"

/* ---- the records of a run --------------------------------------------- */

#define TT_HOST_MAX 256
/* hwloc's summary of a host (tb_hwloc_summary), as long as the topology
 * holds it (TB_TOPO_HWLOC_MAX) */
#define TT_HWLOC_MAX 96

/* Which model a run measured. */
typedef enum { TT_MODE_PLOGP = 0, TT_MODE_LOGGP = 1 } tt_mode;

/* Which pairs may run at the same time (the probe's pair-test rounds,
 * probe/pair_rounds.h). */
typedef enum {
    TT_CONC_SERIAL = 0, /* one pair at a time */
    TT_CONC_INTRA,      /* intra-group pairs of different groups together; inter-group one at a time */
    TT_CONC_GROUPS,     /* any pairs touching disjoint sets of groups together */
    TT_CONC_RANKS,      /* any pairs of disjoint ranks together (no independence assumed) */
    TT_CONC_COUNT
} tt_concurrency;

/* One rank of the measured job: ground truth (never used for discovery)
 * plus what the harness decided about it. */
typedef struct tt_rank_info {
    char host[TT_HOST_MAX]; /* MPI processor name */
    char hwloc[TT_HWLOC_MAX]; /* hwloc's summary of the host, "" unknown (SMPI, no hwloc) */
    int pu, core, package, numa; /* hwloc logical indexes, -1 unknown/unbound */
    int world_rank;
    int group;    /* independence group: same host by default */
    int measured; /* 0 if fast mode left it out of inter-group pairs */
} tt_rank_info;

/* The three raw series of a size, each summarised over the R batches by
 * a five-number summary (min, q1, median, q3, max).  PLogP: RTT(m),
 * o_s(m), o_r(m).  LogGP: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s). */
enum { TT_Q_A = 0, TT_Q_B = 1, TT_Q_C = 2, TT_NQ = 3 };

typedef struct tt_size_rec {
    double m;
    double rtt;        /* RTT(m), LogGP: PRTT(1,0,m) */
    double o_s, o_r;   /* overheads (LogGP: both o(m)) */
    double g;          /* gap g(m) (LogGP: G_all(m) = g + (m-1)G measured) */
    int gsat;          /* burst length g(m) saturated at; 0: derived from RTT */
    double q[TT_NQ][5];
} tt_size_rec;

/* LogGP parameters of a pair (Hoefler's PRTT fit); S = 0: no switch found. */
typedef struct tt_loggp_fit {
    double L, o, g, G; /* below S */
    double S;          /* first size of the rendezvous segment, 0 if none */
    double g2, G2;     /* at and above S */
} tt_loggp_fit;

/* One measured pair, from the lower rank i (sender) to j. */
typedef struct tt_pair_rec {
    int i, j;
    double L;
    int nsizes;
    tt_size_rec *s; /* [nsizes], ascending m */
    tt_loggp_fit lg; /* LogGP mode only */
} tt_pair_rec;

/* Measurement settings (recorded in the save file). */
typedef struct tt_meas_opts {
    tt_mode mode;
    int reps;            /* R: batches per measurement */
    int max_reps;        /* cheap, noisy measurements: batches up to this many */
    double rep_budget;   /* ... while a measurement has taken less (seconds) */
    long max_size;       /* M */
    double eps;          /* interpolation / saturation tolerance */
    int max_insert;      /* extra sizes per pair at most */
    int min_spacing;     /* no extra size closer than this (32) */
    double k_wait;       /* o_r: wait k*RTT(m) before the timed receive */
    long gsat_max;       /* g(m) by saturation up to this size */
    int gsat_cap;        /* longest burst */
    double batch_time;   /* a batch repeats the operation for at least this long */
    int use_min;         /* statistic over batches: 1 minimum, 0 median */
    int prtt_n;          /* LogGP: n of PRTT(n,d,s) */
    tt_concurrency conc;
    double fast;         /* fraction of ranks per group in inter-group pairs; 1 = all */
    int fast_auto;       /* --fast auto: fast chosen from the groups (the probe's tbp_fast_auto) */
    double agree;        /* batches stop early once they agree within this (relative); 0 = never */
    int sample;          /* sample mode (the probe's --sample): pairs chosen by pivots, phase by phase */
    unsigned long seed;
} tt_meas_opts;

/* Everything a run produced. */
typedef struct tt_meas {
    tt_meas_opts opt;
    int n;                /* ranks */
    tt_rank_info *rank;   /* [n] */
    int npairs;
    tt_pair_rec *pair;    /* [npairs], ordered by (i, j) */
    int nrounds;          /* harness rounds */
    double elapsed;       /* measurement time (MPI_Wtime, simulated under SMPI) */
    double wtime_overhead;/* largest MPI_Wtime overhead over the ranks */
} tt_meas;

/* ---- the records (meas.c) ---------------------------------------------- */

/** \brief Name of a concurrency mode as written in the measurement file
 *  ("serial", "intra", "groups", "ranks").
 *  \return a static string; "?" for a value out of range. */
const char *tt_concurrency_name(tt_concurrency c);
/** \brief Concurrency mode by its name (tt_concurrency_name's inverse).
 *  \return the mode, or -1 if s names none. */
int tt_concurrency_from_name(const char *s);

/** \brief Fills o with the probe's default measurement settings (PLogP,
 *  R = 8, M = 1 MiB, intra concurrency, ...; probe/README.md).
 *  \return nothing; o is completely overwritten. */
void tt_meas_opts_default(tt_meas_opts *o);
/** \brief Frees what m owns (ranks, pairs and their sizes) and zeroes it;
 *  m itself is not freed.  NULL is ignored.
 *  \return nothing; m may be freed again or refilled afterwards. */
void tt_meas_free(tt_meas *m);
/** \brief Sorts m's pairs by (i, j).
 *  \return 0, or -1 if a pair (i, j) appears more than once (the pairs
 *  stay sorted either way, nothing is freed). */
int tt_meas_sort_pairs(tt_meas *m);
/* A size record as TT_SIZE_REC_LEN numbers: m, rtt, o_s, o_r, g, gsat,
 * then the three five-number summaries q[TT_Q_A..TT_Q_C]. */
#define TT_SIZE_REC_LEN (6 + TT_NQ * 5)
/** \brief Writes s as TT_SIZE_REC_LEN numbers to v (as the probe sends
 *  records to rank 0 and the measurement file lists them).
 *  \return nothing. */
void tt_size_rec_pack(const tt_size_rec *s, double *v);
/** \brief Reads s back from TT_SIZE_REC_LEN numbers v (tt_size_rec_pack's
 *  inverse; gsat is truncated to int).
 *  \return nothing. */
void tt_size_rec_unpack(tt_size_rec *s, const double *v);
/** \brief Frees the sizes of one pair record and sets its nsizes to 0;
 *  NULL is ignored.
 *  \return nothing. */
void tt_pair_rec_free(tt_pair_rec *p);

/* ---- ground truth (truth.c) ---------------------------------------------- */

/* Ground-truth partitions known for the ranks: "node" (same host name),
 * "socket" (host + package) and "numa" where they differ from the level
 * above, plus any from a truth file (same name replaces).  Coarsest
 * first where known. */
#define TT_MAX_TRUTH 8
typedef struct tt_truthset {
    int n, ntruth;
    char name[TT_MAX_TRUTH][32];
    int *labels[TT_MAX_TRUTH];
} tt_truthset;

/** \brief Builds the ground truth of m's ranks from their recorded
 *  identities, plus the partitions of a truth file of "HOST name=value ..."
 *  lines (probe/README.md) when file is not NULL; the file's truths come
 *  first and replace identity ones of the same name.
 *  \return 0 with t filled (labels malloc'd, owned by t: tt_truth_free);
 *  -1 with a message in err (at most errlen bytes) and t zeroed, on no
 *  ranks, an unreadable or malformed file, more than TT_MAX_TRUTH truths
 *  or out of memory. */
int tt_truth_build(const tt_meas *m, const char *file, tt_truthset *t, char *err, size_t errlen);
/** \brief Frees the labels t owns and zeroes it (t itself is not freed).
 *  \return nothing. */
void tt_truth_free(tt_truthset *t);

/* ---- the measurement file (save.c; format: probe/README.md) --------------- */

/** \brief Writes m as a measurement file to out (17 significant digits
 *  where the analysis reads the value, so reading it back gives the same
 *  topology).
 *  \return 0, or -1 if out reports a write error (ferror). */
int tt_save_write(const tt_meas *m, FILE *out);
/** \brief Reads a measurement file from in (name only labels messages)
 *  into m; files written before agree=, max-reps= and rep-budget= existed
 *  read as runs without them.
 *  \return 0 with m filled (malloc'd, owned by m: tt_meas_free); -1 with
 *  a message naming the file and line ("name:line: expected ...") in err
 *  (at most errlen bytes) and m freed and zeroed, on any malformed,
 *  truncated or inconsistent file (a pair twice, more or fewer pairs than
 *  declared) or out of memory. */
int tt_save_read(FILE *in, const char *name, tt_meas *m, char *err, size_t errlen);
/** \brief tt_save_read of the file at path: a regular file or a pipe
 *  (`<(zcat m.txt.gz)`); a directory or a device is refused before it is
 *  read (/dev/zero would be read without end).
 *  \return as tt_save_read; err "path: why" when it cannot be opened. */
int tt_save_load(const char *path, tt_meas *m, char *err, size_t errlen);
/** \brief Whether paths a and b name one file (the same device and inode
 *  where both exist, else the same text); NULL names none (paths.c).
 *  \return 1 or 0. */
int tt_same_file(const char *a, const char *b);

/** \brief Closes f, a tool's output file named path (standard output is
 *  flushed, not closed), and tells whether every write to it landed: one
 *  that failed earlier (ferror) or at the close.  With prog, a failure is
 *  said on stderr as "prog: cannot write path: reason" (out_close.c).
 *  \return 0, or -1 when the file is not whole. */
int tt_out_close(FILE *f, const char *path, const char *prog);

/* ---- analysis (analyze.c) and output (topo_write.c) ---------------------- */

typedef enum { TT_DIST_TIME = 0, TT_DIST_VECTORS = 1 } tt_dist_kind;

typedef struct tt_analysis_opts {
    tt_dist_kind dist;
    double at;            /* message size m of D(m) */
    tt_interp interp;
    tt_method method;    /* single/average/complete: levels from dendrogram gaps; others: one flat level */
    double rel_gap;       /* relative merge-distance jump that makes a level (0: library default) */
    double name_accuracy; /* a level takes a truth's name at this accuracy or better */
    unsigned long seed;
} tt_analysis_opts;

/** \brief Fills o with the default analysis: D(0) = t(0), piecewise
 *  interpolation, average linkage, relative gap 0.25, name accuracy 0.95.
 *  \return nothing; o is completely overwritten. */
void tt_analysis_opts_default(tt_analysis_opts *o);

typedef struct tt_analysis {
    int n;
    double *D;        /* n*n clustered distances: seconds, or standardised units for vectors */
    double *T;        /* n*n t(m) in seconds (the topology's distance matrix, the graph view) */
    int *rep;         /* [n]: the rank whose inter-group measurements stand in for each rank */
    int extended;     /* pairs filled in: from representatives (fast mode), from paths (sample mode) */
    tt_hierarchy h;  /* named levels, coarsest first, at least one */
    char desc[256];   /* how D and the levels were made */
} tt_analysis;

/** \brief From measurements to levels: pairs fast mode left out take the
 *  measurements of their ranks' representatives, pairs sample mode left out
 *  the time of the minimax path through measured pairs (m->opt.sample);
 *  then the distance matrix,
 *  the clustering by o->method into levels (one group when nothing
 *  separates the ranks), named after the truths they match (truth may be
 *  NULL).  Uses the measured times only; identities only name levels.
 *  \return 0 with a filled (arrays malloc'd, owned by a:
 *  tt_analysis_free); -1 with a message in err (at most errlen bytes) on
 *  unusable measurements (a pair neither measured nor represented, a
 *  distance that is not finite), a failed clustering or out of memory, a's
 *  matrices then freed.  tt_analysis_free(a) is safe after either. */
int tt_analyze(const tt_meas *m, const tt_analysis_opts *o, const tt_truthset *truth, tt_analysis *a,
               char *err, size_t errlen);
/** \brief The time of one message of m bytes over the measured pair q,
 *  t(m) = L + (o_s(m) + o_r(m))/2 + g(m), parameters interpolated by how:
 *  the distance tt_analyze clusters by default (the probe's sample mode
 *  plans with it).
 *  \return 0 with *t set; -1 if q's sizes are unusable (none, not
 *  ascending) or out of memory. */
int tt_pair_rec_time(const tt_pair_rec *q, double m, tt_interp how, double *t);
/** \brief Frees what a owns and zeroes it (a itself is not freed); NULL
 *  is ignored.
 *  \return nothing. */
void tt_analysis_free(tt_analysis *a);

/** \brief Completes the distance classes cls[0..L] (one per level,
 *  coarsest first, then `within`) as the loader wants them (dist_classes.c):
 *  an unknown one (negative or NaN) takes its finer neighbour's value
 *  (within: its coarser one's; 0 when none is known), then each coarser
 *  class is raised to its finer neighbour's where it is below it (noise:
 *  a finer group is never farther apart).
 *  \return 1 when any class was known, else 0 (all are 0 then). */
int tt_classes_complete(double *cls, int L);

/** \brief Writes the topology YAML (config/README.md, format 2) of m as
 *  analysed in a: fingerprint, levels, leaves with their identities, groups
 *  and, with with_distance, the distance classes (median t(m) per level, in
 *  microseconds; the matrix itself stays in the measurements).  Depends on
 *  the measurements and the analysis only, so a run and --analyze of its
 *  file write identical bytes.
 *  \return 0, or -1 on out of memory or a write error on out. */
int tt_topo_write(FILE *out, const tt_meas *m, const tt_analysis *a, int with_distance);

/** \brief Bufe's graph view of a's t(m) matrix (cluster.h,
 *  tt_graph_build and tt_graph_fit), vertices named "r<rank>@<host>":
 *  DOT to dot, TGF to tgf (either may be NULL).
 *  \return 0, or -1 with a message in err (at most errlen bytes) when
 *  building the graph, memory or writing fails. */
int tt_graph_files(const tt_meas *m, const tt_analysis *a, FILE *dot, FILE *tgf, char *err, size_t errlen);

#endif
