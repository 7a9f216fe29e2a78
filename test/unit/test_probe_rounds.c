/* The probe's harness schedule: every wanted pair exactly once, no rank
 * twice in a round, no shared resource in a round (independence), round
 * counts at the optimum for the regular cases, and fast mode's choice. */
#include <stdlib.h>
#include <string.h>

#include "pair_rounds.h"
#include "tap.h"

/* Checks s against the rules; returns a description of the first
 * violation or NULL. */
static const char *violation(const tbp_rounds *s, int n, const int *group, const int *measured,
                             tt_concurrency c)
{
    static char why[160];
    int ngroups = 0;
    for (int r = 0; r < n; r++)
        if (group[r] + 1 > ngroups)
            ngroups = group[r] + 1;
    int *seen = calloc((size_t)n * n, sizeof *seen);
    int *rank_round = malloc((size_t)n * sizeof *rank_round);
    int *res_round = malloc((size_t)(n + ngroups + 1) * sizeof *res_round);
    const char *bad = NULL;
    for (int r = 0; r < n; r++)
        rank_round[r] = -1;
    for (int q = 0; q < n + ngroups + 1; q++)
        res_round[q] = -1;
    if (s->round_start[0] != 0 || s->round_start[s->nrounds] != s->npairs)
        bad = "round_start does not cover the pairs";
    for (int r = 0; r < s->nrounds && !bad; r++) {
        if (s->round_start[r + 1] <= s->round_start[r]) {
            snprintf(why, sizeof why, "round %d is empty", r);
            bad = why;
        }
        for (int k = s->round_start[r]; k < s->round_start[r + 1] && !bad; k++) {
            int i = s->pair[k][0], j = s->pair[k][1];
            if (i < 0 || j >= n || i >= j) {
                snprintf(why, sizeof why, "pair (%d,%d) not ordered i<j in range", i, j);
                bad = why;
                break;
            }
            if (seen[i * n + j]++) {
                snprintf(why, sizeof why, "pair (%d,%d) twice", i, j);
                bad = why;
                break;
            }
            if (rank_round[i] == r || rank_round[j] == r) {
                snprintf(why, sizeof why, "a rank of (%d,%d) twice in round %d", i, j, r);
                bad = why;
                break;
            }
            rank_round[i] = rank_round[j] = r;
            int res[4], nr = tbp_pair_resources(n, ngroups, group, c, i, j, res);
            for (int x = 0; x < nr; x++) {
                if (res_round[res[x]] == r) {
                    snprintf(why, sizeof why, "resource %d shared in round %d (pair %d,%d)", res[x], r, i, j);
                    bad = why;
                }
                res_round[res[x]] = r;
            }
        }
    }
    for (int i = 0; i < n && !bad; i++)
        for (int j = i + 1; j < n && !bad; j++) {
            int want = tbp_pair_wanted(group, measured, i, j);
            if (want != seen[i * n + j]) {
                snprintf(why, sizeof why, "pair (%d,%d) scheduled %d times, wanted %d", i, j, seen[i * n + j], want);
                bad = why;
            }
        }
    free(seen);
    free(rank_round);
    free(res_round);
    return bad;
}

static void blocks(int n, int per, int *group)
{
    for (int r = 0; r < n; r++)
        group[r] = r / per;
}

static int check(const char *name, int n, const int *group, const int *measured, tt_concurrency c,
                 int expect_rounds)
{
    tbp_rounds s;
    int rc = tbp_rounds_build(n, group, measured, c, &s);
    TAP_OK(rc == 0, "%s: schedule built", name);
    if (rc != 0)
        return -1;
    const char *v = violation(&s, n, group, measured, c);
    TAP_OK(v == NULL, "%s: valid (%s)", name, v ? v : "every wanted pair once, independent rounds");
    if (expect_rounds >= 0)
        TAP_OK(s.nrounds == expect_rounds, "%s: %d rounds (expected %d)", name, s.nrounds, expect_rounds);
    int r = s.nrounds;
    tbp_rounds_free(&s);
    return r;
}

int main(void)
{
    int group[512], measured[512];

    blocks(6, 3, group);
    check("serial P=6", 6, group, NULL, TT_CONC_SERIAL, 15);

    /* rank-disjoint only: a round-robin tournament, P-1 rounds (P even) */
    blocks(8, 8, group);
    check("ranks P=8", 8, group, NULL, TT_CONC_RANKS, 7);
    blocks(7, 7, group);
    check("ranks P=7", 7, group, NULL, TT_CONC_RANKS, 7);
    blocks(64, 4, group);
    check("ranks P=64 in 16 groups", 64, group, NULL, TT_CONC_RANKS, 63);

    /* groups: s(s-1)/2 + (G-1) s^2 for G even groups of s */
    blocks(12, 3, group);
    check("groups 4x3", 12, group, NULL, TT_CONC_GROUPS, 3 + 3 * 9);
    blocks(512, 8, group);
    check("groups 64x8 (P=512)", 512, group, NULL, TT_CONC_GROUPS, 28 + 63 * 64);

    /* intra: inter-group pairs one at a time, intra-group pairs hidden in
     * the rounds where their group is idle */
    blocks(12, 3, group);
    check("intra 4x3", 12, group, NULL, TT_CONC_INTRA, 66 - 12);
    blocks(16, 8, group);
    /* 2 groups: every inter pair uses both groups; the two groups' intra
     * pairs overlap each other only: 64 + 28 */
    check("intra 2x8", 16, group, NULL, TT_CONC_INTRA, 64 + 28);

    /* unequal groups */
    int uneq[] = {0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 0, 1};
    int nu = (int)(sizeof uneq / sizeof *uneq);
    for (int c = 0; c < TT_CONC_COUNT; c++) {
        char name[64];
        snprintf(name, sizeof name, "unequal groups, %s", tt_concurrency_name((tt_concurrency)c));
        int r = check(name, nu, uneq, NULL, (tt_concurrency)c, -1);
        /* group 0 has 6 ranks: 15 pairs inside and 6*7 outside touch it */
        if (c == TT_CONC_GROUPS)
            TAP_OK(r >= 15 + 42 && r <= 2 * (15 + 42), "unequal groups: %d rounds within [57, 114]", r);
    }

    /* fast mode */
    blocks(32, 8, group);
    tbp_fast_select(32, group, 0.25, 7, measured);
    int per[4] = {0};
    for (int r = 0; r < 32; r++)
        per[group[r]] += measured[r];
    TAP_OK(per[0] == 2 && per[1] == 2 && per[2] == 2 && per[3] == 2, "fast 0.25 keeps 2 of 8 per group (%d %d %d %d)",
           per[0], per[1], per[2], per[3]);
    int again[32], other[32], differs = 0;
    tbp_fast_select(32, group, 0.25, 7, again);
    TAP_OK(memcmp(again, measured, sizeof again) == 0, "fast selection is deterministic for a seed");
    for (unsigned long seed = 8; seed < 20 && !differs; seed++) {
        tbp_fast_select(32, group, 0.25, seed, other);
        differs = memcmp(other, measured, sizeof other) != 0;
    }
    TAP_OK(differs, "another seed chooses other ranks");
    tbp_fast_select(32, group, 1.0, 7, other);
    int all = 1;
    for (int r = 0; r < 32; r++)
        all &= other[r];
    TAP_OK(all, "fast 1.0 keeps every rank");
    /* 24 inter pairs among the 8 kept, one at a time; each group has 28
     * intra pairs and 2*6 inter pairs: at least 40 rounds */
    int nr = check("fast intra 4x8", 32, group, measured, TT_CONC_INTRA, -1);
    TAP_OK(nr >= 40 && nr <= 48, "fast intra: %d rounds, near the bound of 40", nr);
    check("fast groups 4x8", 32, group, measured, TT_CONC_GROUPS, -1);
    check("fast ranks 4x8", 32, group, measured, TT_CONC_RANKS, -1);
    check("fast serial 4x8", 32, group, measured, TT_CONC_SERIAL, 4 * 28 + 24);

    /* --fast auto: inter-group pairs within max(s(s-1)/2, G(G-1)/2) */
    static int big[1024];
    blocks(512, 8, big);
    double f = tbp_fast_auto(512, big);
    TAP_OK(f == 0.125, "auto, 64 hosts x 8 (FRAM round robin P=512): one rank per host (F = %g)", f);
    tbp_fast_select(512, big, f, 1, measured);
    tbp_rounds s;
    TAP_OK(tbp_rounds_build(512, big, measured, TT_CONC_INTRA, &s) == 0 && s.npairs == 2016 + 64 * 28 &&
               s.nrounds == 2016,
           "auto P=512: 2016 + 1792 pairs in 2016 rounds (%d in %d)", s.npairs, s.nrounds);
    tbp_rounds_free(&s);
    blocks(1024, 128, big);
    f = tbp_fast_auto(1024, big);
    /* 8 hosts of 128: 8128 intra rounds; 28 k^2 <= 8128 up to k = 17 */
    TAP_OK(f == 17.0 / 128, "auto, 8 hosts x 128: 17 ranks per host (F = %g = %g/128)", f, f * 128);
    blocks(64, 1, big);
    TAP_OK(tbp_fast_auto(64, big) == 1.0, "auto, one rank per host: everything measured");
    blocks(16, 16, big);
    TAP_OK(tbp_fast_auto(16, big) == 1.0, "auto, one host: everything measured");
    blocks(12, 3, big);
    big[11] = 4; /* unequal: 3,3,3,2,1 */
    f = tbp_fast_auto(12, big);
    TAP_OK(f > 0 && f < 1 && (int)(f * 3 + 0.5) >= 1, "auto, unequal groups: F = %g keeps at least one", f);
    TAP_DONE();
}
