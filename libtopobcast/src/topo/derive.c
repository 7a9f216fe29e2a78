/* The local half of the mapping: from every rank's identity to the
 * communicator's own hierarchy.  No communication and no dependence on rank
 * order beyond the identities themselves, so every rank holding the same
 * inputs derives the same hierarchy and the same failure reason. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/map.h"

static int say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int finish(tb_hier *h, char *why, size_t whylen)
{
    if (tb_hier_normalize(h) != 0) {
        tb_hier_free(h);
        return say(why, whylen, "the derived hierarchy is inconsistent");
    }
    tb_hier_drop_repeats(h);
    return 0;
}

/* ---- with a measured topology ------------------------------------------ */

static void host_list(const tb_topology *t, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (int h = 0; h < t->nhosts && o < cap; h++) {
        if (o + strlen(t->hosts[h]) + 5 >= cap) {
            snprintf(buf + o, cap - o, "%s...", h ? "," : "");
            return;
        }
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", h ? "," : "", t->hosts[h]);
    }
}

/* Two ranks bound to one place: the pair the rank-order scan meets first
 * (the lowest second rank, with the lowest rank of its leaf), found by one
 * sort of the exactly placed ranks by (leaf, rank).  Returns 0, 1 with
 * *a, *b set, or -1 out of memory. */
static int same_leaf(const int *leaf_of, const char *exact, int size, int *a, int *b)
{
    int n = 0;
    int *keys = malloc(sizeof(int) * 2 * (size_t)size), *order = malloc(sizeof(int) * (size_t)size);
    int *rank = malloc(sizeof(int) * (size_t)size);
    int rc = -1;
    if (!keys || !order || !rank)
        goto out;
    for (int r = 0; r < size; r++)
        if (exact[r]) {
            keys[2 * n] = leaf_of[r];
            keys[2 * n + 1] = r;
            rank[n++] = r;
        }
    if (tb_sort_ranks_by_keys(keys, 2, n, order) != 0)
        goto out;
    rc = 0;
    for (int i = 1; i < n; i++) {
        int p = rank[order[i - 1]], q = rank[order[i]];
        if (leaf_of[p] != leaf_of[q] || (i > 1 && leaf_of[rank[order[i - 2]]] == leaf_of[p]))
            continue; /* only each leaf's first two ranks */
        if (!rc || q < *b) {
            *a = p;
            *b = q;
            rc = 1;
        }
    }
out:
    free(keys);
    free(order);
    free(rank);
    return rc;
}

/* Where each rank is in t: its host, and its place (a job's leaf, or a
 * PU of its host's type numbered across hosts by host_pubase), exact when
 * the rank is bound to a PU the topology has; otherwise placed by host
 * only (place: the host's first leaf, or its first PU).  *unknown: the
 * first rank on a host t does not have (-1 when none).
 * \return 0, 1 with *unknown set, or -1 out of memory. */
static int place_ranks(const tb_ident_rec *all, int size, const tb_topology *t, int *host_of, int *place, int *local,
                       char *exact, int *loose, int *unknown)
{
    *loose = 0;
    *unknown = -1;
    for (int r = 0; r < size; r++) {
        int h = tb_topo_find_host(t, all[r].host, all[r].host_short);
        if (h < 0) {
            *unknown = r;
            return 1;
        }
        host_of[r] = h;
        int at = -1;
        local[r] = -1;
        if (t->site) {
            int ty = t->host_type[h];
            if (ty >= 0 && all[r].pu >= 0)
                local[r] = tb_topo_type_pu(&t->types[ty], all[r].pu);
            at = local[r] >= 0 ? t->host_pubase[h] + local[r] : -1;
            place[r] = at >= 0 ? at : t->host_pubase[h];
        } else {
            at = all[r].pu >= 0 ? tb_topo_leaf_at(t, h, all[r].pu) : -1;
            place[r] = at >= 0 ? at : t->first_leaf[h];
        }
        exact[r] = at >= 0;
        *loose += at < 0;
    }
    return 0;
}

/* O(n log P) for a communicator of n ranks on a topology of P leaves (or
 * PUs of a site's node types): each rank's host and place by binary search
 * in the topology's indexes, duplicates by one sort, then the groups of
 * the kept levels. */
static int from_topology(const tb_ident_rec *all, int size, const tb_topology *t, tb_hier *out, int *unknown,
                         char *why, size_t whylen)
{
    int *place = malloc(sizeof(int) * (size_t)size), *host_of = malloc(sizeof(int) * (size_t)size);
    int *local = malloc(sizeof(int) * (size_t)size);
    char *exact = malloc((size_t)size);
    int rc = -1, loose = 0, bad = -1;
    if (!place || !host_of || !local || !exact) {
        rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
        goto out;
    }
    /* Bound ranks go to the leaf (PU) they are bound to; the others
     * (unbound, or on a PU the calibration did not use) to their host,
     * known only at the levels that keep hosts whole. */
    if (place_ranks(all, size, t, host_of, place, local, exact, &loose, &bad) != 0) {
        char hosts[160];
        host_list(t, hosts, sizeof hosts);
        if (unknown)
            *unknown = bad;
        rc = say(why, whylen, "the host of world rank %d is not in the topology measured on %d host%s (%s)",
                 all[bad].world_rank, t->nhosts, t->nhosts == 1 ? "" : "s", hosts);
        goto out;
    }
    int a = 0, b = 0, dup = same_leaf(place, exact, size, &a, &b);
    if (dup != 0) {
        if (dup < 0)
            rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
        else
            rc = say(why, whylen, "world ranks %d and %d are both bound to PU %d of %.64s", all[a].world_rank,
                     all[b].world_rank, all[b].pu, t->hosts[host_of[b]]);
        goto out;
    }

    /* the levels that keep hosts whole are the coarsest ones (groups nest) */
    int nk = t->nlevels;
    if (loose)
        for (nk = 0; nk < t->nlevels && (t->keeps_hosts >> nk & 1u); nk++)
            ;
    if (tb_hier_alloc(out, size, nk) != 0 ||
        (t->dist.given && !(out->dclass = malloc(sizeof(double) * ((size_t)nk + 1))))) {
        tb_hier_free(out);
        rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
        goto out;
    }
    for (int l = 0; l < nk; l++) {
        memcpy(out->level_name[l], t->level_name[l], TB_LEVEL_NAME_MAX);
        out->ngroups[l] = t->ngroups[l];
        int k = l - t->nhost_levels;
        for (int r = 0; r < size; r++) {
            int h = host_of[r];
            if (!t->site)
                out->group[l][r] = t->group[l][place[r]];
            else if (k < 0)
                out->group[l][r] = t->group[l][h];
            else /* below the hosts' levels: every rank is exact here */
                out->group[l][r] = t->host_gbase[k][h] + t->types[t->host_type[h]].group[k][local[r]];
        }
        if (out->dclass)
            out->dclass[l] = t->dist.level[l];
    }
    /* ranks placed by host only: two of them on one host are as close as
     * the closest class (the closest measured pair there) */
    if (out->dclass)
        out->dclass[nk] = t->dist.within;
    rc = finish(out, why, whylen);
    if (rc == 0 && loose && why && whylen)
        snprintf(why, whylen, "%d of %d ranks not bound to a PU of the topology: using only the levels that keep hosts whole",
                 loose, size);
out:
    free(place);
    free(host_of);
    free(local);
    free(exact);
    return rc;
}

/* ---- zero configuration -------------------------------------------------- */

static int zero_config(const tb_ident_rec *all, int size, tb_hier *out, char *why, size_t whylen)
{
    int *node = malloc(sizeof(int) * (size_t)size), *pkg = malloc(sizeof(int) * (size_t)size);
    int *numa = malloc(sizeof(int) * (size_t)size), *key = malloc(sizeof(int) * (size_t)size);
    int rc = -1;
    if (!node || !pkg || !numa || !key) {
        rc = say(why, whylen, "out of memory while deriving the hierarchy");
        goto out;
    }
    int have_pkg = 1, have_numa = 1, some_bound = 0;
    for (int r = 0; r < size; r++) {
        node[r] = all[r].node;
        have_pkg &= all[r].package >= 0;
        have_numa &= all[r].numa >= 0;
        some_bound |= all[r].package >= 0 || all[r].numa >= 0;
    }
    /* dense group ids; package and NUMA numbers are per node */
    int nnode = tb_hier_refine(size, NULL, node, node);
    int npkg = 0, nnuma = 0;
    if (have_pkg) {
        for (int r = 0; r < size; r++)
            key[r] = all[r].package;
        npkg = tb_hier_refine(size, node, key, pkg);
    }
    if (have_numa) {
        for (int r = 0; r < size; r++)
            key[r] = all[r].numa;
        nnuma = tb_hier_refine(size, node, key, numa);
    }
    if (nnode < 0 || npkg < 0 || nnuma < 0) {
        rc = say(why, whylen, "out of memory while deriving the hierarchy");
        goto out;
    }
    /* package and NUMA node nest either way round depending on the machine
     * (several NUMA nodes per package, or the reverse): coarser first */
    const char *names[3] = {"node", NULL, NULL};
    int *groups[3] = {node, NULL, NULL}, nl = 1;
    int pkg_first = !have_numa || (have_pkg && npkg <= nnuma);
    if (have_pkg && pkg_first) {
        names[nl] = "package";
        groups[nl++] = pkg;
    }
    if (have_numa) {
        names[nl] = "numa";
        groups[nl++] = numa;
    }
    if (have_pkg && !pkg_first) {
        names[nl] = "package";
        groups[nl++] = pkg;
    }
    if (tb_hier_alloc(out, size, nl) != 0) {
        rc = say(why, whylen, "out of memory while deriving the hierarchy");
        goto out;
    }
    for (int l = 0; l < nl; l++) {
        snprintf(out->level_name[l], TB_LEVEL_NAME_MAX, "%s", names[l]);
        int ng = 0;
        for (int r = 0; r < size; r++) {
            out->group[l][r] = groups[l][r];
            if (groups[l][r] >= ng)
                ng = groups[l][r] + 1;
        }
        out->ngroups[l] = ng;
    }
    rc = finish(out, why, whylen);
    /* what was found, even when every level turned out trivial */
    if (rc == 0 && (have_pkg || have_numa)) {
        char p[48] = "", q[48] = "";
        if (have_pkg)
            snprintf(p, sizeof p, ", %d package%s", npkg, npkg == 1 ? "" : "s");
        if (have_numa)
            snprintf(q, sizeof q, ", %d NUMA node%s", nnuma, nnuma == 1 ? "" : "s");
        say(why, whylen, "found %d node%s%s%s%s", nnode, nnode == 1 ? "" : "s", p, q,
            !have_pkg ? "; package unknown" : !have_numa ? "; NUMA unknown" : "");
    } else if (rc == 0) {
        say(why, whylen, "found %d node%s; %s", nnode, nnode == 1 ? "" : "s",
            some_bound ? "package and NUMA unknown for some ranks: not used"
                       : "ranks not bound to cores: using the node level only");
    }
out:
    free(node);
    free(pkg);
    free(numa);
    free(key);
    return rc;
}

int tb_topo_derive(const tb_ident_rec *all, int size, const tb_topology *topo, tb_hier *out, int *unknown,
                   char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (why && whylen)
        why[0] = 0;
    if (unknown)
        *unknown = -1;
    if (size < 1 || !all)
        return say(why, whylen, "empty communicator");
    if (topo)
        return from_topology(all, size, topo, out, unknown, why, whylen);
    return zero_config(all, size, out, why, whylen);
}
