/* Scheduling the pair tests into rounds of independent pairs (see
 * pair_rounds.h for what independent means in each mode).
 *
 * This is edge colouring of a multigraph of resources.  First fit over an
 * arbitrary pair order can need up to twice the optimal number of rounds,
 * so the order is built from round-robin tournaments (circle method): of
 * the groups for inter-group pairs, with the rank pairs between two groups
 * listed diagonal by diagonal, then of the ranks inside each group.  First
 * fit over that order reproduces the tournament's optimal schedule for
 * equal groups and still packs unequal ones and fast mode's subsets.
 * Pure computation: rank 0 builds the rounds, the harness broadcasts
 * them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pair_rounds.h"

int tbp_pair_wanted(const int *group, const int *measured, int i, int j)
{
    if (group[i] == group[j])
        return 1;
    return !measured || (measured[i] && measured[j]);
}

int tbp_pair_resources(int n, int ngroups, const int *group, tt_concurrency c, int i, int j,
                       int res[4])
{
    int net = n + ngroups, gi = n + group[i], gj = n + group[j];
    switch (c) {
    case TT_CONC_SERIAL:
        res[0] = net;
        return 1;
    case TT_CONC_INTRA:
        if (gi == gj) {
            res[0] = gi;
            return 1;
        }
        res[0] = gi;
        res[1] = gj;
        res[2] = net;
        return 3;
    case TT_CONC_GROUPS:
        res[0] = gi;
        if (gi == gj)
            return 1;
        res[1] = gj;
        return 2;
    default:
        res[0] = i;
        res[1] = j;
        return 2;
    }
}

/* Round t (0 <= t < mm-1) of the circle method over mm (even) slots:
 * slot 0 stays, the others rotate; pair k joins slot k and slot mm-1-k.
 * Returns the two item indexes (an index >= m is the bye). */
static void circle_pair(int mm, int t, int k, int *a, int *b)
{
    int pa = k, pb = mm - 1 - k;
    *a = pa == 0 ? 0 : 1 + (pa - 1 + t) % (mm - 1);
    *b = 1 + (pb - 1 + t) % (mm - 1);
}

typedef struct order {
    int (*p)[2];
    int n, cap;
} order;

static int push(order *o, int i, int j)
{
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 1024;
        void *q = realloc(o->p, (size_t)cap * sizeof *o->p);
        if (!q)
            return -1;
        o->p = q;
        o->cap = cap;
    }
    o->p[o->n][0] = i < j ? i : j;
    o->p[o->n][1] = i < j ? j : i;
    o->n++;
    return 0;
}

/* Members of each group, ascending: start[g]..start[g+1] in mem. */
static int group_members(int n, const int *group, int ngroups, const int *measured, int only_measured,
                         int **start_out, int **mem_out)
{
    int *start = calloc((size_t)ngroups + 1, sizeof *start);
    int *mem = malloc((size_t)(n ? n : 1) * sizeof *mem);
    int *fill = calloc((size_t)ngroups + 1, sizeof *fill);
    if (!start || !mem || !fill) {
        free(start);
        free(mem);
        free(fill);
        return -1;
    }
    for (int r = 0; r < n; r++)
        if (!only_measured || !measured || measured[r])
            start[group[r] + 1]++;
    for (int g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    for (int r = 0; r < n; r++)
        if (!only_measured || !measured || measured[r])
            mem[start[group[r]] + fill[group[r]]++] = r;
    free(fill);
    *start_out = start;
    *mem_out = mem;
    return 0;
}

static int build_order(int n, const int *group, int ngroups, const int *measured, tt_concurrency c,
                       order *o)
{
    if (c == TT_CONC_RANKS) {
        /* one tournament over all ranks: each round is a perfect matching */
        int mm = n + (n & 1);
        for (int t = 0; t < mm - 1; t++)
            for (int k = 0; k < mm / 2; k++) {
                int a, b;
                circle_pair(mm, t, k, &a, &b);
                if (a < n && b < n && tbp_pair_wanted(group, measured, a, b) && push(o, a, b) != 0)
                    return -1;
            }
        return 0;
    }
    int *start, *mem, *astart, *amem;
    if (group_members(n, group, ngroups, measured, 1, &start, &mem) != 0)
        return -1;
    if (group_members(n, group, ngroups, measured, 0, &astart, &amem) != 0) {
        free(start);
        free(mem);
        return -1;
    }
    int rc = 0;
    /* inter-group pairs first: they are the bottleneck, and intra-group
     * pairs then fill the rounds where their group is idle */
    int gg = ngroups + (ngroups & 1);
    for (int t = 0; t < gg - 1 && rc == 0; t++)
        for (int k = 0; k < gg / 2 && rc == 0; k++) {
            int ga, gb;
            circle_pair(gg, t, k, &ga, &gb);
            if (ga >= ngroups || gb >= ngroups)
                continue;
            const int *A = mem + start[ga], *B = mem + start[gb];
            int sa = start[ga + 1] - start[ga], sb = start[gb + 1] - start[gb];
            if (sa > sb) {
                const int *T = A;
                A = B;
                B = T;
                int ts = sa;
                sa = sb;
                sb = ts;
            }
            /* diagonal d pairs A[x] with B[(x+d) mod sb]: rank-disjoint */
            for (int d = 0; d < sb && rc == 0; d++)
                for (int x = 0; x < sa && rc == 0; x++)
                    rc = push(o, A[x], B[(x + d) % sb]);
        }
    int maxs = 0;
    for (int g = 0; g < ngroups; g++)
        if (astart[g + 1] - astart[g] > maxs)
            maxs = astart[g + 1] - astart[g];
    int mm = maxs + (maxs & 1);
    for (int t = 0; t < mm - 1 && rc == 0; t++)
        for (int g = 0; g < ngroups && rc == 0; g++) {
            int s = astart[g + 1] - astart[g], sm = s + (s & 1);
            if (t >= sm - 1)
                continue;
            for (int k = 0; k < sm / 2 && rc == 0; k++) {
                int a, b;
                circle_pair(sm, t, k, &a, &b);
                if (a < s && b < s)
                    rc = push(o, amem[astart[g] + a], amem[astart[g] + b]);
            }
        }
    free(start);
    free(mem);
    free(astart);
    free(amem);
    return rc;
}

/* Busy rounds of every resource, one bit per round. */
typedef struct busy {
    int nres;
    size_t words; /* per resource */
    uint64_t *bits;
    int *first_free;
} busy;

static int busy_grow(busy *b, size_t need_rounds)
{
    size_t words = b->words ? b->words : 16;
    while (words * 64 <= need_rounds)
        words *= 2;
    if (words == b->words)
        return 0;
    uint64_t *nb = calloc((size_t)b->nres * words, sizeof *nb);
    if (!nb)
        return -1;
    for (int r = 0; r < b->nres && b->bits; r++)
        memcpy(nb + (size_t)r * words, b->bits + (size_t)r * b->words, b->words * sizeof *nb);
    free(b->bits);
    b->bits = nb;
    b->words = words;
    return 0;
}

static int is_busy(const busy *b, int res, size_t round)
{
    return (int)((b->bits[(size_t)res * b->words + round / 64] >> (round % 64)) & 1u);
}

void tbp_rounds_free(tbp_rounds *s)
{
    if (!s)
        return;
    free(s->pair);
    free(s->round_start);
    memset(s, 0, sizeof *s);
}

int tbp_rounds_pack(int n, int npairs, const int (*pair)[2], const int *res_start, const int *res, int nres,
                    tbp_rounds *s)
{
    memset(s, 0, sizeof *s);
    if (n < 1 || npairs < 0 || nres < 1 || (npairs > 0 && (!pair || !res_start || !res)))
        return -1;
    for (int k = 0; k < npairs; k++) {
        if (pair[k][0] < 0 || pair[k][1] < 0 || pair[k][0] >= n || pair[k][1] >= n || pair[k][0] == pair[k][1])
            return -1;
        for (int q = res_start[k]; q < res_start[k + 1]; q++)
            if (res[q] < 0 || res[q] >= nres)
                return -1;
    }
    busy b = {.nres = nres};
    int *round = malloc((size_t)(npairs ? npairs : 1) * sizeof *round);
    b.first_free = calloc((size_t)b.nres, sizeof *b.first_free);
    int rc = (round && b.first_free && busy_grow(&b, 1) == 0) ? 0 : -1;
    int nrounds = 0;
    for (int k = 0; k < npairs && rc == 0; k++) {
        const int *rs = res + res_start[k];
        int nr = res_start[k + 1] - res_start[k];
        size_t r = 0;
        for (int q = 0; q < nr; q++)
            if ((size_t)b.first_free[rs[q]] > r)
                r = (size_t)b.first_free[rs[q]];
        for (;;) {
            if (r >= b.words * 64 && busy_grow(&b, r + 1) != 0) {
                rc = -1;
                break;
            }
            int q = 0;
            while (q < nr && !is_busy(&b, rs[q], r))
                q++;
            if (q == nr)
                break;
            r++;
        }
        if (rc != 0)
            break;
        for (int q = 0; q < nr; q++) {
            b.bits[(size_t)rs[q] * b.words + r / 64] |= (uint64_t)1 << (r % 64);
            size_t f = (size_t)b.first_free[rs[q]];
            while (f < b.words * 64 && is_busy(&b, rs[q], f))
                f++;
            b.first_free[rs[q]] = (int)f;
        }
        round[k] = (int)r;
        if ((int)r + 1 > nrounds)
            nrounds = (int)r + 1;
    }
    if (rc == 0) {
        s->n = n;
        s->npairs = npairs;
        s->nrounds = nrounds;
        s->pair = malloc((size_t)(npairs ? npairs : 1) * sizeof *s->pair);
        s->round_start = calloc((size_t)nrounds + 2, sizeof *s->round_start);
        if (!s->pair || !s->round_start)
            rc = -1;
    }
    if (rc == 0) {
        /* counting sort by round, stable: the given order within a round */
        for (int k = 0; k < npairs; k++)
            s->round_start[round[k] + 1]++;
        for (int r = 0; r < nrounds; r++)
            s->round_start[r + 1] += s->round_start[r];
        int *fill = calloc((size_t)nrounds + 1, sizeof *fill);
        if (!fill) {
            rc = -1;
        } else {
            for (int k = 0; k < npairs; k++) {
                int at = s->round_start[round[k]] + fill[round[k]]++;
                int i = pair[k][0], j = pair[k][1];
                s->pair[at][0] = i < j ? i : j;
                s->pair[at][1] = i < j ? j : i;
            }
            free(fill);
        }
    }
    free(round);
    free(b.bits);
    free(b.first_free);
    if (rc != 0)
        tbp_rounds_free(s);
    return rc;
}

int tbp_rounds_build(int n, const int *group, const int *measured, tt_concurrency c, tbp_rounds *s)
{
    memset(s, 0, sizeof *s);
    if (n < 1 || !group)
        return -1;
    int ngroups = 0;
    for (int r = 0; r < n; r++) {
        if (group[r] < 0)
            return -1;
        if (group[r] + 1 > ngroups)
            ngroups = group[r] + 1;
    }
    order o = {0};
    if (build_order(n, group, ngroups, measured, c, &o) != 0) {
        free(o.p);
        return -1;
    }
    /* each pair's resources (at most 4), then first fit over the order */
    int *res_start = malloc(((size_t)o.n + 1) * sizeof *res_start);
    int *res = malloc(((size_t)o.n * 4 + 1) * sizeof *res);
    int rc = res_start && res ? 0 : -1;
    if (rc == 0) {
        res_start[0] = 0;
        for (int k = 0; k < o.n; k++)
            res_start[k + 1] =
                res_start[k] + tbp_pair_resources(n, ngroups, group, c, o.p[k][0], o.p[k][1], res + res_start[k]);
        rc = tbp_rounds_pack(n, o.n, (const int (*)[2])o.p, res_start, res, n + ngroups + 1, s);
    }
    free(o.p);
    free(res_start);
    free(res);
    return rc;
}

uint64_t tbp_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void tbp_fast_select(int n, const int *group, double f, unsigned long seed, int *measured)
{
    for (int r = 0; r < n; r++)
        measured[r] = 1;
    if (!(f < 1.0))
        return;
    int ngroups = 0;
    for (int r = 0; r < n; r++)
        if (group[r] + 1 > ngroups)
            ngroups = group[r] + 1;
    int *start, *mem;
    if (group_members(n, group, ngroups, NULL, 0, &start, &mem) != 0)
        return; /* out of memory: measure everything, which is only slower */
    uint64_t st = (uint64_t)seed * 0x2545f4914f6cdd1dull + 1;
    for (int g = 0; g < ngroups; g++) {
        int s = start[g + 1] - start[g];
        int *m = mem + start[g];
        int keep = (int)(f * s + 0.5);
        if (keep < 1)
            keep = 1;
        if (keep >= s)
            continue;
        /* partial Fisher-Yates: the first `keep` are the chosen ones */
        for (int k = 0; k < keep; k++) {
            int x = k + (int)(tbp_rand_next(&st) % (uint64_t)(s - k));
            int t = m[k];
            m[k] = m[x];
            m[x] = t;
        }
        for (int k = keep; k < s; k++)
            measured[m[k]] = 0;
    }
    free(start);
    free(mem);
}

long tbp_wanted_pairs(int n, const int *group, const int *measured)
{
    int ngroups = 0;
    for (int r = 0; r < n; r++)
        if (group[r] + 1 > ngroups)
            ngroups = group[r] + 1;
    long *size = calloc((size_t)ngroups + 1, sizeof *size), *kept = calloc((size_t)ngroups + 1, sizeof *kept);
    long total = -1;
    if (size && kept) {
        long all = 0, sq = 0;
        total = 0;
        for (int r = 0; r < n; r++) {
            size[group[r]]++;
            kept[group[r]] += !measured || measured[r];
        }
        for (int g = 0; g < ngroups; g++) {
            total += size[g] * (size[g] - 1) / 2;
            all += kept[g];
            sq += kept[g] * kept[g];
        }
        total += (all * all - sq) / 2;
    }
    free(size);
    free(kept);
    return total;
}

/* Inter-group pairs when every group keeps min(k, size) ranks. */
static double inter_pairs(const int *size, int ngroups, int k)
{
    double sum = 0, sumsq = 0;
    for (int g = 0; g < ngroups; g++) {
        double x = size[g] < k ? size[g] : k;
        sum += x;
        sumsq += x * x;
    }
    return (sum * sum - sumsq) / 2;
}

double tbp_fast_auto(int n, const int *group)
{
    int ngroups = 0;
    for (int r = 0; r < n; r++)
        if (group[r] + 1 > ngroups)
            ngroups = group[r] + 1;
    int *size = calloc((size_t)ngroups + 1, sizeof *size);
    if (!size)
        return 1.0;
    for (int r = 0; r < n; r++)
        size[group[r]]++;
    int smax = 0, used = 0;
    for (int g = 0; g < ngroups; g++) {
        if (size[g] > smax)
            smax = size[g];
        used += size[g] > 0;
    }
    double budget = (double)smax * (smax - 1) / 2, one = (double)used * (used - 1) / 2;
    if (one > budget)
        budget = one;
    int k = 1;
    while (k < smax && inter_pairs(size, ngroups, k + 1) <= budget)
        k++;
    free(size);
    return k >= smax ? 1.0 : (double)k / smax;
}
