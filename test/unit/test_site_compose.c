/* A site's calibration without MPI (topology/site.h): Slurm-style host
 * lists, the composition of a network pass and node passes (two node
 * types with levels inside their hosts, an island level), the merge of
 * overlapping passes (a node added later), made-up jobs on the result,
 * and every input that must be refused with its message.  Every
 * composed or merged topology is written with the library's writer and
 * loaded back with its loader, as the probe does. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "site.h"
#include "tap.h"
#include "topo_text.h"

/* ---- inputs ---------------------------------------------------------- */

/* A network pass over 8 hosts, one rank each: island 0 = x0-x3 (hwloc
 * "XA"), island 1 = y0-y3 ("YB", y3 unknown). */
static const char *NET =
    "topobcast: 2\n"
    "topology:\n"
    "  fingerprint: {nprocs: 8, hosts: [x0, x1, x2, x3, y0, y1, y2, y3],\n"
    "                hwloc: [XA, XA, XA, XA, YB, YB, YB, \"\"]}\n"
    "  levels: [island]\n"
    "  leaves: [[0, -1], [1, -1], [2, -1], [3, -1], [4, -1], [5, -1], [6, -1], [7, -1]]\n"
    "  groups: {island: [[0-3], [4-7]]}\n"
    "  distance: {unit: us, levels: [10], within: 2}\n";

/* Node pass of type A on x1: 8 PUs, 2 sockets of 2 NUMA domains. */
static const char *PASS_A =
    "topobcast: 2\n"
    "topology:\n"
    "  fingerprint: {nprocs: 8, hosts: [x1], hwloc: [XA]}\n"
    "  levels: [node, socket, numa]\n"
    "  leaves: [[0, 0, 0, 0, 0], [0, 1, 1, 0, 0], [0, 2, 2, 0, 1], [0, 3, 3, 0, 1],\n"
    "           [0, 4, 4, 1, 2], [0, 5, 5, 1, 2], [0, 6, 6, 1, 3], [0, 7, 7, 1, 3]]\n"
    "  groups: {node: [[0-7]], socket: [[0-3], [4-7]], numa: [[0, 1], [2, 3], [4, 5], [6, 7]]}\n"
    "  distance: {unit: us, levels: [1, 1, 0.5], within: 0.2}\n";

/* Node pass of type B on y0: 4 PUs, 2 sockets, no NUMA level. */
static const char *PASS_B =
    "topobcast: 2\n"
    "topology:\n"
    "  fingerprint: {nprocs: 4, hosts: [y0], hwloc: [YB]}\n"
    "  levels: [socket]\n"
    "  leaves: [[0, 0, 0, 0, 0], [0, 2, 1, 0, 0], [0, 4, 2, 1, 1], [0, 6, 3, 1, 1]]\n"
    "  groups: {socket: [[0, 1], [2, 3]]}\n"
    "  distance: {unit: us, levels: [0.8], within: 0.3}\n";

/* Loaded inputs, released at the end. */
static tb_config loaded[256];
static int nloaded;

static const tb_topology *topo_of(const char *text, const char *name)
{
    char err[512];
    tb_config *c = &loaded[nloaded];
    if (tb_config_load_buffer(text, strlen(text), name, c, err, sizeof err) != 0) {
        printf("# test input %s does not load: %s\n", name, err);
        abort();
    }
    nloaded++;
    return &c->topo;
}

static const char *levels_of(const tb_topology *t, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int l = 0, o = 0; l < t->nlevels; l++)
        o += snprintf(buf + o, cap - (size_t)o, "%s%s(%d)", l ? "," : "", t->level_name[l], t->ngroups[l]);
    return buf;
}

static int type_of(const tb_topology *t, const char *host)
{
    for (int h = 0; h < t->nhosts; h++)
        if (strcmp(t->hosts[h], host) == 0)
            return t->host_type[h] < 0 ? -1 : t->host_type[h];
    return -2;
}

static const char *type_name(const tb_topology *t, const char *host)
{
    int k = type_of(t, host);
    return k >= 0 ? t->types[k].name : k == -1 ? "(none)" : "(not a host)";
}

/* The group of host at host level l. */
static int group_of(const tb_topology *t, int l, const char *host)
{
    for (int h = 0; h < t->nhosts; h++)
        if (strcmp(t->hosts[h], host) == 0)
            return t->group[l][h];
    return -1;
}

/* Notes as one line, for a test's message. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n')
            *s = ' ';
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

/* ---- host lists --------------------------------------------------------- */

static void expect_list(const char *list, const char *want)
{
    char **v = NULL, err[256] = "", got[1024] = "";
    int n = 0;
    int rc = tt_hostlist_expand(list, &v, &n, err, sizeof err);
    for (int i = 0, o = 0; rc == 0 && i < n; i++)
        o += snprintf(got + o, sizeof got - (size_t)o, "%s%s", i ? " " : "", v[i]);
    TAP_OK(rc == 0 && strcmp(got, want) == 0, "hostlist: '%s' is '%s' (got '%s'%s%s)", list, want, got, rc ? ", " : "",
           err);
    free(v);
}

static void expect_list_error(const char *list, const char *want)
{
    char **v = NULL, err[256] = "";
    int n = 0;
    int rc = tt_hostlist_expand(list, &v, &n, err, sizeof err);
    TAP_OK(rc == -1 && strstr(err, want) && !v, "hostlist: '%s' refused: %s", list, err);
    if (rc == 0)
        free(v);
}

static void test_hostlists(void)
{
    expect_list("n[001-003,007],m07", "n001 n002 n003 n007 m07");
    expect_list("n[01-02,5]", "n01 n02 n5"); /* each range its own width, as in Slurm */
    expect_list("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2");
    expect_list("n[08-10]", "n08 n09 n10");
    expect_list("n[8-10]", "n8 n9 n10");
    expect_list("a.b-c,d", "a.b-c d");
    expect_list("n[1]x", "n1x");
    expect_list_error("", "an empty item");
    expect_list_error("a,,b", "an empty item");
    expect_list_error("n[1-", "opens a '[' it does not close");
    expect_list_error("n]1", "closes a ']' it did not open");
    expect_list_error("n[3-1]", "not a number or a range A-B with A <= B");
    expect_list_error("n[a]", "not a number or a range A-B of 1 to 9 digits");
    expect_list_error("n[1,]", "ends with a comma");
    expect_list_error("n[]", "an empty '[]'");
    expect_list_error("a b", "holds a space");
    expect_list_error("n[1-999999]x[1-9]", "names more than 1048576 hosts");
}

/* ---- composition ------------------------------------------------------------ */

static int compose(const tt_node_pass *p, int np, const tt_type_hosts *named, int nn, const char *net_text,
                   tb_topology *out, char *err, size_t errlen, char *notes, size_t notes_len)
{
    tt_site_file net = {"net.yaml", topo_of(net_text, "net.yaml")};
    notes[0] = 0;
    FILE *nf = fmemopen(notes, notes_len, "w");
    int rc = tt_site_compose(&net, p, np, named, nn, nf, out, err, errlen);
    fclose(nf);
    one_line(notes);
    return rc;
}

static void test_compose(void)
{
    tt_node_pass p[3] = {{"A", {"a.yaml", topo_of(PASS_A, "a.yaml")}}, {"B", {"b.yaml", topo_of(PASS_B, "b.yaml")}}};
    tb_topology s;
    tb_config back;
    char err[512] = "", notes[1024] = "", lv[256];
    int rc = compose(p, 2, NULL, 0, NET, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0, "compose: a network pass and two node passes (%s)", err);
    if (rc != 0)
        return;
    TAP_OK(s.site && s.nhosts == 8 && s.nhost_levels == 2 && s.ntypes == 2, "compose: site form, 8 hosts, 2 types");
    /* sockets: 4 x 2 (A) + 3 x 2 (B) + 1 (y3, no type); NUMA: 4 x 4 + 3 x 2 (B: its sockets) + 1 */
    TAP_OK(strcmp(levels_of(&s, lv, sizeof lv), "island(2),node(8),socket(15),numa(23)") == 0,
           "compose: island from the network pass, node added, socket and numa from the passes (%s)", lv);
    TAP_OK(strcmp(type_name(&s, "x0"), "A") == 0 && strcmp(type_name(&s, "x3"), "A") == 0 &&
               strcmp(type_name(&s, "y0"), "B") == 0 && strcmp(type_name(&s, "y2"), "B") == 0 &&
               type_of(&s, "y3") == -1,
           "compose: types by the passes' hosts and hwloc; y3 (hwloc unknown) of none");
    TAP_OK(strstr(notes, "1 host of no node type (their ranks are placed by host only): y3") != NULL,
           "compose: says which hosts have no type (%s)", notes);
    const tb_topo_type *b = &s.types[1];
    TAP_OK(b->ngroups[0] == 2 && b->ngroups[1] == 2 && memcmp(b->group[0], b->group[1], 4 * sizeof(int)) == 0,
           "compose: type B, without a numa level, takes its sockets' groups for it");
    TAP_OK(s.dist.given && near(s.dist.level[0], 10) && near(s.dist.level[1], 2) && near(s.dist.level[2], 0.9) &&
               near(s.dist.level[3], 0.5) && near(s.dist.within, 0.25),
           "compose: classes island 10, node 2 (the network pass's within), socket 0.9 and within 0.25 (medians "
           "over the types), numa 0.5 (A's) (%g %g %g %g %g)",
           s.dist.level[0], s.dist.level[1], s.dist.level[2], s.dist.level[3], s.dist.within);
    rc = round_trip(&s, &back, err, sizeof err);
    TAP_OK(rc == 0 && back.topo.ntypes == 2 && back.topo.ngroups[3] == 23, "compose: the file written loads (%s)", err);
    if (rc == 0) {
        /* bound ranks on x0 and y1: every level; one rank per socket */
        char **hosts = NULL, e[128];
        int nh = 0;
        tb_ident_rec *ids = NULL;
        tb_hier h;
        char why[256];
        tt_hostlist_expand("x[0-1],y1", &hosts, &nh, e, sizeof e);
        rc = tt_job_ranks(&back.topo, hosts, nh, 4, 1, NULL, &ids, e, sizeof e);
        rc = rc == 0 ? tb_topo_derive(ids, 12, &back.topo, &h, NULL, why, sizeof why) : -1;
        TAP_OK(rc == 0 && h.nlevels == 4 && h.ngroups[1] == 3 && h.ngroups[2] == 4 && h.ngroups[3] == 6,
               "compose: a bound job on x0, x1 (PUs 0-3: one socket, 2 NUMA domains) and y1 (2 sockets) keeps 4 "
               "levels (%d levels, %d sockets, %d NUMA)",
               rc == 0 ? h.nlevels : -1, rc == 0 ? h.ngroups[2] : -1, rc == 0 ? h.ngroups[3] : -1);
        if (rc == 0)
            tb_hier_free(&h);
        free(ids);
        free(hosts);
        tb_config_free(&back);
    }
    tb_topology_release(&s);

    /* the administrator names y3's type */
    tt_type_hosts named[2] = {{"B", "y[2-3],zz9"}};
    rc = compose(p, 2, named, 1, NET, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(type_name(&s, "y3"), "B") == 0 && strstr(notes, "--node-type B: 1 of its 3 hosts are not in net.yaml (zz9)"),
           "compose: --node-type B=y[2-3],zz9 types y3, and says zz9 is not in the pass (%s)", notes);
    if (rc == 0)
        tb_topology_release(&s);
    /* ... and overrides hwloc and the passes' own hosts */
    named[0] = (tt_type_hosts){"B", "x[0-1]"};
    rc = compose(p, 2, named, 1, NET, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(type_name(&s, "x1"), "B") == 0 && strcmp(type_name(&s, "x2"), "A") == 0,
           "compose: --node-type overrides the pass's host and hwloc");
    if (rc == 0)
        tb_topology_release(&s);

    /* without node passes: every host's ranks by host only */
    rc = compose(NULL, 0, NULL, 0, NET, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(levels_of(&s, lv, sizeof lv), "island(2),node(8)") == 0 && s.ntypes == 0 &&
               strstr(notes, "no node type"),
           "compose: a network pass alone gives the host levels (%s)", lv);
    if (rc == 0) {
        rc = round_trip(&s, &back, err, sizeof err);
        TAP_OK(rc == 0, "compose: ... and loads (%s)", err);
        if (rc == 0)
            tb_config_free(&back);
        tb_topology_release(&s);
    }

    /* a level of the network pass called node: the added one is host */
    char *net_node = replace(NET, "levels: [island]", "levels: [node]");
    char *net_node2 = replace(net_node, "groups: {island:", "groups: {node:");
    rc = compose(p, 2, NULL, 0, net_node2, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(levels_of(&s, lv, sizeof lv), "node(2),host(8),socket(15),numa(23)") == 0,
           "compose: the added level is 'host' when 'node' is taken (%s)", lv);
    if (rc == 0)
        tb_topology_release(&s);
    free(net_node);
    free(net_node2);

    /* an unbound node pass without levels inside the host: PUs counted */
    const char *unbound = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [y0]}\n  levels: [node]\n"
                          "  leaves: [[0, -1], [0, -1]]\n  groups: {node: [[0, 1]]}\n";
    tt_node_pass pu[1] = {{"S", {"s.yaml", topo_of(unbound, "s.yaml")}}};
    rc = compose(pu, 1, NULL, 0, NET, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && s.ntypes == 1 && s.types[0].npus == 2 && s.types[0].pus[1].pu == 1 &&
               strcmp(type_name(&s, "y0"), "S") == 0 && strstr(notes, "lists PUs 0-1, which only count them"),
           "compose: an unbound node pass without levels inside its host (SimGrid) gives a type of PUs 0-1 (%s)", err);
    if (rc == 0)
        tb_topology_release(&s);
}

static void expect_compose_error(const char *label, const tt_node_pass *p, int np, const tt_type_hosts *named, int nn,
                                 const char *net_text, const char *want)
{
    tb_topology s;
    char err[512] = "", notes[1024];
    int rc = compose(p, np, named, nn, net_text, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == -1 && strstr(err, want), "compose refuses %s: %s", label, err);
    if (rc == 0)
        tb_topology_release(&s);
}

static void test_compose_errors(void)
{
    tt_node_pass p[2] = {{"A", {"a.yaml", topo_of(PASS_A, "a.yaml")}}, {"B", {"b.yaml", topo_of(PASS_B, "b.yaml")}}};
    char *two = replace(NET, "[7, -1]]", "[7, -1], [7, -1]]");
    char *two2 = replace(two, "nprocs: 8", "nprocs: 9");
    char *two3 = replace(two2, "[4-7]]}", "[4-8]]}");
    expect_compose_error("two ranks on one host of the network pass", p, 2, NULL, 0, two3,
                         "net.yaml: expected a network pass, one rank per host (srun --ntasks-per-node=1): host y3 has "
                         "ranks 7 and 8");
    free(two);
    free(two2);
    free(two3);
    const char *site = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [x0]}\n  levels: [node]\n"
                       "  groups: {node: [[0]]}\n";
    expect_compose_error("a site's topology as the network pass", p, 2, NULL, 0, site,
                         "net.yaml: expected a network pass (topobcast-probe's topology of one rank per host), got a "
                         "site's topology");
    tt_node_pass bad[1] = {{"N", {"n.yaml", topo_of(NET, "n.yaml")}}};
    expect_compose_error("a node pass over several hosts", bad, 1, NULL, 0, NET,
                         "n.yaml: expected a node pass (topobcast-probe's topology of the ranks of one host), got ranks "
                         "on several hosts");
    char *ub = replace(PASS_A, "[0, 3, 3, 0, 1]", "[0, -1, -1, -1, -1]");
    tt_node_pass u[1] = {{"U", {"u.yaml", topo_of(ub, "u.yaml")}}};
    expect_compose_error("a node pass with levels and an unbound rank", u, 1, NULL, 0, NET,
                         "u.yaml: expected a node pass whose ranks are bound to cores (srun --cpu-bind=cores, mpiexec "
                         "-bind-to core) for its levels inside the host (socket ...): rank 3 is not bound");
    free(ub);
    char *rev = replace(PASS_A, "levels: [node, socket, numa]", "levels: [node, numa, socket]");
    char *rev2 = replace(rev, "socket: [[0-3], [4-7]], numa: [[0, 1], [2, 3], [4, 5], [6, 7]]",
                         "numa: [[0-3], [4-7]], socket: [[0, 1], [2, 3], [4, 5], [6, 7]]");
    char *rev3 = replace(PASS_B, "levels: [socket]", "levels: [socket, numa]");
    char *rev4 = replace(rev3, "groups: {socket: [[0, 1], [2, 3]]}", "groups: {socket: [[0, 1], [2, 3]], numa: [[0], [1], [2], [3]]}");
    char *rev5 = replace(rev4, "levels: [0.8]", "levels: [0.8, 0.5]");
    tt_node_pass r[2] = {{"A", {"a.yaml", topo_of(rev2, "a.yaml")}}, {"B", {"b.yaml", topo_of(rev5, "b.yaml")}}};
    expect_compose_error("two types whose levels come in opposite orders", r, 2, NULL, 0, NET,
                         "b.yaml: expected the levels in the order of a.yaml: 'numa' comes above 'socket' there, below "
                         "it here");
    char *die = replace(PASS_B, "levels: [socket]", "levels: [die]");
    char *die2 = replace(die, "groups: {socket:", "groups: {die:");
    char *sock = replace(PASS_A, "levels: [node, socket, numa]", "levels: [node, socket, l3]");
    char *sock2 = replace(sock, ", numa: [[0, 1]", ", l3: [[0, 1]");
    tt_node_pass d[2] = {{"A", {"a.yaml", topo_of(sock2, "a.yaml")}}, {"B", {"b.yaml", topo_of(die2, "b.yaml")}}};
    expect_compose_error("levels named differently", d, 2, NULL, 0, NET,
                         "expected levels named alike in every input: 'socket' (a.yaml) and 'die' (b.yaml) are in no "
                         "input together");
    free(rev);
    free(rev2);
    free(rev3);
    free(rev4);
    free(rev5);
    free(die);
    free(die2);
    free(sock);
    free(sock2);
    tt_node_pass same[2] = {{"A", p[0].file}, {"A", p[1].file}};
    expect_compose_error("a type named twice", same, 2, NULL, 0, NET,
                         "--node-pass A=b.yaml: expected each node type once: a.yaml is type 'A' already");
    char *alike = replace(PASS_B, "hwloc: [YB]", "hwloc: [XA]");
    char *alike2 = replace(alike, "hosts: [y0]", "hosts: [x2]");
    tt_node_pass al[2] = {p[0], {"C", {"c.yaml", topo_of(alike2, "c.yaml")}}};
    expect_compose_error("two types hwloc cannot tell apart", al, 2, NULL, 0, NET,
                         "c.yaml: expected node types that hwloc tells apart: 'A' and 'C' are both \"XA\", as is host x0 "
                         "(name their hosts: --node-type NAME=HOSTLIST)");
    tt_type_hosts named[2] = {{"A", "x[0-3]"}, {"C", "x0"}};
    tb_topology s;
    char err[512] = "", notes[512] = "";
    int rc = compose(al, 2, named, 1, NET, &s, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(type_name(&s, "x0"), "A") == 0 && strcmp(type_name(&s, "x2"), "A") == 0,
           "compose: ... unless their hosts are named (%s)", err);
    if (rc == 0)
        tb_topology_release(&s);
    char *on_x1 = replace(PASS_B, "hosts: [y0]", "hosts: [x1]");
    tt_node_pass dup[2] = {p[0], {"B", {"b.yaml", topo_of(on_x1, "b.yaml")}}};
    expect_compose_error("two passes of one host", dup, 2, NULL, 0, NET,
                         "b.yaml: expected node passes of different hosts: a.yaml measured x1 too");
    free(alike);
    free(alike2);
    free(on_x1);
    named[1] = (tt_type_hosts){"B", "x0"};
    expect_compose_error("a host in two lists", p, 2, named, 2, NET,
                         "--node-type B=x0: expected each host in one list: x0 is also of type 'A'");
    named[0] = (tt_type_hosts){"Q", "x0"};
    expect_compose_error("a list of an unknown type", p, 2, named, 1, NET,
                         "--node-type Q=x0: expected the name of a node type (--compose: of a --node-pass NAME=FILE; "
                         "--merge: of a file merged)");
    named[0] = (tt_type_hosts){"A", "n[1-4]"};
    expect_compose_error("a list naming no host of the pass", p, 2, named, 1, NET,
                         "--node-type A=n[1-4]: expected hosts of net.yaml, none of its 4 is");
    named[0] = (tt_type_hosts){"A", "n[1-"};
    expect_compose_error("a bad list", p, 2, named, 1, NET, "--node-type A=n[1-: expected a host list such as");
    tt_node_pass badname[1] = {{"a b", p[0].file}};
    expect_compose_error("a type name with a space", badname, 1, NULL, 0, NET,
                         "--node-pass a b=a.yaml: expected a type name of 1 to 31 letters, digits, '_' or '-'");
}

/* ---- merge -------------------------------------------------------------------- */

static int merge(const char *const *texts, int n, const tt_type_hosts *named, int nn, tb_topology *out, char *err,
                 size_t errlen, char *notes, size_t notes_len)
{
    tt_site_file f[8];
    char names[8][16];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "in%d.yaml", i + 1);
        f[i] = (tt_site_file){names[i], topo_of(texts[i], names[i])};
    }
    notes[0] = 0;
    FILE *nf = fmemopen(notes, notes_len, "w");
    int rc = tt_site_merge(f, n, named, nn, nf, out, err, errlen);
    fclose(nf);
    one_line(notes);
    return rc;
}

/* The composed site of test_compose, as its file's text. */
static char *site_text(void)
{
    tt_node_pass p[2] = {{"A", {"a.yaml", topo_of(PASS_A, "a.yaml")}}, {"B", {"b.yaml", topo_of(PASS_B, "b.yaml")}}};
    tb_topology s;
    char err[512] = "", notes[512] = "", *buf = NULL;
    size_t len = 0;
    if (compose(p, 2, NULL, 0, NET, &s, err, sizeof err, notes, sizeof notes) != 0)
        abort();
    FILE *mem = open_memstream(&buf, &len);
    fputs("topobcast: 2\n", mem);
    tb_topology_write(mem, &s);
    fclose(mem);
    tb_topology_release(&s);
    return buf;
}

static void test_merge(void)
{
    char *site = site_text(), err[512] = "", notes[1024] = "", lv[256];
    tb_topology m;
    tb_config back;
    /* a node added later: z0 probed with x0 and y1; it is on island 1 and
     * hwloc says it is like the B hosts */
    const char *add = "topobcast: 2\ntopology:\n  fingerprint: {nprocs: 3, hosts: [x0, y1, z0], hwloc: [XA, YB, YB]}\n"
                      "  levels: [island]\n  leaves: [[0, -1], [1, -1], [2, -1]]\n"
                      "  groups: {island: [[0], [1, 2]]}\n  distance: {unit: us, levels: [12], within: 3}\n";
    const char *in1[2] = {site, add};
    int rc = merge(in1, 2, NULL, 0, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0, "merge: the site and a pass over a new node and two known ones (%s)", err);
    if (rc == 0) {
        TAP_OK(m.nhosts == 9 && strcmp(m.hosts[8], "z0") == 0 && group_of(&m, 0, "z0") == group_of(&m, 0, "y2") &&
                   group_of(&m, 0, "z0") != group_of(&m, 0, "x1") &&
                   strcmp(levels_of(&m, lv, sizeof lv), "island(2),node(9),socket(17),numa(25)") == 0,
               "merge: z0 joins island 1 (the hosts merged, not re-measured) (%s)", lv);
        TAP_OK(strcmp(type_name(&m, "z0"), "B") == 0 && strcmp(type_name(&m, "x2"), "A") == 0 && type_of(&m, "y3") == -1,
               "merge: z0 of type B by hwloc, the site's types kept");
        TAP_OK(near(m.dist.level[0], 11) && near(m.dist.level[1], 2.5) && near(m.dist.level[2], 0.9) &&
                   near(m.dist.within, 0.25),
               "merge: classes, the mean of the inputs that have each (island 11, node 2.5) (%g %g %g %g)",
               m.dist.level[0], m.dist.level[1], m.dist.level[2], m.dist.within);
        rc = round_trip(&m, &back, err, sizeof err);
        TAP_OK(rc == 0, "merge: the file written loads (%s)", err);
        if (rc == 0)
            tb_config_free(&back);
        tb_topology_release(&m);
    }
    /* a pass that found no level: its known hosts share island 1, so z1 joins it */
    const char *flat = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [y1, y2, z1]}\n  levels: [level-1]\n"
                       "  leaves: [[0, -1], [1, -1], [2, -1]]\n  groups: {level-1: [[0-2]]}\n";
    const char *in2[2] = {site, flat};
    rc = merge(in2, 2, NULL, 0, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && group_of(&m, 0, "z1") == group_of(&m, 0, "y1") && m.ngroups[0] == 2 &&
               strstr(notes, "1 host of no node type (their ranks are placed by host only): y3") == NULL &&
               strstr(notes, "z1"),
           "merge: a pass that found no level (one group, dropped) puts z1 with the island its known hosts share; z1 "
           "has no type (%s%s)", err, notes);
    if (rc == 0)
        tb_topology_release(&m);
    /* ... and when its known hosts lie in two islands, z2 is alone */
    const char *apart = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [x0, y0, z2]}\n  levels: [level-1]\n"
                        "  leaves: [[0, -1], [1, -1], [2, -1]]\n  groups: {level-1: [[0-2]]}\n";
    const char *in3[2] = {site, apart};
    rc = merge(in3, 2, NULL, 0, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && m.ngroups[0] == 3 && group_of(&m, 0, "z2") != group_of(&m, 0, "x0") &&
               group_of(&m, 0, "z2") != group_of(&m, 0, "y0"),
           "merge: a pass whose known hosts lie in two islands leaves the new one on an island of its own (%s)", err);
    if (rc == 0)
        tb_topology_release(&m);
    /* two network passes: a site of their hosts, with the node level */
    const char *net2 = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [x3, w0, w1]}\n  levels: [island]\n"
                       "  leaves: [[0, -1], [1, -1], [2, -1]]\n  groups: {island: [[0, 1], [2]]}\n";
    const char *in4[2] = {NET, net2};
    rc = merge(in4, 2, NULL, 0, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && m.nhosts == 10 && strcmp(levels_of(&m, lv, sizeof lv), "island(3),node(10)") == 0 &&
               group_of(&m, 0, "w0") == group_of(&m, 0, "x0") && strstr(notes, "no node type"),
           "merge: two network passes: w0 joins x3's island, w1 an island of its own (%s)", lv);
    if (rc == 0)
        tb_topology_release(&m);
    /* a type named on the command line for a host a pass reports */
    tt_type_hosts named[1] = {{"A", "z0"}};
    rc = merge(in1, 2, named, 1, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(type_name(&m, "z0"), "A") == 0, "merge: --node-type A=z0 overrides hwloc (%s)", err);
    if (rc == 0)
        tb_topology_release(&m);
    free(site);
}

static void expect_merge_error(const char *label, const char *const *texts, int n, const tt_type_hosts *named, int nn,
                               const char *want)
{
    tb_topology m;
    char err[512] = "", notes[1024];
    int rc = merge(texts, n, named, nn, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == -1 && strstr(err, want), "merge refuses %s: %s", label, err);
    if (rc == 0)
        tb_topology_release(&m);
}

static void test_merge_errors(void)
{
    char *site = site_text();
    const char *far = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [q0, q1]}\n  levels: [island]\n"
                      "  leaves: [[0, -1], [1, -1]]\n  groups: {island: [[0], [1]]}\n";
    const char *in1[2] = {site, far};
    expect_merge_error("an input with no host in common", in1, 2, NULL, 0,
                       "in2.yaml: expected hosts in common with in1.yaml or the other inputs (probe a new node together "
                       "with some known ones), it shares none");
    const char *order_a = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [a, b, c, d]}\n  levels: [island, rack]\n"
                          "  leaves: [[0, -1], [1, -1], [2, -1], [3, -1]]\n"
                          "  groups: {island: [[0, 1], [2, 3]], rack: [[0], [1], [2], [3]]}\n";
    const char *order_b = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [a, b, c, d]}\n  levels: [rack, island]\n"
                          "  leaves: [[0, -1], [1, -1], [2, -1], [3, -1]]\n"
                          "  groups: {rack: [[0, 1], [2, 3]], island: [[0], [1], [2], [3]]}\n";
    const char *in2[2] = {order_a, order_b};
    expect_merge_error("levels in another order", in2, 2, NULL, 0,
                       "in2.yaml: expected the levels in the order of in1.yaml: 'island' comes above 'rack' there, "
                       "below it here");
    const char *other = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [a, b, e]}\n  levels: [zone]\n"
                        "  leaves: [[0, -1], [1, -1], [2, -1]]\n  groups: {zone: [[0, 1], [2]]}\n";
    const char *in3[2] = {order_a, other};
    expect_merge_error("levels named differently", in3, 2, NULL, 0,
                       "expected levels named alike in every input: 'island' (in1.yaml) and 'zone' (in2.yaml) are in "
                       "no input together");
    /* b and c share a rack in one pass, an island each in the other */
    const char *cross = "topobcast: 2\ntopology:\n  fingerprint: {hosts: [b, c, e]}\n  levels: [rack]\n"
                        "  leaves: [[0, -1], [1, -1], [2, -1]]\n  groups: {rack: [[0, 1], [2]]}\n";
    const char *in4[2] = {order_a, cross};
    expect_merge_error("groups that no longer nest", in4, 2, NULL, 0,
                       "expected groups that still nest once merged: hosts b (in1.yaml) and c (in1.yaml) share a group "
                       "of level 'rack' but not of level 'island' (the inputs disagree)");
    /* a type of one name with other PUs */
    char *other_pus = replace(site, "        - [6, 6, 1, 3]\n", "        - [16, 6, 1, 3]\n");
    const char *in5[2] = {site, other_pus};
    expect_merge_error("a type whose PUs differ", in5, 2, NULL, 0,
                       "in2.yaml: expected node type 'A' as in1.yaml has it: its PUs differ");
    char *other_groups = replace(site, "numa: [[0, 1], [2, 3], [4, 5], [6, 7]]", "numa: [[0-2], [3], [4, 5], [6, 7]]");
    const char *in6[2] = {site, other_groups};
    expect_merge_error("a type whose groups differ", in6, 2, NULL, 0,
                       "in2.yaml: expected node type 'A' as in1.yaml has it: its groups of level 'numa' differ");
    /* x0 of type A in one site, B in the other */
    char *swapped = replace(site, "      hosts: [0-3]\n", "      hosts: [1-3]\n");
    char *swapped2 = replace(swapped, "      hosts: [4-6]\n", "      hosts: [0, 4-6]\n");
    const char *in7[2] = {site, swapped2};
    expect_merge_error("a host of two types", in7, 2, NULL, 0,
                       "in2.yaml: expected host x0 of type 'A', as in1.yaml has it; here it is of type 'B' (name its "
                       "type: --node-type NAME=x0)");
    tt_type_hosts named[1] = {{"B", "x0"}};
    tb_topology m;
    char err[512] = "", notes[512] = "";
    int rc = merge(in7, 2, named, 1, &m, err, sizeof err, notes, sizeof notes);
    TAP_OK(rc == 0 && strcmp(type_name(&m, "x0"), "B") == 0, "merge: ... unless --node-type names it (%s)", err);
    if (rc == 0)
        tb_topology_release(&m);
    free(other_pus);
    free(other_groups);
    free(swapped);
    free(swapped2);
    free(site);
}

/* ---- a job made up on some hosts ------------------------------------------- */

static void test_job(void)
{
    char *site = site_text(), err[256] = "", notes[512] = "";
    const tb_topology *t = topo_of(site, "site.yaml");
    char *hosts[3] = {"x0", "y3", "nowhere"};
    tb_ident_rec *ids = NULL;
    notes[0] = 0;
    FILE *nf = fmemopen(notes, sizeof notes, "w");
    int rc = tt_job_ranks(t, hosts, 3, 2, 1, nf, &ids, err, sizeof err);
    fclose(nf);
    one_line(notes);
    TAP_OK(rc == 0 && ids[0].pu == 0 && ids[1].pu == 1 && ids[2].pu == -1 && ids[4].pu == -1 && ids[5].world_rank == 5 &&
               ids[3].node == 2 && strstr(notes, "2 hosts (y3 ...) have no PUs to bind ranks to"),
           "job: x0's ranks bound to type A's first PUs, y3 (no type) and an unknown host unbound (%s)", notes);
    int unknown = -1;
    tb_hier h;
    char why[256];
    rc = rc == 0 ? tb_topo_derive(ids, 6, t, &h, &unknown, why, sizeof why) : 0;
    TAP_OK(rc == -1 && unknown == 4, "job: the rank on the unknown host is the one the library names (%s)", why);
    free(ids);
    rc = tt_job_ranks(t, hosts, 1, 9, 1, NULL, &ids, err, sizeof err);
    TAP_OK(rc == -1 && strcmp(err, "host x0 has 8 PUs to bind ranks to (node type A): expected --ppn 8 or fewer") == 0,
           "job: more ranks than PUs refused (%s)", err);
    rc = tt_job_ranks(NULL, hosts, 2, 3, 0, NULL, &ids, err, sizeof err);
    TAP_OK(rc == 0 && ids[3].node == 3 && ids[5].pu == -1, "job: without a topology, unbound ranks by host");
    free(ids);
    free(site);
}

int main(void)
{
    test_hostlists();
    test_compose();
    test_compose_errors();
    test_merge();
    test_merge_errors();
    test_job();
    for (int i = 0; i < nloaded; i++)
        tb_config_free(&loaded[i]);
    TAP_DONE();
}
