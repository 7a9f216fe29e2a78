/* Sub-communicators of the same size but different shapes select different
 * rules of a shape-keyed table (config/README.md, "Shape keys").  Run on 16
 * ranks, 4 per node (ranks 4k..4k+3 on node k), with TOPOBCAST_CONFIG a
 * table whose rules key on nodes, ppn and consecutive, and
 * TOPOBCAST_STATS=1.  Four communicators of 4 ranks each:
 *   one-node      ranks 0-3          nodes 1
 *   one-per-node  ranks 0,4,8,12     ppn 1
 *   two-blocks    ranks 0,1,4,5      ppn 2, consecutive
 *   two-mixed     ranks 0,4,1,5      ppn 2, not consecutive (comm rank order)
 * Each broadcasts ROUNDS messages (data checked) and reports, from its rank
 * 0, the algorithm the table selects; every rank's choice is compared with
 * rank 0's, since a decision that differs between ranks would hang.
 * Prints "shape_select NAME size=4 algorithm=ALG agreed" lines and an
 * ok/not ok verdict per communicator; the statistics at MPI_Finalize count
 * ROUNDS calls per rule. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topobcast.h"

/* weak: the program links without the library, which LD_PRELOAD (or the
 * SMPI build, which links it in) provides */
#pragma weak topobcast_selected_algorithm

#define ROUNDS 3
#define COUNT 5000 /* ints */

static int bcast_ok(MPI_Comm comm, int round)
{
    int me, bad = 0;
    MPI_Comm_rank(comm, &me);
    int *b = malloc(sizeof *b * COUNT);
    for (int i = 0; i < COUNT; i++)
        b[i] = me == 0 ? i * 7 + round : -1;
    bad = MPI_Bcast(b, COUNT, MPI_INT, 0, comm) != MPI_SUCCESS;
    for (int i = 0; i < COUNT && !bad; i++)
        bad = b[i] != i * 7 + round;
    free(b);
    return !bad;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 16 || !topobcast_selected_algorithm) {
        if (rank == 0)
            printf("not ok shape_select needs 16 ranks, 4 per node (got %d), and the library (%s)\n", size,
                   topobcast_selected_algorithm ? "present" : "absent");
        MPI_Finalize();
        return 1;
    }
    /* position of each world rank in each communicator, -1 outside */
    static const char *names[4] = {"one-node", "one-per-node", "two-blocks", "two-mixed"};
    static const int member[4][4] = {{0, 1, 2, 3}, {0, 4, 8, 12}, {0, 1, 4, 5}, {0, 4, 1, 5}};
    int failures = 0;
    for (int c = 0; c < 4; c++) {
        int key = -1;
        for (int k = 0; k < 4; k++)
            if (member[c][k] == rank)
                key = k;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, key >= 0 ? 0 : MPI_UNDEFINED, key, &comm);
        int ok = 1;
        char alg[128] = "", first[128] = "";
        if (comm != MPI_COMM_NULL) {
            for (int r = 0; r < ROUNDS; r++)
                ok &= bcast_ok(comm, r);
            topobcast_selected_algorithm(comm, COUNT, MPI_INT, alg, sizeof alg);
            memcpy(first, alg, sizeof first);
            PMPI_Bcast(first, sizeof first, MPI_CHAR, 0, comm); /* rank 0's choice, not counted */
            ok &= strcmp(first, alg) == 0;
            int all;
            MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
            int me;
            MPI_Comm_rank(comm, &me);
            if (me == 0)
                printf("shape_select %s size=4 algorithm=%s %s\n", names[c], alg, all ? "agreed" : "DIFFERS");
            ok = all;
            MPI_Comm_free(&comm);
        }
        int bad = !ok, total;
        MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        failures += total != 0;
        if (rank == 0)
            printf("%s shape_select %s: data and choice agreed on every rank\n", total ? "not ok" : "ok", names[c]);
        fflush(stdout);
    }
    MPI_Finalize();
    return failures != 0;
}
