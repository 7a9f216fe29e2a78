#include "dispatch/finalize.h"

#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

#include "dispatch/comm_state.h"
#include "run/nbc.h"
#include "config/settings.h"
#include "run/stats.h"

static int done;
static pthread_once_t armed = PTHREAD_ONCE_INIT;

static int self_delete(MPI_Comm comm, int kv, void *value, void *extra)
{
    (void)comm, (void)kv, (void)value, (void)extra;
    tb_finalize_run(0);
    return MPI_SUCCESS;
}

static void arm(void)
{
    int kv = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kv, NULL) == MPI_SUCCESS) {
        PMPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL);
        PMPI_Comm_free_keyval(&kv); /* the attribute keeps it alive */
    }
}

void tb_finalize_arm(void)
{
    pthread_once(&armed, arm);
}

void tb_finalize_run(int every_rank)
{
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    tb_nbc_finalize(); /* broadcasts still in progress end (and count) first */
    const tb_settings *st = tb_settings_get();
    /* A state on MPI_COMM_WORLD was set up by every rank together (and each
     * armed this), so all of them are in here: the sum is safe -- if world
     * rank 0's TOPOBCAST_STATS was shared at MPI_Init, else some ranks may
     * not be counting. */
    if (!st->disabled && st->stats) {
        const tb_config *cfg = st->config_ok ? &st->config : NULL;
        int nrules = cfg ? cfg->nrules : 0;
        int *rules = nrules ? malloc((size_t)nrules * sizeof *rules) : NULL; /* each rule's line */
        for (int r = 0; rules && r < nrules; r++)
            rules[r] = cfg->rules[r].line;
        const char *source = cfg ? cfg->source : NULL;
        if (st->per_process)
            tb_stats_report(0, "the library's MPI_Init did not run: each process follows its own "
                               "TOPOBCAST_STATS", rules, nrules, source);
        else
            tb_stats_report(every_rank || tb_comm_state_find(MPI_COMM_WORLD) != NULL,
                            "the program ended MPI without the C MPI_Finalize and broadcast on MPI_COMM_WORLD never",
                            rules, nrules, source);
        free(rules);
    }
    tb_comm_state_release_world();
    tb_settings_release();
}
