/* What the site files share (not API): a site being built from passes --
 * hosts, their levels, node types, distance classes -- before it becomes
 * the library's tb_topology (site_build.c), the level lists' union
 * (site_levels.c), and the inputs read into that form (site_parts.c). */
#ifndef TT_SITE_INTERNAL_H
#define TT_SITE_INTERNAL_H

#include <stdio.h>

#include "site.h"

typedef char tt_level_name[TB_LEVEL_NAME_MAX];

/* A node type being built: its PUs, and its groups at its own levels
 * below the host (ntl of them) or, once filled, at the site's (nsub). */
typedef struct tt_type_part {
    tt_level_name name;
    char hwloc[TB_TOPO_HWLOC_MAX];
    const char *file;         /* where it comes from, for messages */
    const char *host;         /* a node pass's host (NULL: from a site file) */
    int npus;
    tb_topo_leaf *pus;        /* owned; host -1 */
    int nlev;
    tt_level_name lev[TB_MAX_LEVELS];
    int *group[TB_MAX_LEVELS];      /* owned: group[k][i], PU i's group at lev[k], dense */
    double cls[TB_MAX_LEVELS], within; /* distance classes of its levels, NaN unknown */
} tt_type_part;

/* An input read into host levels: a network pass or a site file. */
typedef struct tt_site_part {
    const char *file;
    int nhosts;
    char *const *host;        /* borrowed: the input's host names */
    char *const *hwloc;       /* borrowed: per host, or NULL */
    int nlev;                 /* levels of hosts, coarsest first: no one-group level, no per-host level */
    tt_level_name lev[TB_MAX_LEVELS];
    int *group[TB_MAX_LEVELS];      /* owned: per host, dense */
    double cls[TB_MAX_LEVELS];      /* NaN unknown */
    tt_level_name perhost;    /* its level of one host per group ("" none) */
    double perhost_cls;       /* the class between two of its hosts in one finest group; NaN unknown */
    double within;            /* the class inside a host; NaN unknown */
    int ntypes;
    tt_type_part *types;      /* owned (site files) */
    const int *host_type;     /* borrowed: per host (site files), or NULL */
} tt_site_part;

/* A site being built: the hosts, their levels, the per-host level, the
 * types and their shared levels below the hosts, every class. */
typedef struct tt_site_build {
    int nhosts;
    const char **host;        /* borrowed names */
    int nlev;
    tt_level_name lev[TB_MAX_LEVELS];
    int *group[TB_MAX_LEVELS];      /* borrowed: per host, dense, nested */
    double cls[TB_MAX_LEVELS];      /* NaN unknown */
    tt_level_name perhost;    /* "" : node, or host when a level is called node */
    double perhost_cls, within;
    int ntypes;
    tt_type_part *types;      /* borrowed; their levels filled to sub[] (tt_types_share_levels) */
    const int *host_type;     /* borrowed: per host, -1 none */
    int nsub;
    tt_level_name sub[TB_MAX_LEVELS];
    double sub_cls[TB_MAX_LEVELS];  /* NaN unknown */
} tt_site_build;

/** \brief The site topology of b: hosts, its levels of hosts, the level
 *  of one host per group (unless the finest already is one), the types'
 *  levels, and the distance classes completed (tt_classes_complete; none
 *  when no class is known).  O(hosts x levels + PUs x levels).
 *  \return 0 with *out (tb_topology_release); -1 with err "file:
 *  expected ..." (more than TB_MAX_LEVELS levels, a name used twice, out
 *  of memory). */
int tt_site_assemble(const tt_site_build *b, const char *file, tb_topology *out, char *err, size_t errlen);

/** \brief The union of nlists level lists (lists[i] of counts[i] names,
 *  coarsest first, from files[i]) in the one order that keeps each
 *  list's: into out[0..cap), its count in *n.
 *  \return 0; -1 with err when two names come in opposite orders, when
 *  two are in no list together (named differently: nothing orders them),
 *  or when there are more than cap. */
int tt_levels_union(const tt_level_name *const *lists, const int *counts, const char *const *files, int nlists,
                    tt_level_name *out, int cap, int *n, char *err, size_t errlen);

/** \brief Fills t's groups to the levels sub[0..nsub) (a superset of its
 *  own, in an order that keeps theirs): a level it lacks takes the groups
 *  of its closest coarser level it has, or one group of all its PUs; its
 *  classes follow (NaN where it lacked the level).
 *  \return 0, or -1 out of memory (t unchanged). */
int tt_type_fill_levels(tt_type_part *t, const tt_level_name *sub, int nsub);

/** \brief A network pass (a job's topology of one rank per host) as host
 *  levels: its levels' groups per host (one-group levels left out), its
 *  classes, within as the class between hosts (perhost_cls).
 *  \return 0 (tt_site_part_free); -1 with err "FILE: expected ..." (a
 *  site's topology, a host with several ranks, out of memory). */
int tt_part_of_network_pass(const tt_site_file *f, tt_site_part *p, char *err, size_t errlen);

/** \brief A site topology as host levels and types (one-group levels left
 *  out, its level of one host per group as perhost).
 *  \return 0 (tt_site_part_free); -1 with err (out of memory). */
int tt_part_of_site(const tt_site_file *f, tt_site_part *p, char *err, size_t errlen);

/** \brief A node pass (a job's topology of one host) as a node type
 *  called name: its levels that split the host, its PUs (their positions
 *  when no rank was bound and it has no such level: a note to notes),
 *  its classes.
 *  \return 0 (tt_type_part_free); -1 with err "FILE: expected ..." (a
 *  site's topology, several hosts, unbound ranks with levels inside the
 *  host, out of memory). */
int tt_type_of_node_pass(const tt_node_pass *np, FILE *notes, tt_type_part *t, char *err, size_t errlen);

/** \brief Frees what p owns and zeroes it.
 *  \return nothing. */
void tt_site_part_free(tt_site_part *p);
/** \brief Frees what t owns and zeroes it.
 *  \return nothing. */
void tt_type_part_free(tt_type_part *t);

/* A lookup of host names: exact, else the one host with that short name
 * (up to the first '.'), as the library matches a rank's host. */
typedef struct tt_host_index {
    tb_topology t; /* only its hosts (borrowed) and their hash indexes */
} tt_host_index;

/** \brief Indexes host[0..n) (names kept, not copied), O(n log n).
 *  \return 0 (tt_host_index_free); -1 out of memory or two names alike. */
int tt_host_index_build(tt_host_index *x, const char *const *host, int n);
/** \brief The host called name in x (exact, else by a unique short name).
 *  \return its index, or -1. */
int tt_host_index_find(const tt_host_index *x, const char *name);
/** \brief Frees x's indexes.
 *  \return nothing. */
void tt_host_index_free(tt_host_index *x);

/** \brief Gives the hosts of each list in named[0..nnamed) the type it
 *  names (one of types[0..ntypes)), whatever type[] held: type[h] set.
 *  Listed names that are not hosts of the site are said on notes.
 *  \return 0; -1 with err ("--node-type NAME=LIST: expected ...": a type
 *  no input measured, a bad list, a host in two lists, a list of which no
 *  name is a host of the site). */
int tt_types_by_list(const tt_type_hosts *named, int nnamed, const tt_type_part *types, int ntypes,
                     const tt_host_index *hosts, const char *site_file, int *type, FILE *notes, char *err,
                     size_t errlen);

/** \brief The node type of each host whose type[h] is still -1, by hwloc:
 *  the one type whose summary equals the host's (hwloc[h]; NULL or ""
 *  unknown).
 *  \return 0; -1 with err when two types share a summary that such a host
 *  has (they cannot be told apart: name their hosts). */
int tt_types_by_hwloc(const tt_type_part *types, int ntypes, char *const *hwloc, int nhosts, const char *const *host,
                      int *type, char *err, size_t errlen);

/** \brief Says on notes (if not NULL) which hosts have no node type (their
 *  ranks placed by host only), naming the first few.
 *  \return nothing. */
void tt_note_untyped(FILE *notes, const int *type, const char *const *host, int nhosts, int ntypes);

#endif
