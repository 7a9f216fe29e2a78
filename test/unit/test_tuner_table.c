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

static int write_table(const char *path, const tn_table *t, const tb_topology *topo)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = tn_table_write(f, t, topo, "written-by: test, nprocs: 12");
    fclose(f);
    return rc;
}

static void test_yaml(void)
{
    char path[] = "/tmp/test_tuner_tableXXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    size_t sizes[] = {1, 1024, 65536, 1048576, 16777216};
    char wa[5][TN_CAND_TEXT] = {"magpie:levels=island/node,segment=0,send=nonblocking,outstanding=8",
                                "magpie:levels=island/node,segment=0,send=nonblocking,outstanding=8",
                                "magpie2:segment=0,base=binomial/binomial/flat/flat,send=blocking",
                                "default",
                                "interpipe:segment=131072,base=chain,send=nonblocking,outstanding=8"};
    char wb[5][TN_CAND_TEXT] = {"binomial:segment=0,send=nonblocking,outstanding=8",
                                "binomial:segment=0,send=nonblocking,outstanding=8",
                                "knomial:segment=0,radix=5,send=nonblocking,outstanding=8",
                                "scatter_allgather:allgather=recursive_doubling,ring=distance,send=nonblocking,outstanding=8",
                                "pipeline:segment=65536,chains=2,send=blocking"};
    int msizes[] = {12, 6};
    int order[2];
    long lo[2], hi[2];
    tn_table t = {0};
    t.ncomm = tn_table_comm_ranges(msizes, 2, order, lo, hi);
    t.comm = calloc(2, sizeof *t.comm);
    for (int c = 0; c < 2; c++) {
        t.comm[c].measured = order[c];
        t.comm[c].lo = lo[c];
        t.comm[c].hi = hi[c];
        tn_table_merge(sizes, (const char (*)[TN_CAND_TEXT])(c ? wb : wa), 5, &t.comm[c]);
    }

    tb_config topo;
    char err[1024] = "";
    int have = tb_config_load("config/example-3level.yaml", &topo, err, sizeof err) == 0;
    TAP_OK(have, "example topology loads (%s)", err);
    if (!have)
        return;
    TAP_OK(write_table(path, &t, &topo.topo) == 0, "table with topology written");
    err[0] = '\0';
    int v = tn_table_verify(path, &t, sizes, 5, err, sizeof err);
    TAP_OK(v == 0, "table with topology loads and selects every winner (%s)", err);
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
        const tb_rule *r = tb_config_select(&back, 2, 1024, &idx); /* 6 covers 3-8 */
        TAP_OK(r && r->spec.id == TB_ALG_DEFAULT && idx == back.nrules - 1,
               "communicators below the measured range get the final default");
        r = tb_config_select(&back, 100, 20u << 20, &idx);
        TAP_OK(r && r->spec.id == TB_ALG_INTERPIPE, "the largest measured size extends to inf");
        TAP_OK(back.nrules == 4 + 4 + 1, "rules: 4 + 4 merged ranges + default (got %d)", back.nrules);
        tb_config_free(&back);
    } else {
        TAP_OK(0, "table reloads: %s", err);
    }

    /* without a topology, levels= must name zero-config levels: the
     * island/node table is rejected, which the verification reports */
    TAP_OK(write_table(path, &t, NULL) == 0, "table without topology written");
    err[0] = '\0';
    v = tn_table_verify(path, &t, sizes, 5, err, sizeof err);
    TAP_OK(v == -1 && strstr(err, "island"), "verification reports the loader's error (%s)", err);
    snprintf(t.comm[0].ranges[0].spec, TN_CAND_TEXT, "magpie:levels=node");
    TAP_OK(write_table(path, &t, NULL) == 0 && tn_table_verify(path, &t, sizes, 5, err, sizeof err) == 0,
           "zero-config level names load without a topology (%s)", err);
    /* a table that does not select what the tuner chose is caught */
    snprintf(t.comm[1].ranges[0].spec, TN_CAND_TEXT, "flat");
    v = tn_table_verify(path, &t, sizes, 5, err, sizeof err);
    TAP_OK(v == -1 && strstr(err, "selects"), "mismatch between file and table detected (%s)", err);
    tb_config_free(&topo);
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
    tn_results_header(header, sizeof header, 4, 20, 3, "both");
    tn_results_header(other, sizeof other, 8, 20, 3, "both");
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
    TAP_OK(rc == -1 && strstr(err, "different run"), "a file from another job size is refused");
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
    test_results_file();
    TAP_DONE();
}
