/* Who every rank is: the ground truth the clustering is validated against
 * and the leaves of the topology file.  Nothing here feeds the discovery
 * itself; the host name decides only which pairs may run concurrently and
 * which ranks fast mode samples together.
 *
 * The host is MPI's processor name: it is what the MPI library considers
 * a node (under MPICH it is the host name; under SimGrid SMPI it is the
 * simulated host, while gethostname() would name the real machine). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plogp.h"
#include "identity.h"

int tbp_identity_gather(MPI_Comm comm, tt_rank_info **out, int *group)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    tb_identity id;
#ifdef SMPI_H
    /* hwloc would describe the machine running the simulation, not the
     * simulated host: leave the places unknown */
    memset(&id, 0, sizeof id);
    id.pu = id.core = id.package = id.numa = -1;
#else
    tb_identity_self(&id);
#endif
    tt_rank_info mine;
    memset(&mine, 0, sizeof mine);
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0;
    if (MPI_Get_processor_name(name, &len) == MPI_SUCCESS && len > 0) {
        name[len < MPI_MAX_PROCESSOR_NAME ? len : MPI_MAX_PROCESSOR_NAME] = 0;
        snprintf(mine.host, sizeof mine.host, "%.*s", (int)sizeof mine.host - 1, name);
    } else {
        snprintf(mine.host, sizeof mine.host, "%.*s", (int)sizeof mine.host - 1, id.host);
    }
    /* the topology loader wants host names without blanks */
    for (char *p = mine.host; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            *p = '_';
#ifndef SMPI_H
    /* the node type's words, once per host in the topology */
    tb_hwloc_summary(mine.hwloc, sizeof mine.hwloc);
#endif
    mine.pu = id.pu;
    mine.core = id.core;
    mine.package = id.package;
    mine.numa = id.numa;
    MPI_Comm_rank(MPI_COMM_WORLD, &mine.world_rank);
    mine.measured = 1;

    /* Fixed-size plain data; the job is assumed homogeneous, as MPI_BYTE
     * does.  Only rank 0 keeps everyone's identity (P records on every
     * rank would be P^2 of them, 4.9 GB in one simulation at P=4096); the
     * others get the group ids. */
    char *raw = NULL;
    size_t got = 0;
    int rc = tbp_gather_bytes(comm, &mine, sizeof mine, &raw, &got);
    if (rc != MPI_SUCCESS)
        return rc;
    tt_rank_info *all = (tt_rank_info *)raw; /* malloc'd: aligned */
    if (me == 0 && got != (size_t)size * sizeof mine)
        MPI_Abort(comm, 1);
    /* group = dense id of the host, by first appearance in rank order */
    for (int r = 0; me == 0 && r < size; r++) {
        all[r].host[sizeof all[r].host - 1] = 0;
        all[r].hwloc[sizeof all[r].hwloc - 1] = 0;
        all[r].group = -1;
        for (int q = 0; q < r && all[r].group < 0; q++)
            if (strcmp(all[q].host, all[r].host) == 0)
                all[r].group = all[q].group;
        if (all[r].group < 0) {
            int g = 0;
            for (int q = 0; q < r; q++)
                if (all[q].group + 1 > g)
                    g = all[q].group + 1;
            all[r].group = g;
        }
        group[r] = all[r].group;
    }
    rc = PMPI_Bcast(group, size, MPI_INT, 0, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *out = all;
    return MPI_SUCCESS;
}
