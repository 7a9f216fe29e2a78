/* The tuner's communicators; see comms.h. */
#include "comms.h"

#include <stdlib.h>
#include <string.h>

/* The site's timed shapes over the job's nodes (every rank the same). */
static int site_picks(int wsize, const int *node_of, const tn_site_want *site, tn_site_nodes *nodes,
                      tn_shape_pick *picks, int cap)
{
    int *type_of = malloc(sizeof *type_of * (size_t)wsize);
    if (!type_of)
        return -1;
    MPI_Allgather(&site->type, 1, MPI_INT, type_of, 1, MPI_INT, MPI_COMM_WORLD);
    tn_site_nodes sn;
    const tb_hier *w = site->world && site->world->size == wsize ? site->world : NULL;
    int n = tn_site_nodes_make(wsize, node_of, w ? w->nlevels : 0, w ? w->group : NULL, type_of, &sn);
    free(type_of);
    if (n != 0)
        return -1;
    tn_site_shape *s = malloc(sizeof *s * (size_t)(cap > 0 ? cap : 1));
    n = s ? tn_site_picks(&sn, s, tn_site_timed(&sn, site->budget, site->small, s, cap), picks, cap) : -1;
    free(s);
    if (nodes && n >= 0)
        *nodes = sn;
    else
        tn_site_nodes_free(&sn);
    return n;
}

/* Whether members[0..size) are the whole job in world rank order. */
static int world_order(const int *members, int size, int wsize)
{
    for (int k = 0; k < size; k++)
        if (members[k] != k)
            return 0;
    return size == wsize;
}

/* The position of wrank in members[0..size), or -1. */
static int position(const int *members, int size, int wrank)
{
    for (int k = 0; k < size; k++)
        if (members[k] == wrank)
            return k;
    return -1;
}

int tn_comms_create(unsigned which, const int *comm_sizes, int ncomm_sizes, const tn_site_want *site,
                    tn_site_nodes *nodes, tn_shape_pick *picks, MPI_Comm *comms, int cap)
{
    int wrank, wsize, node = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (nodes)
        memset(nodes, 0, sizeof *nodes);
    /* a node is named by its lowest world rank, as the library names it */
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &shm);
    MPI_Allreduce(&wrank, &node, 1, MPI_INT, MPI_MIN, shm);
    MPI_Comm_free(&shm);
    int *node_of = malloc(sizeof *node_of * (size_t)wsize);
    int ok = node_of != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        free(node_of);
        return -1;
    }
    MPI_Allgather(&node, 1, MPI_INT, node_of, 1, MPI_INT, MPI_COMM_WORLD);
    int n = site ? site_picks(wsize, node_of, site, nodes, picks, cap)
                 : tn_shapes_choose(wsize, node_of, which, comm_sizes, ncomm_sizes, picks, cap);
    free(node_of);
    MPI_Allreduce(&n, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all < 0) {
        if (n > 0)
            tn_shape_picks_free(picks, n);
        if (nodes)
            tn_site_nodes_free(nodes);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (world_order(picks[i].members, picks[i].size, wsize)) {
            comms[i] = MPI_COMM_WORLD;
            continue;
        }
        int k = position(picks[i].members, picks[i].size, wrank);
        MPI_Comm_split(MPI_COMM_WORLD, k >= 0 ? 0 : MPI_UNDEFINED, k, &comms[i]);
    }
    return n;
}

void tn_comms_free(tn_shape_pick *picks, MPI_Comm *comms, int n)
{
    for (int i = 0; i < n; i++)
        if (comms[i] != MPI_COMM_WORLD && comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[i]);
    tn_shape_picks_free(picks, n);
}
