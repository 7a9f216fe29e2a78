/* A site topology (config/README.md, "A site's topology"): host groups
 * for the levels that keep hosts whole, node types for the levels below.
 * Loading and its messages, the writer's round trip, and the mapping of
 * jobs of any size, placement and binding (tb_topo_derive), checked
 * against the same topology expanded into a job's form
 * (tb_topology_expand), which the job-form mapping already serves. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tap.h"
#include "topo_text.h"
#include "topo/map.h"

/* 6 hosts: island 0 = a0-a3 (type "two", 2 sockets x 2 PUs, PU numbers
 * 0, 1, 8, 9), island 1 = b0, b1 (type "one", 1 socket x 3 PUs) and c0,
 * which has no type (its ranks are placed by host only). */
#define SITE \
    "topobcast: 2\n" \
    "topology:\n" \
    "  fingerprint: {hosts: [a0, a1, a2, a3, b0, b1, c0]}\n" \
    "  levels: [island, node, socket]\n" \
    "  groups:\n" \
    "    island: [[0-3], [4-6]]\n" \
    "    node: [[0], [1], [2], [3], [4], [5], [6]]\n" \
    "  node_types:\n" \
    "    - name: two\n" \
    "      hwloc: \"2 packages, 2 NUMA nodes, 4 cores, 4 PUs\"\n" \
    "      hosts: [0-3]\n" \
    "      pus: [[0, 0, 0, 0], [1, 1, 0, 0], [8, 2, 1, 1], [9, 3, 1, 1]]\n" \
    "      groups:\n" \
    "        socket: [[0, 1], [2, 3]]\n" \
    "    - name: one\n" \
    "      hosts: [4, 5]\n" \
    "      pus: [[0], [1], [2]]\n" \
    "      groups:\n" \
    "        socket: [[0-2]]\n" \
    "  distance: {unit: us, levels: [4, 1.5, 0.6], within: 0.3}\n"

static int load(const char *text, tb_config *cfg, char *err, size_t errlen)
{
    return tb_config_load_buffer(text, strlen(text), "site.yaml", cfg, err, errlen);
}

/* base with one edit must fail to load with a message holding want. */
static void expect_error_in(const char *base, const char *label, const char *from, const char *to, const char *want)
{
    char *text = replace(base, from, to), err[512] = "";
    tb_config cfg;
    int rc = load(text, &cfg, err, sizeof err);
    int ok = rc == -1 && strstr(err, want) != NULL;
    TAP_OK(ok, "error: %s", label);
    if (!ok)
        printf("#   got rc=%d \"%s\"\n#   want \"%s\"\n", rc, err, want);
    if (rc == 0)
        tb_config_free(&cfg);
    free(text);
}

static void expect_error(const char *label, const char *from, const char *to, const char *want)
{
    expect_error_in(SITE, label, from, to, want);
}

/* A rank on host `host` bound to PU pu (-1: not bound), world rank wr. */
static tb_ident_rec rank_on(const char *host, int pu, int wr)
{
    tb_identity id;
    memset(&id, 0, sizeof id);
    snprintf(id.host, sizeof id.host, "%s", host);
    id.bound = pu >= 0;
    id.pu = pu;
    id.core = id.package = id.numa = -1;
    id.world_rank = wr;
    return tb_ident_rec_of(&id);
}

/* The two hierarchies put every pair of ranks in the same relation at
 * every level, with the same level names and distance classes. */
static int same_hier(const tb_hier *a, const tb_hier *b)
{
    if (a->nlevels != b->nlevels || a->size != b->size || !a->dclass != !b->dclass)
        return 0;
    for (int l = 0; l < a->nlevels; l++) {
        if (strcmp(a->level_name[l], b->level_name[l]) != 0 || a->ngroups[l] != b->ngroups[l])
            return 0;
        for (int i = 0; i < a->size; i++)
            for (int j = 0; j < a->size; j++)
                if ((a->group[l][i] == a->group[l][j]) != (b->group[l][i] == b->group[l][j]))
                    return 0;
    }
    for (int i = 0; i < a->size; i++)
        for (int j = 0; j < a->size; j++)
            if (tb_hier_distance(a, i, j) != tb_hier_distance(b, i, j))
                return 0;
    return 1;
}

static const char *levels_of(const tb_hier *h, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int l = 0, o = 0; l < h->nlevels; l++)
        o += snprintf(buf + o, cap - (size_t)o, "%s%s(%d)", l ? "," : "", h->level_name[l], h->ngroups[l]);
    return buf;
}

static void test_load(void)
{
    tb_config cfg;
    char err[512] = "";
    int rc = load(SITE, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "load: a site topology (%s)", err);
    if (rc != 0)
        return;
    const tb_topology *t = &cfg.topo;
    TAP_OK(t->site && t->nprocs == 0 && t->nleaves == 0 && t->nhosts == 7 && t->nhost_levels == 2 && t->ntypes == 2,
           "load: site form, 7 hosts, 2 levels of hosts, 2 node types");
    TAP_OK(t->host_type[0] == 0 && t->host_type[3] == 0 && t->host_type[4] == 1 && t->host_type[6] == -1,
           "load: each host's type (c0 none)");
    TAP_OK(t->ngroups[2] == 4 * 2 + 2 * 1 + 1, "load: socket groups over every host: 4 x 2 + 2 x 1 + 1 untyped = 11");
    TAP_OK(t->keeps_hosts == 3u, "load: island and node keep hosts whole, socket does not");
    TAP_OK(tb_topo_type_pu(&t->types[0], 8) == 2 && tb_topo_type_pu(&t->types[0], 2) == -1 &&
               tb_topo_type_pu(&t->types[1], 2) == 2,
           "load: PUs found by number");
    TAP_OK(strcmp(t->types[0].hwloc, "2 packages, 2 NUMA nodes, 4 cores, 4 PUs") == 0, "load: the type's hwloc text");

    /* write, load again, same topology */
    tb_config again;
    rc = round_trip(t, &again, err, sizeof err);
    TAP_OK(rc == 0, "write: the site form loads back (%s)", err);
    if (rc == 0) {
        tb_topology e1, e2;
        int ok = tb_topology_expand(t, &e1) == 0 && tb_topology_expand(&again.topo, &e2) == 0 &&
                 e1.nleaves == e2.nleaves && again.topo.site && again.topo.ntypes == 2;
        for (int i = 0; ok && i < e1.nleaves; i++)
            ok = memcmp(&e1.leaves[i], &e2.leaves[i], sizeof e1.leaves[i]) == 0;
        for (int l = 0; ok && l < e1.nlevels; l++)
            ok = memcmp(e1.group[l], e2.group[l], sizeof(int) * (size_t)e1.nleaves) == 0;
        TAP_OK(ok && e1.nleaves == 4 * 4 + 2 * 3 + 1, "write: round trip keeps hosts, types, PUs and groups (23 leaves)");
        tb_topology_release(&e1);
        tb_topology_release(&e2);
        tb_config_free(&again);
    }
    tb_config_free(&cfg);

    /* a network pass alone: every level groups hosts, no node types */
    const char *net = "topobcast: 2\n"
                      "topology:\n"
                      "  fingerprint: {hosts: [x, y, z]}\n"
                      "  levels: [island]\n"
                      "  groups: {island: [[0, 1], [2]]}\n";
    rc = load(net, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.topo.site && cfg.topo.ntypes == 0 && cfg.topo.host_type[2] == -1,
           "load: host groups without node types (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
}

static void test_errors(void)
{
    expect_error("nprocs in a site topology", "{hosts: [a0,", "{nprocs: 7, hosts: [a0,",
                 "site.yaml:3:25: expected no nprocs in a site topology");
    expect_error("host groups out of order", "    island: [[0-3], [4-6]]\n    node: [[0], [1], [2], [3], [4], [5], [6]]\n",
                 "    node: [[0], [1], [2], [3], [4], [5], [6]]\n    island: [[0-3], [4-6]]\n",
                 "expected the groups of the coarsest levels, in the order of levels (island, node, socket)");
    expect_error("a level neither in groups nor in node types", "      groups:\n        socket: [[0, 1], [2, 3]]\n",
                 "      groups:\n        sock: [[0, 1], [2, 3]]\n",
                 "expected the groups of the levels below the hosts', in order (socket)");
    expect_error("levels below the hosts without node types",
                 "  node_types:\n    - name: two\n", "  node_typez:\n    - name: two\n", "expected one of the keys");
    expect_error("the finest host level splits no host", "    node: [[0], [1], [2], [3], [4], [5], [6]]\n",
                 "    node: [[0, 1], [2], [3], [4], [5], [6]]\n", "expected level 'node' to hold one host per group");
    expect_error("a host in two types", "      hosts: [4, 5]\n", "      hosts: [3, 4, 5]\n",
                 "expected each host in one node type: host 3 (a3) is already of type 'two'");
    expect_error("a PU twice in a type", "[8, 2, 1, 1], [9, 3, 1, 1]", "[8, 2, 1, 1], [8, 3, 1, 1]",
                 "expected each PU once in node type 'two': position 3 repeats PU 8");
    expect_error("a PU number below 0", "pus: [[0], [1], [2]]", "pus: [[0], [-1], [2]]",
                 "expected an hwloc logical PU index (an integer from 0 to");
    expect_error("a type's group misses a PU", "        socket: [[0-2]]\n", "        socket: [[0-1]]\n",
                 "expected the groups of level 'socket' to cover every PU; position 2 is in none");
    expect_error("a host index out of range", "    island: [[0-3], [4-6]]\n", "    island: [[0-3], [4-7]]\n",
                 "expected a host index (an integer from 0 to 6) or a range A-B of them");
    expect_error("two node types of one name", "    - name: one\n", "    - name: two\n",
                 "expected each node type once: 'two' is already listed");
    expect_error("leaves and node types", "  groups:\n    island:", "  leaves: [[0, 0]]\n  groups:\n    island:",
                 "expected either leaves (a job's topology) or node_types (a site's), not both");
}

/* The fingerprint's optional hwloc list: hwloc's summary of each host
 * (what topobcast-probe --compose tells node types apart by), read,
 * checked and written back in either form. */
#define JOB_HWLOC \
    "topobcast: 2\n" \
    "topology:\n" \
    "  fingerprint: {nprocs: 3, hosts: [n1, n2], hwloc: [\"2 packages, 2 NUMA nodes, 8 cores, 16 PUs\", \"\"]}\n" \
    "  levels: [node]\n" \
    "  leaves: [[0, 0], [0, 1], [1, -1]]\n" \
    "  groups: {node: [[0, 1], [2]]}\n"

static void test_host_hwloc(void)
{
    tb_config cfg, again;
    char err[512] = "";
    int rc = load(JOB_HWLOC, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.topo.host_hwloc && strcmp(cfg.topo.host_hwloc[0], "2 packages, 2 NUMA nodes, 8 cores, 16 PUs") == 0 &&
               cfg.topo.host_hwloc[1][0] == 0,
           "hwloc: the fingerprint's summary of each host, \"\" unknown (%s)", err);
    if (rc == 0) {
        rc = round_trip(&cfg.topo, &again, err, sizeof err);
        TAP_OK(rc == 0 && again.topo.host_hwloc && strcmp(again.topo.host_hwloc[0], cfg.topo.host_hwloc[0]) == 0 &&
                   again.topo.host_hwloc[1][0] == 0,
               "hwloc: written and read back (%s)", err);
        if (rc == 0)
            tb_config_free(&again);
        tb_config_free(&cfg);
    }
    rc = load(SITE, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.topo.host_hwloc == NULL, "hwloc: optional (a file without it has none)");
    if (rc == 0)
        tb_config_free(&cfg);
    expect_error_in(JOB_HWLOC, "hwloc: one summary per host", ", \"\"]}", "]}",
                    "site.yaml:3:52: expected one hwloc summary per host (2 hosts), \"\" where unknown; got 1");
    expect_error_in(JOB_HWLOC, "hwloc: a list", "hwloc: [\"2 packages, 2 NUMA nodes, 8 cores, 16 PUs\", \"\"]",
                    "hwloc: \"2 packages\"", "expected hwloc's summary of each host, in the order of hosts (a list)");
    expect_error_in(JOB_HWLOC, "hwloc: at most 95 characters", "\"\"]}",
                    "\"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456\"]}",
                    "site.yaml:3:98: expected hwloc's summary of a host (at most 95 printable characters");
    expect_error_in(JOB_HWLOC, "hwloc: printable", "\"\"]}", "\"a\\tb\"]}",
                    "expected hwloc's summary of a host (at most 95 printable characters");
    expect_error_in(SITE, "hwloc: a node type's, at most 95 characters", "hwloc: \"2 packages, 2 NUMA nodes, 4 cores, 4 PUs\"",
                    "hwloc: \"2 packages, 2 NUMA nodes, 4 cores, 4 PUs, and a description far too long for one summary of hwloc's\"",
                    "site.yaml:10:14: expected hwloc's summary of a host (at most 95 printable characters");
    /* this machine's own summary, in the words compose compares */
    char mine[TB_TOPO_HWLOC_MAX];
    int pk = 0;
    rc = tb_hwloc_summary(mine, sizeof mine);
    TAP_OK(rc == 0 && sscanf(mine, "%d package", &pk) == 1 && pk >= 1 && strstr(mine, " NUMA node") &&
               strstr(mine, " core") && strstr(mine, " PU"),
           "hwloc: this host's summary '%s'", mine);
}

/* Derives the same ranks on the site form and on its expansion. */
static int derive_both(const tb_topology *site, const tb_topology *job, const tb_ident_rec *ids, int n, tb_hier *h,
                       char *why, size_t whylen, int *same)
{
    tb_hier e;
    char why2[256];
    int rc = tb_topo_derive(ids, n, site, h, NULL, why, whylen);
    int rc2 = tb_topo_derive(ids, n, job, &e, NULL, why2, sizeof why2);
    *same = rc == rc2 && (rc != 0 || same_hier(h, &e));
    if (rc2 == 0)
        tb_hier_free(&e);
    return rc;
}

static void test_derive(void)
{
    tb_config cfg;
    char err[512] = "", why[256], lv[128];
    if (load(SITE, &cfg, err, sizeof err) != 0) {
        TAP_OK(0, "derive: site loads (%s)", err);
        return;
    }
    const tb_topology *t = &cfg.topo;
    tb_topology job;
    if (tb_topology_expand(t, &job) != 0) {
        TAP_OK(0, "derive: expand");
        tb_config_free(&cfg);
        return;
    }
    tb_ident_rec ids[64];
    tb_hier h;
    int same, rc;

    /* full binding on the "two" hosts of island 0 and on b0: all levels */
    const char *hs[6] = {"a0", "a0", "a2", "a2", "b0", "b0"};
    int pus[6] = {0, 9, 1, 8, 0, 2};
    for (int r = 0; r < 6; r++)
        ids[r] = rank_on(hs[r], pus[r], r);
    rc = derive_both(t, &job, ids, 6, &h, why, sizeof why, &same);
    TAP_OK(rc == 0 && same && strcmp(levels_of(&h, lv, sizeof lv), "island(2),node(3),socket(5)") == 0,
           "derive: bound ranks on two types keep island, node and socket (%s) (%s)", lv, why);
    if (rc == 0) {
        TAP_OK(h.group[2][0] != h.group[2][1] && h.group[2][2] != h.group[2][3] && h.group[2][4] == h.group[2][5] &&
                   tb_hier_distance(&h, 0, 1) == 0.6 && tb_hier_distance(&h, 0, 2) == 1.5 &&
                   tb_hier_distance(&h, 0, 4) == 4 && tb_hier_distance(&h, 4, 5) == 0.3,
               "derive: PU 0 and 9 of a0 on two sockets, b0's PUs on one; classes 0.6 / 1.5 / 4 / 0.3");
        tb_hier_free(&h);
    }
    /* not bound: host levels only */
    for (int r = 0; r < 6; r++)
        ids[r] = rank_on(hs[r], -1, r);
    rc = derive_both(t, &job, ids, 6, &h, why, sizeof why, &same);
    TAP_OK(rc == 0 && same && strcmp(levels_of(&h, lv, sizeof lv), "island(2),node(3)") == 0 &&
               strstr(why, "6 of 6 ranks not bound"),
           "derive: unbound ranks keep island and node (%s)", lv);
    if (rc == 0)
        tb_hier_free(&h);
    /* c0 has no type: its rank is placed by host, the socket level goes */
    for (int r = 0; r < 6; r++)
        ids[r] = rank_on(hs[r], pus[r], r);
    ids[5] = rank_on("c0", 3, 5);
    rc = derive_both(t, &job, ids, 6, &h, why, sizeof why, &same);
    TAP_OK(rc == 0 && same && strcmp(levels_of(&h, lv, sizeof lv), "island(2),node(4)") == 0,
           "derive: a rank on an untyped host drops the levels below the hosts' (%s)", lv);
    if (rc == 0)
        tb_hier_free(&h);
    /* a PU the type does not have: host only */
    ids[5] = rank_on("a1", 5, 5);
    rc = derive_both(t, &job, ids, 6, &h, why, sizeof why, &same);
    TAP_OK(rc == 0 && same && h.nlevels == 2, "derive: a PU the type lacks places by host (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);
    /* one node only: the socket level alone */
    for (int r = 0; r < 4; r++)
        ids[r] = rank_on("a3", (int[]){9, 0, 8, 1}[r], r);
    rc = derive_both(t, &job, ids, 4, &h, why, sizeof why, &same);
    TAP_OK(rc == 0 && same && strcmp(levels_of(&h, lv, sizeof lv), "socket(2)") == 0,
           "derive: the ranks of one host keep its socket level (%s)", lv);
    if (rc == 0)
        tb_hier_free(&h);
    /* failures */
    for (int r = 0; r < 6; r++)
        ids[r] = rank_on(hs[r], pus[r], r);
    ids[3] = rank_on("zz9", 0, 3);
    int unknown = -2;
    rc = tb_topo_derive(ids, 6, t, &h, &unknown, why, sizeof why);
    TAP_OK(rc == -1 && unknown == 3 && strstr(why, "the host of world rank 3 is not in the topology measured on 7 hosts"),
           "derive: an unknown host names its rank (%s)", why);
    char text[700];
    tb_topo_unknown_host_text(text, sizeof text, t, "site.yaml", "zz9", 3);
    TAP_OK(strcmp(text, "host zz9 (world rank 3) is not in the topology of site.yaml (7 hosts: a0 ... c0): recalibrate, or "
                        "probe it and merge (topobcast-probe --merge)") == 0,
           "derive: the job's warning for that host (%s)", text);
    ids[3] = rank_on("a0", 9, 3);
    rc = tb_topo_derive(ids, 6, t, &h, &unknown, why, sizeof why);
    TAP_OK(rc == -1 && unknown == -1 && strcmp(why, "world ranks 1 and 3 are both bound to PU 9 of a0") == 0,
           "derive: two ranks on one PU (%s)", why);

    /* random jobs: subsets of hosts, any ranks per host, any order, bound
     * or not; the site form and its expansion agree on every one */
    srand(7);
    int agree = 1, jobs = 0, bound_jobs = 0;
    const char *names[7] = {"a0", "a1", "a2", "a3", "b0", "b1", "c0"};
    int npu[7] = {4, 4, 4, 4, 3, 3, 1};
    int pu_of[2][4] = {{0, 1, 8, 9}, {0, 1, 2, -1}};
    for (int trial = 0; trial < 400; trial++) {
        int n = 0, bind = rand() % 3; /* 0 none, 1 all, 2 some */
        for (int hidx = 0; hidx < 7; hidx++) {
            if (rand() % 2)
                continue;
            int k = 1 + rand() % npu[hidx], start = rand() % npu[hidx];
            for (int j = 0; j < k && n < 64; j++) {
                int ty = t->host_type[hidx];
                int pu = ty < 0 ? 7 : pu_of[ty][(start + j) % npu[hidx]];
                if (bind == 0 || (bind == 2 && rand() % 2))
                    pu = -1;
                ids[n] = rank_on(names[hidx], pu, n);
                n++;
            }
        }
        if (n == 0)
            continue;
        for (int i = n - 1; i > 0; i--) { /* any rank order */
            int j = rand() % (i + 1);
            tb_ident_rec x = ids[i];
            ids[i] = ids[j];
            ids[j] = x;
        }
        rc = derive_both(t, &job, ids, n, &h, why, sizeof why, &same);
        agree &= same;
        jobs++;
        if (rc == 0) {
            bound_jobs += h.nlevels > 0 && strcmp(h.level_name[h.nlevels - 1], "socket") == 0;
            tb_hier_free(&h);
        }
    }
    TAP_OK(agree && jobs > 300 && bound_jobs > 20,
           "derive: %d random jobs, the site form and its expansion give the same hierarchy (%d with the socket level)",
           jobs, bound_jobs);
    tb_topology_release(&job);
    tb_config_free(&cfg);
}

int main(void)
{
    test_load();
    test_errors();
    test_host_hwloc();
    test_derive();
    TAP_DONE();
}
