/* Where each rank of a communicator is, and the communicator's own
 * hierarchy derived from that.  The exchange is collective and done by every
 * rank unconditionally (so a rank whose config failed cannot hang the
 * others); the derivation is local and deterministic, so ranks holding the
 * same config derive the same hierarchy. */
#ifndef TB_TOPO_MAP_H
#define TB_TOPO_MAP_H

#include <mpi.h>
#include <stdio.h>

#include "hier.h"
#include "identity.h"
#include "topo.h"

/* \brief Collective over comm: fills all[0..size) (malloc'd) with every
 * rank's identity record (tb_ident_rec: 32 bytes a rank, host names hashed)
 * and *self with this process's own identity; the host is MPI's processor
 * name, as the probe records it.
 * \return MPI_SUCCESS, or an MPI error code (all NULL). */
int tb_topo_exchange(MPI_Comm comm, tb_ident_rec **all, tb_identity *self);
/* \brief This process's identity as tb_topo_exchange records it, node
 * left -1: local, no collective call (the set-up without waiting sends it
 * with MPI_Iallgather, then tb_topo_nodes_by_host).
 * \return nothing. */
void tb_topo_self(tb_identity *self);
/* \brief Sets all[r].node, r < size, to the lowest rank of the same host
 * (host hash): what MPI_COMM_TYPE_SHARED gives where a node is a host,
 * computed from the records alone, in O(size) time and memory.
 * \return 0, or -1 out of memory (records unchanged). */
int tb_topo_nodes_by_host(tb_ident_rec *all, int size);
/* tb_topo_derive, the local half (identities + topology -> hierarchy), is
 * declared in private/topo.h: the tools run it too. */
/* \brief Prints the hierarchy as a short indented tree (for
 * TOPOBCAST_VERBOSE): groups with their ranks, and the host of a group on
 * one host when its name is known (a host of topo, or self's own).  all,
 * topo and self may be NULL.
 * \return nothing. */
void tb_hier_print(const tb_hier *h, const tb_ident_rec *all, const tb_topology *topo, const tb_identity *self,
                   FILE *out);

#endif
