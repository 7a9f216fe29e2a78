/* The tuner's communicators; see comms.h. */
#include "comms.h"

#include <stdlib.h>

int tn_comms_create(unsigned which, const int *comm_sizes, int ncomm_sizes, tn_shape_pick *picks, MPI_Comm *comms,
                    int cap)
{
    int wrank, wsize, node = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
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
    int n = tn_shapes_choose(wsize, node_of, which, comm_sizes, ncomm_sizes, picks, cap);
    free(node_of);
    MPI_Allreduce(&n, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all < 0) {
        if (n > 0)
            tn_shape_picks_free(picks, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (picks[i].size == wsize) {
            comms[i] = MPI_COMM_WORLD;
            continue;
        }
        int member = 0;
        for (int k = 0; k < picks[i].size && !member; k++)
            member = picks[i].members[k] == wrank;
        MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, wrank, &comms[i]);
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
