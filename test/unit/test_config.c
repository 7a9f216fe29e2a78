/* The YAML configuration (loader, validation messages, selection table)
 * and the mapping of identities onto a topology (tb_topo_derive). */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "on_valgrind.h"
#include "tap.h"
#include "topo/map.h"

/* ---- helpers -------------------------------------------------------------- */

static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        printf("# test bug: '%s' not found in the base text\n", from);
        abort();
    }
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    size_t pre = (size_t)(at - text);
    memcpy(out, text, pre);
    strcpy(out + pre, to);
    strcat(out, at + strlen(from));
    return out;
}

/* Loads text named "t.yaml"; the load must fail with exactly `want` as the
 * start of the message (position and expectation) and contain `also`. */
static void expect_error(const char *label, const char *text, const char *want, const char *also)
{
    tb_config cfg;
    char err[512];
    int rc = tb_config_load_buffer(text, strlen(text), "t.yaml", &cfg, err, sizeof err);
    int ok = rc == -1 && strncmp(err, want, strlen(want)) == 0 && (!also || strstr(err, also));
    TAP_OK(ok, "error: %s", label);
    if (!ok)
        printf("#   got rc=%d \"%s\"\n#   want \"%s...\" containing \"%s\"\n", rc, err, want, also ? also : "");
    TAP_OK(cfg.rules == NULL && cfg.topo.leaves == NULL && cfg.nrules == 0, "error: %s leaves nothing allocated",
           label);
    if (rc == 0)
        tb_config_free(&cfg);
}

static int load_text(const char *text, tb_config *cfg, char *err, size_t errlen)
{
    return tb_config_load_buffer(text, strlen(text), "t.yaml", cfg, err, errlen);
}

/* A small valid topology: 2 hosts x 2 sockets x 1 core = 4 leaves (the
 * topology of base_topo and shape_sel, without distances or selection). */
#define TOPO_2X2 \
    "topobcast: 2\n" \
    "topology:\n" \
    "  fingerprint: {nprocs: 4, hosts: [a, b]}\n" \
    "  levels: [node, socket]\n" \
    "  leaves:\n" \
    "    - [0, 0, -1, 0]\n" \
    "    - [0, 1, -1, 1]\n" \
    "    - [1, 0, -1, 0]\n" \
    "    - [1, 1, -1, 1]\n" \
    "  groups:\n" \
    "    node: [[0, 1], [2, 3]]\n" \
    "    socket: [[0], [1], [2], [3]]\n"

static const char *base_topo =
    TOPO_2X2
    "  distance: {unit: us, levels: [5, 1], within: 0.5}\n"
    "selection:\n"
    "  - {comm: 1-inf, bytes: 0-16K, algorithm: binomial}\n"
    "  - {algorithm: default}\n";

static const char *base_sel =
    "topobcast: 1\n"
    "selection:\n"
    "  - {comm: 2-8, bytes: 0-16K, algorithm: binomial}\n"
    "  - {bytes: 16K-1M, algorithm: \"pipeline:segment=64K\"}\n"
    "  - {bytes: 1G-inf, algorithm: binary}\n"
    "  - {algorithm: default}\n";

/* One edit of a base text and the error its load must give (expect_error). */
typedef struct edit_case {
    const char *label;
    const char *const *base; /* &base_sel or &base_topo */
    const char *from, *to;
    const char *want, *also;
} edit_case;

static void expect_edit_errors(const edit_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *t = replace(*c[i].base, c[i].from, c[i].to);
        expect_error(c[i].label, t, c[i].want, c[i].also);
        free(t);
    }
}

/* ---- base lists: run as written or refused when parsed ------------------- */

/* text parsed with cfg (NULL: tb_alg_spec_parse alone): accepted when want
 * is NULL, else refused with a message containing want. */
static void expect_spec(const tb_config *cfg, const char *text, const char *want)
{
    tb_alg_spec spec;
    char err[512] = "";
    int rc = cfg ? tb_config_parse_spec(cfg, text, &spec, err, sizeof err) : tb_alg_spec_parse(text, &spec, err, sizeof err);
    int ok = want ? rc != 0 && strstr(err, want) != NULL : rc == 0;
    TAP_OK(ok, "base list%s: %s %s", cfg ? (cfg->has_topology ? " (topology node, socket)" : " (zero-config)") : "",
           text, want ? "refused" : "accepted");
    if (!ok)
        printf("#   got rc=%d \"%s\"%s%s\n", rc, err, want ? ", want a message containing " : "", want ? want : "");
}

static void test_base_lists(void)
{
    /* shm where a plan can never run it: with a two-tree base */
    expect_spec(NULL, "interpipe:base=dbt/shm,levels=node",
                "base=dbt/shm: shm cannot be combined with dbt, which makes two trees");
    expect_spec(NULL, "magpie2:base=shm/dbt", "base=shm/dbt: shm cannot be combined with dbt");
    expect_spec(NULL, "magpie2:levels=node/socket,base=dbt/binomial/shm", "shm cannot be combined with dbt");
    expect_spec(NULL, "interpipe:levels=node,base=binomial/shm", NULL);
    expect_spec(NULL, "magpie2:base=binomial/shm/binomial", NULL);
    expect_spec(NULL, "interpipe:base=dbt,leaders=2", NULL);
    /* circulant, an exchange among leaders: the coarsest level's only */
    expect_spec(NULL, "magpie2:base=circulant",
                "base=circulant: circulant can only be the coarsest level's base, the first of two or more");
    expect_spec(NULL, "interpipe:base=binomial/circulant", "circulant can only be the coarsest level's base");
    expect_spec(NULL, "interpipe:base=circulant/dbt/binomial", NULL);
    /* more bases than the named levels use: one per level, then the leaf */
    expect_spec(NULL, "interpipe:levels=node,base=binomial/chain/flat",
                "base=binomial/chain/flat lists 3 bases, but with levels=node at most 2 are used");
    expect_spec(NULL, "magpie2:base=binomial/chain/flat,levels=node/socket", NULL);
    expect_spec(NULL, "magpie2:levels=node/socket,base=binomial/chain/flat/flat",
                "lists 4 bases, but with levels=node/socket at most 3 are used");
    /* per-level segments: as many as bases at most */
    expect_spec(NULL, "interpipe:levels=node,segment=64K/32K/16K/8K",
                "segment=65536/32768/16384/8192 lists 4 segments, but with levels=node at most 2 are used");
    expect_spec(NULL, "interpipe:levels=node,segment=64K/16K", NULL);
    /* without levels=, the configuration's levels count */
    tb_config zero, topo;
    char err[512];
    tb_config_builtin(&zero);
    expect_spec(&zero, "magpie2:base=binomial/chain/flat/flat", NULL);
    expect_spec(&zero, "magpie2:segment=1M/256K/64K/16K", NULL);
    expect_spec(&zero, "magpie2:segment=1M/256K/64K/16K/4K",
                "lists 5 segments, but with the zero-configuration hierarchy's 3 levels (node, package, numa) at most 4");
    expect_spec(&zero, "magpie2:base=binomial/chain/flat/flat/binary",
                "lists 5 bases, but with the zero-configuration hierarchy's 3 levels (node, package, numa) at most 4");
    tb_config_free(&zero);
    const char *sel = TOPO_2X2 "selection:\n  - {algorithm: default}\n";
    TAP_OK(load_text(sel, &topo, err, sizeof err) == 0, "base list: the 2-level topology loads (%s)", err);
    expect_spec(&topo, "magpie2:base=binomial/chain/flat", NULL);
    expect_spec(&topo, "interpipe:base=binomial/chain/flat/flat",
                "lists 4 bases, but with the topology's 2 levels (node, socket) at most 3 are used");
    expect_spec(&topo, "interpipe:levels=node,base=binomial/shm", NULL);
    expect_spec(&topo, "interpipe:base=dbt/shm,levels=node", "shm cannot be combined with dbt");
    tb_config_free(&topo);
    /* in a table: the file is refused with the rule's position */
    char *t = replace(base_topo, "algorithm: binomial", "algorithm: \"interpipe:base=dbt/shm,levels=node\"");
    expect_error("a table rule with base=dbt/shm", t, "t.yaml:15:44: expected a valid algorithm: base=dbt/shm: shm cannot",
                 NULL);
    free(t);
    t = replace(base_topo, "algorithm: binomial", "algorithm: \"magpie2:base=flat/flat/flat/binomial\"");
    expect_error("a table rule with more bases than the topology's levels use", t, "t.yaml:15:44: expected a valid algorithm: ",
                 "at most 3 are used");
    free(t);
}

/* ---- examples --------------------------------------------------------------- */

static void test_examples(void)
{
    tb_config cfg;
    char err[512] = "";
    int rc = tb_config_load("config/example-3level.yaml", &cfg, err, sizeof err);
    TAP_OK(rc == 0, "config/example-3level.yaml loads (%s)", err);
    if (rc == 0) {
        const tb_topology *t = &cfg.topo;
        TAP_OK(cfg.has_topology && t->nlevels == 3 && strcmp(t->level_name[0], "island") == 0 &&
                   strcmp(t->level_name[2], "socket") == 0,
               "example: levels island, node, socket");
        TAP_OK(t->nprocs == 12 && t->nleaves == 12 && t->nhosts == 3 && strcmp(t->hosts[2], "n3") == 0,
               "example: fingerprint 12 processes on 3 hosts");
        TAP_OK(t->ngroups[0] == 2 && t->ngroups[1] == 3 && t->ngroups[2] == 6, "example: 2 islands, 3 nodes, 6 sockets");
        TAP_OK(t->group[0][7] == 0 && t->group[0][8] == 1 && t->group[1][5] == 1 && t->group[2][11] == 5,
               "example: groups by calibration rank");
        TAP_OK(t->leaves[10].host == 2 && strcmp(t->hosts[t->leaves[10].host], "n3") == 0 && t->leaves[10].pu == 2 &&
                   t->leaves[10].package == 1 && t->leaves[10].core == 2,
               "example: leaf 10 identity");
        TAP_OK(t->dist.given && t->dist.level[0] == 4.0 && t->dist.level[1] == 1.5 && t->dist.level[2] == 0.6 &&
                   t->dist.within == 0.3 && strcmp(t->dist.unit, "us") == 0,
               "example: distance classes");
        TAP_OK(t->group[0][7] == 0 && t->group[0][8] == 1 && t->group[1][3] == 0 && t->group[1][4] == 1,
               "example: ranges A-B in groups");
        TAP_OK(cfg.nrules == 5 && cfg.rules[2].spec.id == TB_ALG_MAGPIE2 && cfg.rules[2].spec.nbase == 3 &&
                   cfg.rules[3].spec.segment == 128 * 1024 && cfg.rules[2].msg_lo == 8192 &&
                   cfg.rules[2].msg_hi == 1048576 && cfg.rules[1].comm_lo == 3 && cfg.rules[1].comm_hi == LONG_MAX,
               "example: selection rules");
        TAP_OK(strcmp(cfg.source, "config/example-3level.yaml") == 0 && cfg.rules[4].line > cfg.rules[3].line,
               "example: source and rule lines");
        tb_config_free(&cfg);
    }
    rc = tb_config_load("config/selection-only.yaml", &cfg, err, sizeof err);
    TAP_OK(rc == 0, "config/selection-only.yaml loads (%s)", err);
    if (rc == 0) {
        TAP_OK(!cfg.has_topology && cfg.nrules == 5 && cfg.rules[3].spec.id == TB_ALG_SCATTER_ALLGATHER &&
                   cfg.rules[3].spec.ring == TB_RING_DISTANCE,
               "selection-only: no topology, 5 rules");
        tb_config_free(&cfg);
    }
    rc = load_text(base_topo, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "base topology text loads (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
}

static void test_hash(void)
{
    tb_config a, b, c, d;
    char err[512];
    char *other = replace(base_topo, "0-16K", "0-32K");
    load_text(base_topo, &a, err, sizeof err);
    load_text(base_topo, &b, err, sizeof err);
    load_text(other, &c, err, sizeof err);
    TAP_OK(a.hash == b.hash && a.hash != c.hash, "hash: equal bytes hash equal, a changed rule changes it");
    TAP_OK(a.hash == tb_config_hash_bytes(base_topo, strlen(base_topo)), "hash: FNV-1a of the file bytes");
    tb_config_builtin(&d);
    tb_config e;
    tb_config_builtin(&e);
    TAP_OK(d.hash == e.hash && d.hash != a.hash && strcmp(d.source, "<built-in>") == 0,
           "hash: built-in table hashes the same every time");
    tb_config_free(&a);
    tb_config_free(&b);
    tb_config_free(&c);
    tb_config_free(&d);
    tb_config_free(&e);
    free(other);
}

/* ---- every malformed case names file:line:column and what was expected ------- */

static void test_errors(void)
{
    char *t;
    expect_error("bad YAML syntax", "topobcast: 1\nselection: [\n  {algorithm: default\n",
                 "t.yaml:4:1: expected valid YAML: ", NULL);
    expect_error("tab indentation", "topobcast: 1\nselection:\n\t- {algorithm: default}\n", "t.yaml:3:1: expected valid YAML: ",
                 "cannot start any token");
    expect_error("empty file", "", "t.yaml:1:1: expected a mapping starting with 'topobcast: 2', the file is empty", NULL);
    expect_error("not a mapping", "- 1\n- 2\n", "t.yaml:1:1: expected a mapping starting with 'topobcast: 2', got a list",
                 NULL);
    expect_error("missing version", "selection: [{algorithm: default}]\n", "t.yaml:1:1: expected key 'topobcast' in the top level",
                 NULL);
    expect_error("wrong version", "topobcast: 3\n", "t.yaml:1:12: expected format version 2 ('topobcast: 2'; 1 for a file without a topology), got '3'",
                 NULL);
    expect_error("unknown top-level key", "topobcast: 1\nselectoin: []\n",
                 "t.yaml:2:1: expected one of the keys topobcast, topology, selection, meta in the top level, got 'selectoin'",
                 NULL);
    expect_error("duplicate key", "topobcast: 1\nselection: [{algorithm: default}]\ntopobcast: 1\n",
                 "t.yaml:3:1: expected each key once in the top level: 'topobcast' already appears at line 1", NULL);
    expect_error("two documents", "topobcast: 1\n---\ntopobcast: 1\n", "t.yaml:2:1: expected a single YAML document", NULL);
    expect_error("alias", "topobcast: 1\nselection:\n  - &r {algorithm: default}\n  - *r\n",
                 "t.yaml:4:5: expected no aliases, got '*r' (anchors and aliases are not supported)", NULL);
    {
        /* deep nesting is refused early (libyaml is quadratic in it) */
        size_t depth = 200000;
        char *deep = malloc(2 * depth + 32);
        strcpy(deep, "topobcast: 1\nmeta: ");
        size_t o = strlen(deep);
        memset(deep + o, '[', depth);
        memset(deep + o + depth, ']', depth);
        strcpy(deep + o + 2 * depth, "\n");
        expect_error("deep nesting", deep, "t.yaml:2:70: expected at most 64 nested lists or mappings", NULL);
        free(deep);
    }
    expect_error("invalid UTF-8", "topobcast: 1\nmeta: \"\xff\xfe\"\n", "t.yaml:2:", "expected valid UTF-8 YAML text");

    {
        /* found by the fuzzer: user text with line breaks quoted in the
         * message must not split the one-line warning */
        const char *text = "topobcast: 1\nselection:\n  - {algorithm: \"pipeline:segment=8Ko\r\r\rment=8K\"}\n"
                           "  - {algorithm: default}\n";
        tb_config cfg;
        char err[512];
        int rc = tb_config_load_buffer(text, strlen(text), "t.yaml", &cfg, err, sizeof err);
        TAP_OK(rc == -1 && strncmp(err, "t.yaml:3:17: expected a valid algorithm: segment=8Ko?", 53) == 0 &&
                   !strchr(err, '\n') && !strchr(err, '\r'),
               "error: one line even when the text quoted has line breaks (%s)", err);
    }

    /* selection */
    static const edit_case selection_edits[] = {
        {"unknown key in a rule", &base_sel,
         "algorithm: binary", "algoritm: binary",
         "t.yaml:5:21: expected one of the keys comm, bytes, nodes, ppn, ppn_max, consecutive, levels, groups, algorithm in a selection rule, got 'algoritm'", NULL},
        {"unknown algorithm", &base_sel,
         "algorithm: binary", "algorithm: binomail",
         "t.yaml:5:32: expected a valid algorithm: unknown algorithm 'binomail'", "binomial"},
        {"unknown algorithm parameter", &base_sel,
         "segment=64K", "segmnt=64K",
         "t.yaml:4:32: expected a valid algorithm: ", "no parameter 'segmnt'"},
        {"algorithm parameter given twice", &base_sel,
         "segment=64K", "segment=64K,segment=8K",
         "t.yaml:4:32: expected a valid algorithm: ", "'segment' given twice"},
        {"bad size suffix", &base_sel,
         "0-16K", "0-16Q",
         "t.yaml:3:24: expected a message-size range in bytes as LO-HI or one value, with sizes like 512, 16K, 4M, 1G "
         "and 'inf' as the upper bound, got '0-16Q'", NULL},
        {"inf as lower bound", &base_sel,
         "1G-inf", "inf-inf",
         "t.yaml:5:13: expected a message-size range in bytes as LO-HI", "got 'inf-inf'"},
        {"empty range", &base_sel,
         "0-16K", "16K-1K",
         "t.yaml:3:24: expected a non-empty range (LO <= HI), got '16K-1K'", NULL},
        {"communicator size 0", &base_sel,
         "comm: 2-8", "comm: 0-8",
         "t.yaml:3:12: expected communicator sizes of at least 1, got '0-8'", NULL},
        /* found by fuzz_config: 10000000000G wrapped to a negative long */
        {"communicator sizes from past INT_MAX", &base_sel,
         "comm: 2-8", "comm: 10000000000G-inf",
         "t.yaml:3:12: expected communicator sizes up to 2147483647 or 'inf', got '10000000000G-inf'", NULL},
        {"node counts from past INT_MAX", &base_sel,
         "comm: 2-8", "nodes: 2147483648-inf",
         "t.yaml:3:13: expected node counts up to 2147483647 or 'inf', got '2147483648-inf'", NULL},
        {"rule hidden by an earlier rule", &base_sel,
         "{bytes: 1G-inf, algorithm: binary}", "{comm: 4-6, bytes: 1K-8K, algorithm: binary}",
         "t.yaml:5:5: expected a rule that can match: every case it covers is already matched by earlier rules", NULL},
        /* comm 1 by the new rule, comm 2-8 by rule 0: neither alone */
        {"rule hidden by earlier rules across communicator sizes", &base_sel,
         "{bytes: 1G-inf, algorithm: binary}",
         "{comm: 1-4, bytes: 0-4K, algorithm: chain}\n  - {comm: 1-8, bytes: 0-1K, algorithm: binary}",
         "t.yaml:6:5: expected a rule that can match", NULL},
        /* 1K-16K by rule 0, 16K-64K by rule 1 */
        {"rule hidden by earlier rules across message sizes", &base_sel,
         "{bytes: 1G-inf, algorithm: binary}", "{comm: 3-4, bytes: 1K-64K, algorithm: binary}",
         "t.yaml:5:5: expected a rule that can match", NULL},
        {"missing final default", &base_sel,
         "  - {algorithm: default}\n", "",
         "t.yaml:5:5: expected the last rule to match every communicator and message size", NULL},
        {"final rule missing 0 bytes", &base_sel,
         "  - {algorithm: default}\n", "  - {comm: 1-inf, bytes: 1-inf, algorithm: default}\n",
         "t.yaml:6:5: expected the last rule to match every", NULL},
    };
    expect_edit_errors(selection_edits, sizeof selection_edits / sizeof selection_edits[0]);
    t = replace(base_sel, "{bytes: 1G-inf, algorithm: binary}", "{comm: 3-9, bytes: 1K-64K, algorithm: binary}");
    tb_config ok_cfg;
    char ok_err[512];
    TAP_OK(tb_config_load_buffer(t, strlen(t), "t.yaml", &ok_cfg, ok_err, sizeof ok_err) == 0,
           "a rule reachable at one point (comm 9, bytes 1K-16K) is accepted (%s)", ok_err);
    tb_config_free(&ok_cfg);
    free(t);
    expect_error("empty selection", "topobcast: 1\nselection: []\n", "t.yaml:2:12: expected at least one selection rule",
                 NULL);
    expect_error("rule without algorithm", "topobcast: 1\nselection:\n  - {comm: 1-inf}\n",
                 "t.yaml:3:5: expected key 'algorithm' in a selection rule", NULL);
    expect_error("levels not in the zero-config hierarchy", "topobcast: 1\nselection:\n  - {algorithm: \"magpie:levels=rack\"}\n",
                 "t.yaml:3:17: expected levels named in the zero-configuration hierarchy (node, package, numa), got 'rack'",
                 NULL);

    /* topology */
    static const edit_case topology_edits[] = {
        {"levels not in the topology", &base_topo,
         "algorithm: binomial", "algorithm: \"magpie:levels=node/rack\"",
         "t.yaml:15:44: expected levels named in the topology (node, socket), got 'rack'", NULL},
        /* a packed list's item: its position found by parsing again */
        {"group referencing an unknown rank", &base_topo,
         "socket: [[0], [1], [2], [3]]", "socket: [[0], [1], [2], [3, 4]]",
         "t.yaml:12:33: expected a leaf rank (an integer from 0 to 3), got '4'", NULL},
        {"group range beyond the leaves", &base_topo,
         "socket: [[0], [1], [2], [3]]", "socket: [[0], [1], [2-4]]",
         "t.yaml:12:25: expected a leaf rank (an integer from 0 to 3) or a range A-B of them (A <= B), got '2-4'", NULL},
        {"group range backwards", &base_topo,
         "node: [[0, 1], [2, 3]]", "node: [[1-0], [2, 3]]",
         "t.yaml:11:13: expected a leaf rank (an integer from 0 to 3) or a range A-B of them (A <= B), got '1-0'", NULL},
        {"group range overlapping another group", &base_topo,
         "node: [[0, 1], [2, 3]]", "node: [[0, 1], [1-3]]",
         "t.yaml:11:21: expected each rank in one group of level 'node': rank 1 is already in the group at line 11", NULL},
        {"level groups not covering all leaves", &base_topo,
         "socket: [[0], [1], [2], [3]]", "socket: [[0], [1], [2]]",
         "t.yaml:12:13: expected the groups of level 'socket' to cover every leaf; rank 3 is in none", NULL},
        {"rank in two groups", &base_topo,
         "socket: [[0], [1], [2], [3]]", "socket: [[0], [1, 2], [2], [3]]",
         "t.yaml:12:28: expected each rank in one group of level 'socket': rank 2 is already in the group at line 12", NULL},
        {"group not nested in the level above", &base_topo,
         "socket: [[0], [1], [2], [3]]", "socket: [[0], [1, 2], [3]]",
         "t.yaml:12:19: expected each group of level 'socket' inside one group of level 'node'; ranks 1 and 2", NULL},
        {"empty group", &base_topo,
         "socket: [[0], [1], [2], [3]]", "socket: [[0], [], [1], [2], [3]]",
         "t.yaml:12:19: expected a non-empty group of level 'socket'", NULL},
        {"level without groups", &base_topo,
         "    socket: [[0], [1], [2], [3]]\n", "",
         "t.yaml:11:5: expected key 'socket' in the groups (one entry per level)", NULL},
        {"groups for an unknown level", &base_topo,
         "    node: [[0, 1], [2, 3]]\n", "    node: [[0, 1], [2, 3]]\n    rack: [[0, 1, 2, 3]]\n",
         "t.yaml:12:5: expected one of the keys node, socket in the groups", "got 'rack'"},
        /* format 1's matrix is refused where it starts, before its P^2
         * values are read */
        {"per-pair distance matrix (format 1)", &base_topo,
         "  distance: {unit: us, levels: [5, 1], within: 0.5}\n",
         "  distance:\n    - [0, 1, 5, 5]\n    - [1, 0, 5, 5]\n    - [5, 5, 0, 1]\n    - [5, 5, 1, 0]\n",
         "t.yaml:14:5: expected the distance classes {unit: us, levels: [...], within: x}; a per-pair distance matrix "
         "(format 1) is not read: re-run topobcast-probe", NULL},
        {"distance classes: one per level", &base_topo,
         "levels: [5, 1]", "levels: [5, 1, 0.5]",
         "t.yaml:13:32: expected 2 distances, one per level (coarsest first), got 3", NULL},
        {"distance classes: negative", &base_topo,
         "levels: [5, 1]", "levels: [5, -1]",
         "t.yaml:13:36: expected a distance (a finite number >= 0), got '-1'", NULL},
        {"distance classes: growing toward finer levels", &base_topo,
         "levels: [5, 1]", "levels: [1, 5]",
         "t.yaml:13:36: expected distances that do not grow toward finer levels: level 'node' is 1, level 'socket' is 5",
         NULL},
        {"distance classes: within above the finest level", &base_topo,
         "within: 0.5", "within: 2",
         "t.yaml:13:48: expected distances that do not grow toward finer levels: level 'socket' is 1, within is 2", NULL},
        {"distance classes: within missing", &base_topo,
         ", within: 0.5}", "}",
         "t.yaml:13:13: expected key 'within' in the distance classes", NULL},
        {"distance classes: unknown key", &base_topo,
         "unit: us", "units: us",
         "t.yaml:13:14: expected one of the keys unit, levels, within in the distance classes, got 'units'", NULL},
        {"leaf count differs from nprocs", &base_topo,
         "nprocs: 4", "nprocs: 5",
         "t.yaml:6:5: expected 5 leaves (fingerprint nprocs), got 4", NULL},
        {"leaf host not in the fingerprint", &base_topo,
         "    - [1, 1, -1, 1]", "    - [2, 1, -1, 1]",
         "t.yaml:9:8: expected a host index into the fingerprint's hosts (an integer from 0 to 1), got '2'", NULL},
        {"fingerprint host without leaf", &base_topo,
         "hosts: [a, b]", "hosts: [a, b, c]",
         "t.yaml:3:42: expected every fingerprint host to have a leaf; 'c' has none", NULL},
        {"duplicate host", &base_topo,
         "hosts: [a, b]", "hosts: [a, a]",
         "t.yaml:3:39: expected each host once: 'a' is already listed", NULL},
        {"leaf in format 1 (a mapping)", &base_topo,
         "    - [1, 1, -1, 1]", "    - {rank: 3, host: b, pu: 1}",
         "t.yaml:9:7: expected the leaf of calibration rank 3 as [host, pu] or [host, pu, core, package, numa]",
         "got a mapping"},
        {"leaf too long", &base_topo,
         "    - [0, 1, -1, 1]", "    - [0, 1, -1, 1, 0, 7]",
         "t.yaml:7:7: expected the leaf of calibration rank 1 as [host, pu]", "got a list of another length"},
        {"leaf too short", &base_topo,
         "    - [0, 1, -1, 1]", "    - [0]",
         "t.yaml:7:7: expected the leaf of calibration rank 1 as", NULL},
        {"two leaves on one PU", &base_topo,
         "    - [1, 1, -1, 1]", "    - [1, 0, -1, 1]",
         "t.yaml:9:7: expected each (host, pu) once: ranks 2 and 3 are both on b PU 0", NULL},
        {"non-integer PU", &base_topo,
         "    - [0, 1, -1, 1]", "    - [0, x1, -1, 1]",
         "t.yaml:7:11: expected an hwloc logical index or -1 (an integer from -1 to", "got 'x1'"},
        {"PU below -1", &base_topo,
         "    - [0, 1, -1, 1]", "    - [0, -2, -1, 1]",
         "t.yaml:7:11: expected an hwloc logical index or -1 (an integer from -1 to", "got '-2'"},
        {"duplicate level", &base_topo,
         "levels: [node, socket]", "levels: [node, node]",
         "t.yaml:4:18: expected each level once: 'node' is already listed", NULL},
        {"bad level name", &base_topo,
         "levels: [node, socket]", "levels: [node, so/cket]",
         "t.yaml:4:18: expected a level name (1 to 31 letters, digits, '_' or '-'), got 'so/cket'", NULL},
        {"topology without levels", &base_topo,
         "  levels: [node, socket]\n", "",
         "t.yaml:3:3: expected key 'levels' in the topology", NULL},
        {"topology in a format-1 file", &base_topo,
         "topobcast: 2", "topobcast: 1",
         "t.yaml:3:3: expected a topology of format 2 ('topobcast: 2'); format 1 (one mapping per leaf, a P x P "
         "distance matrix) is not read: re-run topobcast-probe", NULL},
    };
    expect_edit_errors(topology_edits, sizeof topology_edits / sizeof topology_edits[0]);
    {
        /* the version after the topology: refused once the whole is read */
        char *late = replace(base_topo, "topobcast: 2\n", "");
        size_t n = strlen(late);
        late = realloc(late, n + 16);
        strcpy(late + n, "topobcast: 1\n");
        expect_error("topology before 'topobcast: 1'", late,
                     "t.yaml:2:3: expected a topology of format 2 ('topobcast: 2'); format 1", NULL);
        free(late);
    }

    tb_config cfg;
    char err[512];
    int rc = tb_config_load("config/does-not-exist.yaml", &cfg, err, sizeof err);
    TAP_OK(rc == -1 && strcmp(err, "config/does-not-exist.yaml: expected a readable file: No such file or directory") == 0,
           "error: missing file (%s)", err);
}

/* The one size parser of the library and the tools. */
static void test_parse_size(void)
{
    const struct {
        const char *text;
        int ok;
        size_t want;
    } cases[] = {
        {"0", 1, 0},          {"65536", 1, 65536},   {"64K", 1, 65536},    {"64k", 1, 65536},
        {"64KB", 1, 65536},   {"64KiB", 1, 65536},   {"1M", 1, 1 << 20},   {"2G", 1, (size_t)2 << 30},
        {"1.5K", 1, 1536},    {"0.5M", 1, 1 << 19},  {"7B", 1, 7},         {"1.3K", 0, 0},
        {"1.5", 0, 0},        {"", 0, 0},            {"-1", 0, 0},         {"+5", 0, 0},
        {"K", 0, 0},          {"64X", 0, 0},         {"64Ki", 1, 65536},   {"1.K", 0, 0},
        {"99999999999999999999", 0, 0},              {"17179869184G", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = 12345;
        int ok = tb_parse_size(cases[i].text, &v) == 0;
        TAP_OK(ok == cases[i].ok && (!ok || v == cases[i].want), "size '%s': %s %zu", cases[i].text,
               ok ? "parsed" : "refused", ok ? v : 0);
    }
}

/* Paths that are not regular files, or too large, fail at once: before the
 * fix /dev/zero fed the reader forever and a FIFO blocked the open. */
static void test_load_paths(void)
{
    tb_config cfg;
    char err[512], dir[] = "/tmp/tb_cfg_XXXXXX", fifo[600], big[600];
    if (!mkdtemp(dir)) {
        TAP_OK(0, "mkdtemp");
        return;
    }
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(big, sizeof big, "%s/big.yaml", dir);
    const struct {
        const char *path, *want;
    } bad[] = {
        {"/dev/zero", "/dev/zero: expected a regular file, this is a character device"},
        {"/dev/urandom", "/dev/urandom: expected a regular file, this is a character device"},
        {dir, "expected a regular file, this is a directory"},
        {fifo, "/fifo: expected a regular file, this is a FIFO"},
    };
    TAP_OK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = tb_config_load(bad[i].path, &cfg, err, sizeof err);
        TAP_OK(rc == -1 && strstr(err, bad[i].want), "not a regular file: %s (%s)", bad[i].path, err);
    }
    /* a valid file over the limit is refused; at the limit it loads */
    FILE *f = fopen(big, "w");
    fputs("topobcast: 1\nselection:\n  - {algorithm: binomial}\n", f);
    long n = ftell(f);
    fclose(f);
    char lim[32];
    snprintf(lim, sizeof lim, "%ld", n - 1);
    setenv("TOPOBCAST_CONFIG_MAX_BYTES", lim, 1);
    int rc = tb_config_load(big, &cfg, err, sizeof err);
    TAP_OK(rc == -1 && strstr(err, "expected at most") && strstr(err, "TOPOBCAST_CONFIG_MAX_BYTES"),
           "file over TOPOBCAST_CONFIG_MAX_BYTES=%s refused (%s)", lim, err);
    snprintf(lim, sizeof lim, "%ld", n);
    setenv("TOPOBCAST_CONFIG_MAX_BYTES", lim, 1);
    rc = tb_config_load(big, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.nrules == 1, "file of exactly TOPOBCAST_CONFIG_MAX_BYTES=%s loads (%s)", lim, rc ? err : "");
    if (rc == 0)
        tb_config_free(&cfg);
    /* a limit that is not a size is the default's, as any bad knob */
    const char *notsize[] = {"lots", "0", "1T"};
    for (int i = 0; i < 3; i++) {
        setenv("TOPOBCAST_CONFIG_MAX_BYTES", notsize[i], 1);
        int said_bad = 0;
        TAP_OK(tb_config_max_bytes(&said_bad) == TB_CONFIG_MAX_BYTES_DEFAULT && said_bad,
               "TOPOBCAST_CONFIG_MAX_BYTES='%s': the default, said bad", notsize[i]);
    }
    rc = tb_config_load(big, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.nrules == 1, "a file loads under a bad limit, by the default's (%s)", rc ? err : "");
    if (rc == 0)
        tb_config_free(&cfg);
    setenv("TOPOBCAST_CONFIG_MAX_BYTES", "1K", 1);
    int said_bad = 1;
    TAP_OK(tb_config_max_bytes(&said_bad) == 1024 && !said_bad, "TOPOBCAST_CONFIG_MAX_BYTES=1K: 1024");
    unsetenv("TOPOBCAST_CONFIG_MAX_BYTES");
    TAP_OK(tb_config_max_bytes(&said_bad) == TB_CONFIG_MAX_BYTES_DEFAULT && !said_bad, "default limit, unset is not bad");
    unlink(fifo);
    unlink(big);
    rmdir(dir);
}

/* ---- selection ------------------------------------------------------------------ */

/* The index of the rule a communicator of shape s selects for bytes. */
static int pick_shape(const tb_config *cfg, tb_shape s, size_t bytes)
{
    int i = -2;
    return tb_config_select(cfg, &s, bytes, &i) ? i : -1;
}

/* A communicator of which only the size is known: the size-only rules. */
static int pick(const tb_config *cfg, int comm, size_t bytes)
{
    tb_shape s;
    tb_shape_unknown(&s, comm);
    return pick_shape(cfg, s, bytes);
}

static void test_select(void)
{
    tb_config cfg;
    char err[512] = "";
    int rc = load_text(base_sel, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "selection table loads (%s)", err);
    if (rc != 0)
        return;
    TAP_OK(cfg.rules[0].msg_hi == 16384 && cfg.rules[1].msg_hi == 1048576 && cfg.rules[2].msg_lo == 1073741824 &&
               cfg.rules[2].msg_hi == SIZE_MAX && cfg.rules[1].comm_lo == 1 && cfg.rules[1].comm_hi == LONG_MAX,
           "select: K/M/G are binary units, inf and absent keys span everything");
    TAP_OK(pick(&cfg, 4, 16384) == 0, "select: 16K is inside 0-16K (inclusive upper bound)");
    TAP_OK(pick(&cfg, 4, 16385) == 1, "select: 16K+1 goes to the next rule");
    TAP_OK(pick(&cfg, 8, 0) == 0 && pick(&cfg, 2, 0) == 0, "select: comm 2-8 inclusive at both ends");
    TAP_OK(pick(&cfg, 9, 16384) == 1, "select: comm 9 skips rule 0, 16K matches 16K-1M");
    TAP_OK(pick(&cfg, 1, 0) == 3 && pick(&cfg, 9, 0) == 3, "select: uncovered cases reach the final default");
    TAP_OK(pick(&cfg, 4, 1048576) == 1 && pick(&cfg, 4, 1048577) == 3, "select: 1M inclusive, 1M+1 to the default");
    TAP_OK(pick(&cfg, 4, 1073741823) == 3 && pick(&cfg, 4, 1073741824) == 2, "select: 1G is where 1G-inf starts");
    TAP_OK(pick(&cfg, INT_MAX, SIZE_MAX) == 2, "select: inf includes SIZE_MAX");
    TAP_OK(cfg.rules[1].spec.id == TB_ALG_PIPELINE && cfg.rules[1].spec.segment == 65536 &&
               cfg.rules[3].spec.id == TB_ALG_DEFAULT,
           "select: algorithm specs parsed with parameters");
    tb_config_free(&cfg);

    /* a partial overlap is legal: first match wins */
    const char *overlap = "topobcast: 1\nselection:\n"
                          "  - {comm: 1-8, bytes: 0-1K, algorithm: binomial}\n"
                          "  - {comm: 4-16, bytes: 512-64K, algorithm: chain}\n"
                          "  - {algorithm: default}\n";
    rc = load_text(overlap, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "select: partially overlapping rules load (%s)", err);
    if (rc == 0) {
        TAP_OK(pick(&cfg, 6, 600) == 0 && pick(&cfg, 6, 2000) == 1 && pick(&cfg, 12, 600) == 1 &&
                   pick(&cfg, 12, 100) == 2,
               "select: overlap resolved by order");
        tb_config_free(&cfg);
    }
    /* an exact K boundary also shared: 0-16K then 16K-inf */
    const char *shared = "topobcast: 1\nselection:\n"
                         "  - {bytes: 0-16K, algorithm: binomial}\n"
                         "  - {bytes: 16K-inf, algorithm: pipeline}\n"
                         "  - {algorithm: default}\n";
    rc = load_text(shared, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && pick(&cfg, 3, 16384) == 0 && pick(&cfg, 3, 16385) == 1 && pick(&cfg, 3, 0) == 0,
           "select: shared boundary goes to the first rule; a covered final default is allowed (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
    const char *single = "topobcast: 1\nselection:\n"
                         "  - {comm: 2, bytes: 4M, algorithm: binary}\n"
                         "  - {algorithm: default}\n";
    rc = load_text(single, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && pick(&cfg, 2, 4194304) == 0 && pick(&cfg, 2, 4194305) == 1 && pick(&cfg, 3, 4194304) == 1,
           "select: a single value is a one-point range (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);

    tb_config_builtin(&cfg);
    TAP_OK(cfg.nrules >= 1 && tb_rule_matches_all(&cfg.rules[cfg.nrules - 1]) && !cfg.has_topology,
           "builtin: ends with a catch-all");
    int all_default = 1;
    for (int c = 1; c <= 4096; c *= 2)
        for (size_t b = 0; b < ((size_t)1 << 30); b = b * 4 + 1) {
            tb_shape sh;
            tb_shape_unknown(&sh, c);
            const tb_rule *r = tb_config_select(&cfg, &sh, b, NULL);
            all_default &= r && r->spec.id == TB_ALG_DEFAULT;
        }
    TAP_OK(all_default, "builtin: conservative, PMPI_Bcast everywhere");
    tb_config_free(&cfg);

    /* a topology-only file gets the built-in table */
    char *topo_only = replace(base_topo, "selection:\n  - {comm: 1-inf, bytes: 0-16K, algorithm: binomial}\n  - {algorithm: default}\n", "");
    rc = load_text(topo_only, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.has_topology && cfg.nrules >= 1 && pick(&cfg, 5, 100) == cfg.nrules - 1,
           "topology-only file uses the built-in table (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
    free(topo_only);
}

/* ---- mapping --------------------------------------------------------------------- */

/* The identity calibration rank `leaf` had, running as world rank wr
 * (with its host name followed by suffix). */
static tb_identity leaf_identity_named(const tb_config *cfg, int leaf, int wr, const char *suffix)
{
    tb_identity id;
    memset(&id, 0, sizeof id);
    const tb_topo_leaf *l = &cfg->topo.leaves[leaf];
    snprintf(id.host, sizeof id.host, "%s%s", cfg->topo.hosts[l->host], suffix);
    id.bound = l->pu >= 0;
    id.pu = l->pu;
    id.core = l->core;
    id.package = l->package;
    id.numa = l->numa;
    id.node = 0;
    id.world_rank = wr;
    return id;
}

/* ... as the ranks exchange it */
static tb_ident_rec leaf_identity(const tb_config *cfg, int leaf, int wr)
{
    tb_identity id = leaf_identity_named(cfg, leaf, wr, "");
    return tb_ident_rec_of(&id);
}

/* Same group at every kept level iff same group in the topology. */
static int consistent(const tb_hier *h, const tb_config *cfg, const int *leaf_of)
{
    const tb_topology *t = &cfg->topo;
    for (int l = 0; l < h->nlevels; l++) {
        int tl = -1;
        for (int k = 0; k < t->nlevels; k++)
            if (strcmp(t->level_name[k], h->level_name[l]) == 0)
                tl = k;
        if (tl < 0)
            return 0;
        for (int a = 0; a < h->size; a++)
            for (int b = 0; b < h->size; b++) {
                int same_h = h->group[l][a] == h->group[l][b];
                int same_t = t->group[tl][leaf_of[a]] == t->group[tl][leaf_of[b]];
                if (same_h != same_t || h->group[l][a] < 0 || h->group[l][a] >= h->ngroups[l])
                    return 0;
            }
    }
    return 1;
}

static int levels_are(const tb_hier *h, const char *names)
{
    char buf[256] = "";
    for (int l = 0; l < h->nlevels; l++) {
        char item[64];
        snprintf(item, sizeof item, "%s%s(%d)", l ? "," : "", h->level_name[l], h->ngroups[l]);
        strcat(buf, item);
    }
    if (strcmp(buf, names) != 0)
        printf("#   levels %s, want %s\n", buf, names);
    return strcmp(buf, names) == 0;
}

static void test_derive_topology(void)
{
    tb_config cfg;
    char err[512], why[256];
    if (tb_config_load("config/example-3level.yaml", &cfg, err, sizeof err) != 0) {
        TAP_OK(0, "derive: example loads (%s)", err);
        return;
    }
    tb_ident_rec ids[12];
    tb_hier h;

    /* the job's rank order differs from the calibration's */
    int perm[12] = {11, 3, 7, 0, 9, 5, 1, 10, 2, 8, 4, 6};
    for (int r = 0; r < 12; r++)
        ids[r] = leaf_identity(&cfg, perm[r], r);
    int rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && why[0] == 0, "derive: permuted ranks map (%s)", why);
    if (rc == 0) {
        TAP_OK(levels_are(&h, "island(2),node(3),socket(6)") && consistent(&h, &cfg, perm),
               "derive: permuted ranks keep the topology's groups");
        /* the documented classes: 4 apart across islands, 1.5 across
         * nodes, 0.6 across sockets, 0.3 within one */
        const tb_topo_dist *td = &cfg.topo.dist;
        int dist_ok = h.dclass != NULL;
        for (int a = 0; a < 12 && dist_ok; a++)
            for (int b = 0; b < 12; b++) {
                const tb_topology *t = &cfg.topo;
                int la = perm[a], lb = perm[b];
                double want = a == b ? 0
                            : t->group[0][la] != t->group[0][lb] ? td->level[0]
                            : t->group[1][la] != t->group[1][lb] ? td->level[1]
                            : t->group[2][la] != t->group[2][lb] ? td->level[2]
                                                                 : td->within;
                dist_ok &= tb_hier_distance(&h, a, b) == want;
            }
        TAP_OK(dist_ok, "derive: tb_hier_distance gives the class of the coarsest differing level, every pair");
        TAP_OK(h.group[0][0] == h.group[0][4] && h.group[0][0] != h.group[0][1],
               "derive: ranks 0 (leaf 11) and 4 (leaf 9) share island 1; rank 1 (leaf 3) does not");
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        tb_hier_print(&h, ids, &cfg.topo, NULL, mem);
        fclose(mem);
        TAP_OK(buf && strstr(buf, "12 ranks, 3 levels: island(2) node(3) socket(6), distances 4/1.5/0.6/0.3\n") &&
                   strstr(buf, "island 0: 4 ranks 0,4,7,9 on n3\n") && strstr(buf, "    socket 0: 2 ranks 0,7 on n3\n") &&
                   strstr(buf, "  node 0: 4 ranks 1,3,6,8 on n1\n") &&
                   strstr(buf, "island 1: 8 ranks 1-3,5-6,8,10-11\n"),
               "print: short tree with levels, ranks and hosts");
        if (buf)
            printf("%s", buf);
        free(buf);
        /* same inputs, same answer */
        tb_hier h2;
        tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h2, NULL, why, sizeof why);
        int same = h2.nlevels == h.nlevels;
        for (int l = 0; l < h.nlevels && same; l++)
            same = memcmp(h.group[l], h2.group[l], sizeof(int) * 12) == 0;
        TAP_OK(same, "derive: deterministic");
        tb_hier_free(&h2);
        tb_hier_free(&h);
    }

    /* a sub-communicator: groups restricted to the members */
    int sub[5] = {9, 0, 4, 8, 1};
    for (int r = 0; r < 5; r++)
        ids[r] = leaf_identity(&cfg, sub[r], sub[r]);
    rc = tb_topo_derive(ids, 5, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0, "derive: sub-communicator of 5 maps (%s)", why);
    if (rc == 0) {
        /* socket equals node on these members: repeated level dropped */
        TAP_OK(levels_are(&h, "island(2),node(3)") && consistent(&h, &cfg, sub), "derive: sub-communicator levels");
        /* socket dropped as a repeat of node: its class goes with it */
        TAP_OK(h.dclass && h.dclass[0] == 4.0 && h.dclass[1] == 1.5 && h.dclass[2] == 0.3 &&
                   tb_hier_distance(&h, 0, 1) == 4.0 && tb_hier_distance(&h, 1, 4) == 0.3 &&
                   tb_hier_distance(&h, 1, 2) == 1.5 && tb_hier_distance(&h, 0, 3) == 0.3,
               "derive: sub-communicator distance classes 4/1.5/0.3");
        tb_hier_free(&h);
    }
    int one_node[4] = {3, 2, 1, 0};
    for (int r = 0; r < 4; r++)
        ids[r] = leaf_identity(&cfg, one_node[r], r);
    rc = tb_topo_derive(ids, 4, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "socket(2)") && consistent(&h, &cfg, one_node) && h.dclass &&
               h.dclass[0] == 0.6 && h.dclass[1] == 0.3,
           "derive: one node's ranks keep only the socket level, classes 0.6/0.3 (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);

    /* unbound ranks: placed by host only, levels that split hosts dropped */
    int ident[12];
    for (int r = 0; r < 12; r++) {
        ident[r] = r;
        ids[r] = leaf_identity(&cfg, r, r);
    }
    ids[5].pu = -1; /* not bound */
    rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && strstr(why, "1 of 12 ranks not bound to a PU of the topology"), "derive: one unbound rank maps (%s)",
           why);
    if (rc == 0) {
        TAP_OK(levels_are(&h, "island(2),node(3)") && consistent(&h, &cfg, ident),
               "derive: unbound rank drops the socket level");
        tb_hier_free(&h);
    }
    for (int r = 0; r < 12; r++) {
        ids[r].pu = -1;
    }
    rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "island(2),node(3)"), "derive: all unbound keeps island and node (%s)", why);
    if (rc == 0) {
        TAP_OK(h.dclass && tb_hier_distance(&h, 0, 1) == 0.3 && tb_hier_distance(&h, 0, 4) == 1.5 &&
                   tb_hier_distance(&h, 0, 8) == 4.0,
               "derive: unbound distances: the closest class on one host, the measured classes across hosts");
        tb_hier_free(&h);
    }
    /* bound, but to a PU the calibration did not use: host only */
    for (int r = 0; r < 12; r++)
        ids[r] = leaf_identity(&cfg, r, r);
    ids[2].pu = 7;
    rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "island(2),node(3)"), "derive: unknown PU falls back to the host (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);
    /* domain-qualified host names match the short names in the file */
    for (int r = 0; r < 12; r++) {
        tb_identity id = leaf_identity_named(&cfg, r, r, ".cluster.example");
        ids[r] = tb_ident_rec_of(&id);
    }
    rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "island(2),node(3),socket(6)"), "derive: n1.cluster.example matches n1 (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);

    /* failures, each with its one-line reason */
    for (int r = 0; r < 12; r++)
        ids[r] = leaf_identity(&cfg, r, r);
    {
        tb_identity n9 = leaf_identity_named(&cfg, 3, 3, "");
        snprintf(n9.host, sizeof n9.host, "n9");
        ids[3] = tb_ident_rec_of(&n9);
    }
    int unknown = -2;
    rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, &unknown, why, sizeof why);
    TAP_OK(rc == -1 && unknown == 3 &&
               strcmp(why, "the host of world rank 3 is not in the topology measured on 3 hosts (n1,n2,n3)") == 0,
           "derive: host not in the topology, rank 3 named (%s)", why);
    ids[3] = leaf_identity(&cfg, 3, 3);
    /* a job of another size on the same hosts: 8 of the 12 places, the
     * topology's process count does not matter */
    int eight[8] = {0, 1, 2, 3, 8, 9, 10, 11};
    for (int r = 0; r < 8; r++)
        ids[r] = leaf_identity(&cfg, eight[r], r);
    rc = tb_topo_derive(ids, 8, tb_config_topology(&cfg), &h, &unknown, why, sizeof why);
    TAP_OK(rc == 0 && unknown == -1 && consistent(&h, &cfg, eight), "derive: a job of 8 on a topology measured with 12 (%s)",
           why);
    if (rc == 0)
        tb_hier_free(&h);
    for (int r = 0; r < 12; r++)
        ids[r] = leaf_identity(&cfg, r, r);
    ids[5] = leaf_identity(&cfg, 1, 5);
    rc = tb_topo_derive(ids, 12, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == -1 && strcmp(why, "world ranks 1 and 5 are both bound to PU 1 of n1") == 0,
           "derive: two ranks bound to one PU (%s)", why);
    tb_config_free(&cfg);
}

static tb_ident_rec zc(int node, int package, int numa, int wr)
{
    tb_identity id;
    memset(&id, 0, sizeof id);
    snprintf(id.host, sizeof id.host, "h%d", node);
    id.bound = package >= 0;
    id.pu = -1;
    id.core = -1;
    id.package = package;
    id.numa = numa;
    id.node = node;
    id.world_rank = wr;
    return tb_ident_rec_of(&id);
}

static void test_derive_zero_config(void)
{
    tb_ident_rec ids[8];
    tb_hier h;
    char why[256];
    /* 2 nodes (named by their lowest rank: 0 and 4) x 2 packages, NUMA = package */
    for (int r = 0; r < 8; r++)
        ids[r] = zc(r < 4 ? 0 : 4, (r / 2) % 2, (r / 2) % 2, r);
    int rc = tb_topo_derive(ids, 8, NULL, &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "node(2),package(4)") && h.dclass == NULL,
           "zero-config: node and package; NUMA equal to package dropped (%s)", why);
    TAP_OK(strcmp(why, "found 2 nodes, 4 packages, 4 NUMA nodes") == 0, "zero-config: note says what was found (%s)",
           why);
    if (rc == 0) {
        TAP_OK(h.group[0][3] == h.group[0][0] && h.group[0][4] != h.group[0][0] && h.group[1][2] == h.group[1][3] &&
                   h.group[1][1] != h.group[1][2] && h.group[1][4] != h.group[1][0],
               "zero-config: package numbers are per node");
        tb_hier_free(&h);
    }
    /* node, package and NUMA node of ranks 0..7, and the levels derived */
    static const struct {
        const char *what;
        int node[8], package[8], numa[8];
        const char *levels;
    } layouts[] = {
        /* two NUMA nodes per package: numa is the finest level */
        {"singleton NUMA level is trivial", {0, 0, 0, 0, 4, 4, 4, 4}, {0, 0, 1, 1, 0, 0, 1, 1},
         {0, 1, 2, 3, 0, 1, 2, 3}, "node(2),package(4)"},
        {"one node, NUMA inside packages", {0}, {0, 0, 0, 0, 1, 1, 1, 1}, {0, 0, 1, 1, 2, 2, 3, 3},
         "package(2),numa(4)"},
        /* NUMA coarser than package (one NUMA node spanning two packages) */
        {"coarser NUMA goes first", {0}, {0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}, "numa(2),package(4)"},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        for (int r = 0; r < 8; r++)
            ids[r] = zc(layouts[i].node[r], layouts[i].package[r], layouts[i].numa[r], r);
        rc = tb_topo_derive(ids, 8, NULL, &h, NULL, why, sizeof why);
        TAP_OK(rc == 0 && levels_are(&h, layouts[i].levels), "zero-config: %s (%s)", layouts[i].what, why);
        if (rc == 0)
            tb_hier_free(&h);
    }
    /* unbound: node level only */
    for (int r = 0; r < 8; r++)
        ids[r] = zc(r < 3 ? 0 : 3, -1, -1, r);
    rc = tb_topo_derive(ids, 8, NULL, &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "node(2)") && strstr(why, "node level only"),
           "zero-config: unbound ranks, node level only (%s)", why);
    if (rc == 0) {
        TAP_OK(h.group[0][2] == h.group[0][0] && h.group[0][3] != h.group[0][0], "zero-config: unequal nodes 3 + 5");
        tb_hier_free(&h);
    }
    /* one rank without package info: package level not used */
    for (int r = 0; r < 8; r++)
        ids[r] = zc(r < 4 ? 0 : 4, (r / 2) % 2, -1, r);
    ids[6].package = -1;
    rc = tb_topo_derive(ids, 8, NULL, &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "node(2)") &&
               strcmp(why, "found 2 nodes; package and NUMA unknown for some ranks: not used") == 0, "zero-config: package only where known for all ranks (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);
    for (int r = 0; r < 8; r++)
        ids[r] = zc(r < 4 ? 0 : 4, (r / 2) % 2, -1, r);
    rc = tb_topo_derive(ids, 8, NULL, &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "node(2),package(4)") && strcmp(why, "found 2 nodes, 4 packages; NUMA unknown") == 0,
           "zero-config: package without NUMA (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);
    /* one node, unbound: flat */
    for (int r = 0; r < 8; r++)
        ids[r] = zc(0, -1, -1, r);
    rc = tb_topo_derive(ids, 8, NULL, &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && h.nlevels == 0 && h.size == 8, "zero-config: one node, unbound: flat (%s)", why);
    if (rc == 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        tb_identity self;
        memset(&self, 0, sizeof self);
        snprintf(self.host, sizeof self.host, "h0");
        tb_hier_print(&h, ids, NULL, &self, mem);
        fclose(mem);
        TAP_OK(buf && strstr(buf, "8 ranks on h0, 0 levels (flat"), "print: flat hierarchy, this process's host named (%s)",
               buf ? buf : "");
        free(buf);
        buf = NULL;
        mem = open_memstream(&buf, &len);
        tb_hier_print(&h, ids, NULL, NULL, mem);
        fclose(mem);
        TAP_OK(buf && strstr(buf, "8 ranks on one host, 0 levels"), "print: a host known by its hash only (%s)",
               buf ? buf : "");
        free(buf);
        tb_hier_free(&h);
    }
    tb_config builtin;
    tb_config_builtin(&builtin);
    for (int r = 0; r < 8; r++)
        ids[r] = zc(r < 4 ? 0 : 4, -1, -1, r);
    rc = tb_topo_derive(ids, 8, tb_config_topology(&builtin), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, "node(2)"), "zero-config: built-in config has no topology (%s)", why);
    if (rc == 0)
        tb_hier_free(&h);
    tb_config_free(&builtin);
}

/* ---- scale ------------------------------------------------------------------------- */

/* A topology of P processes, 128 per host, 4 levels (island of 32 hosts,
 * node, socket of 64, NUMA of 32), groups as ranges A-B, in the format the
 * probe writes. */
static char *big_topology(int P, size_t *len)
{
    size_t cap = (size_t)P * 48 + 65536, o = 0;
    char *t = malloc(cap);
    int H = P / 128;
    o += (size_t)snprintf(t + o, cap - o, "topobcast: 2\ntopology:\n  fingerprint: {nprocs: %d, hosts: [", P);
    for (int h = 0; h < H; h++)
        o += (size_t)snprintf(t + o, cap - o, "%snode%05d.cluster.example", h ? ", " : "", h);
    o += (size_t)snprintf(t + o, cap - o, "]}\n  levels: [island, node, socket, numa]\n  leaves:\n");
    for (int r = 0; r < P; r++)
        o += (size_t)snprintf(t + o, cap - o, "    - [%d, %d, %d, %d, %d]\n", r / 128, r % 128, r % 128, r % 128 / 64,
                              r % 128 / 32);
    o += (size_t)snprintf(t + o, cap - o, "  groups:\n");
    const char *names[4] = {"island", "node", "socket", "numa"};
    const int span[4] = {32 * 128, 128, 64, 32};
    for (int l = 0; l < 4; l++) {
        o += (size_t)snprintf(t + o, cap - o, "    %s: [", names[l]);
        for (int g = 0; g < P / span[l]; g++)
            o += (size_t)snprintf(t + o, cap - o, "%s[%d-%d]", g ? ", " : "", g * span[l], g * span[l] + span[l] - 1);
        o += (size_t)snprintf(t + o, cap - o, "]\n");
    }
    o += (size_t)snprintf(t + o, cap - o, "  distance: {unit: us, levels: [3, 1.2, 0.5, 0.4], within: 0.3}\n");
    *len = o;
    return t;
}

/* The set-up without waiting names a node by the lowest rank of its host,
 * from the exchanged records alone (tb_topo_nodes_by_host). */
static void test_nodes_by_host(void)
{
    const int P = 16384;
    tb_ident_rec *ids = calloc((size_t)P, sizeof *ids);
    for (int layout = 0; layout < 3; layout++) {
        /* round robin over 128 hosts, 128 consecutive ranks a host, every rank its own host */
        for (int r = 0; r < P; r++) {
            tb_identity id;
            memset(&id, 0, sizeof id);
            int h = layout == 0 ? r % 128 : layout == 1 ? r / 128 : r;
            snprintf(id.host, sizeof id.host, "node%05d.cluster", h);
            id.node = -7;
            ids[r] = tb_ident_rec_of(&id);
        }
        int rc = tb_topo_nodes_by_host(ids, P), bad = 0;
        for (int r = 0; r < P; r++) {
            int want = layout == 0 ? r % 128 : layout == 1 ? r / 128 * 128 : r;
            bad += ids[r].node != want;
        }
        TAP_OK(rc == 0 && bad == 0, "nodes from host names, P=%d, %s: %d ranks given another node", P,
               layout == 0 ? "round robin over 128 hosts" : layout == 1 ? "128 consecutive ranks a host"
                                                           : "one rank a host",
               bad);
    }
    ids[0].node = -7;
    TAP_OK(tb_topo_nodes_by_host(ids, 1) == 0 && ids[0].node == 0, "nodes from host names, P=1");
    free(ids);
}

static void test_scale(void)
{
    /* the exchanged identity: 32 bytes whatever the host name's length */
    tb_identity a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    snprintf(a.host, sizeof a.host, "n1");
    memset(b.host, 'x', 250);
    tb_ident_rec ra = tb_ident_rec_of(&a), rb = tb_ident_rec_of(&b);
    TAP_OK(sizeof(tb_ident_rec) == 32 && sizeof ra == sizeof rb && ra.host != rb.host,
           "identity exchanged: %zu bytes a rank for a 2- or a 250-character host name", sizeof(tb_ident_rec));
    uint64_t full, shrt, f2, s2;
    tb_hash_host("n1.cluster", &full, &shrt);
    tb_hash_host("n1", &f2, &s2);
    TAP_OK(shrt == f2 && s2 == f2 && full != f2, "host hashes: n1.cluster's short name hashes as n1");

    int P = RUNNING_ON_VALGRIND ? 4096 : 16384;
    size_t len;
    char *text = big_topology(P, &len);
    tb_config cfg;
    char err[512], why[256];
    int rc = tb_config_load_buffer(text, len, "big.yaml", &cfg, err, sizeof err);
    free(text);
    TAP_OK(rc == 0 && cfg.topo.nleaves == P && cfg.topo.nhosts == P / 128 && cfg.topo.nplaces == P &&
               cfg.topo.keeps_hosts == 3u,
           "P=%d topology (%zu bytes) loads; island and node keep hosts whole (%s)", P, len, rc ? err : "");
    if (rc != 0)
        return;
    /* the world, ranks reversed, named by the short host names */
    tb_ident_rec *ids = malloc(sizeof *ids * (size_t)P);
    for (int r = 0; r < P; r++) {
        tb_identity id;
        memset(&id, 0, sizeof id);
        snprintf(id.host, sizeof id.host, "node%05d", (P - 1 - r) / 128);
        id.bound = 1;
        id.pu = (P - 1 - r) % 128;
        id.package = id.numa = -1;
        id.world_rank = r;
        ids[r] = tb_ident_rec_of(&id);
    }
    tb_hier h;
    rc = tb_topo_derive(ids, P, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    char want[128];
    snprintf(want, sizeof want, "island(%d),node(%d),socket(%d),numa(%d)", P / 4096 > 1 ? P / 4096 : 1, P / 128,
             P / 64, P / 32);
    if (P / 4096 <= 1) /* one island: not a level of this job */
        snprintf(want, sizeof want, "node(%d),socket(%d),numa(%d)", P / 128, P / 64, P / 32);
    TAP_OK(rc == 0 && levels_are(&h, want) && h.group[1 - (P / 4096 <= 1)][0] == h.group[1 - (P / 4096 <= 1)][127] &&
               tb_hier_distance(&h, 0, 1) == 0.3 && tb_hier_distance(&h, 0, 127) == 0.5 &&
               tb_hier_distance(&h, 0, 128) == 1.2,
           "P=%d world, ranks reversed, short host names: %s (%s)", P, want, why);
    if (rc == 0)
        tb_hier_free(&h);
    /* a sub-communicator of 3 ranks maps from its own members only: two
     * on the last host, one on a host halfway */
    tb_ident_rec sub[3] = {ids[0], ids[1], ids[P / 2]};
    rc = tb_topo_derive(sub, 3, tb_config_topology(&cfg), &h, NULL, why, sizeof why);
    TAP_OK(rc == 0 && levels_are(&h, P > 4096 ? "island(2)" : "node(2)") && tb_hier_distance(&h, 0, 1) == 0.3 &&
               tb_hier_distance(&h, 0, 2) == (P > 4096 ? 3 : 1.2),
           "P=%d: 3 ranks on 2 hosts map (%s)", P, why);
    if (rc == 0)
        tb_hier_free(&h);
    free(ids);
    tb_config_free(&cfg);
}

/* ---- identity ---------------------------------------------------------------------- */

static void test_identity(void)
{
    tb_identity id;
    cpu_set_t saved, one;
    TAP_OK(tb_identity_self(&id) == 0 && id.host[0] && id.node == -1 && id.world_rank == -1,
           "identity: host '%s', bound=%d pu=%d core=%d package=%d numa=%d", id.host, id.bound, id.pu, id.core,
           id.package, id.numa);
    if (sched_getaffinity(0, sizeof saved, &saved) != 0 || CPU_COUNT(&saved) < 2) {
        TAP_OK(1, "identity: binding checks skipped (fewer than 2 CPUs allowed)");
        return;
    }
    TAP_OK(!id.bound && id.pu == -1, "identity: all allowed CPUs counts as unbound");
    int cpu = -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &saved))
            cpu = c;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        TAP_OK(1, "identity: binding checks skipped (cannot bind)");
        return;
    }
    tb_identity_self(&id);
    TAP_OK(id.bound && id.pu >= 0 && id.package >= 0, "identity: bound to CPU %d: pu=%d core=%d package=%d numa=%d", cpu,
           id.pu, id.core, id.package, id.numa);
    sched_setaffinity(0, sizeof saved, &saved);
    tb_identity_self(&id);
    TAP_OK(!id.bound && id.pu == -1, "identity: unbound again after restoring the affinity");
}


/* ---- shape keys ------------------------------------------------------------------ */

/* base_topo's levels are node (bit 0) and socket (bit 1). */
static const char *shape_sel =
    TOPO_2X2
    "selection:\n"
    "  - {nodes: 1, bytes: 0-64K, algorithm: binomial}\n"
    "  - {ppn: 1, levels: node, algorithm: flat}\n"
    "  - {ppn: 2-inf, consecutive: no, algorithm: chain}\n"
    "  - {groups: {node: 2-3, socket: 4-inf}, algorithm: binary}\n"
    "  - {comm: 4-8, nodes: 2-inf, algorithm: \"magpie:levels=node\"}\n"
    "  - {algorithm: default}\n";

static tb_shape mk(int size, int nodes, int ppn_min, int ppn_max, int consecutive, unsigned levels, int gnode,
                   int gsocket)
{
    tb_shape s;
    tb_shape_unknown(&s, size);
    s.nodes = nodes, s.ppn_min = ppn_min, s.ppn_max = ppn_max, s.consecutive = consecutive, s.levels = levels;
    s.ngroups[0] = gnode, s.ngroups[1] = gsocket;
    return s;
}

static void test_shape_rules(void)
{
    tb_config cfg;
    char err[512] = "";
    int rc = load_text(shape_sel, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "shape keys: every key loads (%s)", err);
    if (rc != 0)
        return;
    const tb_shape_cond *c0 = &cfg.rules[0].shape, *c1 = &cfg.rules[1].shape, *c2 = &cfg.rules[2].shape,
                        *c3 = &cfg.rules[3].shape;
    TAP_OK(c0->nodes_lo == 1 && c0->nodes_hi == 1 && c0->ppn_lo == 0 && c0->ppn_hi == LONG_MAX && !c0->has_levels,
           "nodes: 1 parsed, other keys any");
    TAP_OK(c1->ppn_lo == 1 && c1->ppn_hi == 1 && c1->has_levels && c1->levels == 1u, "ppn: 1, levels: node (bit 0)");
    TAP_OK(c2->ppn_lo == 2 && c2->ppn_hi == LONG_MAX && c2->consecutive == 0, "ppn: 2-inf, consecutive: no");
    TAP_OK(c3->groups_lo[0] == 2 && c3->groups_hi[0] == 3 && c3->groups_lo[1] == 4 && c3->groups_hi[1] == LONG_MAX &&
               c3->groups_lo[2] == 0,
           "groups: per level, the others any");
    /* 4 ranks each: one node, one per node, 2 nodes interleaved, 2 nodes in blocks */
    tb_shape one_node = mk(4, 1, 4, 4, 1, 2u, 0, 2), per_node = mk(4, 4, 1, 1, 1, 1u, 2, 0),
             mixed = mk(4, 2, 2, 2, 0, 1u, 2, 0), blocks = mk(4, 2, 2, 2, 1, 1u, 2, 0);
    TAP_OK(pick_shape(&cfg, one_node, 1024) == 0 && pick_shape(&cfg, per_node, 1024) == 1 &&
               pick_shape(&cfg, mixed, 1024) == 2 && pick_shape(&cfg, blocks, 1024) == 4,
           "four communicators of 4 ranks, four shapes, four rules");
    TAP_OK(pick_shape(&cfg, one_node, 65537) == 5 && pick_shape(&cfg, mk(4, 4, 1, 1, 1, 0, 0, 0), 1) == 4,
           "bytes still apply; ppn 1 without the node level misses rule 1");
    TAP_OK(pick_shape(&cfg, mk(8, 2, 4, 4, 1, 3u, 2, 4), 1) == 3 && pick_shape(&cfg, mk(8, 2, 4, 4, 1, 3u, 2, 3), 1) == 4,
           "groups: 2 nodes and 4 sockets match, 3 sockets do not");
    TAP_OK(pick_shape(&cfg, mk(4, 2, 1, 3, 1, 1u, 2, 0), 1) == 4 && pick_shape(&cfg, mk(4, 2, 1, 3, 0, 1u, 2, 0), 1) == 4,
           "ppn 2-inf needs every node at 2 or more (1-3 misses it)");
    tb_shape unknown;
    tb_shape_unknown(&unknown, 4);
    TAP_OK(pick_shape(&cfg, unknown, 1) == 5, "a shape of unknown nodes matches only rules without shape keys");
    TAP_OK(tb_config_default_upto(&cfg, &one_node) == 0 && tb_config_default_upto(&cfg, &unknown) == SIZE_MAX,
           "default_upto per shape: 0 for one node (binomial from 1 B), all sizes for the unknown shape");
    TAP_OK(tb_config_default_upto_any(&cfg, 4) == 0 && tb_config_default_upto_any(&cfg, 64) == 0,
           "default_upto for any shape: 0 (some shape of 4 or 64 ranks takes a rule with shape keys from 1 B)");
    tb_config_free(&cfg);

    /* an earlier rule that starts at a larger size, then shape keys above
     * 1 KiB only: the bound stops where either may fire */
    static const char *later =
        TOPO_2X2
        "selection:\n"
        "  - {comm: 2-8, bytes: 100-200, algorithm: binomial}\n"
        "  - {nodes: 2-inf, bytes: 1K-inf, algorithm: flat}\n"
        "  - {nodes: 1, bytes: 0-512, algorithm: default}\n"
        "  - {algorithm: default}\n";
    rc = load_text(later, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "later-starting rules load (%s)", err);
    if (rc == 0) {
        tb_shape two = mk(16, 2, 8, 8, 1, 1u, 2, 0), one = mk(16, 1, 16, 16, 1, 1u, 1, 0);
        TAP_OK(tb_config_default_upto(&cfg, &unknown) == 99 && tb_config_default_upto_any(&cfg, 4) == 99,
               "a first rule from 100 B bounds 4 ranks at 99 B (got %zu, any %zu)",
               tb_config_default_upto(&cfg, &unknown), tb_config_default_upto_any(&cfg, 4));
        TAP_OK(tb_config_default_upto(&cfg, &two) == 1023 && tb_config_default_upto(&cfg, &one) == SIZE_MAX &&
                   tb_config_default_upto_any(&cfg, 16) == 1023,
               "16 ranks: 2 nodes up to 1023 B, one node all sizes, any shape 1023 B (got %zu %zu %zu)",
               tb_config_default_upto(&cfg, &two), tb_config_default_upto(&cfg, &one),
               tb_config_default_upto_any(&cfg, 16));
        tb_config_free(&cfg);
    }

    static const edit_case edits[] = {
        {"nodes 0", &shape_sel, "{nodes: 1, bytes", "{nodes: 0, bytes",
         "t.yaml:14:13: expected node counts of at least 1, got '0'", NULL},
        {"ppn not a range", &shape_sel, "ppn: 1,", "ppn: one,",
         "t.yaml:15:11: expected a ranks-per-node range as LO-HI or one value", "got 'one'"},
        {"consecutive not yes or no", &shape_sel, "consecutive: no", "consecutive: maybe",
         "t.yaml:16:31: expected yes or no, got 'maybe'", NULL},
        {"unknown level in levels", &shape_sel, "levels: node,", "levels: rack,",
         "t.yaml:15:22: expected levels named in the topology (node, socket), got 'rack'", NULL},
        {"level twice in levels", &shape_sel, "levels: node,", "levels: node/node,",
         "t.yaml:15:22: expected each level once in levels, got 'node' twice", NULL},
        {"groups not a mapping", &shape_sel, "groups: {node: 2-3, socket: 4-inf}", "groups: 4",
         "t.yaml:17:14: expected group counts per level as a mapping such as {island: 2, node: 4-inf}, got a scalar",
         NULL},
        {"unknown level in groups", &shape_sel, "{node: 2-3,", "{rack: 2-3,",
         "t.yaml:17:15: expected levels named in the topology (node, socket), got 'rack'", NULL},
        {"level twice in groups", &shape_sel, "socket: 4-inf}", "node: 4-inf}",
         "t.yaml:17:26: expected each level once in groups, got 'node' twice", NULL},
        {"bad group range", &shape_sel, "node: 2-3,", "node: 3-2,",
         "t.yaml:17:21: expected a non-empty range (LO <= HI), got '3-2'", NULL},
        {"shape key in the last rule", &shape_sel, "  - {algorithm: default}\n", "  - {nodes: 1-inf, algorithm: default}\n",
         "t.yaml:19:5: expected the last rule to match every communicator and message size", NULL},
        /* shadowing, axis by axis */
        {"shadowed: nodes 1 with a ppn under an earlier nodes 1", &shape_sel, "{comm: 4-8, nodes: 2-inf,",
         "{nodes: 1, ppn: 2, bytes: 0-1K, algorithm: flat}\n  - {comm: 4-8, nodes: 2-inf,",
         "t.yaml:18:5: expected a rule that can match", NULL},
        {"shadowed: the same level set", &shape_sel, "{comm: 4-8, nodes: 2-inf,",
         "{ppn: 1, levels: node, bytes: 1K, algorithm: flat}\n  - {comm: 4-8, nodes: 2-inf,",
         "t.yaml:18:5: expected a rule that can match", NULL},
        {"shadowed: consecutive yes and no cover consecutive", &shape_sel, "{comm: 4-8, nodes: 2-inf,",
         "{ppn: 2-inf, consecutive: yes, algorithm: flat}\n  - {ppn: 3-8, algorithm: binary}\n"
         "  - {comm: 4-8, nodes: 2-inf,",
         "t.yaml:19:5: expected a rule that can match", NULL},
        {"shadowed: groups inside earlier groups", &shape_sel, "{comm: 4-8, nodes: 2-inf,",
         "{groups: {node: 2, socket: 5-9}, comm: 9, algorithm: flat}\n  - {comm: 4-8, nodes: 2-inf,",
         "t.yaml:18:5: expected a rule that can match", NULL},
    };
    expect_edit_errors(edits, sizeof edits / sizeof edits[0]);

    /* not shadowed: ppn 2-8 needs both the fewest and the most ranks per
     * node in 2-8; ppn 1-4 and 5-inf leave ppn 3-6 (unbalanced) uncovered */
    const char *ppn_pair = "topobcast: 1\nselection:\n"
                           "  - {ppn: 1-4, algorithm: binomial}\n"
                           "  - {ppn: 5-inf, algorithm: chain}\n"
                           "  - {ppn: 2-8, algorithm: flat}\n"
                           "  - {algorithm: default}\n";
    rc = load_text(ppn_pair, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && pick_shape(&cfg, mk(9, 2, 3, 6, 1, 0, 0, 0), 1) == 2,
           "not shadowed: ppn 2-8 after 1-4 and 5-inf still takes nodes of 3 and 6 ranks (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
    /* ppn_max keys on the fullest node alone: nodes of 1 and 2 ranks take
     * the rule of 2; after ppn_max 2 and ppn_max 3-inf, a rule for
     * ppn_max 2-9 cannot match */
    const char *pmax = "topobcast: 1\nselection:\n"
                       "  - {ppn: 1, algorithm: binomial}\n"
                       "  - {ppn_max: 2, algorithm: chain}\n"
                       "  - {ppn_max: 3-inf, consecutive: no, algorithm: flat}\n"
                       "  - {algorithm: default}\n";
    rc = load_text(pmax, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.rules[1].shape.pmax_lo == 2 && cfg.rules[1].shape.pmax_hi == 2 &&
               cfg.rules[1].shape.ppn_lo == 0 && pick_shape(&cfg, mk(3, 2, 1, 2, 1, 0, 0, 0), 1) == 1 &&
               pick_shape(&cfg, mk(2, 2, 1, 1, 1, 0, 0, 0), 1) == 0 && pick_shape(&cfg, mk(9, 2, 3, 6, 0, 0, 0, 0), 1) == 2 &&
               pick_shape(&cfg, mk(9, 2, 1, 8, 0, 0, 0, 0), 1) == 2 && pick_shape(&cfg, mk(9, 2, 1, 8, 1, 0, 0, 0), 1) == 3,
           "ppn_max: the fullest node decides (1-2 -> rule 1, 1-8 not compact -> rule 2, compact -> 3) (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
    const char *pmax_shadow = "topobcast: 1\nselection:\n"
                              "  - {ppn: 1, algorithm: binomial}\n"
                              "  - {ppn_max: 2, algorithm: chain}\n"
                              "  - {ppn_max: 3-inf, algorithm: flat}\n"
                              "  - {ppn_max: 2-9, consecutive: no, algorithm: binary}\n"
                              "  - {algorithm: default}\n";
    rc = load_text(pmax_shadow, &cfg, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "t.yaml:6:5: expected a rule that can match"),
           "shadowed: ppn_max 2-9 after ppn_max 2 and ppn_max 3-inf (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
    /* not shadowed: a rule without shape keys after shape rules that cover
     * every real communicator still takes shapes of unknown nodes */
    const char *kinds = "topobcast: 1\nselection:\n"
                        "  - {nodes: 1, algorithm: binomial}\n"
                        "  - {nodes: 2-inf, algorithm: chain}\n"
                        "  - {comm: 2-inf, algorithm: flat}\n"
                        "  - {algorithm: default}\n";
    rc = load_text(kinds, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && pick_shape(&cfg, unknown, 1) == 2, "rules after nodes: 1 and nodes: 2-inf still reach unknown "
                                                          "shapes (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
    /* without a topology, levels name the zero-configuration hierarchy */
    const char *zero = "topobcast: 1\nselection:\n  - {levels: node/numa, groups: {package: 2}, algorithm: flat}\n"
                       "  - {levels: none, algorithm: binary}\n  - {algorithm: default}\n";
    rc = load_text(zero, &cfg, err, sizeof err);
    TAP_OK(rc == 0 && cfg.rules[0].shape.levels == 5u && cfg.rules[0].shape.groups_lo[1] == 2 &&
               cfg.rules[1].shape.has_levels && cfg.rules[1].shape.levels == 0,
           "without a topology: node/numa are bits 0 and 2, package is level 1, none is the empty set (%s)", err);
    if (rc == 0)
        tb_config_free(&cfg);
}

int main(void)
{
    test_examples();
    test_hash();
    test_errors();
    test_base_lists();
    test_parse_size();
    test_load_paths();
    test_select();
    test_shape_rules();
    test_derive_topology();
    test_derive_zero_config();
    test_nodes_by_host();
    test_scale();
    test_identity();
    TAP_DONE();
}
