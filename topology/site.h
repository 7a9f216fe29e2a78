/* topology/: a site's topology made from probe passes, without MPI
 * (config/README.md, "A site's topology"; probe/README.md, "Site
 * calibration").
 *
 * A network pass (one rank per node over a partition) gives the levels
 * that keep hosts whole; a node pass (every core of one node, once per
 * kind of node) gives the levels inside a host.  tt_site_compose puts
 * them together into the site form the library loads; tt_site_merge joins
 * several passes or composed files whose hosts overlap (a node added
 * later); tt_job_ranks makes up the ranks of a job on some hosts, so a
 * tool can show what the library would derive for it.  Every input is a
 * topology the library's loader read (tb_config_load), named by its file
 * in messages.  Memory and time O(hosts log hosts + PUs x levels).
 *
 * Conventions as topology.h: 0 on success, -1 with a one-line message
 * "FILE: what was expected" in err; nothing is left allocated on failure. */
#ifndef TT_SITE_H
#define TT_SITE_H

#include <stddef.h>
#include <stdio.h>

#include "topo.h"

/* ---- host lists (hostlist.c) ---------------------------------------------- */

/* The most names one host list may expand to. */
#define TT_HOSTLIST_MAX (1 << 20)

/** \brief Expands a Slurm-style host list: names separated by commas,
 *  each with any number of bracket sets of numbers and ranges, whose
 *  leading zeros give the width ("n[001-003,7],m07" is n001 n002 n003
 *  n007 m07; "r[1-2]n[1-2]" is r1n1 r1n2 r2n1 r2n2).  Names keep their
 *  order; a name listed twice is kept twice.
 *  \return 0 with *names (one allocation: free(*names) frees the names
 *  too) and *n >= 1; -1 with err = "expected ..." naming the place, on an
 *  empty list or item, an unmatched bracket, a bad range (not digits, lo
 *  > hi), more than TT_HOSTLIST_MAX names, or out of memory. */
int tt_hostlist_expand(const char *list, char ***names, int *n, char *err, size_t errlen);

/* ---- composition and merge (site_compose.c, site_merge.c) ----------------- */

/* An input: a topology as the library loaded it, and its file's name. */
typedef struct tt_site_file {
    const char *path;
    const tb_topology *topo;
} tt_site_file;

/* A node pass (--node-pass NAME=FILE): the node type it measures. */
typedef struct tt_node_pass {
    const char *type;
    tt_site_file file;
} tt_node_pass;

/* A node type's hosts named by the administrator (--node-type NAME=LIST). */
typedef struct tt_type_hosts {
    const char *type;
    const char *list; /* a host list (tt_hostlist_expand) */
} tt_type_hosts;

/** \brief The site topology of a network pass net (a job's topology of
 *  one rank per host) and node passes pass[0..npass) (each a job's
 *  topology of one host, its ranks bound to cores when it has levels
 *  inside the host): net's levels become groups of hosts (one-group levels
 *  left out), a level of one host per group is added below them (`node`,
 *  or `host` when a level is already called `node`), each pass's levels
 *  that split its host become its type's (all types share them, in one
 *  order; a type without one takes its closest coarser level's groups, or
 *  one group of all its PUs); each host gets the type named for it in
 *  named[0..nnamed), else the pass measured on it, else the pass whose
 *  hwloc summary it shares; distance classes from net's and the passes'
 *  (the median over types for the levels inside hosts), completed and
 *  made non-increasing.  Notes for the administrator (hosts of no type, a
 *  pass's host not in net, listed hosts not in net) go to notes (may be
 *  NULL).  O(hosts log hosts + PUs x levels).
 *  \return 0 with *out a site topology (release with
 *  tb_topology_release), ready for tb_topology_write; -1 with err "FILE:
 *  expected ..." (an input of the wrong form, levels whose order or names
 *  disagree, a type named twice or unknown, a host in two types' lists,
 *  two types alike to hwloc with hosts to tell apart, more than 8 levels,
 *  out of memory). */
int tt_site_compose(const tt_site_file *net, const tt_node_pass *pass, int npass, const tt_type_hosts *named,
                    int nnamed, FILE *notes, tb_topology *out, char *err, size_t errlen);

/** \brief The site topology of in[0..nin) (network passes in a job's
 *  form, or site topologies), whose hosts overlap: hosts in order of first
 *  appearance; each level of hosts by name, its groups merged where they
 *  share a host (union-find), a level an input lacks or has as one group
 *  (its hosts looked alike) joining that input's hosts to the one group
 *  its known hosts share (its others alone when they lie in several, all
 *  in one group when none is known); the level of one host per group
 *  kept; node types by name (equal PUs and groups required), a host's type
 *  as every input gives it (or named[], or the type whose hwloc summary a
 *  network pass reports for it); distance classes the mean of the inputs
 *  that have them, made non-increasing.  Notes (hosts of no type) go to
 *  notes (may be NULL).  O(hosts log hosts x inputs + PUs x levels).
 *  \return 0 with *out a site topology (release with
 *  tb_topology_release); -1 with err naming the file and what was
 *  expected (an input sharing no host with the others, levels named or
 *  ordered differently, groups that no longer nest, a type's PUs or groups
 *  that differ, a host of two types, out of memory). */
int tt_site_merge(const tt_site_file *in, int nin, const tt_type_hosts *named, int nnamed, FILE *notes,
                  tb_topology *out, char *err, size_t errlen);

/* ---- a job made up on some hosts (site_job.c) ------------------------------ */

/** \brief The identities of a job of ppn ranks on each of hosts[0..nhosts)
 *  (world ranks host by host), as the library would exchange them: not
 *  bound, or with bound the k-th rank of a host bound to the k-th PU of
 *  its node type (a job's topology: of the host's leaves with a PU, in
 *  leaf order); a host t does not have, or of no type, stays unbound (a
 *  note to notes, may be NULL); node = the host's first rank.  t may be
 *  NULL (no topology: every rank unbound).  O(nhosts x ppn + leaves).
 *  \return 0 with *all (malloc'd, nhosts x ppn records); -1 with err when
 *  a host has fewer PUs than ppn with bound, or out of memory. */
int tt_job_ranks(const tb_topology *t, char *const *hosts, int nhosts, int ppn, int bound, FILE *notes,
                 tb_ident_rec **all, char *err, size_t errlen);

#endif
