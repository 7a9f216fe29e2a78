/* A communicator's shape (shape.h) derived from synthetic hierarchies and
 * node memberships: one rank per node, one node, consecutive and
 * interleaved nodes, unbalanced nodes, levels numbered by the
 * configuration's list (a topology's, or the zero-configuration names),
 * node ids of any value, and the text form's round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "shape.h"
#include "tap.h"

/* A hierarchy of n ranks with the given levels; groups[l][r]. */
static void make_hier(tb_hier *h, int n, int nl, const char *const *names, const int *const *groups)
{
    tb_hier_alloc(h, n, nl);
    for (int l = 0; l < nl; l++) {
        snprintf(h->level_name[l], TB_LEVEL_NAME_MAX, "%s", names[l]);
        int ng = 0;
        for (int r = 0; r < n; r++) {
            h->group[l][r] = groups[l][r];
            ng = groups[l][r] + 1 > ng ? groups[l][r] + 1 : ng;
        }
        h->ngroups[l] = ng;
    }
}

/* One level called name. */
static void make_hier1(tb_hier *h, int n, const char *name, const int *groups)
{
    const char *names[1] = {name};
    const int *g[1] = {groups};
    make_hier(h, n, 1, names, g);
}

static int same_shape(const tb_shape *a, const tb_shape *b)
{
    int eq = a->size == b->size && a->nodes == b->nodes && a->ppn_min == b->ppn_min && a->ppn_max == b->ppn_max &&
             a->consecutive == b->consecutive && a->levels == b->levels;
    for (int l = 0; l < TB_MAX_LEVELS; l++)
        eq &= a->ngroups[l] == b->ngroups[l];
    return eq;
}

static void test_derive(const tb_config *cfg)
{
    tb_shape s;
    tb_hier h;
    char text[256];
    /* one rank per node, 4 nodes over 2 islands: node and socket levels
     * split nothing and are gone from the hierarchy, the islands stay */
    {
        static const int isl[4] = {0, 0, 1, 1}, nodes[4] = {0, 1, 2, 3};
        make_hier1(&h, 4, "island", isl);
        TAP_OK(tb_shape_derive(&h, nodes, 4, cfg, &s) == 0 && s.size == 4 && s.nodes == 4 && s.ppn_min == 1 &&
                   s.ppn_max == 1 && s.consecutive == 1 && s.levels == 1u && s.ngroups[0] == 2 && s.ngroups[1] == 0,
               "one per node: 4 nodes, ppn 1, levels island (2 groups)");
        tb_shape_format(&s, cfg, text, sizeof text);
        TAP_OK(!strcmp(text, "size=4 nodes=4 ppn=1 consecutive=yes levels=island groups=2"), "formatted: %s", text);
        tb_hier_free(&h);
    }
    /* single node: 6 ranks on 2 sockets */
    {
        static const int sock[6] = {0, 0, 0, 1, 1, 1}, nodes[6] = {7, 7, 7, 7, 7, 7};
        make_hier1(&h, 6, "socket", sock);
        TAP_OK(tb_shape_derive(&h, nodes, 6, cfg, &s) == 0 && s.nodes == 1 && s.ppn_min == 6 && s.ppn_max == 6 &&
                   s.consecutive == 1 && s.levels == 4u && s.ngroups[2] == 2,
               "single node: 1 node of 6, levels socket (bit 2, 2 groups)");
        tb_hier_free(&h);
    }
    /* 8 ranks on 2 nodes: in blocks, then round robin */
    {
        static const int blocks[8] = {0, 0, 0, 0, 1, 1, 1, 1}, rr[8] = {0, 1, 0, 1, 0, 1, 0, 1};
        make_hier1(&h, 8, "node", blocks);
        TAP_OK(tb_shape_derive(&h, blocks, 8, cfg, &s) == 0 && s.nodes == 2 && s.ppn_min == 4 && s.ppn_max == 4 &&
                   s.consecutive == 1 && s.levels == 2u && s.ngroups[1] == 2,
               "2 nodes in blocks: consecutive, ppn 4, levels node");
        tb_hier_free(&h);
        make_hier1(&h, 8, "node", rr);
        TAP_OK(tb_shape_derive(&h, rr, 8, cfg, &s) == 0 && s.nodes == 2 && s.ppn_min == 4 && s.consecutive == 0,
               "2 nodes round robin: not consecutive");
        /* node ids are names, not numbers that matter */
        static const int rr2[8] = {-5, 1000, -5, 1000, -5, 1000, -5, 1000};
        tb_shape t;
        TAP_OK(tb_shape_derive(&h, rr2, 8, cfg, &t) == 0 && same_shape(&s, &t),
               "node ids -5/1000 give the same shape as 0/1");
        tb_hier_free(&h);
    }
    /* unbalanced: 3 ranks on one node, 1 on another; no hierarchy */
    {
        static const int nodes[4] = {0, 0, 0, 1}, split[4] = {0, 0, 1, 0};
        TAP_OK(tb_shape_derive(NULL, nodes, 4, cfg, &s) == 0 && s.nodes == 2 && s.ppn_min == 1 && s.ppn_max == 3 &&
                   s.consecutive == 1 && s.levels == 0 && s.ngroups[0] == 0,
               "unbalanced: ppn 1-3, no levels");
        tb_shape_format(&s, cfg, text, sizeof text);
        TAP_OK(!strcmp(text, "size=4 nodes=2 ppn=1-3 consecutive=yes levels=none"), "formatted: %s", text);
        TAP_OK(tb_shape_derive(NULL, split, 4, cfg, &s) == 0 && s.consecutive == 0 && s.ppn_min == 1 &&
                   s.ppn_max == 3,
               "a node's ranks split by another's: not consecutive");
    }
    /* a level the configuration does not list; the zero-configuration names */
    {
        static const int grp[4] = {0, 0, 1, 1}, nodes[4] = {0, 0, 1, 1};
        const char *names[2] = {"rack", "node"};
        const int *g[2] = {grp, grp};
        make_hier(&h, 4, 2, names, g);
        TAP_OK(tb_shape_derive(&h, nodes, 4, cfg, &s) == 0 && (s.levels & TB_SHAPE_LEVEL_OTHER) && (s.levels & 2u),
               "a level not in the topology's list sets the other-level bit");
        TAP_OK(tb_shape_derive(&h, nodes, 4, NULL, &s) == 0 && (s.levels & ~TB_SHAPE_LEVEL_OTHER) == 1u &&
                   s.ngroups[0] == 2,
               "without a topology: node is level 0 of node/package/numa");
        tb_hier_free(&h);
        make_hier(&h, 3, 0, NULL, NULL);
        TAP_OK(tb_shape_derive(&h, nodes, 4, cfg, &s) == -1 && s.nodes == 0 && s.consecutive == -1 && s.size == 4,
               "a hierarchy of another size: -1, the unknown shape");
        tb_hier_free(&h);
        TAP_OK(tb_shape_derive(NULL, NULL, 4, cfg, &s) == -1, "no node ids: -1");
    }
}

static void test_text(const tb_config *cfg)
{
    static const int isl[6] = {0, 0, 0, 1, 1, 1}, nod[6] = {0, 0, 1, 2, 2, 3}, nodes[6] = {0, 0, 1, 2, 2, 3};
    const char *names[2] = {"island", "node"};
    const int *g[2] = {isl, nod};
    tb_hier h;
    make_hier(&h, 6, 2, names, g);
    tb_shape s, back;
    char text[256], err[256] = "";
    tb_shape_derive(&h, nodes, 6, cfg, &s);
    tb_shape_format(&s, cfg, text, sizeof text);
    TAP_OK(tb_shape_parse(text, cfg, &back, err, sizeof err) == 0 && same_shape(&s, &back),
           "format and parse round trip: %s %s", text, err);
    tb_shape_unknown(&s, 9);
    tb_shape_format(&s, cfg, text, sizeof text);
    TAP_OK(!strcmp(text, "size=9") && tb_shape_parse(text, cfg, &back, err, sizeof err) == 0 && same_shape(&s, &back),
           "the unknown shape is its size alone: %s", text);
    static const char *bad[] = {"nodes=2", "size=4 size=4", "size=4 colour=red", "size=4 levels=rack",
                                "size=4 levels=node groups=2/3", "size=4 ppn=3-1", "size=4 consecutive=maybe"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        TAP_OK(tb_shape_parse(bad[i], cfg, &back, err, sizeof err) == -1, "parse refuses '%s' (%s)", bad[i], err);
    tb_hier_free(&h);
}

int main(void)
{
    tb_config cfg;
    char err[512] = "";
    int rc = tb_config_load("config/example-3level.yaml", &cfg, err, sizeof err);
    TAP_OK(rc == 0, "example topology (island, node, socket) loads (%s)", err);
    if (rc != 0)
        TAP_DONE();
    test_derive(&cfg);
    test_text(&cfg);
    tb_config_free(&cfg);
    TAP_DONE();
}
