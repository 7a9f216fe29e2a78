/* Counters behind TOPOBCAST_STATS: broadcasts and bytes per algorithm
 * (counted at the root, so each broadcast once) and selection rules fired. */
#ifndef TB_STATS_H
#define TB_STATS_H

#include <mpi.h>
#include <stddef.h>

#include "algorithm.h"

#define TB_STATS_MAX_RULES 64

/* rule: index of the selection rule that chose the algorithm, -1 if none
 * (forced, explicit call, or fallback). */
void tb_stats_count(tb_alg_id id, size_t bytes, int rule, int counted);
void tb_stats_fallback(int counted);
/* Collective over MPI_COMM_WORLD at MPI_Finalize: sums and prints from rank 0
 * when print is set there. */
void tb_stats_report(int print);

#endif
