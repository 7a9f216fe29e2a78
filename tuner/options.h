/* The tuner's command line: what to tune (sizes, communicators, algorithm
 * families), how to time (repetitions, roots), how hard to prune, and where
 * the inputs and outputs are.  Also the default message sizes. */
#ifndef TN_TUNER_OPTIONS_H
#define TN_TUNER_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#define TN_MAX_SIZES 128
#define TN_MAX_COMMS 8

typedef struct tn_opts {
    const char *topology, *measurements, *out, *partial, *compare, *csv, *model_csv, *algs;
    size_t sizes[TN_MAX_SIZES]; /* ascending */
    int nsizes;
    size_t max_size;
    int comm_sizes[TN_MAX_COMMS], ncomm_sizes;
    int reps, warmup, exhaustive, root_mode, resume, max_timed, verbose, send_variants, dry_run, max_segments;
    double factor, tie;
} tn_opts;

/* \brief Prints the usage text to f.
 * \return nothing. */
void tn_options_usage(FILE *f);

/* \brief Parses argv into *o (defaults for what is not given; without
 *        --sizes, the powers of two from 1 B to --max-size and the
 *        midpoints 3*2^k between them).  Errors about an option are
 *        printed to stderr.
 * \return 0 (*help = 1 if -h/--help was given: nothing else is parsed), or
 *         -1 on a bad option or value. */
int tn_options_parse(tn_opts *o, int argc, char **argv, int *help);

/* \brief Name of a root mode (tn_opts.root_mode: 0, 1 rotating, 2 both),
 *        as --roots takes it.
 * \return "0", "rotate" or "both". */
const char *tn_roots_name(int mode);

#endif
