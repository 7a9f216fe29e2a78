/* The bound of --compare's broadcasts; see compare_bound.h. */
#include "compare_bound.h"

#include <stdlib.h>

#include "agree.h"
#include "fanout.h"
#include "machine.h"
#include "tools.h"

/* fan-out test as the tuner's set-up makes it (setup.c): 1 MiB to at most
 * 8 peers per class */
#define FANOUT_BYTES ((size_t)1 << 20)
#define FANOUT_PEERS 8

int tn_compare_bounds(MPI_Comm comm, const int *members, const char *platform, const char *hostfile,
                      const tn_costs *costs, const size_t *sizes, int n, int all_roots, double *bound, FILE *out)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int from_costs = !platform && tn_agree_on(comm, costs != NULL);
    if (!platform && !from_costs) {
        if (me == 0)
            fprintf(out, "# no bound: give --platform and --hostfile (SimGrid) or --measurements\n");
        return -1;
    }
    const tb_hier *h = NULL;
    double fanout[TB_MAX_LEVELS + 1];
    if (from_costs) {
        h = tb_tool_comm_hier(comm, NULL);
        if (h && (!h->size || h->nlevels > TB_MAX_LEVELS))
            h = NULL;
        if (tn_fanout_measure(comm, h, FANOUT_BYTES, FANOUT_PEERS, 3, fanout) != 0)
            for (int k = 0; k <= TB_MAX_LEVELS; k++)
                fanout[k] = 1.0;
    }
    int ok = 1;
    if (me == 0) {
        tn_machine m;
        char err[512] = "";
        ok = (platform ? tn_machine_from_platform(&m, platform, hostfile, members, P, err, sizeof err)
                       : tn_machine_from_costs(&m, costs, members, h, fanout, P, err, sizeof err)) == 0;
        if (ok) {
            ok = tn_machine_bounds(&m, P, all_roots, sizes, n, bound, NULL, err, sizeof err) == 0;
            if (ok)
                fprintf(out, "# bound (least time any broadcast needs, %s): %s\n",
                        all_roots ? "any root" : "root 0", m.source);
            tn_machine_free(&m);
        }
        if (!ok)
            fprintf(out, "# no bound: %s\n", err);
    }
    return tn_agree_on(comm, ok) ? 0 : -1;
}
