/* Where each rank of a communicator is, and the communicator's own
 * hierarchy derived from that.  The exchange is collective and done by every
 * rank unconditionally (so a rank whose config failed cannot hang the
 * others); the derivation is local and deterministic, so ranks holding the
 * same config derive the same hierarchy. */
#ifndef TB_TOPO_MAP_H
#define TB_TOPO_MAP_H

#include <mpi.h>
#include <stdio.h>

#include "config.h"
#include "hier.h"
#include "identity.h"

/* Collective over comm: fills all[0..size) (malloc'd) with every rank's
 * identity; host is MPI's processor name, as the probe records it. */
int tb_topo_exchange(MPI_Comm comm, tb_identity **all);
/* Derives comm's hierarchy from the identities.  With cfg having a topology,
 * map ranks onto its leaves (by host + PU; by host only when unbound) and
 * restrict its levels to the members; otherwise node (shared memory) +
 * package + NUMA from the identities.  Returns 0, or -1 with a reason fit for
 * a one-line warning.  On success why is empty or holds a note for verbose
 * output (zero-config: the nodes/packages/NUMA nodes found; with a topology:
 * unbound ranks made the levels that split a host unusable). */
int tb_topo_derive(const tb_identity *all, int size, int world_size, const tb_config *cfg, tb_hier *out,
                   char *why, size_t whylen);
/* Prints the hierarchy as a short indented tree (for TOPOBCAST_VERBOSE). */
void tb_hier_print(const tb_hier *h, const tb_identity *all, FILE *out);

#endif
