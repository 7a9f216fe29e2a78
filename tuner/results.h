/* What the tuner measured: one record per (communicator, message size,
 * algorithm), kept in memory and appended line by line to a partial-results
 * file as soon as it is known, so an interrupted run loses at most the
 * measurement in progress and `--resume` skips everything already there.
 *
 * File format (text, one record per line, '#' lines are comments; the
 * first comment line records the job size and the measurement settings,
 * which a resumed run must match):
 *   # topobcast-tuner partial results v2 nprocs=P reps=N warmup=W roots=MODE comms=job:512,rows:16,...
 *   comm bytes status predicted_s med0 p25_0 p75_0 tmean0 medR p25R p75R tmeanR spec
 * comm is the communicator's number in the header's comms list (1 first);
 * fields separated by single spaces, "nan" where a root mode was not
 * measured or there is no prediction, status 0 ok / 1 wrong data / 2 error,
 * spec last (it never contains spaces). */
#ifndef TN_TUNER_RESULTS_H
#define TN_TUNER_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#include "candidates.h"

enum { TN_RES_OK = 0, TN_RES_WRONG = 1, TN_RES_ERROR = 2 };

/* Summary of one root mode (times in seconds; median < 0: not measured). */
typedef struct tn_root_stats {
    double median, p25, p75, trimmed_mean;
} tn_root_stats;

typedef struct tn_result {
    int comm;              /* the communicator's number in the run (1 first) */
    size_t bytes;
    char spec[TN_CAND_TEXT];
    int status;
    double predicted;      /* model, seconds; < 0 if none */
    tn_root_stats root0;   /* root 0 */
    tn_root_stats rotate;  /* root rotating over the ranks */
} tn_result;

typedef struct tn_results {
    int n, cap;
    tn_result *v;
    size_t icap;           /* hash index over (comm, bytes, spec) */
    int *index;            /* slot -> record + 1, 0 empty */
} tn_results;

/* Adds or replaces the record with the same key.  Returns 0 or -1. */
int tn_results_put(tn_results *rs, const tn_result *r);
const tn_result *tn_results_find(const tn_results *rs, int comm, size_t bytes, const char *spec);
/* Sets the prediction of an existing record (results resumed from a partial
 * file carry the prediction of the run that measured them).  Returns 0, or
 * -1 if there is no such record. */
int tn_results_set_predicted(tn_results *rs, int comm, size_t bytes, const char *spec, double predicted);
void tn_results_free(tn_results *rs);

/* What a record is ranked by: the mean of the medians of the root modes
 * measured (seconds); the same for its quartiles.  < 0 if nothing. */
double tn_result_score(const tn_result *r);
double tn_result_p25(const tn_result *r);
double tn_result_p75(const tn_result *r);

/* Header line of a partial file for these settings (no newline); comms
 * lists the run's communicators as label:size,... */
void tn_results_header(char *buf, size_t len, int nprocs, int reps, int warmup, const char *roots, const char *comms);
int tn_results_write_line(FILE *f, const tn_result *r);
/* Parses one record line; 0, or -1 if it is not one. */
int tn_results_parse_line(const char *line, tn_result *r);
/* Loads a partial file.  Its header must equal `header` (same job size and
 * settings), else -1 with err saying what differs.  A missing file is an
 * empty result set (0).  A truncated last line (interrupted write) is
 * ignored. */
int tn_results_load(const char *path, const char *header, tn_results *rs, char *err, size_t errlen);

#endif
