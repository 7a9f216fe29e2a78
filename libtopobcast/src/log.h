/* Messages to stderr, prefixed "topobcast:".  Warnings that concern every
 * rank are printed by one rank only. */
#ifndef TB_LOG_H
#define TB_LOG_H

#include <mpi.h>

/* Prints if rank 0 of MPI_COMM_WORLD. */
void tb_log_world0(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints at most once per process for a given once-flag. */
void tb_log_once(int *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tb_world_rank(void);

#endif
