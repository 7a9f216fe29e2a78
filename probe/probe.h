/* topobcast-probe: what one run measures and keeps.  The same structures
 * are filled by the MPI measurement (rank 0 after the gather) and by
 * reading a saved file (--analyze), so that everything after the
 * measurement is one code path and a saved run re-clusters exactly as it
 * did online.  Times are in seconds, sizes in bytes. */
#ifndef TBP_PROBE_H
#define TBP_PROBE_H

#include <stddef.h>
#include <stdio.h>

#define TBP_HOST_MAX 256

/* Which model a run measured. */
typedef enum { TBP_MODE_PLOGP = 0, TBP_MODE_LOGGP = 1 } tbp_mode;

/* Which pairs may run at the same time (see harness.h). */
typedef enum {
    TBP_CONC_SERIAL = 0, /* one pair at a time */
    TBP_CONC_INTRA,      /* intra-group pairs of different groups together; inter-group one at a time */
    TBP_CONC_GROUPS,     /* any pairs touching disjoint sets of groups together */
    TBP_CONC_RANKS,      /* any pairs of disjoint ranks together (no independence assumed) */
    TBP_CONC_COUNT
} tbp_concurrency;

const char *tbp_concurrency_name(tbp_concurrency c);
int tbp_concurrency_from_name(const char *s); /* -1 if unknown */

/* One rank of the measured job: ground truth (never used for discovery)
 * plus what the harness decided about it. */
typedef struct tbp_rank_info {
    char host[TBP_HOST_MAX]; /* MPI processor name */
    int pu, core, package, numa; /* hwloc logical indexes, -1 unknown/unbound */
    int world_rank;
    int group;    /* independence group: same host by default */
    int measured; /* 0 if fast mode left it out of inter-group pairs */
} tbp_rank_info;

/* The three raw series of a size, each summarised over the R batches by
 * a five-number summary (min, q1, median, q3, max).  PLogP: RTT(m),
 * o_s(m), o_r(m).  LogGP: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s). */
enum { TBP_Q_A = 0, TBP_Q_B = 1, TBP_Q_C = 2, TBP_NQ = 3 };

typedef struct tbp_size_rec {
    double m;
    double rtt;        /* RTT(m), LogGP: PRTT(1,0,m) */
    double o_s, o_r;   /* overheads (LogGP: both o(m)) */
    double g;          /* gap g(m) (LogGP: G_all(m) = g + (m-1)G measured) */
    int gsat;          /* burst length g(m) saturated at; 0: derived from RTT */
    double q[TBP_NQ][5];
} tbp_size_rec;

/* LogGP parameters of a pair (Hoefler's PRTT fit); S = 0: no switch found. */
typedef struct tbp_loggp_fit {
    double L, o, g, G; /* below S */
    double S;          /* first size of the rendezvous segment, 0 if none */
    double g2, G2;     /* at and above S */
} tbp_loggp_fit;

/* One measured pair, from the lower rank i (sender) to j. */
typedef struct tbp_pair_rec {
    int i, j;
    double L;
    int nsizes;
    tbp_size_rec *s; /* [nsizes], ascending m */
    tbp_loggp_fit lg; /* LogGP mode only */
} tbp_pair_rec;

/* Measurement settings (recorded in the save file). */
typedef struct tbp_meas_opts {
    tbp_mode mode;
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
    tbp_concurrency conc;
    double fast;         /* fraction of ranks per group in inter-group pairs; 1 = all */
    int fast_auto;       /* --fast auto: fast chosen from the groups (tbp_fast_auto) */
    double agree;        /* batches stop early once they agree within this (relative); 0 = never */
    unsigned long seed;
} tbp_meas_opts;

void tbp_meas_opts_default(tbp_meas_opts *o);

/* Everything a run produced. */
typedef struct tbp_meas {
    tbp_meas_opts opt;
    int n;                /* ranks */
    tbp_rank_info *rank;  /* [n] */
    int npairs;
    tbp_pair_rec *pair;   /* [npairs], ordered by (i, j) */
    int nrounds;          /* harness rounds */
    double elapsed;       /* measurement time (MPI_Wtime, simulated under SMPI) */
    double wtime_overhead;/* largest MPI_Wtime overhead over the ranks */
} tbp_meas;

void tbp_meas_free(tbp_meas *m);
/* Sorts the pairs by (i, j) and checks that each appears at most once. */
int tbp_meas_sort_pairs(tbp_meas *m);
void tbp_pair_rec_free(tbp_pair_rec *p);

/* ---- statistics (stats.c) -------------------------------------------- */

/* Five-number summary of x[0..n) (x is reordered): min, q1, median, q3,
 * max, quartiles by linear interpolation between order statistics. */
void tbp_five_numbers(double *x, int n, double out[5]);
/* Outlier rejection, then the five numbers of what is left: batches
 * farther from the median than 3 robust standard deviations (1.4826 MAD)
 * and than 1 % of the median are dropped (Hampel's identifier; nothing is
 * dropped below 3 batches).  The kept batches end up in x[0..k), sorted;
 * returns k (at least 1 when n >= 1). */
int tbp_summarize(double *x, int n, double out[5]);
/* The statistic a run uses over its batches: minimum or median. */
static inline double tbp_pick(const double five[5], int use_min)
{
    return use_min ? five[0] : five[2];
}
/* Whether the n >= min_n batches x[0..n) spread by at most tol times the
 * largest of them (so more batches cannot change the statistic by more);
 * tol <= 0: never. */
int tbp_batches_agree(const double *x, int n, int min_n, double tol);

/* ---- sizes (sizes.c) -------------------------------------------------- */

/* Base sizes 0, 1, 2, 4 ... up to max (max itself included); returns the
 * count written to out (cap at least 2 + log2(max)). */
int tbp_sizes_base(long max, long *out, int cap);
/* Where linear interpolation between neighbours misses: for series y[c]
 * (c < nseries) sampled at sizes m[0..n), ascending, with noise[c][k] >= 0
 * tolerated at each point (NULL: none), the next size to measure, or -1.
 * A triple (a, b, c) of consecutive sizes fails when some series at b
 * differs from the line through a and c by more than max(eps*|y(b)|,
 * noise at b plus the noise of the line there); the midpoint of the side
 * holding the bend is returned (the side whose other neighbouring triple
 * is straight, else the wider one), or, if that side is at most
 * min_spacing wide, the next triple is tried. */
long tbp_sizes_next(const double *m, int n, const double *const *y, const double *const *noise,
                    int nseries, double eps, long min_spacing);
/* Whether size k of the measured sizes s[0..ns) (ascending) looks hit by
 * a stall: RTT, o_s or o_r above the next size's by more than eps
 * (relative); the largest size: RTT above the previous one's times the
 * size ratio by more than eps, or an interquartile range of RTT, o_s or
 * o_r above eps of its median.  Such a size is measured again. */
int tbp_size_suspect(const tbp_size_rec *s, int k, int ns, double eps);
/* Two measurements of a size into s: each of RTT, o_s and o_r the lower
 * with its summary, g and its burst length with the lower RTT. */
void tbp_size_keep_lower(tbp_size_rec *s, const tbp_size_rec *t);

/* ---- identity and truth (identity_probe.c, truth.c) ------------------- */

/* Ground-truth partitions known for the ranks: "node" (same host name),
 * "socket" (host + package) and "numa" where they differ from the level
 * above, plus any from a truth file (same name replaces).  Coarsest
 * first where known. */
#define TBP_MAX_TRUTH 8
typedef struct tbp_truthset {
    int n, ntruth;
    char name[TBP_MAX_TRUTH][32];
    int *labels[TBP_MAX_TRUTH];
} tbp_truthset;

/* From the recorded identities; file (may be NULL) lists
 * "HOST name=value ..." lines (see probe/README.md). */
int tbp_truth_build(const tbp_meas *m, const char *file, tbp_truthset *t, char *err, size_t errlen);
void tbp_truth_free(tbp_truthset *t);

/* ---- save file (save.c) ------------------------------------------------ */

int tbp_save_write(const tbp_meas *m, FILE *out);
int tbp_save_read(FILE *in, const char *name, tbp_meas *m, char *err, size_t errlen);

/* ---- LogGP fit (loggp.c) ------------------------------------------------ */

/* From per-size PRTT(1,0,s) (rtt), PRTT(n,0,s) (q[TBP_Q_B]) and
 * PRTT(n,d,s) (q[TBP_Q_C]) with d = PRTT(1,0,s), each taken as minimum or
 * median: o(s) and G_all(s) per size (written into o_s, o_r and g), then
 * g, G by least squares over s >= 1, the switch S where two segments fit
 * G_all(s) and o(s) clearly better than one line, and o as the intercept
 * of o(s) below S. */
int tbp_loggp_fit_pair(tbp_size_rec *s, int ns, int n, int use_min, tbp_loggp_fit *fit);
/* Least-squares line y = a + b x with weights w (NULL: 1); returns the
 * weighted sum of squared residuals. */
double tbp_linfit(const double *x, const double *y, const double *w, int n, double *a, double *b);

#endif
