/* A job made up on some hosts of a topology (site.h, tt_job_ranks): the
 * identities its ranks would exchange, so that topobcast-probe --check
 * --hosts shows what the library derives for it without running it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "site_internal.h"

/* The PUs a bound job's ranks take on host h of t, in order: its type's
 * (a site), or its leaves' with a PU by PU number (a job's topology; a
 * binary search in the loader's index of places); *n of them, at most
 * cap of a job's topology. */
static const tb_topo_leaf *host_pus(const tb_topology *t, int h, tb_topo_leaf *buf, int cap, int *n)
{
    *n = 0;
    if (t->site) {
        int ty = t->host_type[h];
        if (ty < 0)
            return NULL;
        *n = t->types[ty].npus;
        return t->types[ty].pus;
    }
    int lo = 0, hi = t->nplaces;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (t->leaves[t->places[mid]].host < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < t->nplaces && t->leaves[t->places[i]].host == h && *n < cap; i++)
        buf[(*n)++] = t->leaves[t->places[i]];
    return buf;
}

int tt_job_ranks(const tb_topology *t, char *const *hosts, int nhosts, int ppn, int bound, FILE *notes,
                 tb_ident_rec **all, char *err, size_t errlen)
{
    *all = NULL;
    if (nhosts < 1 || ppn < 1 || (long)nhosts * ppn > (1L << 24)) {
        snprintf(err, errlen, "expected 1 to %d ranks in all, got %ld", 1 << 24, (long)nhosts * ppn);
        return -1;
    }
    tb_ident_rec *v = malloc(sizeof *v * (size_t)nhosts * (size_t)ppn);
    tb_topo_leaf *buf = bound && t && !t->site ? malloc(sizeof *buf * (size_t)ppn) : NULL;
    if (!v || (bound && t && !t->site && !buf)) {
        free(v);
        free(buf);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int unplaced = 0;
    const char *first_unplaced = NULL;
    for (int j = 0; j < nhosts; j++) {
        int h = -1, npus = 0;
        const tb_topo_leaf *pus = NULL;
        if (t) {
            uint64_t full, shrt;
            tb_hash_host(hosts[j], &full, &shrt);
            h = tb_topo_find_host(t, full, shrt);
        }
        if (bound && h >= 0)
            pus = host_pus(t, h, buf, ppn, &npus);
        if (bound && h >= 0 && pus && npus > 0 && npus < ppn) {
            char of[64] = "";
            if (t->site)
                snprintf(of, sizeof of, " (node type %s)", t->types[t->host_type[h]].name);
            snprintf(err, errlen, "host %s has %d PU%s to bind ranks to%s: expected --ppn %d or fewer", hosts[j], npus,
                     npus == 1 ? "" : "s", of, npus);
            free(v);
            free(buf);
            return -1;
        }
        if (bound && (!pus || npus == 0) && !unplaced++)
            first_unplaced = hosts[j];
        for (int k = 0; k < ppn; k++) {
            tb_identity id;
            memset(&id, 0, sizeof id);
            snprintf(id.host, sizeof id.host, "%s", hosts[j]);
            id.pu = id.core = id.package = id.numa = -1;
            if (pus && npus >= ppn) {
                id.bound = 1;
                id.pu = pus[k].pu;
                id.core = pus[k].core;
                id.package = pus[k].package;
                id.numa = pus[k].numa;
            }
            id.node = j * ppn;
            id.world_rank = j * ppn + k;
            v[j * ppn + k] = tb_ident_rec_of(&id);
        }
    }
    if (unplaced && notes)
        fprintf(notes, "topobcast-probe: note: %d host%s (%s%s) %s no PUs to bind ranks to: %s ranks stay unbound\n",
                unplaced, unplaced == 1 ? "" : "s", first_unplaced, unplaced > 1 ? " ..." : "",
                unplaced == 1 ? "has" : "have", unplaced == 1 ? "its" : "their");
    free(buf);
    *all = v;
    return 0;
}
