/* Process-wide knobs from the environment and the loaded configuration,
 * read once (thread-safe) at the first broadcast. */
#ifndef TB_SETTINGS_H
#define TB_SETTINGS_H

#include <stdint.h>

#include "algorithm.h"
#include "config.h"

#define TB_MAX_COMMS_DEFAULT 64

typedef struct tb_settings {
    int disabled;            /* TOPOBCAST_DISABLE (world rank 0's, when shared at MPI_Init) */
    int per_process;         /* the library's MPI_Init did not run (PMPI_Init called past the
                                static library, which defines none): nothing was shared,
                                each process follows its own environment */
    int disabled_here;       /* per_process and this process's TOPOBCAST_DISABLE is set: it
                                takes part in each communicator's agreement, which then falls
                                back (a disabled process cannot skip a collective the others make) */
    int verbose;             /* TOPOBCAST_VERBOSE */
    int stats;               /* TOPOBCAST_STATS */
    int max_comms;           /* TOPOBCAST_MAX_COMMS: private duplicates kept at once */
    int forced;              /* TOPOBCAST_ALGORITHM given (a bad one forces default) */
    int forced_bad;          /* ... and it was bad: its calls count as fallbacks */
    tb_alg_spec forced_spec;
    int config_ok;           /* config loaded (file or built-in) */
    char config_error[1024]; /* why not, when !config_ok */
    tb_config config;
    uint64_t agree_hash;     /* everything the ranks of a communicator must share */
} tb_settings;

/* \brief The process's settings, read at the first call (thread-safe).
 * \return never NULL. */
const tb_settings *tb_settings_get(void);
/* \brief Collective over MPI_COMM_WORLD, right after PMPI_Init: world rank
 * 0's TOPOBCAST_DISABLE and TOPOBCAST_STATS go to every process (which then
 * follows them, whatever its own environment: a process disabled on its
 * own takes part, and its communicators fall back by agreement), and world
 * rank 0 reads TOPOBCAST_CONFIG once for the whole job (config/share.h);
 * the settings, read later at the first broadcast, use those bytes.
 * \return nothing. */
void tb_settings_at_init(void);
/* \brief Whether world rank 0's TOPOBCAST_DISABLE, shared in MPI_Init,
 * turns the library off for the job; reads no configuration.
 * \return 1 or 0 (0 before MPI_Init). */
int tb_settings_world0_disabled(void);
/* \brief The library's part of MPI_Init, once per process whatever calls
 * it (MPI_Init / MPI_Init_thread at either layer, intercept/layer.h; the
 * Fortran MPI_INIT entry points): the
 * MPI library's check (compat.h), then tb_settings_at_init.  Collective
 * over MPI_COMM_WORLD.
 * \return nothing. */
void tb_settings_init_hook(void);
/* Frees the configuration (at MPI_Finalize). */
void tb_settings_release(void);

#endif
