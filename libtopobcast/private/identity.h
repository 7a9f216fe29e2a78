/* Where a process runs: host name and the hwloc place it is bound to.  The
 * probe records it for every leaf of a topology; the library matches a job
 * onto those leaves with it (topo/map.h). */
#ifndef TB_IDENTITY_H
#define TB_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* This process, as it finds itself (one per process). */
typedef struct tb_identity {
    char host[256];
    int bound;          /* 1 if bound to a single PU (or a set within one package) */
    int pu, core, package, numa; /* hwloc logical indexes, -1 if unknown */
    int node;           /* lowest comm rank sharing memory (MPI_COMM_TYPE_SHARED) */
    int world_rank;
} tb_identity;

/* A rank's identity as the ranks of a communicator exchange it: the host as
 * the two hashes tb_hash_host gives (whole and short name), never the name,
 * so that it costs 32 bytes per rank whatever the host names' length. */
typedef struct tb_ident_rec {
    uint64_t host, host_short; /* tb_hash_host of the host name */
    int32_t pu;                /* >= 0 only when bound to that PU (or core) */
    int16_t package, numa;     /* -1 if unknown (or beyond 32766) */
    int32_t node;              /* lowest comm rank sharing memory */
    int32_t world_rank;
} tb_ident_rec;

/* \brief This process's identity: host name, hwloc binding (node and
 * world_rank are left unset).  Local, no MPI call.  Without hwloc, or
 * under SMPI, the place is unknown (-1) and bound is 0.
 * \return 0. */
int tb_identity_self(tb_identity *id);

/* \brief What hwloc says of this host as a whole, in a few words that
 * tell kinds of nodes apart: "2 packages, 8 NUMA nodes, 128 cores, 256
 * PUs" (every object of the machine, those the process may not use
 * included, so that a job confined to part of a node describes the same
 * node).  The probe records it per host (the topology's `hwloc`) and
 * topobcast-probe --compose gives each host the node type whose summary
 * it shares.  Loads hwloc's topology once per call (milliseconds).
 * \return 0 with the text in buf (at most len - 1 characters); -1 with
 * buf empty without hwloc, or under SimGrid SMPI (the simulated host is
 * not the machine running the simulation). */
int tb_hwloc_summary(char *buf, size_t len);

/* \brief The exchanged record of an identity: host hashed, pu kept only
 * when bound.
 * \return the record. */
static inline tb_ident_rec tb_ident_rec_of(const tb_identity *id)
{
    tb_ident_rec r;
    tb_hash_host(id->host, &r.host, &r.host_short);
    r.pu = id->bound && id->pu >= 0 ? id->pu : -1;
    r.package = (int16_t)(id->package >= 0 && id->package < INT16_MAX ? id->package : -1);
    r.numa = (int16_t)(id->numa >= 0 && id->numa < INT16_MAX ? id->numa : -1);
    r.node = id->node;
    r.world_rank = id->world_rank;
    return r;
}

#endif
