/* A measured topology as the library holds it: hosts, levels, leaves,
 * groups and distance classes, with the lookup indexes the mapping of a
 * communicator needs.  Loaded from a configuration file (config.h), written
 * by the probe and the tuner (tb_topology_write).  Schema: config/README.md,
 * "topology". */
#ifndef TB_TOPO_H
#define TB_TOPO_H

#include <stdint.h>
#include <stdio.h>

#include "hier.h"

/* One calibration process; leaf i is calibration rank i.  20 bytes, no
 * name: the host is an index into tb_topology.hosts. */
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

/* A measured topology.  O(P) memory: each host name once, leaves as small
 * integer records, groups as one int per leaf and level, distances as a
 * few classes, plus the lookup indexes the mapping needs (built by the
 * loader, tb_topo_index_hosts and tb_topo_index_leaves). */
typedef struct tb_topology {
    int nlevels;                          /* coarsest first */
    char (*level_name)[TB_LEVEL_NAME_MAX];
    int nleaves;
    tb_topo_leaf *leaves;                 /* indexed by calibration rank */
    int *ngroups;                         /* per level */
    int **group;                          /* group[l][leaf] */
    tb_topo_dist dist;
    int nprocs;                           /* fingerprint: process count */
    int nhosts;
    char **hosts;                         /* fingerprint: host names (one allocation, hosts[0] first) */
    /* lookup indexes (tb_topo_index_hosts, tb_topo_index_leaves) */
    uint64_t *host_hash, *short_hash;     /* per host: tb_hash_host of its name */
    int *by_hash, *by_short;              /* host indexes sorted by host_hash, by short_hash */
    int *first_leaf;                      /* per host: its lowest leaf */
    int *places;                          /* leaves with pu >= 0, sorted by (host, pu) */
    int nplaces;
    unsigned keeps_hosts;                 /* bit l: every host lies inside one group of level l */
} tb_topology;

/* \brief The hosts' half of t's lookup indexes (hashes of each name and
 * of its short name, host indexes sorted by each), from t's hosts;
 * O(H log H).  The loader calls it after the fingerprint.
 * \return 0; -1 on allocation failure; 1 when two host names hash alike
 * (*a < *b: their indexes; equal names, or a collision).  Whatever was
 * built is released by tb_config_free. */
int tb_topo_index_hosts(tb_topology *t, int *a, int *b);
/* \brief The leaves' half: each host's first leaf, the leaves with a PU
 * sorted by (host, pu), the levels that keep hosts whole; O(P log P).  The
 * loader calls it once leaves and groups are read.
 * \return 0; -1 on allocation failure; 1 when two leaves share a
 * (host, pu >= 0) (*a < *b: the leaves). */
int tb_topo_index_leaves(tb_topology *t, int *a, int *b);
/* \brief Writes t as the topology block of a configuration file
 * ("topology:" and what follows, format 2; the caller writes "topobcast: 2"
 * and the rest): the one writer of the probe and the tuner.  Needs t's
 * hosts, levels, leaves, groups and distance classes, not its indexes.
 * O(P) time, bytes and memory.
 * \return 0, or -1 on out of memory or a write error. */
int tb_topology_write(FILE *out, const tb_topology *t);
/* \brief The host of t a rank is on, from tb_hash_host of its name: the
 * host with that exact name, else the one host with that short name.
 * O(log hosts).
 * \return the host index, or -1 (unknown or ambiguous). */
int tb_topo_find_host(const tb_topology *t, uint64_t full, uint64_t shrt);
/* \brief The leaf of t on host with PU pu (pu >= 0).  O(log P).
 * \return the leaf, or -1. */
int tb_topo_leaf_at(const tb_topology *t, int host, int pu);
#endif
