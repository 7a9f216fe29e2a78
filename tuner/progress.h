/* Progress and estimated time left on stderr, for the tuner's rank 0.  On a
 * terminal one line is rewritten in place; otherwise a plain line is
 * printed at every tenth of the work or every minute, so logs stay short.
 * Wall-clock time, also under SMPI (where MPI_Wtime is simulated). */
#ifndef TB_TUNER_PROGRESS_H
#define TB_TUNER_PROGRESS_H

typedef struct tb_progress {
    double t0, last;
    double total, done;
    int tty, last_tenth, active;
    int width;
} tb_progress;

/* total: work units (any unit; ETA = elapsed * left / done). */
void tb_progress_start(tb_progress *p, double total, int active);
/* Adds done work and shows `what` (the item just finished or starting). */
void tb_progress_add(tb_progress *p, double work, const char *what);
void tb_progress_finish(tb_progress *p);
/* Seconds since start. */
double tb_progress_elapsed(const tb_progress *p);
/* "1h02m", "3m05s", "12s". */
void tb_progress_duration(double s, char *buf, int len);

#endif
