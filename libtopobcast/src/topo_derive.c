/* The local half of the mapping: from every rank's identity to the
 * communicator's own hierarchy.  No communication and no dependence on rank
 * order beyond the identities themselves, so every rank holding the same
 * inputs derives the same hierarchy and the same failure reason. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_map.h"

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

/* Levels that refine the one above without splitting anything are
 * repeats (one package per node, one NUMA node per package): they would
 * only add an empty step to every hierarchical tree. */
static void drop_repeated_levels(tb_hier *h)
{
    int kept = h->nlevels > 0 ? 1 : 0;
    for (int l = 1; l < h->nlevels; l++) {
        if (h->ngroups[l] == h->ngroups[kept - 1]) {
            free(h->group[l]);
            h->group[l] = NULL;
            continue;
        }
        if (kept != l) {
            h->group[kept] = h->group[l];
            h->group[l] = NULL;
            h->ngroups[kept] = h->ngroups[l];
            memcpy(h->level_name[kept], h->level_name[l], TB_LEVEL_NAME_MAX);
        }
        kept++;
    }
    h->nlevels = kept;
}

static int finish(tb_hier *h, char *why, size_t whylen)
{
    if (tb_hier_normalize(h) != 0) {
        tb_hier_free(h);
        return say(why, whylen, "the derived hierarchy is inconsistent");
    }
    drop_repeated_levels(h);
    return 0;
}

/* ---- with a measured topology ------------------------------------------ */

static int short_equal(const char *a, const char *b)
{
    size_t la = strcspn(a, "."), lb = strcspn(b, ".");
    return la == lb && strncmp(a, b, la) == 0;
}

/* Exact name first; otherwise the short name ("n1" for "n1.cluster"), when
 * it is unambiguous, since launchers and hostname(1) disagree on domains. */
static int find_host(const tb_topology *t, const char *host)
{
    for (int h = 0; h < t->nhosts; h++)
        if (strcmp(t->hosts[h], host) == 0)
            return h;
    int found = -1;
    for (int h = 0; h < t->nhosts; h++)
        if (short_equal(t->hosts[h], host)) {
            if (found >= 0)
                return -1;
            found = h;
        }
    return found;
}

typedef struct place {
    int host, pu, leaf;
} place;

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

typedef struct mapping {
    int *leaf_host;  /* per leaf: index in t->hosts */
    int *first_leaf; /* per host: its lowest leaf */
    place *places;   /* leaves with a PU, sorted by (host, pu) */
    int nplaces;
    int *leaf_of;    /* per rank */
    int *owner;      /* per leaf: the rank matched exactly to it, or -1 */
} mapping;

static void mapping_free(mapping *m)
{
    free(m->leaf_host);
    free(m->first_leaf);
    free(m->places);
    free(m->leaf_of);
    free(m->owner);
}

static int leaf_at(const mapping *m, int host, int pu)
{
    int lo = 0, hi = m->nplaces; /* the first place at or after (host, pu) */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const place *p = &m->places[mid];
        if (p->host < host || (p->host == host && p->pu < pu))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->nplaces && m->places[lo].host == host && m->places[lo].pu == pu)
        return m->places[lo].leaf;
    return -1;
}

static int from_topology(const tb_identity *all, int size, int world_size, const tb_topology *t, tb_hier *out,
                         char *why, size_t whylen)
{
    if (world_size != t->nprocs)
        return say(why, whylen, "topology was measured with %d processes, this job has %d", t->nprocs, world_size);
    int n = t->nleaves, rc = -1;
    mapping m = {0};
    m.leaf_host = malloc(sizeof(int) * (size_t)n);
    m.first_leaf = malloc(sizeof(int) * (size_t)t->nhosts);
    m.places = malloc(sizeof(place) * (size_t)n);
    m.leaf_of = malloc(sizeof(int) * (size_t)size);
    m.owner = malloc(sizeof(int) * (size_t)n);
    int *keys = calloc(2 * (size_t)n, sizeof(int)); /* (host, pu) of each leaf */
    int *order = malloc(sizeof(int) * (size_t)n);
    int ok = m.leaf_host && m.first_leaf && m.places && m.leaf_of && m.owner && keys && order;
    if (ok) {
        for (int h = 0; h < t->nhosts; h++)
            m.first_leaf[h] = -1;
        for (int i = 0; i < n; i++) {
            int h = find_host(t, t->leaves[i].host); /* the loader checked it is listed */
            m.leaf_host[i] = h;
            if (h >= 0 && m.first_leaf[h] < 0)
                m.first_leaf[h] = i;
            keys[2 * i] = h;
            keys[2 * i + 1] = t->leaves[i].pu;
            m.owner[i] = -1;
        }
        ok = tb_sort_ranks_by_keys(keys, 2, n, order) == 0;
    }
    for (int j = 0; ok && j < n; j++) {
        int i = order[j];
        if (m.leaf_host[i] >= 0 && t->leaves[i].pu >= 0)
            m.places[m.nplaces++] = (place){m.leaf_host[i], t->leaves[i].pu, i};
    }
    free(keys);
    free(order);
    if (!ok) {
        mapping_free(&m);
        return say(why, whylen, "out of memory while mapping ranks onto the topology");
    }

    /* Bound ranks go to the leaf with their PU; the others (unbound, or on
     * a PU the calibration did not use) to their host, known only at the
     * levels that keep hosts whole. */
    int loose = 0;
    for (int r = 0; r < size; r++) {
        int h = find_host(t, all[r].host);
        if (h < 0 || m.first_leaf[h] < 0) {
            char hosts[160];
            host_list(t, hosts, sizeof hosts);
            rc = say(why, whylen, "host %.64s (world rank %d) is not in the topology measured on %s", all[r].host,
                     all[r].world_rank, hosts);
            goto out;
        }
        int leaf = all[r].bound && all[r].pu >= 0 ? leaf_at(&m, h, all[r].pu) : -1;
        if (leaf < 0) {
            leaf = m.first_leaf[h];
            loose++;
        } else if (m.owner[leaf] >= 0) {
            rc = say(why, whylen, "world ranks %d and %d are both bound to PU %d of %.64s",
                     all[m.owner[leaf]].world_rank, all[r].world_rank, all[r].pu, t->hosts[h]);
            goto out;
        } else {
            m.owner[leaf] = r;
        }
        m.leaf_of[r] = leaf;
    }

    int keep[TB_MAX_LEVELS] = {0}, nk = 0;
    int *host_group = malloc(sizeof(int) * (size_t)t->nhosts);
    if (!host_group) {
        rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
        goto out;
    }
    for (int l = 0; l < t->nlevels; l++) {
        keep[l] = 1;
        if (loose) {
            for (int h = 0; h < t->nhosts; h++)
                host_group[h] = -1;
            for (int i = 0; i < n && keep[l]; i++) {
                int h = m.leaf_host[i];
                if (host_group[h] < 0)
                    host_group[h] = t->group[l][i];
                else if (host_group[h] != t->group[l][i])
                    keep[l] = 0;
            }
        }
        nk += keep[l];
    }
    free(host_group);

    if (tb_hier_alloc(out, size, nk) != 0) {
        rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
        goto out;
    }
    for (int l = 0, k = 0; l < t->nlevels; l++) {
        if (!keep[l])
            continue;
        memcpy(out->level_name[k], t->level_name[l], TB_LEVEL_NAME_MAX);
        out->ngroups[k] = t->ngroups[l];
        for (int r = 0; r < size; r++)
            out->group[k][r] = t->group[l][m.leaf_of[r]];
        k++;
    }
    if (t->dist) {
        out->dist = malloc(sizeof(double) * (size_t)size * (size_t)size);
        if (!out->dist) {
            tb_hier_free(out);
            rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
            goto out;
        }
        /* two ranks placed on one host's representative leaf: the closest
         * measured pair on that host stands in for their distance */
        double *host_min = malloc(sizeof(double) * (size_t)t->nhosts);
        if (!host_min) {
            tb_hier_free(out);
            rc = say(why, whylen, "out of memory while mapping ranks onto the topology");
            goto out;
        }
        for (int h = 0; h < t->nhosts; h++)
            host_min[h] = -1.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int h = m.leaf_host[i];
                double v = t->dist[(size_t)i * (size_t)n + (size_t)j];
                if (i != j && h == m.leaf_host[j] && (host_min[h] < 0 || v < host_min[h]))
                    host_min[h] = v;
            }
        for (int a = 0; a < size; a++)
            for (int b = 0; b < size; b++) {
                int la = m.leaf_of[a], lb = m.leaf_of[b];
                double d;
                if (a == b)
                    d = 0.0;
                else if (la != lb)
                    d = t->dist[(size_t)la * (size_t)n + (size_t)lb];
                else
                    d = host_min[m.leaf_host[la]] > 0 ? host_min[m.leaf_host[la]] : 0.0;
                out->dist[(size_t)a * (size_t)size + (size_t)b] = d;
            }
        free(host_min);
    }
    rc = finish(out, why, whylen);
    if (rc == 0 && loose && why && whylen)
        snprintf(why, whylen, "%d of %d ranks not bound to a PU of the topology: using only the levels that keep hosts whole",
                 loose, size);
out:
    mapping_free(&m);
    return rc;
}

/* ---- zero configuration -------------------------------------------------- */

static int zero_config(const tb_identity *all, int size, tb_hier *out, char *why, size_t whylen)
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

int tb_topo_derive(const tb_identity *all, int size, int world_size, const tb_config *cfg, tb_hier *out,
                   char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (why && whylen)
        why[0] = 0;
    if (size < 1 || !all)
        return say(why, whylen, "empty communicator");
    if (cfg && cfg->has_topology)
        return from_topology(all, size, world_size, &cfg->topo, out, why, whylen);
    return zero_config(all, size, out, why, whylen);
}
