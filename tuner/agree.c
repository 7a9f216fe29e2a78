/* Decisions every rank shares; see agree.h. */
#include "agree.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tn_agree_on(MPI_Comm comm, int v)
{
    /* rank 0's v by a maximum (the others give INT_MIN), not by MPI_Bcast:
     * the tuner links the library, whose MPI_Bcast would read the
     * library's configuration at its first call, before --topology points
     * it at the file (tn_setup_topology) */
    int me, out = v;
    MPI_Comm_rank(comm, &me);
    int mine = me == 0 ? v : INT_MIN;
    MPI_Allreduce(&mine, &out, 1, MPI_INT, MPI_MAX, comm);
    return out;
}

int tn_agree(int v)
{
    return tn_agree_on(MPI_COMM_WORLD, v);
}

unsigned char *tn_agree_buffer(MPI_Comm comm, size_t bytes)
{
    int me;
    MPI_Comm_rank(comm, &me);
    unsigned char *buf = malloc(bytes);
    int ok = buf != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        if (me == 0)
            fprintf(stderr, "topobcast-tuner: out of memory for %zu bytes\n", bytes);
        free(buf);
        return NULL;
    }
    memset(buf, 0, bytes);
    return buf;
}
