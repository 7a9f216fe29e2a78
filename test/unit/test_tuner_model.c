/* Tuner cost model: exact replay of a pipelined chain, and the orderings
 * every broadcast model must get right (binomial beats flat for small
 * messages at large P; pipeline and scatter-allgather beat binomial for
 * large ones; magpie beats a topology-blind tree when groups are far
 * apart and interleaved). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "model.h"
#include "price.h"
#include "schedule.h"
#include "tap.h"

/* g(m) = g0 + m / bw (bw in bytes/s), os = g0, one curve per class. */
static void set_curve(tn_costs *c, int k, double L, double g0, double bw)
{
    c->L[k] = L;
    for (int i = 0; i < tn_costs_n(c, k); i++) {
        tn_costs_g(c, k)[i] = g0 + tn_costs_m(c, k)[i] / bw;
        tn_costs_os(c, k)[i] = g0;
    }
}

static void sizes(tn_costs *c)
{
    const double m[] = {0, 1024, 65536, 1048576, 16777216};
    for (int k = 0; k < c->ncurves; k++)
        for (int i = 0; i < 5; i++)
            tn_costs_m(c, k)[i] = m[i];
}

/* Two levels, node > socket, from each rank's node and socket numbers. */
static void node_socket(tb_hier *h, int P, const int *node, const int *socket)
{
    tb_hier_alloc(h, P, 2);
    snprintf(h->level_name[0], TB_LEVEL_NAME_MAX, "node");
    snprintf(h->level_name[1], TB_LEVEL_NAME_MAX, "socket");
    for (int r = 0; r < P; r++) {
        h->group[0][r] = node[r];
        h->group[1][r] = socket[r];
        h->ngroups[0] = node[r] + 1 > h->ngroups[0] ? node[r] + 1 : h->ngroups[0];
        h->ngroups[1] = socket[r] + 1 > h->ngroups[1] ? socket[r] + 1 : h->ngroups[1];
    }
}

static double predict(const tn_costs *c, const tb_hier *h, int P, const char *spec, size_t bytes)
{
    tb_alg_spec s;
    char err[256];
    double t = -1;
    if (tb_alg_spec_parse(spec, &s, err, sizeof err) != 0 ||
        tn_model_predict(c, NULL, h, NULL, NULL, P, 0, &s, bytes, &t, err, sizeof err) != 0) {
        printf("# %s: %s\n", spec, err);
        return -1;
    }
    return t;
}

/* Signature of spec's plan on P ranks (hierarchy h or NULL) from root 0. */
static uint64_t signature(const tb_hier *h, int P, const char *spec, size_t bytes)
{
    tb_alg_spec s;
    tb_plan p;
    char err[256];
    if (tb_alg_spec_parse(spec, &s, err, sizeof err) != 0 || tb_plan_build(&p, P, 0, &s, h, err, sizeof err) != 0) {
        printf("# %s: %s\n", spec, err);
        return 0;
    }
    uint64_t sig = tn_plan_signature(&p, &s, bytes);
    tb_plan_free(&p);
    return sig;
}

/* tn_price of spec on communicator ci: 0 or 1 priced, -1 dropped (err). */
static int price(const tn_costs *c, const tn_comm *ci, const char *spec, size_t bytes, char *err, size_t errlen)
{
    tb_alg_spec s;
    tn_price_memo memo;
    double t = -1, replay = -1;
    if (tb_alg_spec_parse(spec, &s, err, errlen) != 0 || tn_price_memo_init(&memo, 4) != 0)
        return -2;
    int rc = tn_price(c, ci, &s, bytes, &memo, &t, &replay, err, errlen);
    tn_price_memo_free(&memo);
    return rc;
}

/* One level, "node", over P ranks: rank r on node node[r]. */
static void one_level(tb_hier *h, int P, const int *node)
{
    tb_hier_alloc(h, P, 1);
    snprintf(h->level_name[0], TB_LEVEL_NAME_MAX, "node");
    for (int r = 0; r < P; r++) {
        h->group[0][r] = node[r];
        h->ngroups[0] = node[r] + 1 > h->ngroups[0] ? node[r] + 1 : h->ngroups[0];
    }
}

int main(void)
{
    tn_costs c;
    const double L = 1e-6, g0 = 3e-7, bw = 1e10;
    tn_costs_alloc(&c, 64, 1, 5, 0);
    sizes(&c);
    set_curve(&c, 0, L, g0, bw);

    /* interpolation: clamped below, linear inside, extended above */
    double x[] = {0, 10, 20}, y[] = {1, 2, 4};
    TAP_OK(tn_costs_interp(x, y, 3, -5) == 1 && tn_costs_interp(x, y, 3, 5) == 1.5 &&
               tn_costs_interp(x, y, 3, 30) == 6,
           "interpolation clamps below, is linear inside and extends the last slope");

    /* pipelined chain, 16 KiB segments (eager), 1 MiB: the last rank gets
     * the last segment at (nseg - 1) g(seg) + (P - 1)(g(seg) + L) */
    {
        int P = 16;
        size_t n = 1 << 20, seg = 16384;
        double gs = g0 + (double)seg / bw;
        double want = (double)(n / seg - 1) * gs + (P - 1) * (gs + L);
        double got = predict(&c, NULL, P, "pipeline:segment=16K", n);
        TAP_OK(fabs(got - want) < 1e-12, "pipeline replay is exact: %.3f us (expected %.3f us)", got * 1e6,
               want * 1e6);
        double gotb = predict(&c, NULL, P, "pipeline:segment=16K,send=blocking", n);
        TAP_OK(fabs(gotb - want) < 1e-12, "blocking eager pipeline same as non-blocking (%.3f us)", gotb * 1e6);
    }
    /* flat tree, small message: root's link serialises P-1 sends */
    {
        int P = 64;
        double want = (P - 2) * (g0 + 8 / bw) + (g0 + 8 / bw) + L;
        double got = predict(&c, NULL, P, "flat", 8);
        TAP_OK(fabs(got - want) < 1e-12, "flat tree: (P-1) g + L = %.3f us (got %.3f us)", want * 1e6, got * 1e6);
    }
    /* small messages at large P: binomial beats flat */
    {
        double bin = predict(&c, NULL, 64, "binomial", 8), flat = predict(&c, NULL, 64, "flat", 8);
        TAP_OK(bin > 0 && bin < flat, "P=64 8 B: binomial %.2f us < flat %.2f us", bin * 1e6, flat * 1e6);
        double bin6 = 6 * (g0 + 8 / bw + L);
        TAP_OK(fabs(bin - bin6) < 0.5 * bin6, "binomial ~ log2(P) (g + L) = %.2f us (got %.2f)", bin6 * 1e6,
               bin * 1e6);
    }
    /* large messages on a chain-like cost model (bandwidth-bound links):
     * pipeline and scatter-allgather beat binomial */
    {
        size_t n = 8u << 20;
        double bin = predict(&c, NULL, 16, "binomial", n);
        double pipe = predict(&c, NULL, 16, "pipeline:segment=64K", n);
        double sag = predict(&c, NULL, 16, "scatter_allgather", n);
        double sagr = predict(&c, NULL, 16, "scatter_allgather:allgather=recursive_doubling", n);
        TAP_OK(pipe > 0 && pipe < bin, "P=16 8 MiB: pipeline %.0f us < binomial %.0f us", pipe * 1e6, bin * 1e6);
        TAP_OK(sag > 0 && sag < bin, "P=16 8 MiB: scatter_allgather(ring) %.0f us < binomial %.0f us", sag * 1e6,
               bin * 1e6);
        TAP_OK(sagr > 0 && sagr < bin, "P=16 8 MiB: scatter_allgather(rdbl) %.0f us < binomial %.0f us",
               sagr * 1e6, bin * 1e6);
        /* bandwidth term of binomial: the root sends the message log2 P times */
        TAP_OK(bin > 4 * (double)n / bw, "binomial pays >= log2(P) n / bw (%.0f us)", bin * 1e6);
        double split = predict(&c, NULL, 16, "split_binary", n);
        double binary = predict(&c, NULL, 16, "binary", n);
        TAP_OK(split > 0 && split < binary, "split_binary %.0f us < binary %.0f us (half the bytes per subtree)",
               split * 1e6, binary * 1e6);
    }
    /* segments help big messages on deep trees, cost small ones nothing */
    {
        double whole = predict(&c, NULL, 32, "binary", 4u << 20);
        double seg = predict(&c, NULL, 32, "binary:segment=64K", 4u << 20);
        TAP_OK(seg < whole, "segmented binary %.0f us < whole-message binary %.0f us", seg * 1e6, whole * 1e6);
    }
    tn_costs_free(&c);

    /* Two islands, interleaved so that every binomial edge r -> r + 2^k
     * crosses (island = parity of popcount(r)): crossing costs 20 us,
     * inside 0.5 us.  For small messages magpie crosses once; binomial
     * crosses on every level. */
    {
        int P = 32;
        tb_hier h;
        tb_hier_alloc(&h, P, 1);
        snprintf(h.level_name[0], TB_LEVEL_NAME_MAX, "island");
        h.ngroups[0] = 2;
        for (int r = 0; r < P; r++)
            h.group[0][r] = __builtin_popcount((unsigned)r) & 1;
        tn_costs cc;
        tn_costs_alloc(&cc, P, 2, 5, 1);
        sizes(&cc);
        set_curve(&cc, 0, 20e-6, 1e-6, 1e9);  /* class 0: differ at "island" */
        set_curve(&cc, 1, 0.5e-6, 2e-7, 1e10); /* class 1: same island */
        for (int a = 0; a < P; a++)
            for (int b = 0; b < P; b++)
                cc.pair[a * P + b] = tn_costs_pair_class(&h, a, b);
        TAP_OK(cc.pair[0 * P + 1] == 0 && cc.pair[0 * P + 3] == 1 && cc.pair[3 * P + 3] == 1,
               "pair classes from the hierarchy");
        double mag = predict(&cc, &h, P, "magpie2:base=binomial", 64);
        double bin = predict(&cc, &h, P, "binomial", 64);
        TAP_OK(mag > 0 && mag < 0.5 * bin, "interleaved islands, 64 B: magpie2 %.1f us < half of binomial %.1f us",
               mag * 1e6, bin * 1e6);
        double dt = predict(&cc, &h, P, "distance_tree", 64);
        TAP_OK(dt > 0 && dt < 0.5 * bin, "distance_tree %.1f us < half of binomial %.1f us", dt * 1e6, bin * 1e6);
        /* large messages: interpipe keeps the slow link busy with segments */
        double ip = predict(&cc, &h, P, "interpipe:segment=64K,base=chain", 4u << 20);
        double m2 = predict(&cc, &h, P, "magpie2:base=chain", 4u << 20);
        TAP_OK(ip > 0 && ip < m2, "4 MiB: interpipe %.0f us < unsegmented magpie2 %.0f us", ip * 1e6, m2 * 1e6);
        /* world map: comm rank r is world rank P-1-r; costs follow */
        int world[32];
        for (int r = 0; r < P; r++)
            world[r] = P - 1 - r;
        tb_alg_spec s;
        char err[256];
        tb_alg_spec_parse("binomial", &s, err, sizeof err);
        double t1 = -1, t2 = -1;
        tn_model_predict(&cc, NULL, NULL, NULL, NULL, 4, 0, &s, 64, &t1, err, sizeof err);
        tn_model_predict(&cc, world + P - 4, NULL, NULL, NULL, 4, 0, &s, 64, &t2, err, sizeof err);
        TAP_OK(t1 > 0 && fabs(t1 - t2) < 1e-15, "world map applied (%.2f vs %.2f us)", t1 * 1e6, t2 * 1e6);
        tb_alg_spec_parse("default", &s, err, sizeof err);
        TAP_OK(tn_model_predict(&cc, NULL, &h, NULL, NULL, P, 0, &s, 64, &t1, err, sizeof err) == -1,
               "default has no model");
        tn_costs_free(&cc);
        tb_hier_free(&h);
    }
    /* Shared links: 16 ranks in two groups by parity, one cost curve, the
     * machine built from it (machine.h).  The binomial edges r -> r + 1 (r
     * even) are the only ones that cross, 8 of them with the whole
     * message: the group's way out is busy 8 n / bw after the first
     * latency, while the replay (own link per rank) says ~log2(P) n / bw. */
    {
        int P = 16;
        size_t n = 1u << 20;
        tb_hier h;
        tb_hier_alloc(&h, P, 1);
        snprintf(h.level_name[0], TB_LEVEL_NAME_MAX, "node");
        h.ngroups[0] = 2;
        for (int r = 0; r < P; r++)
            h.group[0][r] = r & 1;
        tn_costs cb;
        tn_costs_alloc(&cb, P, 1, 5, 0);
        sizes(&cb);
        set_curve(&cb, 0, L, g0, bw);
        tb_alg_spec s;
        tb_plan p;
        char err[256];
        tn_machine mh, m1;
        int okm = tn_machine_from_costs(&mh, &cb, NULL, &h, NULL, P, err, sizeof err) == 0 &&
                  tn_machine_from_costs(&m1, &cb, NULL, NULL, NULL, P, err, sizeof err) == 0;
        TAP_OK(okm && mh.net.nhost == 2 && m1.net.nhost == 1 && fabs(m1.net.cap[0] - bw) < 1,
               "machine from costs: a host per group; one host with a memory of the pair bandwidth (%s)", err);
        tb_alg_spec_parse("binomial", &s, err, sizeof err);
        double bound = -1, alone = -1, both = -1, one = -1;
        if (okm && tb_plan_build(&p, P, 0, &s, &h, err, sizeof err) == 0) {
            bound = tn_model_resource_time(&mh, &p, n);
            alone = tn_model_plan_time(&cb, NULL, &p, &h, NULL, &s, n);
            tb_plan_free(&p);
        }
        tn_model_predict(&cb, NULL, &h, NULL, okm ? &mh : NULL, P, 0, &s, n, &both, err, sizeof err);
        double want = L + 8 * (double)n / bw;
        TAP_OK(fabs(bound - want) < 1e-12, "shared way: L + 8 crossings of 1 MiB = %.1f us (got %.1f us)", want * 1e6,
               bound * 1e6);
        TAP_OK(alone > 0 && alone < bound && both == bound,
               "replay %.1f us < resource time, the prediction takes it (%.1f us)", alone * 1e6, both * 1e6);
        if (okm && tb_plan_build(&p, P, 0, &s, NULL, err, sizeof err) == 0) {
            one = tn_model_resource_time(&m1, &p, n);
            tb_plan_free(&p);
        }
        TAP_OK(fabs(one - (L + 15 * (double)n / bw)) < 1e-12 && tn_model_resource_time(NULL, &p, n) == 0.0,
               "no levels: one memory carries all 15 messages, L + 15 n/bw (got %.1f us); no machine: 0",
               one * 1e6);
        if (okm) {
            tn_machine_free(&mh);
            tn_machine_free(&m1);
        }
        tn_costs_free(&cb);
        tb_hier_free(&h);
    }
    /* A machine given directly (as a platform gives it): hosts A = ranks
     * 0-3 and B = 4-7, a 5 GB/s link A -> B (2 us) and a 20 GB/s memory
     * each (no latency).  A binomial tree from 0 crosses the link once
     * (0 -> 4) and copies 3 times in each host: the link carries 1 MiB,
     * 2 us + n / 5 GB/s; a flat tree sends 4 messages over it and 3 into
     * A's memory: 2 us + 4 n / 5 GB/s. */
    {
        size_t n = 1u << 20;
        tn_machine mm = {0};
        int ok = tt_net_init(&mm.net, 2) == 0;
        int link = tt_net_add_res(&mm.net, "A-B", 5e9), memA = tt_net_add_res(&mm.net, "A mem", 20e9),
            memB = tt_net_add_res(&mm.net, "B mem", 20e9);
        ok = ok && link >= 0 && memA >= 0 && memB >= 0 && tt_net_set_route(&mm.net, 0, 0, &memA, 1, 0) == 0 &&
             tt_net_set_route(&mm.net, 0, 1, &link, 1, 2e-6) == 0 && tt_net_set_route(&mm.net, 1, 1, &memB, 1, 0) == 0 &&
             tt_net_finish(&mm.net) == 0;
        int hof[8] = {0, 0, 0, 0, 1, 1, 1, 1};
        mm.host_of = hof;
        mm.P = 8;
        tb_alg_spec s;
        tb_plan p;
        char err[256];
        double bin = -1, flat = -1;
        tb_alg_spec_parse("binomial", &s, err, sizeof err);
        if (ok && tb_plan_build(&p, 8, 0, &s, NULL, err, sizeof err) == 0) {
            bin = tn_model_resource_time(&mm, &p, n);
            tb_plan_free(&p);
        }
        tb_alg_spec_parse("flat", &s, err, sizeof err);
        if (ok && tb_plan_build(&p, 8, 0, &s, NULL, err, sizeof err) == 0) {
            flat = tn_model_resource_time(&mm, &p, n);
            tb_plan_free(&p);
        }
        TAP_OK(fabs(bin - (2e-6 + (double)n / 5e9)) < 1e-12 && fabs(flat - (2e-6 + 4 * (double)n / 5e9)) < 1e-12,
               "a shared link counted once per message crossing it: binomial %.1f us (1 crossing), flat %.1f us (4)",
               bin * 1e6, flat * 1e6);
        /* A chain 0 -> 1 -> ... -> 7 in 64 KiB segments: its edge 3 -> 4
         * crosses the link, which it cannot use before rank 3 holds its
         * first piece, 3 hops of g(64 KiB) + L in the replay; so the
         * prediction is 3 (g + L) + 2 us + n / 5 GB/s, not the load from
         * time 0 (2 us + n / 5 GB/s, still what the resource time alone
         * says) nor the replay's own pipeline. */
        tn_costs cc;
        tn_costs_alloc(&cc, 8, 1, 5, 0);
        sizes(&cc);
        set_curve(&cc, 0, L, g0, bw);
        double chain = -1, chain_res = -1, chain_replay = -1;
        tb_alg_spec_parse("chain:segment=64K", &s, err, sizeof err);
        if (ok && tb_plan_build(&p, 8, 0, &s, NULL, err, sizeof err) == 0) {
            chain_res = tn_model_resource_time(&mm, &p, n);
            chain = tn_model_plan_predict(&cc, NULL, &p, NULL, NULL, &mm, &s, n, &chain_replay);
            tb_plan_free(&p);
        }
        double hop = g0 + 65536.0 / bw + L, want = 3 * hop + 2e-6 + (double)n / 5e9;
        TAP_OK(fabs(chain - want) < 1e-12 && fabs(chain_res - (2e-6 + (double)n / 5e9)) < 1e-12 && chain_replay < want,
               "a resource starts when the pipeline reaches it: chain 3 hops + link = %.2f us (got %.2f; from time 0 "
               "%.2f, replay %.2f)",
               want * 1e6, chain * 1e6, chain_res * 1e6, chain_replay * 1e6);
        tn_costs_free(&cc);
        mm.host_of = NULL;
        tn_machine_free(&mm);
    }
    /* Links per class of destination, fan-out, receive overhead, and the
     * boundary bound's sibling / beyond ways; one curve for every pair. */
    {
        int P = 8;
        size_t n = 1u << 20;
        tn_costs ck;
        tn_costs_alloc(&ck, P, 1, 5, 0);
        sizes(&ck);
        set_curve(&ck, 0, L, g0, bw);
        double gn = g0 + (double)n / bw;
        tb_alg_spec s;
        char err[256];
        tb_plan p;
        /* flat from 0 to 1, 2, 4: one rank of each class, non-blocking
         * rendezvous sends.  One link: each send holds it for its bytes
         * (n / bw: its handshake overlaps the others), so the last of 3
         * starts 2 n / bw after the first and arrives g + L later; one link
         * per class: they overlap and the last arrives one gap + the CPU
         * cost of posting two rendezvous sends after it. */
        tb_alg_spec_parse("flat", &s, err, sizeof err);
        tb_hier h3;
        node_socket(&h3, 4, (const int[]){0, 0, 0, 1}, (const int[]){0, 0, 1, 2}); /* 0, 1 | 2 | 3 */
        double one = -1, per = -1;
        if (tb_plan_build(&p, 4, 0, &s, NULL, err, sizeof err) == 0) {
            one = tn_model_plan_time(&ck, NULL, &p, NULL, NULL, &s, n);
            per = tn_model_plan_time(&ck, NULL, &p, &h3, NULL, &s, n);
            tb_plan_free(&p);
        }
        double hb = (double)n / bw;
        TAP_OK(fabs(one - (2 * hb + gn + L)) < 1e-12,
               "one link: 3 sends of 1 MiB queue their bytes, 2 n/bw + g + L = %.1f us (got %.1f)",
               (2 * hb + gn + L) * 1e6, one * 1e6);
        TAP_OK(fabs(per - (2 * g0 + gn + L)) < 1e-12,
               "a link per class: the 3 sends overlap, 2 o_s(0) + g + L = %.2f us (got %.2f)",
               (2 * g0 + gn + L) * 1e6, per * 1e6);
        /* fan-out 2 inside the socket: flat over ranks 0, 1 of a 2-rank
         * group cannot show it, so 0 -> {1, 2, 3} all in one group */
        tb_hier h1;
        tb_hier_alloc(&h1, 4, 1);
        snprintf(h1.level_name[0], TB_LEVEL_NAME_MAX, "node");
        h1.ngroups[0] = 1;
        for (int r = 0; r < 4; r++)
            h1.group[0][r] = 0;
        double fan[2] = {1.0, 2.0}, f1 = -1, f2 = -1;
        if (tb_plan_build(&p, 4, 0, &s, NULL, err, sizeof err) == 0) {
            f1 = tn_model_plan_time(&ck, NULL, &p, &h1, NULL, &s, n);
            f2 = tn_model_plan_time(&ck, NULL, &p, &h1, fan, &s, n);
            tb_plan_free(&p);
        }
        /* the 3 share the group's 2 pairs' bandwidth: their bytes are
         * through after 3 (n/bw)/2, the last one's gap ends then */
        TAP_OK(fabs(f1 - (2 * hb + gn + L)) < 1e-12 && fabs(f2 - (3 * hb / 2 - hb + gn + L)) < 1e-12,
               "fan-out 2: 3 sends in a group take 3 (n/bw)/2 - n/bw + g + L = %.1f us (fan-out 1: %.1f us; got %.1f, %.1f)",
               (hb / 2 + gn + L) * 1e6, (2 * hb + gn + L) * 1e6, f2 * 1e6, f1 * 1e6);
        /* two trees, one CPU: dbt on 3 ranks (root -> a -> b and root ->
         * b -> a), 64 KiB in 4 KiB eager pieces, 8 per tree; the root posts
         * all 16 (o_s = g0 each), so it is busy 16 g0 -- replayed tree by
         * tree without the rule, 8 g0 + the forward (~45 us) */
        {
            tn_costs cd;
            tn_costs_alloc(&cd, 3, 1, 5, 0);
            sizes(&cd);
            set_curve(&cd, 0, 1e-7, 5e-6, 1e12);
            tb_alg_spec sd;
            tb_alg_spec_parse("dbt:segment=4K", &sd, err, sizeof err);
            double two = -1;
            if (tb_plan_build(&p, 3, 0, &sd, NULL, err, sizeof err) == 0) {
                two = tn_model_plan_time(&cd, NULL, &p, NULL, NULL, &sd, 65536);
                tb_plan_free(&p);
            }
            TAP_OK(two >= 16 * 5e-6 * 0.999,
                   "two trees share a rank's CPU: the root's 16 sends take >= 80 us (got %.1f us)", two * 1e6);
            /* one 128 KiB rendezvous piece per tree (256 KiB): each is the
             * first on its edges and flows alone, root -> a -> b and root
             * -> b -> a in 2 (g + L), not at half the pair's bandwidth */
            set_curve(&cd, 0, 1e-6, 1e-7, 1e10);
            tb_alg_spec_parse("dbt:segment=128K", &sd, err, sizeof err);
            double first = -1, gp = 1e-7 + 131072.0 / 1e10;
            if (tb_plan_build(&p, 3, 0, &sd, NULL, err, sizeof err) == 0) {
                first = tn_model_plan_time(&cd, NULL, &p, NULL, NULL, &sd, 262144);
                tb_plan_free(&p);
            }
            TAP_OK(fabs(first - 2 * (gp + 1e-6)) < 0.05 * 2 * (gp + 1e-6),
                   "two trees: a first rendezvous piece flows alone, 2 (g + L) = %.1f us (got %.1f us; shared: %.1f us)",
                   2 * (gp + 1e-6) * 1e6, first * 1e6, 2 * (gp + 131072.0 / 1e10 + 1e-6) * 1e6);
            /* a rank inner in one tree sends at its own rate: dbt on 7
             * ranks, 2 MiB in 128 KiB rendezvous pieces (8 per tree), one
             * link per rank.  Each piece reaches its receiver at half the
             * pair's bandwidth (2 gbw: the receiver takes both trees at
             * once), so an inner rank's two children need >= 8 x 2 gbw;
             * its way out is not halved, so its 16 sends hold its link
             * 16 gbw, not 32 gbw as when the receivers' share was charged
             * to the sender too */
            const double gbw = 131072.0 / 1e10;
            double inner = -1;
            tb_alg_spec_parse("dbt:segment=128K", &sd, err, sizeof err);
            tn_costs c7;
            tn_costs_alloc(&c7, 7, 1, 5, 0);
            sizes(&c7);
            set_curve(&c7, 0, 1e-6, 1e-7, 1e10);
            if (tb_plan_build(&p, 7, 0, &sd, NULL, err, sizeof err) == 0) {
                inner = tn_model_plan_time(&c7, NULL, &p, NULL, NULL, &sd, 2u << 20);
                tb_plan_free(&p);
            }
            TAP_OK(inner >= 16 * gbw && inner < 32 * gbw,
                   "two trees: an inner rank's way out is its own, 16 gbw = %.1f us <= time < 32 gbw = %.1f us "
                   "(got %.1f us)",
                   16 * gbw * 1e6, 32 * gbw * 1e6, inner * 1e6);
            tn_costs_free(&c7);
            tn_costs_free(&cd);
        }
        /* receive overhead: a 3-rank chain of eager 16 KiB segments; o_r
         * above the gap is clamped to it, so a CPU-bound middle rank pays
         * o_r + o_s per segment (here g + g0), not g */
        tb_alg_spec_parse("chain:segment=16K", &s, err, sizeof err);
        size_t m = 256u << 10, seg = 16384;
        double gs = g0 + (double)seg / bw;
        double without = -1, with = -1;
        if (tb_plan_build(&p, 3, 0, &s, NULL, err, sizeof err) == 0) {
            without = tn_model_plan_time(&ck, NULL, &p, NULL, NULL, &s, m);
            for (int i = 0; i < tn_costs_n(&ck, 0); i++)
                tn_costs_or(&ck, 0)[i] = 1.0; /* far above g: clamped to g(m) */
            with = tn_model_plan_time(&ck, NULL, &p, NULL, NULL, &s, m);
            for (int i = 0; i < tn_costs_n(&ck, 0); i++)
                tn_costs_or(&ck, 0)[i] = 0.0;
            tb_plan_free(&p);
        }
        int nseg = (int)(m / seg);
        double want_without = (nseg - 1) * gs + 2 * (gs + L);
        /* with o_r: the middle rank takes each segment for
         * g_s of CPU, then sends it for o_s = g0: it falls behind by g0 per
         * segment */
        TAP_OK(fabs(without - want_without) < 1e-12 && with > without + (nseg - 2) * g0 * 0.99,
               "o_r: a forwarding rank's CPU pays each segment's receive (%.2f us without, %.2f us with)",
               without * 1e6, with * 1e6);
        /* o_r after arrival: one unsegmented 64 KiB message down the same
         * chain: the middle rank takes it in before it forwards it and the
         * last before it is done, 2 (g + L) + 2 o_r, even with idle CPUs */
        double whole = -1, orx = 2e-7, gw = g0 + 65536.0 / bw;
        tb_alg_spec_parse("chain", &s, err, sizeof err);
        if (tb_plan_build(&p, 3, 0, &s, NULL, err, sizeof err) == 0) {
            for (int i = 0; i < tn_costs_n(&ck, 0); i++)
                tn_costs_or(&ck, 0)[i] = orx;
            whole = tn_model_plan_time(&ck, NULL, &p, NULL, NULL, &s, 65536);
            for (int i = 0; i < tn_costs_n(&ck, 0); i++)
                tn_costs_or(&ck, 0)[i] = 0.0;
            tb_plan_free(&p);
        }
        TAP_OK(fabs(whole - (2 * (gw + L) + 2 * orx)) < 1e-12,
               "o_r: each hop takes its piece in before forwarding it, 2 (g + L) + 2 o_r = %.2f us (got %.2f us)",
               (2 * (gw + L) + 2 * orx) * 1e6, whole * 1e6);
        /* shared ways: 0 sends 1 MiB to 1 (the other socket: socket 0's
         * way to its siblings) and to 2 (another node: socket 0's way
         * beyond its node).  Both classes measure the same bandwidth here
         * (one curve), so they are taken for one wire (a node's adapter):
         * it carries both messages, 2 n / bw after the latency
         * (test_bound.c checks separate ways when the bandwidths differ). */
        tb_alg_spec_parse("flat", &s, err, sizeof err);
        tb_hier h5;
        node_socket(&h5, 3, (const int[]){0, 0, 1}, (const int[]){0, 1, 2}); /* 0 | other socket | other node */
        tn_machine m5 = {0}, mc = {0}, mf = {0};
        double b5 = -1;
        if (tn_machine_from_costs(&m5, &ck, NULL, &h5, NULL, 3, err, sizeof err) == 0 &&
            tb_plan_build(&p, 3, 0, &s, NULL, err, sizeof err) == 0) {
            b5 = tn_model_resource_time(&m5, &p, n);
            tb_plan_free(&p);
        }
        TAP_OK(fabs(b5 - (L + 2 * (double)n / bw)) < 1e-12,
               "ways to the other socket and beyond at one bandwidth are one wire: %.1f us (L + 2 n/bw)", b5 * 1e6);
        /* memory of a host: a chain of 4 ranks without levels moves the
         * message 3 times through it; fan-out 2 carries two at once */
        tb_alg_spec_parse("chain", &s, err, sizeof err);
        double m0 = -1, m2 = -1, fan0[1] = {2.0};
        if (tn_machine_from_costs(&mc, &ck, NULL, NULL, NULL, 4, err, sizeof err) == 0 &&
            tn_machine_from_costs(&mf, &ck, NULL, NULL, fan0, 4, err, sizeof err) == 0 &&
            tb_plan_build(&p, 4, 0, &s, NULL, err, sizeof err) == 0) {
            m0 = tn_model_resource_time(&mc, &p, n);
            m2 = tn_model_resource_time(&mf, &p, n);
            tb_plan_free(&p);
        }
        TAP_OK(fabs(m0 - (L + 3 * (double)n / bw)) < 1e-12 && fabs(m2 - (L + 1.5 * (double)n / bw)) < 1e-12,
               "memory: 3 messages through one host take L + 3 n/bw = %.1f us (got %.1f), at fan-out 2 "
               "L + 1.5 n/bw (got %.1f)", (L + 3 * (double)n / bw) * 1e6, m0 * 1e6, m2 * 1e6);
        tn_machine_free(&m5);
        tn_machine_free(&mc);
        tn_machine_free(&mf);
        tb_hier_free(&h1);
        tb_hier_free(&h3);
        tb_hier_free(&h5);
        tn_costs_free(&ck);
    }
    /* The shared-memory stage on one node of 8 ranks, 1 MiB, one cost
     * curve (the same-node pair's): the root copies each 64 KiB ring piece
     * (tb_shm_piece: an eighth of 1 MiB, capped at one slot) once, c =
     * 64 KiB / bw, and the 7 readers copy it out at once, L + c after it
     * was published; piece j is out at (j + 2) c + L (its slot is free:
     * piece j - 8 was out by (j - 6) c + L < j c), so 16 pieces take
     * 17 c + L.  Flat pays 7 sends of 1 MiB from the root's one link. */
    {
        const int P = 8;
        const size_t n = 1u << 20;
        tn_costs cs;
        tn_costs_alloc(&cs, P, 1, 5, 0);
        sizes(&cs);
        set_curve(&cs, 0, L, g0, bw);
        tb_hier h;
        one_level(&h, P, (const int[]){0, 0, 0, 0, 0, 0, 0, 0});
        double cp = (double)tb_shm_piece(n) / bw, want = 17 * cp + L;
        double shm = predict(&cs, &h, P, "shm", n), flat = predict(&cs, &h, P, "flat", n),
               flatseg = predict(&cs, &h, P, "flat:segment=64K", n), bin = predict(&cs, &h, P, "binomial", n);
        TAP_OK(tb_shm_piece(n) == 65536 && fabs(shm - want) < 1e-12,
               "shm, P=8 1 MiB: 16 pieces of 64 KiB, one copy in + one copy out each, 17 c + L = %.2f us (got %.2f us)",
               want * 1e6, shm * 1e6);
        TAP_OK(shm > 0 && shm < flat && shm < flatseg && shm < bin,
               "one node of 8, 1 MiB: shm %.1f us < flat %.1f us (64K segments %.1f us), binomial %.1f us", shm * 1e6,
               flat * 1e6, flatseg * 1e6, bin * 1e6);
        /* the root's CPU copies once per piece, whatever the readers: 2 or
         * 8 ranks take the same time */
        double shm2 = predict(&cs, &h, 2, "shm", n);
        TAP_OK(fabs(shm2 - shm) < 1e-12, "shm: one reader or seven, the same %.2f us (got %.2f us)", shm * 1e6,
               shm2 * 1e6);
        /* a hierarchical plan over the one node with shm below is shm */
        uint64_t s_shm = signature(&h, P, "shm", n), s_flat = signature(&h, P, "flat", n);
        TAP_OK(s_shm && s_flat && s_shm != s_flat,
               "signature: shm and the flat tree it is built from differ (%016llx, %016llx)",
               (unsigned long long)s_shm, (unsigned long long)s_flat);
        TAP_OK(s_shm == signature(&h, P, "interpipe:levels=node,segment=16K,base=binomial/shm", n) &&
                   s_shm == signature(&h, P, "magpie2:levels=node,base=chain/shm,send=blocking", n),
               "signature: shm under a one-group level is shm (no message, segment and send mode moot)");
        TAP_OK(signature(&h, P, "flat", n) != signature(&h, P, "flat:send=blocking", n),
               "signature: a flat tree's send mode still counts");
        tb_hier_free(&h);

        /* Shared-memory edges between the ranks of one node, a message
         * between nodes: 2 nodes of 4, magpie2 binomial/shm.  Rank 4 gets
         * 1 MiB from the root (g + L), then publishes to 5, 6, 7 like the
         * one-node case: the node stage adds 17 c + L. */
        const int node[8] = {0, 0, 0, 0, 1, 1, 1, 1};
        one_level(&h, P, node);
        double gn = g0 + (double)n / bw;
        double m2 = predict(&cs, &h, P, "magpie2:base=binomial/shm", n);
        TAP_OK(fabs(m2 - (gn + L + 17 * cp + L)) < 1e-12,
               "magpie2 binomial/shm on 2 nodes of 4, 1 MiB: g + L, then 17 c + L = %.2f us (got %.2f us)",
               (gn + L + 17 * cp + L) * 1e6, m2 * 1e6);
        /* the pricing drops what the library would not run as written */
        tn_comm ci = {0};
        ci.size = P;
        ci.hier = &h;
        for (int k = 0; k <= TB_MAX_LEVELS; k++)
            ci.fanout[k] = 1.0;
        char err[256] = "";
        int cross = price(&cs, &ci, "magpie2:base=binomial/shm", n, err, sizeof err);
        TAP_OK(cross == -1, "no node ids: shm is not priced (%s)", err);
        ci.node = node;
        int within = price(&cs, &ci, "magpie2:base=binomial/shm", n, err, sizeof err);
        int alone = price(&cs, &ci, "shm", n, err, sizeof err);
        TAP_OK(within == 0 && alone == -1 && strstr(err, "two nodes"),
               "2 nodes of 4: magpie2 binomial/shm priced (%d), shm over both nodes dropped (%d: %s)", within, alone,
               err);
        const int island[8] = {0, 0, 0, 0, 0, 0, 1, 1}; /* a level coarser than the nodes on 0..5 */
        tb_hier hi;
        one_level(&hi, P, island);
        ci.hier = &hi;
        TAP_OK(price(&cs, &ci, "magpie2:base=binomial/shm", n, err, sizeof err) == -1 &&
                   price(&cs, &ci, "magpie2:base=binomial/binomial", n, err, sizeof err) == 0,
               "a finest level spanning two nodes: shm below it dropped, binomial below it priced");
        tb_hier_free(&hi);
        tn_costs_free(&cs);
        tb_hier_free(&h);
    }
    TAP_DONE();
}
