/* PLogP parameters of one pair (Kielmann et al., as measured in the seed
 * thesis sec. 3.1.2), the measurement of a pair by either mode, and
 * bringing the results to rank 0.
 *
 * After the pair's warm-up (batches.c), per message size m, each in
 * batches of b operations (b makes a batch last at least batch_time, so
 * that timer resolution does not matter for small messages), as many
 * batches as batches.c decides (R, fewer when they agree, more while
 * cheap), summarised robustly (median or minimum after outlier rejection):
 *   RTT(m)       ping-pong of m bytes each way;
 *   o_s(m)       duration of MPI_Ssend(m) (returns only once the receive
 *                is matched, unlike MPI_Send which may just buffer);
 *   o_r(m)       the receiver answers with m bytes; the sender waits
 *                k*RTT(m) from the start of the round trip, so the answer
 *                is there, then times MPI_Recv: the cost of receiving
 *                without waiting (k = 1.3 in the thesis);
 *   g(m)         m <= 64 KiB: link saturation, bursts of n messages and
 *                one empty answer, g = (T(2n) - T(n)) / n (the difference
 *                cancels the answer's round trip), n = 4, 8, 16 ... doubled
 *                until two estimates agree within eps or n reaches the cap;
 *                above: g(m) = (RTT(m) - RTT(0)) / 2 + g(0): thesis eq.
 *                3.1 is RTT(m) - RTT(0) + g(0) for a round trip of m bytes
 *                and an empty answer; ours carries m bytes both ways;
 *   L            (RTT(0) - 2 g(0)) / 2 (eq. 3.2), at least 0.
 * Sizes 0, 1, 2, 4 ... M; base sizes the curve shows hit by a stall
 * (tbp_size_suspect) measured again, keeping the lower figures; then extra
 * sizes where piecewise-linear interpolation of RTT, o_s or o_r misses by
 * more than eps (sizes.c). */
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plogp.h"

/* SimGrid's SMPI (smpicc) runs every rank in one process on simulated
 * time: a busy loop would never see MPI_Wtime move (the wait sleeps in
 * simulated time instead), and payload contents are irrelevant here, so
 * the buffer is SMPI's shared one (no copies). */
#ifdef SMPI_H
#define PAYLOAD_ALLOC(n) SMPI_SHARED_MALLOC(n)
#define PAYLOAD_FREE(p) SMPI_SHARED_FREE(p)
#else
#define PAYLOAD_ALLOC(n) malloc(n)
#define PAYLOAD_FREE(p) free(p)
#endif

int tbp_measure_init(tbp_measure_ctx *c, const tt_meas_opts *opt)
{
    memset(c, 0, sizeof *c);
    c->opt = opt;
    size_t len = opt->max_size > 0 ? (size_t)opt->max_size : 1;
    c->buf = PAYLOAD_ALLOC(len);
    if (!c->buf)
        return -1;
    memset(c->buf, 0, len);
    c->wtime = tbp_wtime_overhead();
    return 0;
}

void tbp_measure_free(tbp_measure_ctx *c)
{
    if (c->buf)
        PAYLOAD_FREE(c->buf);
    for (int k = 0; k < c->nrec; k++)
        tt_pair_rec_free(&c->rec[k]);
    free(c->rec);
    memset(c, 0, sizeof *c);
}

static long batch_len(double batch_time, double rtt_est)
{
    if (!(rtt_est > 0))
        return 1;
    double b = ceil(batch_time / rtt_est);
    return b < 1 ? 1 : b > 64 ? 64 : (long)b;
}

/* What a batch needs to know: the size, and for o_r the wait. */
typedef struct op_arg {
    long m;
    int n;      /* burst length */
    double rtt; /* o_r: RTT(m) */
} op_arg;

/* RTT(m): reps ping-pongs of m bytes each way. */
static int rtt_batch(MPI_Comm comm, int peer, tbp_measure_ctx *c, const void *arg, long reps, double *v)
{
    const op_arg *a = arg;
    int rc = MPI_SUCCESS, im = (int)a->m;
    double t0 = MPI_Wtime();
    for (long k = 0; k < reps; k++) {
        TBP_CHECK(MPI_Send(c->buf, im, MPI_BYTE, peer, TBP_TAG_DATA, comm));
        TBP_CHECK(MPI_Recv(c->buf, im, MPI_BYTE, peer, TBP_TAG_DATA, comm, MPI_STATUS_IGNORE));
    }
    v[0] = (MPI_Wtime() - t0 - c->wtime) / (double)reps;
out:
    return rc;
}

/* o_s(m) and o_r(m) from the same round trips: the time of MPI_Ssend, and
 * of MPI_Recv once k*RTT(m) has passed since the round trip started. */
static int overhead_batch(MPI_Comm comm, int peer, tbp_measure_ctx *c, const void *arg, long reps, double *v)
{
    const op_arg *a = arg;
    int rc = MPI_SUCCESS, im = (int)a->m;
    double w = c->wtime, sos = 0, sor = 0;
    for (long k = 0; k < reps; k++) {
        double t0 = MPI_Wtime();
        TBP_CHECK(MPI_Ssend(c->buf, im, MPI_BYTE, peer, TBP_TAG_DATA, comm));
        double t1 = MPI_Wtime();
        tbp_spin_until(t0 + c->opt->k_wait * a->rtt);
        double t2 = MPI_Wtime();
        TBP_CHECK(MPI_Recv(c->buf, im, MPI_BYTE, peer, TBP_TAG_DATA, comm, MPI_STATUS_IGNORE));
        double t3 = MPI_Wtime();
        sos += t1 - t0 - w;
        sor += t3 - t2 - w;
    }
    v[0] = sos / (double)reps;
    v[1] = sor / (double)reps;
out:
    return rc;
}

/* A burst of n messages of m bytes and an empty answer (one per batch). */
static int burst_batch(MPI_Comm comm, int peer, tbp_measure_ctx *c, const void *arg, long reps, double *v)
{
    const op_arg *a = arg;
    int rc = MPI_SUCCESS;
    (void)reps;
    double t0 = MPI_Wtime();
    for (int k = 0; k < a->n; k++)
        TBP_CHECK(MPI_Send(c->buf, (int)a->m, MPI_BYTE, peer, TBP_TAG_DATA, comm));
    TBP_CHECK(MPI_Recv(c->buf, 0, MPI_BYTE, peer, TBP_TAG_DATA, comm, MPI_STATUS_IGNORE));
    v[0] = MPI_Wtime() - t0 - c->wtime;
out:
    return rc;
}

/* Time of a burst of n messages of m bytes and an empty answer, over
 * min(R, 3) batches: g is a difference of two such times, which magnifies
 * any disagreement left, so --agree never stops them early; nor are they
 * extended while cheap (up to 7 of them per size). */
static int burst_time(MPI_Comm comm, int peer, tbp_measure_ctx *c, long m, int n, double *T)
{
    op_arg a = {.m = m, .n = n};
    tbp_batches b = {.m = m, .nmsg = n, .reply = 0, .warm = 0, .per = 1, .nser = 1, .fn = burst_batch, .arg = &a,
                     .min = c->opt->reps < 3 ? c->opt->reps : 3};
    double five[1][5];
    int rc = tbp_measure_batches(comm, peer, c, &b, five);
    *T = tbp_pick(five[0], c->opt->use_min);
    return rc;
}

/* g(m) by link saturation. */
static int saturate(MPI_Comm comm, int peer, tbp_measure_ctx *c, long m, double *g, int *nsat)
{
    const tt_meas_opts *o = c->opt;
    int rc, n = 4;
    double T1, T2 = 0, prev = NAN, est = NAN;
    TBP_CHECK(burst_time(comm, peer, c, m, n, &T1));
    *nsat = n;
    for (;;) {
        if (2 * n > o->gsat_cap) {
            if (isnan(est))
                est = T1 / n;
            break;
        }
        TBP_CHECK(burst_time(comm, peer, c, m, 2 * n, &T2));
        est = (T2 - T1) / n;
        *nsat = 2 * n;
        if (!isnan(prev) && fabs(est - prev) <= o->eps * fabs(est))
            break;
        prev = est;
        T1 = T2;
        n *= 2;
    }
    /* noise can make the difference quotient non-positive: fall back on
     * the plain average, which overestimates g by RTT/n at most */
    if (!(est > 0))
        est = (T2 > 0 ? T2 : T1) / *nsat;
    *g = est;
out:
    return rc;
}

/* RTT(m), then o_s(m) and o_r(m), each after one untimed operation, in
 * batches of b operations lasting about --batch-time; g(m) up to
 * --gsat-max. */
static int measure_size(MPI_Comm comm, int peer, tbp_measure_ctx *c, long m, double rtt_est,
                        tt_size_rec *out)
{
    const tt_meas_opts *o = c->opt;
    long b = batch_len(o->batch_time, rtt_est);
    int rc;
    memset(out, 0, sizeof *out);
    out->m = (double)m;
    op_arg a = {.m = m};
    tbp_batches rt = {.m = m, .nmsg = 1, .reply = m, .warm = 1, .per = b, .min = o->reps, .extend = 1, .nser = 1,
                      .fn = rtt_batch, .arg = &a};
    TBP_CHECK(tbp_measure_batches(comm, peer, c, &rt, &out->q[TT_Q_A]));
    out->rtt = tbp_pick(out->q[TT_Q_A], o->use_min);

    a.rtt = out->rtt;
    tbp_batches ov = rt;
    ov.nser = 2;
    ov.fn = overhead_batch;
    TBP_CHECK(tbp_measure_batches(comm, peer, c, &ov, &out->q[TT_Q_B]));
    out->o_s = tbp_pick(out->q[TT_Q_B], o->use_min);
    out->o_r = tbp_pick(out->q[TT_Q_C], o->use_min);

    /* In the model a message of m bytes takes L + g(m) one way, so
     * g(m) <= RTT(m)/2 (L >= 0).  Saturation breaks that only when a slow
     * phase hit its bursts (T(2n) - T(n) magnifies it), and g(0) above
     * RTT(0)/2 would make L = 0 and D(0) = t(0) too large by the excess. */
    if (m <= o->gsat_max) {
        TBP_CHECK(saturate(comm, peer, c, m, &out->g, &out->gsat));
        if (out->g > out->rtt / 2)
            out->g = out->rtt / 2;
    }
out:
    return rc;
}

/* Measurements of a suspect base size beyond the first. */
#define REMEASURE_MAX 2

static int plogp_measure(MPI_Comm comm, int peer, tbp_measure_ctx *c, tt_pair_rec *rec)
{
    const tt_meas_opts *o = c->opt;
    long base[72];
    int nb = tbp_sizes_base(o->max_size, base, 72);
    int cap = nb + (o->max_insert > 0 ? o->max_insert : 0), ns = 0, rc;
    tt_size_rec *s = calloc((size_t)cap, sizeof *s);
    double *tmp = malloc(7 * (size_t)cap * sizeof *tmp);
    if (!s || !tmp) {
        free(s);
        free(tmp);
        return MPI_ERR_NO_MEM;
    }
    double est;
    TBP_CHECK(tbp_warm_up(comm, peer, c, &est));
    for (int k = 0; k < nb; k++) {
        TBP_CHECK(measure_size(comm, peer, c, base[k], est, &s[ns]));
        est = s[ns++].rtt;
    }
    /* suspect sizes are measured again, at most twice, from the largest
     * down so that a run of them is undone */
    for (int k = ns - 1; k >= 0; k--)
        for (int tries = 0; tries < REMEASURE_MAX && tbp_size_suspect(s, k, ns, o->eps); tries++) {
            tt_size_rec again;
            TBP_CHECK(measure_size(comm, peer, c, (long)s[k].m, k + 1 < ns ? s[k + 1].rtt : s[k - 1].rtt, &again));
            tbp_size_keep_lower(&s[k], &again);
        }
    for (int ins = 0; ins < o->max_insert; ins++) {
        double *m = tmp, *y[3] = {tmp + cap, tmp + 2 * cap, tmp + 3 * cap};
        double *nz[3] = {tmp + 4 * cap, tmp + 5 * cap, tmp + 6 * cap};
        for (int k = 0; k < ns; k++) {
            m[k] = s[k].m;
            y[0][k] = s[k].rtt;
            y[1][k] = s[k].o_s;
            y[2][k] = s[k].o_r;
            for (int q = 0; q < 3; q++)
                nz[q][k] = s[k].q[q][3] - s[k].q[q][1];
        }
        long next = tbp_sizes_next(m, ns, (const double *const *)y, (const double *const *)nz, 3, o->eps,
                                   o->min_spacing);
        if (next < 0)
            break;
        int p = 0;
        while (p < ns && s[p].m < (double)next)
            p++;
        tt_size_rec add;
        TBP_CHECK(measure_size(comm, peer, c, next, p > 0 ? s[p - 1].rtt : est, &add));
        memmove(s + p + 1, s + p, (size_t)(ns - p) * sizeof *s);
        s[p] = add;
        ns++;
    }
    TBP_CHECK(tbp_cmd_send(comm, peer, 0, 0, 0, 0));

    /* sizes above the saturation limit: g from the round trip.  Eq. 3.1
     * assumes an empty answer, RTT(m) = 2L + g(m) + g(0); our ping-pong
     * answers with m bytes, RTT(m) = 2L + 2g(m), so the growth is halved
     * (taking it whole doubled g(m) for large m). */
    double rtt0 = s[0].rtt, g0 = s[0].g;
    for (int k = 0; k < ns; k++)
        if (s[k].gsat == 0) {
            double g = (s[k].rtt - rtt0) / 2 + g0;
            s[k].g = g > 0 ? g : 0;
        }
    rec->L = (rtt0 - 2 * g0) / 2;
    if (rec->L < 0)
        rec->L = 0;
    rec->nsizes = ns;
    rec->s = s;
    s = NULL;
out:
    free(s);
    free(tmp);
    return rc;
}

int tbp_measure_pair(MPI_Comm comm, int sender, int receiver, void *ctx)
{
    tbp_measure_ctx *c = ctx;
    int me;
    MPI_Comm_rank(comm, &me);
    if (me == receiver)
        return tbp_cmd_serve(comm, sender, c->buf);
    if (c->nrec == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        void *p = realloc(c->rec, (size_t)cap * sizeof *c->rec);
        if (!p)
            return MPI_ERR_NO_MEM;
        c->rec = p;
        c->cap = cap;
    }
    tt_pair_rec *rec = &c->rec[c->nrec];
    memset(rec, 0, sizeof *rec);
    rec->i = sender;
    rec->j = receiver;
    int rc = c->opt->mode == TT_MODE_LOGGP ? tbp_loggp_measure(comm, receiver, c, rec)
                                            : plogp_measure(comm, receiver, c, rec);
    if (rc == MPI_SUCCESS)
        c->nrec++;
    return rc;
}

/* ---- results to rank 0 --------------------------------------------------- */

#define PAIR_HDR 11
#define SIZE_LEN TT_SIZE_REC_LEN

static size_t rec_len(const tt_pair_rec *p)
{
    return PAIR_HDR + (size_t)p->nsizes * SIZE_LEN;
}

static double *pack_rec(const tt_pair_rec *p, double *d)
{
    double hdr[PAIR_HDR] = {p->i, p->j, p->L, p->nsizes, p->lg.L, p->lg.o, p->lg.g, p->lg.G, p->lg.S,
                            p->lg.g2, p->lg.G2};
    memcpy(d, hdr, sizeof hdr);
    d += PAIR_HDR;
    for (int k = 0; k < p->nsizes; k++) {
        tt_size_rec_pack(&p->s[k], d);
        d += SIZE_LEN;
    }
    return d;
}

static const double *unpack_rec(const double *d, const double *end, tt_pair_rec *p)
{
    if (end - d < PAIR_HDR)
        return NULL;
    memset(p, 0, sizeof *p);
    p->i = (int)d[0];
    p->j = (int)d[1];
    p->L = d[2];
    p->nsizes = (int)d[3];
    p->lg = (tt_loggp_fit){.L = d[4], .o = d[5], .g = d[6], .G = d[7], .S = d[8], .g2 = d[9], .G2 = d[10]};
    d += PAIR_HDR;
    if (p->nsizes < 0 || end - d < (ptrdiff_t)p->nsizes * SIZE_LEN)
        return NULL;
    p->s = calloc((size_t)(p->nsizes ? p->nsizes : 1), sizeof *p->s);
    if (!p->s)
        return NULL;
    for (int k = 0; k < p->nsizes; k++) {
        tt_size_rec_unpack(&p->s[k], d);
        d += SIZE_LEN;
    }
    return d;
}

int tbp_results_gather(MPI_Comm comm, tbp_measure_ctx *c, tt_meas *m)
{
    int me;
    MPI_Comm_rank(comm, &me);
    size_t len = 0;
    for (int k = 0; k < c->nrec; k++)
        len += rec_len(&c->rec[k]);
    double *mine = malloc((len ? len : 1) * sizeof *mine), *d = mine;
    if (!mine)
        MPI_Abort(comm, 1);
    for (int k = 0; k < c->nrec; k++)
        d = pack_rec(&c->rec[k], d);
    char *all = NULL;
    size_t total = 0;
    int rc = tbp_gather_bytes(comm, mine, len * sizeof *mine, &all, &total);
    free(mine);
    if (rc == MPI_SUCCESS && me == 0) {
        int np = 0, capn = 1024;
        tt_pair_rec *pairs = malloc((size_t)capn * sizeof *pairs);
        const double *p = (const double *)all, *end = p + total / sizeof *p;
        while (pairs && p < end) {
            if (np == capn) {
                capn *= 2;
                void *q = realloc(pairs, (size_t)capn * sizeof *pairs);
                if (!q)
                    break;
                pairs = q;
            }
            p = unpack_rec(p, end, &pairs[np]);
            if (!p)
                break;
            np++;
        }
        if (!pairs || p != end)
            MPI_Abort(comm, 1);
        m->pair = pairs;
        m->npairs = np;
    }
    free(all);
    return rc;
}
