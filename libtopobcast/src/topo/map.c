/* The collective half of the mapping: every rank learns every rank's
 * identity.  MPI's own calls only (PMPI_*, tb_mpi for those the library
 * defines too): these calls run while a communicator's state is being
 * built.  Also the verbose printout
 * of a derived hierarchy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/map.h"
#include "base/pmpi.h"

void tb_topo_self(tb_identity *me)
{
    tb_identity_self(me);
    me->node = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me->world_rank);
    /* Hosts are named as topobcast-probe names the leaves: MPI's processor
     * name (the host name under MPICH, the simulated host under SMPI),
     * blanks made '_' as the topology file requires. */
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0;
    if (PMPI_Get_processor_name(name, &len) == MPI_SUCCESS && len > 0) {
        name[len < MPI_MAX_PROCESSOR_NAME ? len : MPI_MAX_PROCESSOR_NAME] = 0;
        snprintf(me->host, sizeof me->host, "%.*s", (int)sizeof me->host - 1, name);
        for (char *p = me->host; *p; p++)
            if ((unsigned char)*p <= 0x20 || *p == 0x7f)
                *p = '_';
    }
}

int tb_topo_nodes_by_host(tb_ident_rec *all, int size)
{
    /* open addressing, twice as many slots as ranks: each slot the lowest
     * rank of one host */
    size_t cap = 2;
    while (cap < 2 * (size_t)size)
        cap *= 2;
    int *slot = malloc(sizeof *slot * cap);
    if (!slot)
        return -1;
    for (size_t i = 0; i < cap; i++)
        slot[i] = -1;
    for (int r = 0; r < size; r++) {
        size_t i = (size_t)(all[r].host * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
        while (slot[i] >= 0 && all[slot[i]].host != all[r].host)
            i = (i + 1) & (cap - 1);
        if (slot[i] < 0)
            slot[i] = r;
        all[r].node = slot[i];
    }
    free(slot);
    return 0;
}

int tb_topo_exchange(MPI_Comm comm, tb_ident_rec **all, tb_identity *self)
{
    int rank, size, rc;
    *all = NULL;
    if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS || (rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    tb_identity *me = self;
    tb_topo_self(me);

    /* The node is named by its lowest rank in comm: the same number on every
     * member, and comparable across nodes without exchanging host names. */
    MPI_Comm shm;
    if ((rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm)) != MPI_SUCCESS)
        return rc;
    rc = PMPI_Allreduce(&rank, &me->node, 1, MPI_INT, MPI_MIN, shm);
    tb_mpi.Comm_free(&shm);
    if (rc != MPI_SUCCESS)
        return rc;

    /* Only fails when the process is out of memory, and then the others
     * would wait in the allgather: nothing sensible is left to do. */
    tb_ident_rec *recs = calloc((size_t)size, sizeof *recs), mine = tb_ident_rec_of(me);
    if (!recs)
        return MPI_ERR_NO_MEM;
    /* fixed-size plain data: bytes travel as they are (the library assumes
     * a homogeneous job, as MPI_BYTE does) */
    rc = PMPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, recs, (int)sizeof mine, MPI_BYTE, comm);
    if (rc != MPI_SUCCESS) {
        free(recs);
        return rc;
    }
    *all = recs;
    return MPI_SUCCESS;
}

/* ---- printing ----------------------------------------------------------- */

#define PRINT_MAX_GROUPS 16 /* per parent group; keeps the tree short */

/* "0-3,8,10-11", cut with "..." when long. */
static void rank_list(const int *m, int n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && m[j + 1] == m[j] + 1)
            j++;
        char item[32];
        if (j > i)
            snprintf(item, sizeof item, "%s%d-%d", i ? "," : "", m[i], m[j]);
        else
            snprintf(item, sizeof item, "%s%d", i ? "," : "", m[i]);
        if (o + strlen(item) + 4 >= cap) {
            snprintf(buf + o, cap - o, ",...");
            return;
        }
        o += (size_t)snprintf(buf + o, cap - o, "%s", item);
        i = j + 1;
    }
}

/* Names a host known by its hash: a host of the topology, or this
 * process's own. */
typedef struct namer {
    const tb_topology *topo;
    const tb_identity *self;
    uint64_t self_hash;
} namer;

static const char *host_name(const namer *nm, const tb_ident_rec *rec)
{
    if (nm->topo && nm->topo->host_hash) {
        int h = tb_topo_find_host(nm->topo, rec->host, rec->host_short);
        if (h >= 0)
            return nm->topo->hosts[h];
    }
    return nm->self && rec->host == nm->self_hash ? nm->self->host : NULL;
}

static void host_note(const tb_ident_rec *all, const namer *nm, const int *m, int n, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!all)
        return;
    int same = 1;
    for (int i = 1; i < n && same; i++)
        same = all[m[i]].host == all[m[0]].host;
    const char *name = same ? host_name(nm, &all[m[0]]) : NULL;
    if (name)
        snprintf(buf, cap, " on %.200s", name);
    else if (same)
        snprintf(buf, cap, " on one host");
}

static void print_level(const tb_hier *h, const tb_ident_rec *all, const namer *nm, FILE *out, int l, const int *m,
                        int n)
{
    if (l >= h->nlevels)
        return;
    int ng = h->ngroups[l];
    int *slot = malloc(sizeof(int) * (size_t)ng), *order = malloc(sizeof(int) * (size_t)n);
    int *sub = malloc(sizeof(int) * (size_t)n);
    if (!slot || !order || !sub) {
        free(slot);
        free(order);
        free(sub);
        return;
    }
    /* the groups under this parent, in order of their lowest rank */
    for (int g = 0; g < ng; g++)
        slot[g] = -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int g = h->group[l][m[i]];
        if (g >= 0 && g < ng && slot[g] < 0) {
            slot[g] = k;
            order[k++] = g;
        }
    }
    for (int s = 0; s < k; s++) {
        if (s == PRINT_MAX_GROUPS) {
            fprintf(out, "topobcast:   %*s... %d more %s groups\n", 2 * l, "", k - s, h->level_name[l]);
            break;
        }
        int nsub = 0;
        for (int i = 0; i < n; i++)
            if (h->group[l][m[i]] == order[s])
                sub[nsub++] = m[i];
        char ranks[96], hosts[220];
        rank_list(sub, nsub, ranks, sizeof ranks);
        host_note(all, nm, sub, nsub, hosts, sizeof hosts);
        fprintf(out, "topobcast:   %*s%s %d: %d rank%s %s%s\n", 2 * l, "", h->level_name[l], s, nsub,
                nsub == 1 ? "" : "s", ranks, hosts);
        print_level(h, all, nm, out, l + 1, sub, nsub);
    }
    free(slot);
    free(order);
    free(sub);
}

void tb_hier_print(const tb_hier *h, const tb_ident_rec *all, const tb_topology *topo, const tb_identity *self,
                   FILE *out)
{
    if (!h || h->size < 1) {
        fprintf(out, "topobcast:   no hierarchy\n");
        return;
    }
    int *m = malloc(sizeof(int) * (size_t)h->size);
    if (!m)
        return;
    namer nm = {topo, self, 0};
    uint64_t shrt;
    if (self)
        tb_hash_host(self->host, &nm.self_hash, &shrt);
    for (int r = 0; r < h->size; r++)
        m[r] = r;
    char ranks[96], hosts[220];
    rank_list(m, h->size, ranks, sizeof ranks);
    host_note(all, &nm, m, h->size, hosts, sizeof hosts);
    fprintf(out, "topobcast:   %d rank%s%s, %d level%s%s", h->size, h->size == 1 ? "" : "s", hosts, h->nlevels,
            h->nlevels == 1 ? "" : "s", h->nlevels ? ":" : " (flat: no level splits the ranks)");
    for (int l = 0; l < h->nlevels; l++)
        fprintf(out, " %s(%d)", h->level_name[l], h->ngroups[l]);
    if (h->dclass) {
        fprintf(out, ", distances");
        for (int l = 0; l <= h->nlevels; l++)
            fprintf(out, "%s%g", l ? "/" : " ", h->dclass[l]);
    }
    fprintf(out, "\n");
    print_level(h, all, &nm, out, 0, m, h->size);
    free(m);
}
