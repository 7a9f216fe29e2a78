/* How a pair's measurements are repeated: the warm-up before a pair's
 * first measurement, and the batches of every measurement (how many,
 * early stop, extension while cheap, robust summary).
 *
 * A measurement is a sequence of batches, each repeating an operation
 * (a round trip, a burst ...) and recording its mean.  It takes
 *   - at least R batches (-R), unless the first 3 or more agree within
 *     --agree (a quiet link, a deterministic simulator): nothing more to
 *     learn (the sender then stops the receiver's command early);
 *   - beyond R, while it is cheap and noisy: up to --max-reps batches as
 *     long as it has taken less than --rep-budget and its batches spread
 *     over more than --eps (relative).  Small messages, whose batches last
 *     the --batch-time, thus get many batches on a real machine, large
 *     ones R, and a simulator, whose batches are equal, exactly R or 3.
 *     Only RTT, o_s/o_r and LogGP's PRTTs are extended: saturation takes
 *     up to 7 burst measurements per size, which would multiply the cost
 *     of a pair (g is bounded by RTT/2 instead, plogp.c).
 * The batches are then summarised robustly (tbp_summarize: outliers
 * rejected, five numbers of the rest).
 *
 * The receiver is told each phase as one command (tbp_cmd_send): "per
 * batch, receive nmsg messages of m bytes and answer reply bytes, per
 * times", R batches first and, only when the measurement goes on, the
 * extension as a second command; so the message sequence of a measurement
 * that needs no extension is the same as without it. */
#include <mpi.h>
#include <stdlib.h>

#include "batches.h"
#include "pair_cmd.h"
#include "wtime.h"

/* Batches before --agree may stop a measurement: three, so that a median
 * is never decided by two batches that happen to coincide. */
#define AGREE_MIN 3

/* Whether a series of n batches (R the minimum) is complete: before R,
 * when the batches agree (--agree); from R on, unless cheap and noisy. */
static int enough(const tt_meas_opts *o, int R, int cap, const double *x, int n, double spent)
{
    if (n < R)
        return tbp_batches_agree(x, n, AGREE_MIN, o->agree);
    return n >= cap || !(spent < o->rep_budget) || tbp_batches_agree(x, n, 1, o->eps);
}

int tbp_measure_batches(MPI_Comm comm, int peer, tbp_measure_ctx *c, const tbp_batches *b, double five[][5])
{
    const tt_meas_opts *o = c->opt;
    int R = b->min, cap = b->extend && o->max_reps > R ? o->max_reps : R, n = 0, rc;
    double *x = malloc((size_t)b->nser * (size_t)cap * sizeof *x), v[TBP_MAX_SERIES];
    if (!x)
        return MPI_ERR_NO_MEM;
    TBP_CHECK(tbp_cmd_send(comm, peer, b->m, b->nmsg, b->reply, b->warm + (long)R * b->per));
    if (b->warm)
        TBP_CHECK(b->fn(comm, peer, c, b->arg, b->warm, v));
    double t0 = MPI_Wtime();
    int commanded = R; /* batches the receiver has been told of */
    for (;;) {
        TBP_CHECK(b->fn(comm, peer, c, b->arg, b->per, v));
        for (int s = 0; s < b->nser; s++)
            x[s * cap + n] = v[s];
        n++;
        double spent = MPI_Wtime() - t0;
        int done = 1;
        for (int s = 0; s < b->nser && done; s++)
            done = enough(o, R, cap, x + s * cap, n, spent);
        if (done) {
            if (n < commanded)
                TBP_CHECK(tbp_cmd_stop(comm, peer));
            break;
        }
        if (n == commanded) {
            TBP_CHECK(tbp_cmd_send(comm, peer, b->m, b->nmsg, b->reply, (long)(cap - n) * b->per));
            commanded = cap;
        }
    }
    for (int s = 0; s < b->nser; s++)
        tbp_summarize(x + s * cap, n, five[s]);
out:
    free(x);
    return rc;
}

/* The warm-up: round trips of empty messages in chunks of WARM_CHUNK until
 * the last WARM_STABLE chunks each took at most WARM_SLOWER times the best
 * chunk, or WARM_MAX seconds have passed.  A pair's first contact costs far
 * more than its round trips later (connection set-up, page faults, and on
 * a shared node a scheduler that has not yet spread the two spinning ranks
 * over cores: round trips of a time slice each, for tens of ms); measured
 * at once, that was the 0-byte figure (the seed thesis sees it too: sec.
 * 5.1.1, outliers of the first pair measured).  A simulator's chunks are
 * equal, so it does WARM_STABLE of them. */
#define WARM_CHUNK 8
#define WARM_STABLE 3
#define WARM_SLOWER 1.5
#define WARM_MAX 0.05
#define WARM_BOUND (1L << 24) /* round trips the receiver is told of */

int tbp_warm_up(MPI_Comm comm, int peer, tbp_measure_ctx *c, double *rtt)
{
    int rc;
    long done = 0;
    double last[WARM_STABLE], best = 0, start = MPI_Wtime();
    TBP_CHECK(tbp_cmd_send(comm, peer, 0, 1, 0, WARM_BOUND));
    for (;;) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < WARM_CHUNK; k++) {
            TBP_CHECK(MPI_Send(c->buf, 0, MPI_BYTE, peer, TBP_TAG_DATA, comm));
            TBP_CHECK(MPI_Recv(c->buf, 0, MPI_BYTE, peer, TBP_TAG_DATA, comm, MPI_STATUS_IGNORE));
        }
        double now = MPI_Wtime(), t = (now - t0) / WARM_CHUNK;
        long chunk = done / WARM_CHUNK;
        done += WARM_CHUNK;
        if (chunk == 0 || t < best)
            best = t;
        last[chunk % WARM_STABLE] = t;
        int stable = chunk + 1 >= WARM_STABLE;
        for (int k = 0; k < WARM_STABLE && stable; k++)
            stable = last[k] <= WARM_SLOWER * best;
        if (stable || now - start >= WARM_MAX || done + WARM_CHUNK > WARM_BOUND)
            break;
    }
    if (done < WARM_BOUND)
        TBP_CHECK(tbp_cmd_stop(comm, peer));
    *rtt = best;
out:
    return rc;
}
