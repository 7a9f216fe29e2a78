/* The tuner's communicators (tuner/shapes.c) on synthetic placements:
 * round robin and contiguous over nodes, one node, one rank per node, the
 * FRAM-like P=512 round robin, a subset of shapes, --comm-sizes, and the
 * --shapes parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"
#include "tap.h"

#define CAP 16

/* "label:r,r,r ..." of every pick, for comparing with the expected text */
static void describe(const tn_shape_pick *p, int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n && o < len; i++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%s:", i ? " " : "", p[i].label);
        for (int k = 0; k < p[i].size && o < len; k++)
            o += (size_t)snprintf(buf + o, len - o, "%s%d", k ? "," : "", p[i].members[k]);
    }
}

static int choose(int P, const int *node_of, unsigned which, const int *cs, int ncs, char *buf, size_t len)
{
    tn_shape_pick p[CAP];
    int n = tn_shapes_choose(P, node_of, which, cs, ncs, p, CAP);
    if (n >= 0) {
        describe(p, n, buf, len);
        tn_shape_picks_free(p, n);
    }
    return n;
}

int main(void)
{
    const unsigned all = (1u << TN_SHAPE_COUNT) - 1;
    int node_of[512];
    char got[8192];
    /* 16 ranks round robin over 4 nodes: rank r on node r % 4 */
    for (int r = 0; r < 16; r++)
        node_of[r] = r % 4;
    int n = choose(16, node_of, all, NULL, 0, got, sizeof got);
    TAP_OK(n == 4 && !strcmp(got, "job:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 one-per-node:0,1,2,3 one-node:0,4,8,12 "
                                  "half-nodes:0,1,4,5,8,9,12,13"),
           "round robin 16 on 4 nodes: job, one per node, one node, half of the nodes; the row (0-3) is one per "
           "node already: %s", got);
    /* each pick's members' nodes (the lowest rank on each) and the most
     * of them on one node: what decides whether shm is offered */
    {
        tn_shape_pick p[CAP];
        n = tn_shapes_choose(16, node_of, all, NULL, 0, p, CAP);
        int ok = n == 4 && p[0].ppn_max == 4 && p[1].ppn_max == 1 && p[2].ppn_max == 4 && p[3].ppn_max == 4;
        for (int i = 0; ok && i < n; i++)
            for (int k = 0; ok && k < p[i].size; k++)
                ok = p[i].node[k] == p[i].members[k] % 4;
        TAP_OK(ok, "round robin 16 on 4 nodes: members' nodes by lowest rank; most on one node 4, 1, 4, 4");
        if (n > 0)
            tn_shape_picks_free(p, n);
    }
    /* contiguous: rank r on node r / 4 */
    for (int r = 0; r < 16; r++)
        node_of[r] = 100 + r / 4;
    n = choose(16, node_of, all, NULL, 0, got, sizeof got);
    TAP_OK(n == 4 && !strcmp(got, "job:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 one-per-node:0,4,8,12 one-node:0,1,2,3 "
                                  "half-nodes:0,1,2,3,4,5,6,7"),
           "contiguous 16 on 4 nodes: the row (0-3) is the first node already: %s", got);
    /* one node: only the job (its node, its half ... are the job; the row of 2 is too small) */
    for (int r = 0; r < 8; r++)
        node_of[r] = 7;
    n = choose(8, node_of, all, NULL, 0, got, sizeof got);
    TAP_OK(n == 1 && !strcmp(got, "job:0,1,2,3,4,5,6,7"), "one node of 8: the job alone: %s", got);
    /* one rank per node: no one-node, one-per-node is the job */
    for (int r = 0; r < 8; r++)
        node_of[r] = r;
    n = choose(8, node_of, all, NULL, 0, got, sizeof got);
    TAP_OK(n == 2 && !strcmp(got, "job:0,1,2,3,4,5,6,7 half-nodes:0,1,2,3"),
           "one rank on each of 8 nodes: the job and half of the nodes: %s", got);
    /* unbalanced: 3 nodes of 5, 2 and 1 ranks, in blocks */
    static const int unb[8] = {0, 0, 0, 0, 0, 1, 1, 2};
    n = choose(8, unb, all, NULL, 0, got, sizeof got);
    TAP_OK(n == 2 && !strcmp(got, "job:0,1,2,3,4,5,6,7 one-node:0,1,2,3,4"),
           "unbalanced 5+2+1: one node of 5; one per node (3) too small; half of 3 nodes is 1 node, the same ranks: %s",
           got);
    /* FRAM-like P=512 round robin over 64 hosts */
    for (int r = 0; r < 512; r++)
        node_of[r] = r % 64;
    tn_shape_pick p[CAP];
    n = tn_shapes_choose(512, node_of, all, NULL, 0, p, CAP);
    int ok = n == 5 && p[0].size == 512 && p[1].size == 64 && p[2].size == 8 && p[3].size == 16 && p[4].size == 256;
    for (int k = 0; ok && k < 8; k++)
        ok = p[2].members[k] == 64 * k;
    for (int k = 0; ok && k < 16; k++)
        ok = p[3].members[k] == k;
    for (int k = 0; ok && k < 256; k++)
        ok = p[4].members[k] % 64 < 32 && (k == 0 || p[4].members[k] > p[4].members[k - 1]);
    TAP_OK(ok && !strcmp(p[3].label, "rows") && !strcmp(p[4].label, "half-nodes"),
           "FRAM-like 512 round robin: job 512, one per node 64, one node 8 (0, 64 ...), a row of 16 (0-15), half of "
           "the nodes 256 (hosts 0-31)");
    tn_shape_picks_free(p, n > 0 ? n : 0);
    /* a subset, and --comm-sizes */
    n = choose(512, node_of, 1u << TN_SHAPE_ROWS, NULL, 0, got, sizeof got);
    TAP_OK(n == 1 && !strcmp(got, "rows:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"), "--shapes rows: that one: %s", got);
    static const int cs[3] = {6, 16, 1};
    for (int r = 0; r < 16; r++)
        node_of[r] = r / 4;
    n = choose(16, node_of, 0, cs, 3, got, sizeof got);
    TAP_OK(n == 2 && !strcmp(got, "first-6:0,1,2,3,4,5 job:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"),
           "--comm-sizes 6,16,1 alone: the first 6 ranks and the job (1 rank is nothing to tune): %s", got);
    n = choose(16, node_of, 1u << TN_SHAPE_JOB, cs + 1, 1, got, sizeof got);
    TAP_OK(n == 1, "the job once when both ask for it (%d)", n);
    /* --shapes */
    TAP_OK(tn_shapes_parse("all") == (int)all && tn_shapes_parse("job,rows") == ((1 << TN_SHAPE_JOB) | (1 << TN_SHAPE_ROWS)) &&
               tn_shapes_parse("half-nodes") == 1 << TN_SHAPE_HALF_NODES && tn_shapes_parse("job,colums") == -1 &&
               tn_shapes_parse("") == -1,
           "--shapes: names, all; unknown or empty refused");
    TAP_OK(!strcmp(tn_shape_name(TN_SHAPE_ONE_PER_NODE), "one-per-node") && !strcmp(tn_shape_name(99), "?"),
           "shape names");
    TAP_DONE();
}
