/* Where a process runs: host name and the hwloc place it is bound to.  The
 * probe records it for every leaf of a topology; the library matches a job
 * onto those leaves with it (topo_map.h). */
#ifndef TB_IDENTITY_H
#define TB_IDENTITY_H

typedef struct tb_identity {
    char host[256];
    int bound;          /* 1 if bound to a single PU (or a set within one package) */
    int pu, core, package, numa; /* hwloc logical indexes, -1 if unknown */
    int node;           /* lowest comm rank sharing memory (MPI_COMM_TYPE_SHARED) */
    int world_rank;
} tb_identity;

/* \brief This process's identity: host name, hwloc binding (node and
 * world_rank are left unset).  Local, no MPI call.  Without hwloc, or
 * under SMPI, the place is unknown (-1) and bound is 0.
 * \return 0. */
int tb_identity_self(tb_identity *id);

#endif
