/* Progress and estimated time left on stderr, for the tuner's rank 0.  On a
 * terminal one line is rewritten in place; otherwise a plain line is
 * printed at every tenth of the work or every minute, so logs stay short.
 * Wall-clock time, also under SMPI (where MPI_Wtime is simulated). */
#ifndef TN_TUNER_PROGRESS_H
#define TN_TUNER_PROGRESS_H

typedef struct tn_progress {
    double t0, last;
    double total, done;
    int tty, last_tenth, active;
    int width;
} tn_progress;

/* total: work units (any unit; ETA = elapsed * left / done). */
void tn_progress_start(tn_progress *p, double total, int active);
/* Adds done work and shows `what` (the item just finished or starting). */
void tn_progress_add(tn_progress *p, double work, const char *what);
void tn_progress_finish(tn_progress *p);
/* Seconds since start. */
double tn_progress_elapsed(const tn_progress *p);
/* Wall-clock seconds (CLOCK_MONOTONIC, also under SMPI). */
double tn_progress_now(void);
/* "1h02m", "3m05s", "12s". */
void tn_progress_duration(double s, char *buf, int len);

#endif
