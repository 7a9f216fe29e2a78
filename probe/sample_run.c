/* Sample mode's measurement (harness.h, tbp_sample_run): phase by phase,
 * rank 0 plans the pairs from what the earlier phases measured
 * (sample_plan.h), packs them into rounds and broadcasts them; the harness
 * runs the rounds; the senders' times go back to rank 0 (tbp_gather_bytes).
 * The full records go to rank 0 at the end, as in the other modes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plogp.h"
#include "sample_plan.h"

/* Rank 0: the next phase's rounds (npairs 0: finished); aborts the job
 * when the plan fails (the others wait in the broadcast). */
static void plan_phase(MPI_Comm comm, tbp_sampler *s, int n, tbp_rounds *r)
{
    tbp_phase ph;
    if (tbp_sampler_next(s, &ph) != 0 ||
        tbp_rounds_pack(n, ph.npairs, (const int (*)[2])ph.pair, ph.res_start, ph.res, ph.nres, r) != 0) {
        fprintf(stderr, "topobcast-probe: sample mode: planning a phase failed (out of memory)\n");
        MPI_Abort(comm, 1);
    }
    tbp_phase_free(&ph);
}

/* The times of this phase's pairs to rank 0, fed to s there: every rank
 * contributes the (i, j, t) of the records it added since first. */
static int return_times(MPI_Comm ctl, const tbp_measure_ctx *c, int first, const tbp_sample_opts *o,
                        tbp_sampler *s)
{
    int me;
    MPI_Comm_rank(ctl, &me);
    int mine = c->nrec - first;
    double *v = malloc((size_t)(3 * (mine > 0 ? mine : 1)) * sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < mine; k++) {
        const tt_pair_rec *q = &c->rec[first + k];
        double t;
        if (tt_pair_rec_time(q, o->at, o->interp, &t) != 0)
            t = -1; /* rank 0 reports it */
        v[3 * k] = q->i;
        v[3 * k + 1] = q->j;
        v[3 * k + 2] = t;
    }
    char *all = NULL;
    size_t total = 0;
    int rc = tbp_gather_bytes(ctl, v, (size_t)(3 * mine) * sizeof *v, &all, &total);
    free(v);
    if (rc != MPI_SUCCESS || me != 0)
        return rc;
    int bad = 0;
    for (size_t k = 0; k + 3 * sizeof(double) <= total; k += 3 * sizeof(double)) {
        double w[3];
        memcpy(w, all + k, sizeof w);
        bad |= w[2] < 0 || tbp_sampler_feed(s, (int)w[0], (int)w[1], w[2]) != 0;
    }
    free(all);
    if (bad) {
        fprintf(stderr, "topobcast-probe: sample mode: a pair gave no usable time\n");
        MPI_Abort(ctl, 1);
    }
    return MPI_SUCCESS;
}

int tbp_sample_run(MPI_Comm comm, const int *group, const tbp_sample_opts *o, tbp_measure_ctx *c, int *measured,
                   tbp_sample_stats *st)
{
    int me, n;
    MPI_Comm ctl;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int rc = MPI_Comm_dup(comm, &ctl);
    if (rc != MPI_SUCCESS)
        return rc;
    memset(st, 0, sizeof *st);
    tbp_sampler *s = NULL;
    if (me == 0) {
        s = tbp_sampler_new(n, group, o->conc, o->rel_gap, o->seed);
        if (!s) {
            fprintf(stderr, "topobcast-probe: sample mode: out of memory\n");
            MPI_Abort(comm, 1);
        }
        for (int r = 0; r < n; r++)
            measured[r] = tbp_sampler_is_leader(s, r);
    }
    double t0 = MPI_Wtime();
    for (;;) {
        tbp_rounds r;
        memset(&r, 0, sizeof r);
        if (me == 0)
            plan_phase(comm, s, n, &r);
        rc = tbp_rounds_bcast(&r, 0, ctl);
        if (rc != MPI_SUCCESS || r.npairs == 0) {
            tbp_rounds_free(&r);
            break;
        }
        int first = c->nrec;
        rc = tbp_harness_run(comm, &r, tbp_measure_pair, c, TBP_PROGRESS_NONE);
        if (rc == MPI_SUCCESS)
            rc = return_times(ctl, c, first, o, s);
        st->phases++;
        st->pairs += r.npairs;
        st->rounds += r.nrounds;
        if (me == 0 && o->progress != TBP_PROGRESS_NONE) {
            fprintf(stderr, "probe: sample phase %d: %d pairs in %d rounds; %ld pairs, %ld rounds so far (%.1f s)\n",
                    st->phases, r.npairs, r.nrounds, st->pairs, st->rounds, MPI_Wtime() - t0);
            fflush(stderr);
        }
        tbp_rounds_free(&r);
        if (rc != MPI_SUCCESS)
            break;
    }
    tbp_sampler_free(s);
    MPI_Comm_free(&ctl);
    return rc;
}
