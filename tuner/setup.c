/* Set-up of a tuning run: topology, communicators, costs, fan-out; see
 * setup.h. */
#include "setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "calibrate.h"
#include "costs_probe.h"
#include "fanout.h"
#include "tools.h"

/* fan-out test: messages large enough to be bandwidth-bound, to at most 8
 * peers per class */
#define FANOUT_BYTES ((size_t)1 << 20)
#define FANOUT_PEERS 8

int tn_setup_topology(tn_run *T)
{
    if (T->o.topology)
        setenv("TOPOBCAST_CONFIG", T->o.topology, 1);
    else if (getenv("TOPOBCAST_CONFIG") && *getenv("TOPOBCAST_CONFIG"))
        T->o.topology = getenv("TOPOBCAST_CONFIG");
    if (T->o.topology) { /* rank 0 copies it into the table */
        char err[1024];
        int ok = tb_config_load(T->o.topology, &T->topo_cfg, err, sizeof err) == 0;
        if (!tn_agree(ok)) {
            if (T->wrank == 0)
                fprintf(stderr, "topobcast-tuner: %s\n", err);
            return -1;
        }
        T->have_topo = T->topo_cfg.has_topology;
    }
    return 0;
}

/* The job, then its first half and quarter (or --comm-sizes), and the
 * library's hierarchy of each (collective).  Returns 0 or -1. */
int tn_setup_comms(tn_run *T)
{
    int want[TN_MAX_COMMS], nwant = 0;
    if (T->o.ncomm_sizes) {
        for (int k = 0; k < T->o.ncomm_sizes; k++)
            want[nwant++] = T->o.comm_sizes[k];
    } else {
        want[nwant++] = T->wsize;
        want[nwant++] = T->wsize / 2;
        want[nwant++] = T->wsize / 4;
    }
    for (int k = 0; k < nwant; k++) {
        int s = want[k], dup = 0;
        for (int j = 0; j < T->ncomm; j++)
            dup |= T->comms[j].size == s;
        if (s < 2 || s > T->wsize || dup)
            continue;
        tn_comm *ci = &T->comms[T->ncomm++];
        ci->size = s;
        ci->hier = NULL;
        if (s == T->wsize)
            ci->comm = MPI_COMM_WORLD;
        else
            MPI_Comm_split(MPI_COMM_WORLD, T->wrank < s ? 0 : MPI_UNDEFINED, T->wrank, &ci->comm);
    }
    if (T->ncomm == 0) {
        if (T->wrank == 0)
            fprintf(stderr, "topobcast-tuner: nothing to tune on %d process(es) (communicators need >= 2)\n", T->wsize);
        return -1;
    }
    for (int c = 0; c < T->ncomm; c++) {
        if (T->comms[c].comm == MPI_COMM_NULL)
            continue;
        int usable = 0;
        const tb_hier *ch = tb_tool_comm_hier(T->comms[c].comm, &usable);
        int ok = ch != NULL && (!T->have_topo || usable), all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, T->comms[c].comm);
        if (!all) {
            /* tuning hierarchical algorithms on another hierarchy than the
             * file's would write a table for a machine nobody measured */
            if (T->wrank == 0)
                fprintf(stderr,
                        "topobcast-tuner: the library cannot use %s on %d processes (see its warning above); "
                        "run where the topology was measured\n",
                        T->o.topology, T->comms[c].size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        T->comms[c].hier = ch;
    }
    /* the job's own hierarchy names the pair classes of the costs */
    const tb_hier *wh = tb_tool_comm_hier(MPI_COMM_WORLD, NULL);
    T->world_hier = wh && wh->size ? wh : NULL;
    return 0;
}

/* Probe measurements if given and taken on this placement, else the
 * quick calibration (collective). */
void tn_setup_costs(tn_run *T)
{
    const tn_opts *o = &T->o;
    if (o->measurements) {
        char err[1024] = "";
        char (*hosts)[256] = NULL;
        int ok = 0;
        if (T->wrank == 0) {
            ok = tn_costs_load_probe(o->measurements, T->have_topo ? &T->topo_cfg.topo : NULL, &T->costs, &hosts, err,
                                     sizeof err) == 0;
            if (ok && T->costs.nprocs != T->wsize) {
                snprintf(err, sizeof err, "%s was measured with %d processes, this job has %d", o->measurements,
                         T->costs.nprocs, T->wsize);
                ok = 0;
            }
        }
        /* the pairs are by probe rank: this job must have the probe's placement */
        char name[MPI_MAX_PROCESSOR_NAME] = "";
        int len;
        MPI_Get_processor_name(name, &len);
        char *all = T->wrank == 0 ? malloc((size_t)T->wsize * MPI_MAX_PROCESSOR_NAME) : NULL;
        MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (T->wrank == 0 && ok) {
            for (int r = 0; r < T->wsize && ok; r++)
                if (!all || strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, hosts[r]) != 0) {
                    snprintf(err, sizeof err, "rank %d runs on %s, the probe's rank %d ran on %s", r,
                             all ? all + (size_t)r * MPI_MAX_PROCESSOR_NAME : "?", r, hosts[r]);
                    ok = 0;
                }
        }
        if (T->wrank == 0 && !ok) {
            tn_costs_free(&T->costs);
            fprintf(stderr, "topobcast-tuner: not using %s: %s; calibrating instead\n", o->measurements, err);
        }
        free(all);
        free(hosts);
        T->have_costs = tn_agree(ok);
    }
    if (!T->have_costs) {
        char err[256] = "";
        int rc = tn_calibrate_quick(MPI_COMM_WORLD, T->world_hier, o->sizes[o->nsizes - 1], 20, &T->costs, err,
                                    sizeof err);
        if (rc != 0 && T->wrank == 0)
            fprintf(stderr, "topobcast-tuner: %s; timing every candidate\n", err);
        T->have_costs = rc == 0;
        /* even the fastest of 20 round trips took over 100 us: ranks share
         * cores (or the network is broken); pruning on such figures is
         * guesswork, and so are the timings */
        if (rc == 0 && T->wrank == 0)
            for (int k = 0; k < T->costs.ncurves; k++)
                if (T->costs.L[k] > 100e-6) {
                    fprintf(stderr, "topobcast-tuner: warning: measured latency %.0f us: is the machine "
                                    "oversubscribed? predictions and timings will be unreliable\n",
                            T->costs.L[k] * 1e6);
                    break;
                }
    }
}

/* Fan-out per pair class of every tuned communicator, for the model
 * (collective per communicator; a few large messages from rank 0). */
void tn_setup_fanout(tn_run *T)
{
    for (int c = 0; c < T->ncomm; c++) {
        tn_comm *ci = &T->comms[c];
        for (int k = 0; k <= TB_MAX_LEVELS; k++)
            ci->fanout[k] = 1.0;
        const tb_hier *h = ci->hier && ci->hier->size ? ci->hier : NULL;
        if (T->have_costs && ci->comm != MPI_COMM_NULL && (!h || h->nlevels <= TB_MAX_LEVELS) &&
            tn_fanout_measure(ci->comm, h, FANOUT_BYTES, FANOUT_PEERS, 3, ci->fanout) != 0 && T->wrank == 0)
            fprintf(stderr, "topobcast-tuner: out of memory measuring fan-out; the model assumes 1\n");
    }
}

void tn_setup_print(const tn_run *T)
{
    const tn_opts *o = &T->o;
    printf("# topobcast-tuner: %d processes; %d message sizes %zu..%zu B; %d reps (+%d warm-up); roots %s\n", T->wsize,
           o->nsizes, o->sizes[0], o->sizes[o->nsizes - 1], o->reps, o->warmup, tn_roots_name(o->root_mode));
    printf("# topology: %s\n", T->have_topo ? o->topology : "none (levels from MPI_COMM_TYPE_SHARED + hwloc)");
    if (T->have_costs) {
        printf("# costs: %s\n", T->costs.source);
        tn_costs_describe(&T->costs, T->world_hier, stdout);
    }
    for (int c = 0; c < T->ncomm; c++) {
        const tb_hier *h = T->comms[c].hier;
        printf("# communicator of %d processes: ", T->comms[c].size);
        int nl = h ? h->nlevels : 0;
        if (nl == 0)
            printf("no levels");
        for (int l = 0; l < nl; l++)
            printf("%s%s (%d groups)", l ? " > " : "", h->level_name[l], h->ngroups[l]);
        if (T->have_costs) {
            printf("; fan-out of rank 0's sends:");
            for (int l = 0; l <= nl; l++)
                printf(" %s%s %.2f", l < nl ? "other " : nl ? "same " : "", nl ? h->level_name[l < nl ? l : nl - 1] : "all",
                       T->comms[c].fanout[l]);
        }
        printf("\n");
    }
    fflush(stdout);
}

