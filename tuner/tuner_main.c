/* topobcast-tuner: measures which broadcast algorithm is fastest on this
 * allocation for each communicator size and message size, and writes the
 * selection table (with the topology it used) for TOPOBCAST_CONFIG.
 *
 *   1. set-up (setup.c): the topology; the communicators (shapes of the
 *      job: whole, one rank per node, one node, a grid row, half of the
 *      nodes; shapes.c, comms.c); the costs: the probe's per-pair PLogP
 *      measurements, or a quick per-level ping-pong (calibrate.c); and how
 *      many large sends one rank can have in flight per class of
 *      destination (fanout.c);
 *   2. the plan (plan.c): per communicator and message size, every
 *      candidate (candidates.c) is priced by the cost model (price.c,
 *      model.c); only those within --factor of the best prediction
 *      (plans with feeds=F: of theirs), plus default, are timed (all with
 *      --exhaustive);
 *   3. timing (measure.c, with the shared timing method of timing/):
 *      warm-up, synchronised repetitions, max over ranks, median and
 *      trimmed mean, root 0 and rotating roots; each result is appended to
 *      the partial file at once (--resume);
 *   4. winners, ranges (winners.c, table.c) and the YAML, checked by loading
 *      it back (output.c).
 * The state they share is a tn_run (run.h).
 *
 * --compare CONFIG instead times the library with CONFIG against
 * PMPI_Bcast (compare.c). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "agree.h"
#include "comms.h"
#include "compare.h"
#include "measure.h"
#include "output.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "setup.h"
#include "site.h"
#include "tools.h"
#include "../timing/timing.h"

static int finish(int rc)
{
    MPI_Finalize();
    return rc;
}

static void run_free(tn_run *T)
{
    for (int k = 0; k < T->nitems; k++) {
        free(T->items[k].spec);
        free(T->items[k].pred);
        free(T->items[k].pruned);
    }
    free(T->items);
    tn_costs_free(&T->costs);
    tn_results_free(&T->rs);
    for (int c = 0; c < T->ncomm; c++)
        tn_machine_free(&T->comms[c].mach);
    if (T->o.topology)
        tb_config_free(&T->topo_cfg);
    tn_comms_free(T->picks, T->pick_comm, T->ncomm);
    tn_site_nodes_free(&T->site_nodes);
}

int main(int argc, char **argv)
{
    static tn_run T; /* large; zeroed */
    int help = 0;
    char err[512];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &T.wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &T.wsize);
    T.start = tn_progress_now();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (tn_options_parse(&T.o, argc, argv, &help, err, sizeof err) != 0 || help) {
        /* a bad argument: its one line, not buried under the usage */
        if (T.wrank == 0 && help == 2)
            tb_tool_version(stdout, "topobcast-tuner");
        else if (T.wrank == 0 && help)
            tn_options_usage(stdout);
        else if (T.wrank == 0)
            fprintf(stderr, "topobcast-tuner: %s\n", err);
        return finish(help ? 0 : 2);
    }
    /* the library off (world rank 0's TOPOBCAST_DISABLE): nothing of it to
     * time or compare */
    if (tb_tool_disabled()) {
        if (T.wrank == 0)
            fprintf(stderr, "topobcast-tuner: TOPOBCAST_DISABLE is set, which turns the library off: there is "
                            "nothing to %s; unset it for the tuner\n", T.o.compare ? "compare" : "tune");
        return finish(2);
    }
    /* The library reads its configuration at the first broadcast, and the
     * check of the output files below broadcasts its verdict: point it at
     * the topology first, or it would derive every hierarchy from MPI and
     * hwloc instead of the file.  A file named on the command line that
     * cannot be read: status 1, as --compare's configuration
     * (tuner/README.md, "Exit status"). */
    if (!T.o.compare && tn_setup_topology(&T) != 0)
        return finish(1);
    /* every file a tuning run writes, before anything is measured */
    if (!T.o.compare && !T.o.dry_run && tn_output_check(&T) != 0) {
        run_free(&T);
        return finish(2);
    }
    /* more ranks than cores on a host: every timing is the scheduler's */
    int crowd_ranks, crowd_cores;
    if (tbtime_crowded(MPI_COMM_WORLD, &crowd_ranks, &crowd_cores) && T.wrank == 0)
        fprintf(stderr,
                "topobcast-tuner: warning: %d ranks run on a host with %d cores: MPI busy-polls, so ranks wait "
                "for a core and the timings (and a table chosen from them) are noise; run at most one rank per "
                "core\n",
                crowd_ranks, crowd_cores);
    if (T.o.compare) {
        setenv("TOPOBCAST_CONFIG", T.o.compare, 1);
        if (T.o.measurements && !T.o.platform && tn_setup_costs(&T) != 0) /* the bound's machine */
            return finish(1);
        tn_compare_opts co = {T.o.sizes,          T.o.nsizes,   T.o.reps,        T.o.warmup,
                              T.o.root_mode,      T.o.csv,      T.o.verbose,     tn_opts_shapes(&T.o),
                              T.o.comm_sizes,     T.o.ncomm_sizes, T.o.platform, T.o.hostfile,
                              T.have_costs && T.wrank == 0 ? &T.costs : NULL};
        int rc = tn_compare_run(&co, stdout);
        tn_costs_free(&T.costs);
        return finish(rc);
    }
    if (tn_setup_comms(&T) != 0) {
        run_free(&T);
        return finish(2);
    }
    if (tn_setup_costs(&T) != 0) {
        run_free(&T);
        return finish(1);
    }
    tn_setup_fanout(&T);
    T.nitems = T.ncomm * T.o.nsizes;
    T.items = calloc((size_t)T.nitems, sizeof *T.items);
    if (!T.items)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (T.wrank == 0) {
        tn_setup_print(&T);
        tn_setup_machine(&T);
        T.setup_seconds = tn_progress_now() - T.start;
        tn_plan_all(&T);
        if (T.o.site)
            tn_site_plan_print(&T, stdout);
    }
    if (T.o.dry_run) {
        if (T.wrank == 0)
            tn_plan_print(&T);
        run_free(&T);
        return finish(0);
    }
    int status = 2;
    if (tn_measure_open_partial(&T) == 0 && tn_measure_all(&T) == 0)
        status = T.wrank == 0 ? tn_output_write(&T) : 0;
    if (T.wrank == 0 && T.pf)
        fclose(T.pf);
    run_free(&T);
    return finish(tn_agree(status));
}
