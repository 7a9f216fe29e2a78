/* What the project's own tools (tuner, bench, probe) may ask of a running
 * library beyond the public topobcast.h: run one parsed spec, see the
 * configuration this process loaded, and see the hierarchy the library
 * derived for a communicator.  The tools see the headers of this folder
 * (libtopobcast/private/) and never those of libtopobcast/src/. */
#ifndef TB_TOOLS_H
#define TB_TOOLS_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "algorithm.h"
#include "config.h"
#include "hier.h"
#include "shape.h"

/* \brief Broadcast bytes of buf from root over comm with spec, through the
 * library's own engine and schedule cache (a spec already parsed, so a
 * timing loop times the broadcast, not the parse).  Collective; every rank
 * passes an equal spec.  TB_ALG_DEFAULT is PMPI_Bcast.  A spec that cannot
 * be built for comm runs as PMPI_Bcast, with a warning.
 * \return an MPI error code. */
int tb_tool_bcast(void *buf, size_t bytes, int root, MPI_Comm comm, const tb_alg_spec *spec);

/* \brief The line a tool prints for --version: "PROG VERSION (built for
 * MPICH|Open MPI|SimGrid SMPI, MPI X.Y)", the library's version and the MPI
 * whose headers it was built with.  No MPI call (before MPI_Init too).
 * \return nothing. */
void tb_tool_version(FILE *out, const char *prog);

/* What this process read from the environment and the configuration file
 * (TOPOBCAST_CONFIG, or the built-in table).  Read once, at first use. */
typedef struct tb_tool_setup {
    int disabled;           /* TOPOBCAST_DISABLE */
    int forced;             /* TOPOBCAST_ALGORITHM overrides the table */
    int config_ok;          /* the configuration loaded (file or built-in) */
    const char *config_error; /* why not, when !config_ok */
    const tb_config *config;  /* the loaded configuration (valid when config_ok) */
} tb_tool_setup;

/* \brief The process's knobs and configuration.  Local, no MPI call.
 * \return never NULL; valid until MPI_Finalize. */
const tb_tool_setup *tb_tool_setup_get(void);

/* \brief Whether TOPOBCAST_DISABLE (world rank 0's, shared in MPI_Init)
 * turns the library off for this job, read without loading the
 * configuration (the tuner sets TOPOBCAST_CONFIG after MPI_Init).
 * \return 1 or 0. */
int tb_tool_disabled(void);

/* \brief comm's hierarchy as the library derived it (from the topology file
 * when the ranks agree on a usable one, else from MPI + hwloc).  Collective
 * over comm on first use, and on the first use after broadcasts that did
 * not need the hierarchy (the library's communicator set-up completes
 * only when a call needs it).
 * \return the hierarchy, valid while comm lives, or NULL when comm has one
 * rank, is an intercommunicator, or the set-up failed; *usable (if not
 * NULL) is 1 when every rank of comm agreed on the configuration and mapped
 * itself onto its topology, else 0. */
const tb_hier *tb_tool_comm_hier(MPI_Comm comm, int *usable);

/* \brief comm's shape as the library derived it (shape.h): what the
 * selection table's shape keys see.  Collective over comm on first use,
 * like tb_tool_comm_hier.
 * \return the shape, valid while comm lives, or NULL when
 * tb_tool_comm_hier would return NULL. */
const tb_shape *tb_tool_comm_shape(MPI_Comm comm);

#endif
