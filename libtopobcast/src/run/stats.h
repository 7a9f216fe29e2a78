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
/* Why a call fell back to MPI_Bcast. */
typedef enum {
    TB_FALLBACK_CONFIG,   /* the configuration could not be loaded (on some rank) */
    TB_FALLBACK_DIFFER,   /* ranks have different settings */
    TB_FALLBACK_MAPPING,  /* the topology does not fit the job or communicator */
    TB_FALLBACK_CAPACITY, /* TOPOBCAST_MAX_COMMS private communicators in use */
    TB_FALLBACK_NOT_SET_UP, /* MPI_Ibcast before a blocking call set the communicator up */
    TB_FALLBACK_ALGORITHM, /* TOPOBCAST_ALGORITHM could not be used: default forced */
    TB_FALLBACK_INTERCOMM, /* a broadcast on an intercommunicator */
    TB_FALLBACK_SIZE,      /* more bytes than the library handles with this MPI (tb_max_bytes) */
    TB_FALLBACK_COUNT
} tb_fallback_why;
void tb_stats_fallback(tb_fallback_why why, int counted);
/* The words the warning for why used; the report repeats them (kept on the
 * rank that printed the warning, world rank 0). */
void tb_stats_fallback_text(tb_fallback_why why, const char *text);
/* \brief At MPI_Finalize, the counters to stderr from world rank 0.
 * gather: collective over MPI_COMM_WORLD, sums every rank's counts;
 * otherwise world rank 0 prints its own counts and says so, with why_not
 * (no collective: some ranks may never have entered the library, or may
 * not count).  line[r]: the file line of the loaded configuration's rule r
 * (0: a rule of the built-in table), which the counts refer to, from
 * source; NULL (and nrules 0) if none loaded.
 * \return nothing (nothing printed if the reduction fails). */
void tb_stats_report(int gather, const char *why_not, const int *line, int nrules, const char *source);

#endif
