/* A measured topology as the library holds it: hosts, levels, groups and
 * distance classes, with the lookup indexes the mapping of a communicator
 * needs.  Loaded from a configuration file (config.h), written by the probe
 * and the tuner (tb_topology_write).  Schema: config/README.md, "topology".
 *
 * Two forms, one meaning.  A job's topology (the probe's, one allocation)
 * lists one leaf per process of the calibration job and groups of leaves.
 * A site topology (composed from a network pass and node passes, for every
 * job on its hosts) lists groups of hosts for the levels that keep hosts
 * whole, and node types for the levels below: the PUs of one host of the
 * type and their groups, measured once.  Either serves any communicator
 * whose ranks all run on its hosts, whatever their number, order and
 * ranks per host (topo/derive.c). */
#ifndef TB_TOPO_H
#define TB_TOPO_H

#include <stdint.h>
#include <stdio.h>

#include "hier.h"
#include "identity.h"

/* One calibration process; leaf i is calibration rank i.  20 bytes, no
 * name: the host is an index into tb_topology.hosts.  In a node type, one
 * PU of its hosts (host -1). */
typedef struct tb_topo_leaf {
    int host;      /* index in tb_topology.hosts */
    int pu;        /* hwloc PU logical index the rank was bound to, -1 unknown */
    int core, package, numa; /* recorded ground truth, -1 unknown */
} tb_topo_leaf;

/* Distances by class (config/README.md, "distance"): two leaves whose
 * coarsest differing level is l are level[l] apart, two leaves sharing
 * every group are `within` apart.  Non-increasing from level[0] down to
 * within (the loader checks), so finer groups are never farther apart. */
typedef struct tb_topo_dist {
    int given;                   /* 0: the file has none (hop counts serve) */
    double level[TB_MAX_LEVELS]; /* per level, coarsest first */
    double within;
    char unit[16];               /* as written ("us" by default); informative */
} tb_topo_dist;

/* A node type of a site topology: the PUs of any one of its hosts, and
 * their groups at the levels that split such a host (the topology's levels
 * from nhost_levels on), as one node pass measured them. */
#define TB_TOPO_HWLOC_MAX 96
typedef struct tb_topo_type {
    char name[TB_LEVEL_NAME_MAX];
    char hwloc[TB_TOPO_HWLOC_MAX]; /* what hwloc says of its hosts (tb_hwloc_summary), "" unknown */
    int npus;
    tb_topo_leaf *pus;             /* host -1; pu >= 0, each once */
    int *ngroups;                  /* per level below the hosts' */
    int **group;                   /* group[k][i]: PU i's group at level nhost_levels + k */
    int *by_pu;                    /* PU positions sorted by pu (tb_topo_index_types) */
} tb_topo_type;

/* A measured topology.  Memory: each host name once; a job's topology O(P)
 * (leaves as small integer records, groups one int per leaf and level); a
 * site topology O(hosts x levels + PUs of its node types x levels);
 * distances a few classes; plus the lookup indexes the mapping needs
 * (built by the loader: tb_topo_index_hosts, then tb_topo_index_leaves or
 * tb_topo_index_types). */
typedef struct tb_topology {
    int nlevels;                          /* coarsest first */
    char (*level_name)[TB_LEVEL_NAME_MAX];
    int *ngroups;                         /* per level (site: below the hosts', the sum over hosts) */
    int **group;                          /* job: group[l][leaf]; site: group[l][host], l < nhost_levels */
    tb_topo_dist dist;
    int nprocs;                           /* fingerprint: the calibration job's processes (site: 0) */
    int nhosts;
    char **hosts;                         /* fingerprint: host names (one allocation, hosts[0] first) */
    char **host_hwloc;                    /* fingerprint hwloc: per host, hwloc's summary of it ("" unknown);
                                             NULL when the file has none (one allocation, host_hwloc[0] first) */
    /* a job's topology */
    int nleaves;
    tb_topo_leaf *leaves;                 /* indexed by calibration rank */
    /* a site topology (site = 1): no leaves */
    int site;
    int nhost_levels;                     /* levels 0 .. nhost_levels - 1 group hosts */
    int ntypes;
    tb_topo_type *types;
    int *host_type;                       /* per host: its node type, -1 none (its ranks placed by host) */
    /* lookup indexes (tb_topo_index_hosts, tb_topo_index_leaves, tb_topo_index_types) */
    uint64_t *host_hash, *short_hash;     /* per host: tb_hash_host of its name */
    int *by_hash, *by_short;              /* host indexes sorted by host_hash, by short_hash */
    int *first_leaf;                      /* job: per host, its lowest leaf */
    int *places;                          /* job: leaves with pu >= 0, sorted by (host, pu) */
    int nplaces;
    int **host_gbase;                     /* site: [k][h], h's first group at level nhost_levels + k */
    int *host_pubase;                     /* site: [h], h's first PU in one numbering of every host's PUs */
    unsigned keeps_hosts;                 /* bit l: every host lies inside one group of level l */
} tb_topology;

/* \brief The hosts' half of t's lookup indexes (hashes of each name and
 * of its short name, host indexes sorted by each), from t's hosts;
 * O(H log H).  The loader calls it after the fingerprint.
 * \return 0; -1 on allocation failure; 1 when two host names hash alike
 * (*a < *b: their indexes; equal names, or a collision).  Whatever was
 * built is released by tb_config_free. */
int tb_topo_index_hosts(tb_topology *t, int *a, int *b);
/* \brief The leaves' half of a job's topology: each host's first leaf,
 * the leaves with a PU sorted by (host, pu), the levels that keep hosts
 * whole; O(P log P).  The loader calls it once leaves and groups are read.
 * \return 0; -1 on allocation failure; 1 when two leaves share a
 * (host, pu >= 0) (*a < *b: the leaves). */
int tb_topo_index_leaves(tb_topology *t, int *a, int *b);
/* \brief The node types' half of a site topology: each type's PUs sorted
 * by pu, each host's first group at every level below the hosts' and
 * first PU, ngroups of those levels, keeps_hosts; O(hosts x levels + PUs
 * log PUs).  The loader calls it once host groups and types are read.
 * \return 0; -1 on allocation failure; 1 when a type lists a PU twice
 * (*a = the type, *b = the second position). */
int tb_topo_index_types(tb_topology *t, int *a, int *b);
/* \brief The position of PU pu in node type ty's list.  O(log PUs).
 * \return the position, or -1 (no such PU). */
int tb_topo_type_pu(const tb_topo_type *ty, int pu);
/* \brief A site topology as a job's: one leaf per PU of every host (in
 * host order, each host's PUs in its type's order; a host without a type
 * gets one leaf without a PU), the same levels, groups and distances, so
 * that a tool that walks leaves can draw or price it.  O(hosts x PUs per
 * host x levels) memory: for tools, never for the library at run time.
 * A job's topology is copied as it is.
 * \return 0 (release with tb_topology_release), or -1 out of memory. */
int tb_topology_expand(const tb_topology *t, tb_topology *out);
/* \brief Frees what the loader or tb_topology_expand allocated in t and
 * zeroes it.
 * \return nothing. */
void tb_topology_release(tb_topology *t);
/* \brief Writes t as the topology block of a configuration file
 * ("topology:" and what follows, format 2, in t's form; the caller writes
 * "topobcast: 2" and the rest): the one writer of the probe and the tuner.
 * Needs t's hosts, levels, leaves or host groups and node types, and
 * distance classes, not its indexes.  O(size of t) time, bytes and memory.
 * \return 0, or -1 on out of memory or a write error. */
int tb_topology_write(FILE *out, const tb_topology *t);
/* \brief The host of t a rank is on, from tb_hash_host of its name: the
 * host with that exact name, else the one host with that short name.
 * O(log hosts).
 * \return the host index, or -1 (unknown or ambiguous). */
int tb_topo_find_host(const tb_topology *t, uint64_t full, uint64_t shrt);
/* \brief The leaf of a job's topology t on host with PU pu (pu >= 0).
 * O(log P).
 * \return the leaf, or -1. */
int tb_topo_leaf_at(const tb_topology *t, int host, int pu);
/* \brief Derives the hierarchy of a communicator of size ranks whose
 * identities are all[] (topo/derive.c), in O(n log P) for n ranks on a
 * topology of P leaves (O(n log n) without one).  With a topology (topo
 * not NULL), whatever its form and whatever the job's size, maps ranks
 * onto its leaves or its node types' PUs (by host + PU; by host only when
 * unbound) and restricts its levels and distance classes to the members;
 * otherwise node (all[].node) + package + NUMA from the identities.  Local
 * and deterministic: what every rank of a communicator runs on the
 * exchanged identities, and what a tool runs on identities it makes up
 * (topobcast-probe --check --hosts).
 * \return 0, or -1 with a reason fit for a one-line warning, and, when a
 * rank's host is not in the topology, that rank in *unknown (unless NULL;
 * -1 otherwise).  On success why is empty or holds a note for verbose
 * output (zero-config: the nodes/packages/NUMA nodes found; with a
 * topology: unbound ranks made the levels that split a host unusable). */
int tb_topo_derive(const tb_ident_rec *all, int size, const tb_topology *topo, tb_hier *out, int *unknown, char *why,
                   size_t whylen);
/* \brief The job's one warning when a rank runs on a host the topology of
 * file `source` lacks, as the library prints it (without its
 * "topobcast: " prefix and "; using MPI_Bcast" end): the host, the world
 * rank, the file, its host count and first and last host, and what to do.
 * \return snprintf's count. */
int tb_topo_unknown_host_text(char *buf, size_t len, const tb_topology *t, const char *source, const char *host,
                              int world_rank);
#endif
