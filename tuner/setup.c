/* Set-up of a tuning run: topology, communicators, costs, fan-out; see
 * setup.h. */
#include "setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "calibrate.h"
#include "comms.h"
#include "costs_probe.h"
#include "fanout.h"
#include "hash.h"
#include "tools.h"

/* fan-out test: messages large enough to be bandwidth-bound, to at most 8
 * peers per class */
#define FANOUT_BYTES ((size_t)1 << 20)
#define FANOUT_PEERS 8

int tn_setup_topology(tn_run *T)
{
    const char *what = T->o.topology_opt; /* what the user named it with */
    if (!T->o.topology && getenv("TOPOBCAST_CONFIG") && *getenv("TOPOBCAST_CONFIG")) {
        T->o.topology = getenv("TOPOBCAST_CONFIG");
        what = NULL;
    }
    if (!T->o.topology)
        return 0;
    /* rank 0 copies it into the table; every rank checks it loads before
     * the library is pointed at it (a broadcast would load it there), so
     * a bad file is reported once, under the option that named it */
    char err[1024] = "";
    int ok = tb_config_load(T->o.topology, &T->topo_cfg, err, sizeof err) == 0, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (ok)
            tb_config_free(&T->topo_cfg);
        if (T->wrank == 0) {
            if (!ok && !what)
                fprintf(stderr, "topobcast-tuner: TOPOBCAST_CONFIG: %s\n", err);
            else if (!ok && !strncmp(err, T->o.topology, strlen(T->o.topology))) /* "FILE: why" */
                fprintf(stderr, "topobcast-tuner: %s %s\n", what, err);
            else if (!ok)
                fprintf(stderr, "topobcast-tuner: %s %s: %s\n", what, T->o.topology, err);
            else
                fprintf(stderr, "topobcast-tuner: %s %s: cannot be loaded on every rank\n",
                        what ? what : "TOPOBCAST_CONFIG", T->o.topology);
        }
        T->o.topology = NULL; /* nothing loaded to free */
        return -1;
    }
    if (what)
        setenv("TOPOBCAST_CONFIG", T->o.topology, 1);
    T->have_topo = T->topo_cfg.has_topology;
    /* the library reads its configuration once, at its first call: had a
     * broadcast of the tuner's come first, it would derive every
     * communicator without this topology (a tuner bug: said, not hidden) */
    const tb_tool_setup *ts = tb_tool_setup_get();
    if (ts->config_ok && strcmp(ts->config->source, T->o.topology) != 0) {
        if (T->wrank == 0)
            fprintf(stderr, "topobcast-tuner: the library had read its configuration (%s) before %s %s: its "
                            "hierarchies would ignore that topology\n",
                    ts->config->source, what ? what : "TOPOBCAST_CONFIG", T->o.topology);
        return -1;
    }
    return 0;
}

/* Whether the tuner offers the shared-memory stage (shm) on a
 * communicator: where a node holds two or more of its ranks, and never
 * when built for SMPI (smpicc's <mpi.h> defines SMPI_H), whose shared
 * windows are not one host's memory: the library runs binomial in shm's
 * place there (libtopobcast/src/run/shm.c), which is a candidate already. */
static int offers_shm(const tn_shape_pick *pick)
{
#ifdef SMPI_H
    (void)pick;
    return 0;
#else
    return pick->ppn_max >= 2;
#endif
}

/* This rank's node type in a site topology (any integer, the same on one
 * host; 0 without types), for drawing nodes of every type. */
static int node_type(const tn_run *T)
{
    const tb_topology *t = T->have_topo ? &T->topo_cfg.topo : NULL;
    if (!t || !t->site || !t->host_type)
        return 0;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    uint64_t full, shrt;
    MPI_Get_processor_name(name, &len);
    tb_hash_host(name, &full, &shrt);
    int h = tb_topo_find_host(t, full, shrt);
    return h >= 0 ? t->host_type[h] : -1;
}

/* The shapes of the job (or --comm-sizes, or the site's) as communicators,
 * and the library's hierarchy and shape of each (collective).  Returns 0
 * or -1. */
int tn_setup_comms(tn_run *T)
{
    tn_site_want want = {T->o.site_shapes, T->o.site_small, NULL, 0};
    if (T->o.site) { /* the job's levels spread the nodes a shape takes */
        want.world = tb_tool_comm_hier(MPI_COMM_WORLD, NULL);
        want.type = node_type(T);
    }
    int n = tn_comms_create(tn_opts_shapes(&T->o), T->o.comm_sizes, T->o.ncomm_sizes, T->o.site ? &want : NULL,
                            &T->site_nodes, T->picks, T->pick_comm, TN_MAX_TUNED);
    if (n < 0) {
        if (T->wrank == 0)
            fprintf(stderr, "topobcast-tuner: out of memory choosing the communicators\n");
        return -1;
    }
    T->ncomm = n;
    for (int c = 0; c < n; c++) {
        tn_comm *ci = &T->comms[c];
        ci->size = T->picks[c].size;
        ci->world = T->picks[c].members;
        ci->node = T->picks[c].node;
        ci->shm = offers_shm(&T->picks[c]);
        ci->comm = T->pick_comm[c];
        ci->hier = NULL;
        snprintf(ci->label, sizeof ci->label, "%s", T->picks[c].label);
    }
    if (T->ncomm == 0) {
        if (T->wrank == 0) {
            if (T->o.ncomm_sizes > 0)
                fprintf(stderr, "topobcast-tuner: nothing to tune on %d process(es): no size of --comm-sizes is "
                                "from 2 to %d\n", T->wsize, T->wsize);
            else if (T->o.shapes >= 0 && T->wsize >= 2)
                fprintf(stderr, "topobcast-tuner: nothing to tune on %d processes: the shapes of --shapes make no "
                                "communicator here (each exists only where the job has it, with at least 4 ranks: tuner/README.md, "
                                "Method, \"Communicators\")\n",
                        T->wsize);
            else
                fprintf(stderr, "topobcast-tuner: nothing to tune on %d process(es) (communicators need >= 2)\n",
                        T->wsize);
        }
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
        const tb_shape *sh = tb_tool_comm_shape(T->comms[c].comm);
        if (sh)
            T->comms[c].shape = *sh;
    }
    /* the job's own hierarchy names the pair classes of the costs */
    const tb_hier *wh = tb_tool_comm_hier(MPI_COMM_WORLD, NULL);
    T->world_hier = wh && wh->size ? wh : NULL;
    const tb_shape *ws = tb_tool_comm_shape(MPI_COMM_WORLD);
    if (ws)
        T->world_shape = *ws;
    else
        tb_shape_unknown(&T->world_shape, T->wsize);
    return 0;
}

/* Probe measurements if given and taken on this placement, else the
 * quick calibration (collective).  A named file that cannot be read at all
 * is an error: the user asked for it. */
int tn_setup_costs(tn_run *T)
{
    const tn_opts *o = &T->o;
    if (o->measurements) {
        char err[1024] = "";
        char (*hosts)[256] = NULL;
        int ok = 0, loaded = 0;
        if (T->wrank == 0) {
            loaded = tn_costs_load_probe(o->measurements, T->have_topo ? &T->topo_cfg.topo : NULL, &T->costs, &hosts,
                                         err, sizeof err) == 0;
            ok = loaded;
            if (ok && T->costs.nprocs != T->wsize) {
                snprintf(err, sizeof err, "%s was measured with %d processes, this job has %d", o->measurements,
                         T->costs.nprocs, T->wsize);
                ok = 0;
            }
            if (!loaded)
                fprintf(stderr, "topobcast-tuner: --measurements %s (without --measurements the tuner calibrates "
                                "itself)\n",
                        err);
        }
        if (!tn_agree(loaded)) {
            free(hosts);
            return -1;
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
    return 0;
}

/* Fan-out per pair class of every tuned communicator, for the model
 * (collective per communicator; a few large messages from rank 0). */
void tn_setup_fanout(tn_run *T)
{
    for (int k = 0; k <= TB_MAX_LEVELS; k++)
        T->world_fanout[k] = 1.0;
    const tb_hier *wh = T->world_hier;
    if (T->o.site && T->have_costs && (!wh || wh->nlevels <= TB_MAX_LEVELS) &&
        tn_fanout_measure(MPI_COMM_WORLD, wh, FANOUT_BYTES, FANOUT_PEERS, 3, T->world_fanout) != 0 && T->wrank == 0)
        fprintf(stderr, "topobcast-tuner: out of memory measuring fan-out; the model assumes 1\n");
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

const tb_config *tn_shape_config(void)
{
    const tb_tool_setup *st = tb_tool_setup_get();
    return st->config_ok ? st->config : NULL;
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
        char shape[256];
        tb_shape_format(&T->comms[c].shape, tn_shape_config(), shape, sizeof shape);
        printf("# communicator %s of %d processes (%s): ", T->comms[c].label, T->comms[c].size, shape);
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


void tn_setup_machine(tn_run *T)
{
    for (int c = 0; c < T->ncomm; c++) {
        tn_comm *ci = &T->comms[c];
        const tb_hier *h = ci->hier && ci->hier->size ? ci->hier : NULL;
        char err[512] = "";
        int rc = -1;
        if (T->o.platform)
            rc = tn_machine_from_platform(&ci->mach, T->o.platform, T->o.hostfile, ci->world, ci->size, err,
                                          sizeof err);
        else if (T->have_costs)
            rc = tn_machine_from_costs(&ci->mach, &T->costs, ci->world, h, ci->fanout, ci->size, err, sizeof err);
        else
            continue;
        ci->have_mach = rc == 0;
        if (rc == 0)
            printf("# machine of %d processes (shared links and memories): %s\n", ci->size, ci->mach.source);
        else
            fprintf(stderr, "topobcast-tuner: %s; the model prices %d processes without shared links\n", err,
                    ci->size);
    }
    fflush(stdout);
}
