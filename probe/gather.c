/* Bringing every rank's bytes to rank 0 (plogp.h, tbp_gather_bytes) by a
 * binomial tree of point-to-point messages.
 *
 * Not MPI_Gather(v): SimGrid SMPI's default gather posts P-1 receives at
 * the root and waits for them all by testing every pending one at each
 * completion, O(P^2) work of the simulator: more than ten minutes at
 * P=4096 for a gather of one int per rank.  In the tree each rank waits
 * for at most log2(P) children, one at a time; a real MPI library gathers
 * as fast either way. */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "plogp.h"

#define TAG_GATHER 41

int tbp_gather_bytes(MPI_Comm comm, const void *mine, size_t len, char **all, size_t *total)
{
    int me, size, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    size_t have = len, cap = len ? len : 1;
    char *buf = malloc(cap);
    if (!buf)
        return MPI_ERR_NO_MEM;
    if (len)
        memcpy(buf, mine, len);
    /* rank r gathers ranks [r, r + 2^k) from its children r + 1, r + 2,
     * r + 4 ... (in rank order), then sends them to r - 2^k */
    for (int mask = 1; mask < size && rc == MPI_SUCCESS; mask <<= 1) {
        if (me & mask) {
            if (have > INT_MAX)
                MPI_Abort(comm, 1); /* beyond an int count: not a realistic run */
            rc = MPI_Send(buf, (int)have, MPI_BYTE, me - mask, TAG_GATHER, comm);
            break;
        }
        if (me + mask >= size)
            continue;
        MPI_Status st;
        int cnt = 0;
        rc = MPI_Probe(me + mask, TAG_GATHER, comm, &st);
        if (rc == MPI_SUCCESS)
            rc = MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (rc != MPI_SUCCESS)
            break;
        if (have + (size_t)cnt > cap) {
            while (have + (size_t)cnt > cap)
                cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return MPI_ERR_NO_MEM;
            }
            buf = nb;
        }
        rc = MPI_Recv(buf + have, cnt, MPI_BYTE, me + mask, TAG_GATHER, comm, MPI_STATUS_IGNORE);
        have += (size_t)cnt;
    }
    if (me == 0 && rc == MPI_SUCCESS) {
        *all = buf;
        *total = have;
        return rc;
    }
    free(buf);
    if (me == 0) {
        *all = NULL;
        *total = 0;
    }
    return rc;
}
