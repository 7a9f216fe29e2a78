/* Sample mode's plan (probe/sample_plan.c) against simulated machines whose
 * times depend on the level two ranks share: every phase is a valid set of
 * rounds and never measures a pair twice; the pair counts follow the cost
 * formula of probe/README.md; the analysis of the sampled pairs
 * (topology/sampled.c) finds exactly the levels of the full matrix; the
 * plan is deterministic per seed; a flat-looking class hiding a cluster is
 * caught by its matching; --fast auto's choice. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pair_rounds.h"
#include "sample_plan.h"
#include "tap.h"

/* A machine: rank r sits on host r % H (round robin) or r / s
 * (contiguous); host h's path from the top is h / div[0], h / div[1] ...
 * (div[nl-1] = 1: the host itself); times per level: t[0] the top level
 * ... t[nl-1] two hosts of one cluster of the last level, t[nl] inside a
 * host.  noise != 0 multiplies each time by 1 + noise * u, u in [0, 1)
 * from the pair (deterministic). */
typedef struct machine {
    int P, H, rr, nl;
    int div[8];
    double t[9];
    double noise;
    int leader_alone; /* host 0's leader (set after the sampler) is alone in it */
    int lead;
} machine;

static int host_of(const machine *m, int r)
{
    return m->rr ? r % m->H : r / (m->P / m->H);
}

static double noise_of(int i, int j)
{
    unsigned long long z = (unsigned long long)(i < j ? i : j) * 1000003ull + (unsigned long long)(i < j ? j : i);
    z = (z ^ (z >> 31)) * 0x9e3779b97f4a7c15ull;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* The level index two ranks share: 0..nl-1 between hosts, nl inside. */
static int share(const machine *m, int a, int b)
{
    int ha = host_of(m, a), hb = host_of(m, b);
    if (ha == hb)
        return m->nl;
    int l = 0;
    while (l < m->nl && ha / m->div[l] == hb / m->div[l])
        l++;
    return l;
}

static double dist(const machine *m, int a, int b)
{
    double t = m->t[share(m, a, b)];
    if (m->leader_alone && host_of(m, a) == 0 && host_of(m, b) == 0)
        t = (a == m->lead || b == m->lead) ? m->t[m->nl] * 1.6 : m->t[m->nl];
    return m->noise ? t * (1 + m->noise * noise_of(a, b)) : t;
}

typedef struct result {
    long pairs, rounds;
    int phases, bad;
    char why[160];
    int (*pair)[2];
    int npair;
} result;

/* Runs the sampler to the end, checking every phase; the pairs measured
 * are kept in order in res->pair. */
static void run(const machine *m, tt_concurrency c, unsigned long seed, result *res)
{
    int P = m->P;
    memset(res, 0, sizeof *res);
    int *group = malloc((size_t)P * sizeof *group);
    char *seen = calloc((size_t)P * P, 1);
    int *busy = malloc((size_t)P * sizeof *busy);
    res->pair = malloc(sizeof *res->pair * (size_t)P * (P - 1) / 2);
    for (int r = 0; r < P; r++)
        group[r] = host_of(m, r);
    tbp_sampler *s = tbp_sampler_new(P, group, c, 0.25, seed);
    machine mm = *m;
    if (s && m->leader_alone)
        for (int r = 0; r < P; r++)
            if (group[r] == 0 && tbp_sampler_is_leader(s, r))
                mm.lead = r;
    while (s && !res->bad) {
        tbp_phase ph;
        if (tbp_sampler_next(s, &ph) != 0) {
            snprintf(res->why, sizeof res->why, "tbp_sampler_next failed");
            res->bad = 1;
            break;
        }
        if (ph.npairs == 0) {
            tbp_phase_free(&ph);
            break;
        }
        tbp_rounds r;
        if (tbp_rounds_pack(P, ph.npairs, (const int (*)[2])ph.pair, ph.res_start, ph.res, ph.nres, &r) != 0) {
            snprintf(res->why, sizeof res->why, "tbp_rounds_pack failed");
            res->bad = 1;
            tbp_phase_free(&ph);
            break;
        }
        /* independence: within a round no rank twice, and no resource of
         * the phase twice (looked up by pair) */
        int *resround = malloc((size_t)ph.nres * sizeof *resround);
        for (int q = 0; q < ph.nres; q++)
            resround[q] = -1;
        for (int q = 0; q < P; q++)
            busy[q] = -1;
        for (int rd = 0; rd < r.nrounds && !res->bad; rd++)
            for (int k = r.round_start[rd]; k < r.round_start[rd + 1] && !res->bad; k++) {
                int i = r.pair[k][0], j = r.pair[k][1];
                if (i >= j || busy[i] == rd || busy[j] == rd || seen[(size_t)i * P + j]) {
                    snprintf(res->why, sizeof res->why, "pair (%d,%d) in round %d: rank busy or measured before", i,
                             j, rd);
                    res->bad = 1;
                }
                busy[i] = busy[j] = rd;
                seen[(size_t)i * P + j] = 1;
                int x = 0;
                while (x < ph.npairs && !(ph.pair[x][0] == i && ph.pair[x][1] == j))
                    x++;
                for (int q = ph.res_start[x]; q < ph.res_start[x + 1] && x < ph.npairs; q++) {
                    if (resround[ph.res[q]] == rd) {
                        snprintf(res->why, sizeof res->why, "resource %d twice in round %d", ph.res[q], rd);
                        res->bad = 1;
                    }
                    resround[ph.res[q]] = rd;
                }
                res->pair[res->npair][0] = i;
                res->pair[res->npair][1] = j;
                res->npair++;
                tbp_sampler_feed(s, i, j, dist(&mm, i, j));
            }
        free(resround);
        res->phases++;
        res->pairs += ph.npairs;
        res->rounds += r.nrounds;
        tbp_rounds_free(&r);
        tbp_phase_free(&ph);
    }
    if (!s) {
        snprintf(res->why, sizeof res->why, "tbp_sampler_new failed");
        res->bad = 1;
    }
    tbp_sampler_free(s);
    free(group);
    free(seen);
    free(busy);
}

/* The measurement records of the pairs of res (times as L, one size), the
 * ranks' hosts as identities; sample marks the run as sample mode. */
static void make_meas(const machine *m, const result *res, int sample, tt_meas *out)
{
    memset(out, 0, sizeof *out);
    tt_meas_opts_default(&out->opt);
    out->opt.sample = sample;
    out->n = m->P;
    out->rank = calloc((size_t)m->P, sizeof *out->rank);
    for (int r = 0; r < m->P; r++) {
        snprintf(out->rank[r].host, sizeof out->rank[r].host, "h%d", host_of(m, r));
        out->rank[r].group = host_of(m, r);
        out->rank[r].measured = 1;
        out->rank[r].pu = out->rank[r].core = out->rank[r].package = out->rank[r].numa = -1;
    }
    int np = res ? res->npair : m->P * (m->P - 1) / 2;
    out->pair = calloc((size_t)np, sizeof *out->pair);
    int k = 0;
    for (int i = 0; i < m->P; i++)
        for (int j = i + 1; j < m->P; j++) {
            if (res) {
                int x = 0;
                while (x < res->npair && !(res->pair[x][0] == i && res->pair[x][1] == j))
                    x++;
                if (x == res->npair)
                    continue;
            }
            tt_pair_rec *q = &out->pair[k++];
            q->i = i;
            q->j = j;
            q->L = dist(m, i, j);
            q->nsizes = 1;
            q->s = calloc(1, sizeof *q->s);
        }
    out->npairs = k;
}

/* Levels of a sampled run against those of all pairs: same number, and
 * every level the same partition (ARI 1). */
static int same_levels(const machine *m, const result *res, char *why, size_t cap)
{
    tt_meas full, part;
    tt_analysis af, ap;
    char err[256];
    tt_analysis_opts o;
    tt_analysis_opts_default(&o);
    make_meas(m, NULL, 0, &full);
    make_meas(m, res, 1, &part);
    int ok = tt_analyze(&full, &o, NULL, &af, err, sizeof err) == 0;
    if (ok && tt_analyze(&part, &o, NULL, &ap, err, sizeof err) != 0) {
        snprintf(why, cap, "analysis of the sample failed: %.120s", err);
        ok = 0;
        tt_analysis_free(&af);
    } else if (!ok) {
        snprintf(why, cap, "analysis of all pairs failed: %.120s", err);
    }
    if (ok) {
        if (af.h.nlevels != ap.h.nlevels) {
            snprintf(why, cap, "%d levels, all pairs give %d", ap.h.nlevels, af.h.nlevels);
            ok = 0;
        }
        for (int l = 0; l < af.h.nlevels && ok; l++)
            if (tt_ari(af.h.labels[l], ap.h.labels[l], m->P) != 1.0) {
                snprintf(why, cap, "level %d differs (ARI %.3f)", l, tt_ari(af.h.labels[l], ap.h.labels[l], m->P));
                ok = 0;
            }
        if (ok)
            snprintf(why, cap, "%d levels, %d pairs filled", ap.h.nlevels, ap.extended);
        tt_analysis_free(&af);
        tt_analysis_free(&ap);
    }
    tt_meas_free(&full);
    tt_meas_free(&part);
    return ok;
}

/* The cost formula (probe/README.md) for a regular hierarchy with
 * branching k[0..nl) between hosts (k[nl-1] hosts per cluster of the last
 * level) and s ranks on each flat host:
 *   C(l, c) = pairs to resolve a class of c clusters of level l+1 seen from
 *             no pivot yet: c (c-1) / 2 * ... (see the README), or for
 *             single items (flat) c - 1 + floor((c - 1) / 2);
 * pairs = C(0, k[0]) + H ((s - 1) + floor((s - 1) / 2)). */
static long size_below(const int *k, int nl, int l)
{
    long z = 1;
    for (int j = l; j < nl; j++)
        z *= k[j];
    return z;
}

static long cost_class(const int *k, int nl, int l, long c)
{
    long n1 = size_below(k, nl, l + 1); /* items per cluster of level l+1 */
    if (c <= 1)
        return 0;
    if (n1 == 1)
        return c - 1 + (c - 1) / 2;
    long sum = 0;
    for (long i = 1; i <= c; i++)
        sum += (c - i + 1) * n1 - 1;
    long inner = 0; /* after its pivot's sweep, the rest of a cluster of level l+1 */
    for (int j = l + 1; j < nl; j++)
        inner += cost_class(k, nl, j, k[j] - 1);
    return sum + c * inner;
}

static long formula(const int *k, int nl, int s)
{
    long H = size_below(k, nl, 0);
    return cost_class(k, nl, 0, k[0]) + H * ((s - 1) + (s - 1) / 2);
}

/* A machine of branching k[0..nl) between hosts, s ranks per host. */
static machine regular(const int *k, int nl, int s, int rr, const double *t)
{
    machine m;
    memset(&m, 0, sizeof m);
    m.nl = nl;
    m.H = (int)size_below(k, nl, 0);
    m.P = m.H * s;
    m.rr = rr;
    for (int l = 0; l < nl; l++)
        m.div[l] = (int)size_below(k, nl, l + 1);
    for (int l = 0; l <= nl; l++)
        m.t[l] = t[l];
    return m;
}

int main(void)
{
    static const double fram_t[] = {3.4e-6, 2.2e-6, 1.4e-6, 0.9e-6};
    static const double betzy_t[] = {3.2e-6, 2.2e-6, 1.5e-6, 1.0e-6};
    char why[200];
    result res;

    /* FRAM-like: 2 islands x 16 nodes x 2 sockets (hosts), round robin */
    static const int fram_k[] = {2, 16, 2}, betzy_k[] = {4, 8, 2};
    static const int shapes_s[] = {1, 2, 8};
    for (int x = 0; x < 3; x++) {
        int s = shapes_s[x];
        machine m = regular(fram_k, 3, s, 1, fram_t);
        run(&m, TT_CONC_INTRA, 1, &res);
        long want = formula(fram_k, 3, s), all = (long)m.P * (m.P - 1) / 2;
        TAP_OK(!res.bad, "FRAM-like P=%d: phases valid (%s)", m.P, res.bad ? res.why : "independent rounds, no pair twice");
        TAP_OK(res.pairs == want, "FRAM-like P=%d (64 hosts x %d): %ld pairs = formula %ld (of %ld), %ld rounds, %d phases",
               m.P, s, res.pairs, want, all, res.rounds, res.phases);
        if (s == 1)
            TAP_OK(res.pairs == 544, "FRAM-like 64 hosts: 63 + 31 + 2 x 15^2 = 544 pairs between hosts (%ld)",
                   res.pairs);
        TAP_OK(same_levels(&m, &res, why, sizeof why), "FRAM-like P=%d: the levels of all pairs (%s)", m.P, why);
        free(res.pair);
    }
    /* BETZY-like: 4 groups x 8 nodes x 2 sockets, contiguous and round robin */
    for (int x = 0; x < 3; x++) {
        int s = shapes_s[x];
        machine m = regular(betzy_k, 3, s, x != 1, betzy_t);
        run(&m, TT_CONC_INTRA, 3, &res);
        long want = formula(betzy_k, 3, s);
        TAP_OK(!res.bad && res.pairs == want,
               "BETZY-like P=%d (%s): %ld pairs = formula %ld, %ld rounds, %d phases%s%s", m.P,
               m.rr ? "round robin" : "contiguous", res.pairs, want, res.rounds, res.phases, res.bad ? ": " : "",
               res.bad ? res.why : "");
        TAP_OK(same_levels(&m, &res, why, sizeof why), "BETZY-like P=%d: the levels of all pairs (%s)", m.P, why);
        free(res.pair);
    }
    /* P=4096 as the pipeline runs it: 64 hosts x 64 ranks; the plan only
     * (the analysis of 4096 ranks is the SMPI suite's) */
    {
        machine m = regular(betzy_k, 3, 64, 1, betzy_t);
        run(&m, TT_CONC_INTRA, 1, &res);
        TAP_OK(!res.bad && res.pairs == 352 + 64 * (63 + 31) && res.rounds < 400,
               "BETZY-like P=4096: %ld pairs (352 between hosts + 64 x 94), %ld rounds < 400, %d phases", res.pairs,
               res.rounds, res.phases);
        free(res.pair);
    }
    /* sub-quadratic: hosts doubling (islands of 16 nodes, more islands) */
    {
        long prev = 0;
        int ok = 1;
        for (int isl = 2; isl <= 16; isl *= 2) {
            int k[] = {isl, 16, 2};
            machine m = regular(k, 3, 1, 1, fram_t);
            run(&m, TT_CONC_INTRA, 1, &res);
            long want = formula(k, 3, 1);
            ok &= !res.bad && res.pairs == want;
            printf("# %d islands, H = %d: %ld pairs (formula %ld, all %d), %ld rounds\n", isl, m.H, res.pairs, want,
                   m.H * (m.H - 1) / 2, res.rounds);
            if (prev)
                ok &= res.pairs < 3 * prev; /* all pairs: 4x */
            prev = res.pairs;
            free(res.pair);
        }
        TAP_OK(ok, "H = 64..512 hosts: pairs follow the formula and grow less than 3x per doubling");
    }
    /* flat: 40 hosts all at one distance, one rank each */
    {
        int k[] = {40};
        double t[] = {2e-6, 1e-6};
        machine m = regular(k, 1, 1, 1, t);
        run(&m, TT_CONC_INTRA, 1, &res);
        TAP_OK(!res.bad && res.pairs == 39 + 19, "flat, 40 hosts: sweep + matching = 39 + 19 pairs (%ld)", res.pairs);
        TAP_OK(same_levels(&m, &res, why, sizeof why), "flat: the levels of all pairs (%s)", why);
        free(res.pair);
    }
    /* noise: times up to 5 % high, levels 40-60 % apart */
    {
        machine m = regular(fram_k, 3, 4, 1, fram_t);
        m.noise = 0.05;
        run(&m, TT_CONC_INTRA, 1, &res);
        TAP_OK(!res.bad && same_levels(&m, &res, why, sizeof why), "FRAM-like P=256, 5 %% noise: the levels of all pairs (%s)",
               res.bad ? res.why : why);
        free(res.pair);
    }
    /* a host whose leader is alone (1.6x from the others, who are close):
     * the leader's sweep sees one group, the matching finds the cluster */
    {
        int k[] = {2, 2};
        double t[] = {3e-6, 2e-6, 0.5e-6};
        machine m = regular(k, 2, 8, 0, t);
        m.leader_alone = 1;
        run(&m, TT_CONC_INTRA, 5, &res);
        int inside = 0; /* pairs measured in host 0 not touching its leader */
        TAP_OK(!res.bad && same_levels(&m, &res, why, sizeof why), "leader alone in its host: the levels of all pairs (%s)",
               res.bad ? res.why : why);
        for (int x = 0; x < res.npair; x++)
            inside += res.pair[x][0] < 8 && res.pair[x][1] < 8;
        TAP_OK(inside > 7, "leader alone: %d pairs inside host 0, more than its leader's 7", inside);
        free(res.pair);
    }
    /* concurrency modes and determinism */
    {
        machine m = regular(fram_k, 3, 2, 1, fram_t);
        result a, b, c;
        run(&m, TT_CONC_INTRA, 9, &a);
        run(&m, TT_CONC_INTRA, 9, &b);
        run(&m, TT_CONC_INTRA, 10, &c);
        TAP_OK(a.npair == b.npair && memcmp(a.pair, b.pair, sizeof *a.pair * (size_t)a.npair) == 0,
               "the same seed measures the same pairs in the same order");
        TAP_OK(c.npair != a.npair || memcmp(a.pair, c.pair, sizeof *a.pair * (size_t)a.npair) != 0,
               "another seed chooses other pivots");
        free(a.pair);
        free(b.pair);
        free(c.pair);
        long rounds[TT_CONC_COUNT];
        for (int cc = 0; cc < TT_CONC_COUNT; cc++) {
            run(&m, (tt_concurrency)cc, 1, &res);
            rounds[cc] = res.rounds;
            TAP_OK(!res.bad && res.pairs == formula(fram_k, 3, 2), "concurrency %s: valid, %ld pairs in %ld rounds",
                   tt_concurrency_name((tt_concurrency)cc), res.pairs, res.rounds);
            if (cc == TT_CONC_SERIAL)
                TAP_OK(res.rounds == res.pairs, "serial: one pair per round");
            free(res.pair);
        }
        TAP_OK(rounds[TT_CONC_RANKS] <= rounds[TT_CONC_GROUPS] && rounds[TT_CONC_GROUPS] <= rounds[TT_CONC_INTRA] &&
                   rounds[TT_CONC_INTRA] < rounds[TT_CONC_SERIAL],
               "rounds: ranks %ld <= groups %ld <= intra %ld < serial %ld", rounds[TT_CONC_RANKS],
               rounds[TT_CONC_GROUPS], rounds[TT_CONC_INTRA], rounds[TT_CONC_SERIAL]);
    }
    /* one host; two ranks; the sampler's misuse */
    {
        int g1[6] = {0, 0, 0, 0, 0, 0};
        tbp_sampler *s = tbp_sampler_new(6, g1, TT_CONC_INTRA, 0.25, 1);
        tbp_phase ph;
        TAP_OK(s && tbp_sampler_next(s, &ph) == 0 && ph.npairs == 5, "one host of 6: the leader's sweep first (%d pairs)",
               s ? ph.npairs : -1);
        tbp_phase_free(&ph);
        TAP_OK(tbp_sampler_next(s, &ph) == -1, "a phase whose times were not fed is refused");
        TAP_OK(tbp_sampler_feed(s, 0, 0, 1.0) == -1 && tbp_sampler_feed(s, 0, 9, 1.0) == -1 &&
                   tbp_sampler_feed(s, 0, 1, NAN) == -1,
               "bad pairs and times are refused");
        tbp_sampler_free(s);
        TAP_OK(tbp_sampler_new(6, g1, TT_CONC_INTRA, 0, 1) == NULL, "rel_gap 0 is refused");
    }
    /* --fast auto's choice */
    {
        static int g[4096];
        for (int r = 0; r < 16; r++)
            g[r] = r / 4;
        TAP_OK(!tbp_sample_auto(16, g), "auto: 4 hosts x 4 ranks keeps fast mode (30 pairs <= 64)");
        for (int r = 0; r < 8; r++)
            g[r] = r / 2;
        TAP_OK(!tbp_sample_auto(8, g), "auto: 4 hosts x 2 ranks keeps fast mode");
        for (int r = 0; r < 64; r++)
            g[r] = r;
        TAP_OK(tbp_sample_auto(64, g), "auto: 64 hosts x 1 rank samples (2016 pairs > 256)");
        for (int r = 0; r < 512; r++)
            g[r] = r % 64;
        TAP_OK(tbp_sample_auto(512, g), "auto: 64 hosts x 8 ranks samples");
        for (int r = 0; r < 4096; r++)
            g[r] = r % 64;
        TAP_OK(tbp_sample_auto(4096, g), "auto: 64 hosts x 64 ranks samples");
    }
    /* tbp_rounds_pack */
    {
        int pr[4][2] = {{0, 1}, {2, 3}, {1, 2}, {3, 0}};
        int rs[5] = {0, 2, 4, 6, 8}, rv[8] = {0, 1, 2, 3, 1, 2, 3, 0};
        tbp_rounds r;
        TAP_OK(tbp_rounds_pack(4, 4, (const int (*)[2])pr, rs, rv, 4, &r) == 0 && r.nrounds == 2 && r.pair[3][0] == 0 &&
                   r.pair[3][1] == 3,
               "pack: two perfect matchings in 2 rounds, pairs stored i < j");
        tbp_rounds_free(&r);
        rv[0] = 4;
        TAP_OK(tbp_rounds_pack(4, 4, (const int (*)[2])pr, rs, rv, 4, &r) == -1, "pack: a resource out of range is refused");
    }
    TAP_DONE();
}
