/* Tuner table: winner choice (default kept on ties), communicator and
 * message-size ranges, the YAML loading with tb_config_load and selecting
 * what was written, and the partial-results file round trip. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "results.h"
#include "table.h"
#include "tap.h"

static tn_result rec(const char *spec, double med, double p25, double p75, int status)
{
    tn_result r;
    memset(&r, 0, sizeof r);
    r.comm = 8;
    r.bytes = 1024;
    snprintf(r.spec, sizeof r.spec, "%s", spec);
    r.status = status;
    r.predicted = -1;
    r.root0 = (tn_root_stats){med, p25, p75, med};
    r.rotate = (tn_root_stats){-1, -1, -1, -1};
    return r;
}

static void test_pick(void)
{
    tn_result a = rec("default", 10.0, 9.9, 10.1, 0), b = rec("binomial", 9.0, 8.9, 9.1, 0),
              c = rec("flat", 9.05, 8.95, 9.15, 0), d = rec("chain", 1.0, 0.9, 1.1, TN_RES_WRONG);
    const tn_result *v[4] = {&a, &b, &c, &d};
    TAP_OK(tn_table_pick(v, 4, NULL, 0.02) == 1, "clear winner beats default; wrong data never wins");
    TAP_OK(tn_table_pick(v, 4, NULL, 0.15) == 0, "default kept when within the tie factor");
    tn_result a2 = rec("default", 10.0, 8.95, 11.0, 0);
    const tn_result *v2[3] = {&a2, &b, &c};
    TAP_OK(tn_table_pick(v2, 3, NULL, 0.02) == 0, "default kept when its quartiles overlap the best's");
    TAP_OK(tn_table_pick(v, 4, "flat", 0.02) == 2, "previous winner kept when within the tie factor");
    TAP_OK(tn_table_pick(v, 4, "knomial", 0.02) == 1, "previous winner not measured here: best");
    tn_result e = rec("default", -1, -1, -1, TN_RES_ERROR);
    const tn_result *v3[1] = {&e};
    TAP_OK(tn_table_pick(v3, 1, NULL, 0.02) == -1, "nothing usable: -1");
    tn_result f = rec("binomial", 4.0, 3.9, 4.1, 0);
    f.rotate = (tn_root_stats){8.0, 7.9, 8.1, 8.0};
    TAP_OK(tn_result_score(&f) == 6.0, "score: mean of the root modes' medians");
}

static void test_ranges(void)
{
    int in[] = {16, 64, 32, 64}, out[4];
    long lo[4], hi[4];
    int m = tn_table_comm_ranges(in, 4, out, lo, hi);
    TAP_OK(m == 3 && out[0] == 64 && out[1] == 32 && out[2] == 16, "comm sizes distinct, largest first");
    TAP_OK(lo[0] == 46 && hi[0] == LONG_MAX && lo[1] == 23 && hi[1] == 45 && lo[2] == 8 && hi[2] == 22,
           "comm ranges 46-inf, 23-45, 8-22 (got %ld-%ld %ld-%ld %ld-%ld)", lo[0], hi[0], lo[1], hi[1], lo[2],
           hi[2]);
    int two[] = {2, 1};
    m = tn_table_comm_ranges(two, 2, out, lo, hi);
    TAP_OK(m == 1 && lo[0] == 2 && hi[0] == LONG_MAX, "a 2-process job: 2-inf, size 1 ignored");

    size_t sizes[] = {1, 2, 3, 4, 6, 8};
    char w[6][TN_CAND_TEXT] = {"flat", "flat", "binomial", "binomial", "binomial", "flat"};
    tn_table_comm tc;
    tn_table_merge(sizes, (const char (*)[TN_CAND_TEXT])w, 6, &tc);
    TAP_OK(tc.nranges == 3, "6 sizes, 3 runs of equal winners: 3 ranges (got %d)", tc.nranges);
    TAP_OK(tc.nranges == 3 && tc.ranges[0].lo == 0 && tc.ranges[0].hi == 2 && tc.ranges[1].lo == 3 &&
               tc.ranges[1].hi == 6 && tc.ranges[2].lo == 7 && tc.ranges[2].hi == SIZE_MAX,
           "ranges 0-2, 3-6, 7-inf split at geometric means");
    free(tc.ranges);
}

static int write_table(const char *path, const tn_table *t, const tb_config *cfg, const tb_topology *topo)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = tn_table_write(f, t, cfg, topo, "written-by: test, nprocs: 12");
    fclose(f);
    return rc;
}

/* A shape by hand; levels as bits of the example's list island, node, socket. */
static tb_shape shape(int size, int nodes, int ppn_min, int ppn_max, unsigned levels, int gi, int gn, int gs)
{
    tb_shape s;
    tb_shape_unknown(&s, size);
    s.nodes = nodes, s.ppn_min = ppn_min, s.ppn_max = ppn_max, s.consecutive = 1, s.levels = levels;
    s.ngroups[0] = levels & 1 ? gi : 0, s.ngroups[1] = levels & 2 ? gn : 0, s.ngroups[2] = levels & 4 ? gs : 0;
    return s;
}

static const char *chosen(const tb_config *cfg, tb_shape s, size_t bytes, int *idx)
{
    static char text[512];
    const tb_rule *r = tb_config_select(cfg, &s, bytes, idx);
    if (!r)
        return "nothing";
    tb_alg_spec_format(&r->spec, text, sizeof text);
    return text;
}

static void test_yaml(void)
{
    char path[] = "/tmp/test_tuner_tableXXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    size_t sizes[] = {1, 1024, 65536, 1048576, 16777216};
    /* job, one rank per node over both islands, a row of 2 nodes, one node */
    char w[4][5][TN_CAND_TEXT] = {
        {"magpie:levels=island/node,segment=0,send=nonblocking,outstanding=8",
         "magpie:levels=island/node,segment=0,send=nonblocking,outstanding=8",
         "magpie2:segment=0,base=binomial/binomial/flat/flat,send=blocking", "default",
         "interpipe:segment=131072,base=chain,send=nonblocking,outstanding=8"},
        {"binomial:segment=0,send=nonblocking,outstanding=8", "binomial:segment=0,send=nonblocking,outstanding=8",
         "knomial:segment=0,radix=5,send=nonblocking,outstanding=8",
         "scatter_allgather:allgather=recursive_doubling,ring=distance,send=nonblocking,outstanding=8",
         "pipeline:segment=65536,chains=2,send=blocking"},
        {"default", "flat:segment=0,send=nonblocking,outstanding=8", "flat:segment=0,send=nonblocking,outstanding=8",
         "chain:segment=0,chains=1,send=nonblocking,outstanding=8",
         "chain:segment=0,chains=1,send=nonblocking,outstanding=8"},
        {"binary:segment=0,send=nonblocking,outstanding=8", "default", "default",
         "split_binary:segment=16384,send=nonblocking,outstanding=8",
         "split_binary:segment=16384,send=nonblocking,outstanding=8"}};
    const char *labels[4] = {"job", "one-per-node", "rows", "one-node"};
    tb_shape shapes[4] = {shape(12, 3, 4, 4, 7, 2, 3, 6), shape(3, 3, 1, 1, 1, 2, 0, 0), shape(2, 2, 1, 1, 0, 0, 0, 0),
                          shape(4, 1, 4, 4, 4, 0, 0, 2)};
    tn_table t = {0};
    t.ncomm = 4;
    t.comm = calloc(4, sizeof *t.comm);
    for (int c = 0; c < 4; c++) {
        snprintf(t.comm[c].label, sizeof t.comm[c].label, "%s", labels[c]);
        t.comm[c].shape = shapes[c];
        t.comm[c].measured = shapes[c].size;
        tn_table_merge(sizes, (const char (*)[TN_CAND_TEXT])w[c], 5, &t.comm[c]);
    }
    tb_config topo;
    char err[1024] = "";
    int have = tb_config_load("config/example-3level.yaml", &topo, err, sizeof err) == 0;
    TAP_OK(have, "example topology loads (%s)", err);
    if (!have)
        return;
    unsigned all = (1u << TN_KIND_COUNT) - 1;
    TAP_OK(tn_table_kinds_of_job(&shapes[0]) == all && tn_table_kinds_of_job(&shapes[1]) == 1u << TN_KIND_ONE_PER_NODE &&
               tn_table_kinds_of_job(&shapes[3]) == 1u << TN_KIND_SINGLE_NODE,
           "kinds a job can have: all three with 3 nodes of 4; one per node only; one node only");
    TAP_OK(tn_table_build(&t, &topo, all) == 0, "rules built");
    TAP_OK(write_table(path, &t, &topo, &topo.topo) == 0, "table with topology written");
    err[0] = '\0';
    int v = tn_table_verify(path, &t, sizes, 5, err, sizeof err);
    TAP_OK(v == 0, "table loads (no rule shadowed) and each measured shape selects its winners (%s)", err);
    tb_config back;
    if (tb_config_load(path, &back, err, sizeof err) == 0) {
        int same = back.has_topology && back.topo.nleaves == topo.topo.nleaves &&
                   back.topo.nlevels == topo.topo.nlevels && back.topo.dist.given &&
                   back.topo.dist.within == topo.topo.dist.within && back.topo.dist.level[0] == topo.topo.dist.level[0];
        for (int l = 0; same && l < topo.topo.nlevels; l++)
            for (int i = 0; i < topo.topo.nleaves; i++)
                same &= (back.topo.group[l][i] == back.topo.group[l][0]) ==
                        (topo.topo.group[l][i] == topo.topo.group[l][0]);
        for (int i = 0; same && i < topo.topo.nleaves; i++)
            same &= !strcmp(back.topo.hosts[back.topo.leaves[i].host], topo.topo.hosts[topo.topo.leaves[i].host]) &&
                    back.topo.leaves[i].pu == topo.topo.leaves[i].pu;
        TAP_OK(same, "topology section copied: leaves, levels, groups, distances");
        int idx;
        /* shapes nobody timed: the nearest measured class of their kind */
        TAP_OK(!strcmp(chosen(&back, shape(6, 2, 3, 3, 6, 0, 2, 4), 20u << 20, &idx), w[0][4]),
               "an untimed shape on several nodes (2 nodes x 3, node/socket) gets the job's winner: %s",
               chosen(&back, shape(6, 2, 3, 3, 6, 0, 2, 4), 20u << 20, &idx));
        TAP_OK(!strcmp(chosen(&back, shape(3, 3, 1, 1, 2, 0, 3, 0), 1024, &idx), w[1][1]) &&
                   !strcmp(chosen(&back, shape(2, 2, 1, 1, 2, 0, 2, 0), 1024, &idx), w[2][1]),
               "one rank per node with untimed levels: the nearest measured size (3 -> one-per-node, 2 -> rows)");
        TAP_OK(!strcmp(chosen(&back, shape(3, 3, 1, 1, 0, 0, 0, 0), 1, &idx), w[2][0]) &&
                   !strcmp(chosen(&back, shape(30, 30, 1, 1, 1, 2, 0, 0), 1, &idx), w[1][0]),
               "one rank per node, measured classes: by levels first (3 flat ranks -> rows, 30 over islands -> "
               "one-per-node)");
        TAP_OK(!strcmp(chosen(&back, shape(2, 1, 2, 2, 0, 0, 0, 0), 1 << 20, &idx), w[3][3]),
               "two ranks of one node: the one-node winner");
        TAP_OK(!strcmp(chosen(&back, shape(4, 1, 4, 4, 4, 0, 0, 2), 65536, &idx), "default") &&
                   !strcmp(chosen(&back, shape(4, 2, 1, 3, 2, 0, 2, 0), 65536, &idx), w[0][2]),
               "same size, other shape, other rule: one node -> default, 2 unbalanced nodes -> %s", w[0][2]);
        const tb_rule *r = tb_config_select(&back, &(tb_shape){.size = 1, .nodes = 1, .ppn_min = 1, .ppn_max = 1},
                                            1024, &idx);
        TAP_OK(r && r->spec.id == TB_ALG_DEFAULT && idx == back.nrules - 1,
               "only a 1-rank communicator reaches the final default");
        int defaults = 0, measured_default = 0;
        for (int i = 0; i + 1 < back.nrules; i++)
            defaults += back.rules[i].spec.id == TB_ALG_DEFAULT;
        for (int c = 0; c < 4; c++)
            for (int k = 0; k < 5; k++)
                measured_default += !strcmp(w[c][k], "default");
        TAP_OK(defaults > 0 && measured_default > 0, "default appears where it was measured best (%d rules)", defaults);
        /* blocks: one-per-node and rows are two classes of one kind -> class
         * blocks for both, then the kinds: one node (1 class, kind block only),
         * one per node, several nodes */
        int ppn1_levels = 0, nodes1_levels = 0, kind_blocks = 0;
        for (int i = 0; i + 1 < back.nrules; i++) {
            const tb_shape_cond *c = &back.rules[i].shape;
            ppn1_levels += c->ppn_hi == 1 && c->has_levels;
            nodes1_levels += c->nodes_hi == 1 && c->has_levels;
            kind_blocks += !c->has_levels;
        }
        TAP_OK(ppn1_levels > 0 && nodes1_levels == 0 && kind_blocks > 0,
               "class blocks where a kind has several classes, kind blocks for the rest (%d, %d, %d)", ppn1_levels,
               nodes1_levels, kind_blocks);
        tb_config_free(&back);
    } else {
        TAP_OK(0, "table reloads: %s", err);
    }

    /* without a topology, levels= must name zero-config levels: the
     * island/node table is rejected, which the verification reports */
    tn_table t1 = {0};
    t1.ncomm = 1;
    t1.comm = calloc(1, sizeof *t1.comm);
    snprintf(t1.comm[0].label, sizeof t1.comm[0].label, "job");
    t1.comm[0].shape = shape(12, 1, 12, 12, 0, 0, 0, 0);
    t1.comm[0].measured = 12;
    tn_table_merge(sizes, (const char (*)[TN_CAND_TEXT])w[0], 5, &t1.comm[0]);
    TAP_OK(tn_table_build(&t1, NULL, 1u << TN_KIND_SINGLE_NODE) == 0 && write_table(path, &t1, NULL, NULL) == 0,
           "table without topology written");
    err[0] = '\0';
    v = tn_table_verify(path, &t1, sizes, 5, err, sizeof err);
    TAP_OK(v == -1 && strstr(err, "island"), "verification reports the loader's error (%s)", err);
    snprintf(t1.comm[0].ranges[0].spec, TN_CAND_TEXT, "magpie:levels=node");
    TAP_OK(tn_table_build(&t1, NULL, 1u << TN_KIND_SINGLE_NODE) == 0 && write_table(path, &t1, NULL, NULL) == 0 &&
               tn_table_verify(path, &t1, sizes, 5, err, sizeof err) == 0,
           "zero-config level names load without a topology (%s)", err);
    /* a table that does not select what the tuner chose is caught */
    snprintf(t1.comm[0].ranges[1].spec, TN_CAND_TEXT, "flat");
    v = tn_table_verify(path, &t1, sizes, 5, err, sizeof err);
    TAP_OK(v == -1 && strstr(err, "selects"), "mismatch between file and table detected (%s)", err);
    tb_config_free(&topo);
    tn_table_free(&t);
    tn_table_free(&t1);
    unlink(path);
}

/* Several nodes, several ranks each: the blocks key on nodes, not on the
 * size (a 64-rank job of 16 nodes x 4 is nearer the 16-node shape than
 * the 64-rank one of 4 nodes x 16). */
static void test_by_nodes(void)
{
    char path[] = "/tmp/test_tuner_nodesXXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    size_t sizes[] = {1024, 1048576};
    char w[2][2][TN_CAND_TEXT] = {{"binomial", "pipeline:segment=65536"}, {"knomial:radix=4", "chain:chains=2"}};
    tn_table t = {0};
    t.ncomm = 2;
    t.comm = calloc(2, sizeof *t.comm);
    tb_shape sh[2] = {shape(64, 4, 16, 16, 0, 0, 0, 0), shape(32, 16, 2, 2, 0, 0, 0, 0)};
    for (int c = 0; c < 2; c++) {
        snprintf(t.comm[c].label, sizeof t.comm[c].label, c ? "half" : "job");
        t.comm[c].shape = sh[c];
        t.comm[c].measured = sh[c].size;
        tn_table_merge(sizes, (const char (*)[TN_CAND_TEXT])w[c], 2, &t.comm[c]);
    }
    char err[512] = "";
    TAP_OK(tn_table_build(&t, NULL, 1u << TN_KIND_MULTI_NODE) == 0 && write_table(path, &t, NULL, NULL) == 0 &&
               tn_table_verify(path, &t, sizes, 2, err, sizeof err) == 0,
           "two shapes of several nodes: written, each selects its winners (%s)", err);
    tb_config back;
    if (tb_config_load(path, &back, err, sizeof err) == 0) {
        int idx, comm_keys = 0;
        for (int i = 0; i + 1 < back.nrules; i++)
            comm_keys += back.rules[i].comm_lo != 1 || back.rules[i].comm_hi != LONG_MAX;
        TAP_OK(comm_keys == 0 && back.rules[0].shape.nodes_lo == 9 && back.rules[0].shape.nodes_hi == LONG_MAX,
               "keyed by nodes (9-inf: the 16 nodes; 2-8: the 4), no comm key");
        tb_alg_spec a, b;
        char e[128];
        tb_alg_spec_parse(w[1][0], &a, e, sizeof e);
        tb_alg_spec_parse(w[0][1], &b, e, sizeof e);
        tb_shape s1 = shape(64, 16, 4, 4, 0, 0, 0, 0), s2 = shape(32, 2, 16, 16, 0, 0, 0, 0);
        const tb_rule *r1 = tb_config_select(&back, &s1, 1024, &idx), *r2 = tb_config_select(&back, &s2, 1048576, &idx);
        TAP_OK(r1 && tb_alg_spec_equal(&r1->spec, &a) && r2 && tb_alg_spec_equal(&r2->spec, &b),
               "16 nodes x 4 (64 ranks) gets the 16-node shape's winner; 2 nodes x 16 the 4-node one's");
        tb_config_free(&back);
    } else {
        TAP_OK(0, "table reloads: %s", err);
    }
    tn_table_free(&t);
    unlink(path);
}

static void test_results_file(void)
{
    char path[] = "/tmp/test_tuner_partialXXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    char header[256], other[256], err[512] = "";
    tn_results_header(header, sizeof header, 4, 20, 3, "both", "job:4,one-node:2");
    tn_results_header(other, sizeof other, 4, 20, 3, "both", "job:4,rows:2");
    FILE *f = fopen(path, "w");
    fprintf(f, "%s\n", header);
    tn_result a = rec("pipeline:segment=65536,chains=1,send=nonblocking,outstanding=8", 1e-3, 0.9e-3, 1.1e-3, 0);
    a.rotate = (tn_root_stats){2e-3, 1.9e-3, 2.1e-3, 2e-3};
    a.predicted = 1.5e-3;
    tn_result b = rec("default", 5e-6, 4e-6, 6e-6, 0);
    b.bytes = 8;
    tn_results_write_line(f, &a);
    tn_results_write_line(f, &b);
    fprintf(f, "4 16 0 nan 1e-06 1e-06 1e-06 1e-06 nan nan nan nan binom"); /* cut short */
    fclose(f);
    tn_results rs = {0};
    int rc = tn_results_load(path, header, &rs, err, sizeof err);
    TAP_OK(rc == 0 && rs.n == 2, "partial file: 2 complete records, the cut line ignored (rc %d, %d) %s", rc, rs.n,
           err);
    const tn_result *x = tn_results_find(&rs, 8, 1024, a.spec);
    TAP_OK(x && x->predicted == 1.5e-3 && x->rotate.median == 2e-3 && x->root0.p75 == 1.1e-3,
           "record fields round-trip");
    const tn_result *y = tn_results_find(&rs, 8, 8, "default");
    TAP_OK(y && y->rotate.median < 0 && y->predicted < 0, "unmeasured root mode and missing prediction stay absent");
    TAP_OK(!tn_results_find(&rs, 8, 16, "binom"), "the cut record is not there");
    tn_results_free(&rs);
    rc = tn_results_load(path, other, &rs, err, sizeof err);
    TAP_OK(rc == -1 && strstr(err, "different run"), "a file from other communicators is refused");
    tn_results_free(&rs);
    unlink(path);
    TAP_OK(tn_results_load(path, header, &rs, err, sizeof err) == 0 && rs.n == 0, "a missing file is empty");
    for (int i = 0; i < 1000; i++) {
        tn_result r = rec("flat", 1.0 + i, 1, 2, 0);
        r.bytes = (size_t)i;
        tn_results_put(&rs, &r);
    }
    tn_result r = rec("flat", 7.0, 1, 2, 0);
    r.bytes = 500;
    tn_results_put(&rs, &r);
    TAP_OK(rs.n == 1000 && tn_results_find(&rs, 8, 500, "flat")->root0.median == 7.0 &&
               tn_results_find(&rs, 8, 999, "flat")->root0.median == 1000.0,
           "put replaces by key; index survives growth");
    tn_results_free(&rs);
}

int main(void)
{
    test_pick();
    test_ranges();
    test_yaml();
    test_by_nodes();
    test_results_file();
    TAP_DONE();
}
