/* The tuner's command line: what to tune (sizes, communicators, algorithm
 * families), how to time (repetitions, roots), how hard to prune, and where
 * the inputs and outputs are.  Also the default message sizes. */
#ifndef TN_TUNER_OPTIONS_H
#define TN_TUNER_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#define TN_MAX_SIZES 128
#define TN_MAX_COMMS 16       /* --comm-sizes */
#define TN_MAX_TUNED 64       /* communicators timed in one run (site shapes included) */
#define TN_SITE_SHAPES 24     /* --site-shapes: default budget of timed shapes */
#define TN_SITE_SMALL 64      /* --site-small: the grid's shapes of at most this many ranks are timed too */

typedef struct tn_opts {
    const char *topology, *measurements, *out, *partial, *compare, *csv, *model_csv, *algs;
    const char *platform, *hostfile; /* a simulated run's SimGrid platform and hostfile (bound, model) */
    const char *topology_opt;        /* the option that named topology: "--topology" or "--config"; NULL if none */
    const char *prog;                /* the name it was run by (argv[0] without its directory) */
    size_t sizes[TN_MAX_SIZES]; /* ascending */
    int nsizes;
    size_t max_size;
    int comm_sizes[TN_MAX_COMMS], ncomm_sizes;
    int shapes;                 /* --shapes: bits of shapes.h; -1 not given */
    int reps, warmup, exhaustive, root_mode, resume, max_timed, verbose, send_variants, dry_run, max_segments;
    double factor, tie;
    int site;                   /* --site: a table for every job of the partition */
    int site_shapes;            /* --site-shapes: shapes timed at most */
    int site_small;             /* --site-small: and the grid's shapes of at most this many ranks (0: none) */
    int top;                    /* --top: candidates timed per shape and size, a strict budget (0: none) */
    int site_top;               /* --site-top: candidates timed per shape and size (0: by size, tn_opts_site_top) */
    double site_margin;         /* --site-margin: a shape not timed gets an algorithm only predicted this many
                                   times faster than default (0: from the model's measured error) */
} tn_opts;

/* \brief Prints the usage text to f.
 * \return nothing. */
void tn_options_usage(FILE *f);

/* \brief Parses argv into *o (defaults for what is not given; without
 *        --sizes, the powers of two from 1 B to --max-size and the
 *        midpoints 3*2^k between them).  Prints nothing: the caller
 *        prints err once for the job.
 * \return 0 (*help = 1 if -h/--help was given: nothing else is parsed), or
 *         -1 with err naming the argument and what is wrong with it (an
 *         unknown option, a missing or bad value). */
int tn_options_parse(tn_opts *o, int argc, char **argv, int *help, char *err, size_t errlen);

/* \brief The shapes to time (bits of shapes.h): --shapes, else all of them
 *        unless --comm-sizes is given alone.
 * \return the bits. */
unsigned tn_opts_shapes(const tn_opts *o);

/* \brief The candidates a site calibration times per shape of P ranks
 *        and message size: --site-top, else 3 up to 64 ranks, 2 up to
 *        1024, 1 above (fewer as a timing costs more).
 * \return K >= 1. */
int tn_opts_site_top(const tn_opts *o, int P);

/* \brief Name of a root mode (tn_opts.root_mode: 0, 1 rotating, 2 both),
 *        as --roots takes it.
 * \return "0", "rotate" or "both". */
const char *tn_roots_name(int mode);

#endif
