/* LogGP measurement of a pair by Hoefler's parameterised round trip
 * PRTT(n,d,s): the sender sends n messages of s bytes, waiting d between
 * them, and the receiver answers the last one with s bytes.  Per size s
 * PRTT(1,0,s), PRTT(n,0,s) and PRTT(n,d,s) with d = PRTT(1,0,s) are
 * measured here; the parameters follow from them in loggp_fit.c. */
#include <mpi.h>
#include <stdlib.h>

#include "loggp.h"
#include "pair_cmd.h"
#include "wtime.h"

typedef struct prtt_arg {
    long s;
    int n;
    double d;
} prtt_arg;

/* One sample of PRTT(n,d,s) (one per batch). */
static int prtt_batch(MPI_Comm comm, int peer, tbp_measure_ctx *c, const void *arg, long reps, double *v)
{
    const prtt_arg *a = arg;
    int rc = MPI_SUCCESS;
    (void)reps;
    double t0 = MPI_Wtime();
    for (int k = 0; k < a->n; k++) {
        TBP_CHECK(MPI_Send(c->buf, (int)a->s, MPI_BYTE, peer, TBP_TAG_DATA, comm));
        if (a->d > 0 && k + 1 < a->n)
            tbp_spin_until(MPI_Wtime() + a->d);
    }
    TBP_CHECK(MPI_Recv(c->buf, (int)a->s, MPI_BYTE, peer, TBP_TAG_DATA, comm, MPI_STATUS_IGNORE));
    v[0] = MPI_Wtime() - t0 - c->wtime;
out:
    return rc;
}

/* Samples of PRTT(n,d,s), R or more (batches.c), after one untimed round
 * when warm is set. */
static int prtt(MPI_Comm comm, int peer, tbp_measure_ctx *c, long s, int n, double d, int warm,
                double five[5])
{
    prtt_arg a = {.s = s, .n = n, .d = d};
    tbp_batches b = {.m = s, .nmsg = n, .reply = s, .warm = warm ? 1 : 0, .per = 1, .min = c->opt->reps, .extend = 1,
                     .nser = 1, .fn = prtt_batch, .arg = &a};
    return tbp_measure_batches(comm, peer, c, &b, (double(*)[5])five);
}

int tbp_loggp_measure(MPI_Comm comm, int receiver, tbp_measure_ctx *c, tt_pair_rec *rec)
{
    const tt_meas_opts *o = c->opt;
    long base[72];
    int nb = tbp_sizes_base(o->max_size, base, 72), rc, n = o->prtt_n;
    tt_size_rec *s = calloc((size_t)nb, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < nb; k++) {
        s[k].m = (double)base[k];
        TBP_CHECK(prtt(comm, receiver, c, base[k], 1, 0, 1, s[k].q[TT_Q_A]));
        s[k].rtt = tbp_pick(s[k].q[TT_Q_A], o->use_min);
        TBP_CHECK(prtt(comm, receiver, c, base[k], n, 0, 0, s[k].q[TT_Q_B]));
        TBP_CHECK(prtt(comm, receiver, c, base[k], n, s[k].rtt, 0, s[k].q[TT_Q_C]));
    }
    TBP_CHECK(tbp_cmd_send(comm, receiver, 0, 0, 0, 0));
    tbp_loggp_fit_pair(s, nb, n, o->use_min, &rec->lg);
    rec->L = rec->lg.L;
    rec->nsizes = nb;
    rec->s = s;
    s = NULL;
out:
    free(s);
    return rc;
}
