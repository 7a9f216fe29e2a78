/* Whether ranks of a communicator outnumber their host's cores (timing.h).
 * MPI busy-polls: a rank without a core of its own waits for one, and every
 * time measured then is the scheduler's, not the network's. */
#include "timing.h"

#include <unistd.h>

int tbtime_crowded(MPI_Comm comm, int *ranks, int *cores)
{
    *ranks = *cores = 0;
#if defined(SMPI_H)
    (void)comm; /* simulated hosts: the real machine's cores mean nothing */
    return 0;
#else
    MPI_Comm node;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0;
    int here = 0;
    MPI_Comm_size(node, &here);
    MPI_Comm_free(&node);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    /* the host with the most ranks over its cores; its counts */
    int mine[2] = {online > 0 ? here - (int)online : 0, 0}, worst[2] = {0, 0};
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    mine[1] = rank;
    if (MPI_Allreduce(mine, worst, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
        return 0;
    /* the worst host's counts from its rank (an allreduce, not a broadcast:
     * the library would run, and count, a broadcast) */
    int send[2] = {0, 0}, counts[2] = {0, 0};
    if (rank == worst[1]) {
        send[0] = here;
        send[1] = (int)(online > 0 ? online : 0);
    }
    if (MPI_Allreduce(send, counts, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return 0;
    *ranks = counts[0];
    *cores = counts[1];
    return worst[0] > 0;
#endif
}
