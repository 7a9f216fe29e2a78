/* libFuzzer target for the YAML loader: any input must either load into a
 * configuration that keeps every promise the rest of the library relies on,
 * or fail with a positioned "expected" message and nothing allocated.  A
 * loaded topology must also map onto itself (each leaf's own identity, in
 * reversed rank order) and keep its groups. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "topo/map.h"

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz_config: invariant failed: %s\n", #cond);   \
            abort();                                                         \
        }                                                                    \
    } while (0)

static void check_rules(const tb_config *cfg)
{
    CHECK(cfg->nrules >= 1 && cfg->rules);
    CHECK(tb_rule_matches_all(&cfg->rules[cfg->nrules - 1]));
    for (int i = 0; i < cfg->nrules; i++) {
        const tb_rule *r = &cfg->rules[i];
        CHECK(r->comm_lo >= 1 && r->comm_lo <= r->comm_hi && r->msg_lo <= r->msg_hi);
        CHECK(r->spec.id >= 0 && r->spec.id < TB_ALG_COUNT);
        /* the rule's own lowest corner (size, shape keys, bytes) matches it,
         * so it selects this rule or an earlier one */
        const tb_shape_cond *c = &r->shape;
        tb_shape corner;
        memset(&corner, 0, sizeof corner);
        corner.size = r->comm_lo > 1 << 30 ? 1 << 30 : (int)r->comm_lo;
        corner.nodes = (int)(c->nodes_lo > 1 << 30 ? 1 << 30 : c->nodes_lo);
        corner.ppn_min = corner.ppn_max = (int)(c->ppn_lo > 1 << 30 ? 1 << 30 : c->ppn_lo);
        corner.consecutive = c->consecutive < 0 ? 1 : c->consecutive;
        corner.levels = c->has_levels ? c->levels : 0;
        for (int l = 0; l < TB_MAX_LEVELS; l++)
            corner.ngroups[l] = (int)(c->groups_lo[l] > 1 << 30 ? 1 << 30 : c->groups_lo[l]);
        int idx = -1;
        const tb_rule *hit = tb_config_select(cfg, &corner, r->msg_lo, &idx);
        CHECK(hit && idx >= 0 && idx <= cfg->nrules - 1);
        CHECK(r->comm_lo > 1 << 30 || !tb_shape_cond_matches(c, &corner) || idx <= i);
    }
    static const size_t bytes[] = {0, 1, 1023, 1024, 1025, 65536, (size_t)1 << 20, (size_t)1 << 30, SIZE_MAX};
    static const int comms[] = {1, 2, 3, 7, 8, 64, 1 << 20, 2147483647};
    for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++)
        for (size_t c = 0; c < sizeof comms / sizeof comms[0]; c++) {
            tb_shape sh;
            tb_shape_unknown(&sh, comms[c]);
            CHECK(tb_config_select(cfg, &sh, bytes[b], NULL) != NULL);
        }
}

static void check_topology(const tb_config *cfg)
{
    /* a site's topology has no leaves: check it as the job of one rank on
     * every PU of every host (what tb_topology_expand lays out) */
    const tb_topology *t = &cfg->topo;
    tb_topology expanded;
    memset(&expanded, 0, sizeof expanded);
    if (t->site) {
        CHECK(t->nleaves == 0 && t->nprocs == 0 && t->nhosts >= 1);
        CHECK(tb_topology_expand(t, &expanded) == 0);
        t = &expanded;
    }
    int n = t->nleaves;
    CHECK(n == t->nprocs && n >= 1 && t->nlevels >= 1 && t->nlevels <= TB_MAX_LEVELS && t->nhosts >= 1);
    for (int i = 0; i < n; i++)
        CHECK(t->leaves[i].host >= 0 && t->leaves[i].host < t->nhosts && t->leaves[i].pu >= -1);
    /* every host found by its own name, every leaf with a PU by its place */
    for (int h = 0; h < t->nhosts; h++)
        CHECK(tb_topo_find_host(t, t->host_hash[h], t->short_hash[h]) == h && t->first_leaf[h] >= 0);
    for (int i = 0; i < n; i++)
        CHECK(t->leaves[i].pu < 0 || tb_topo_leaf_at(t, t->leaves[i].host, t->leaves[i].pu) == i);
    if (t->dist.given) {
        for (int l = 0; l < t->nlevels; l++)
            CHECK(t->dist.level[l] >= (l + 1 < t->nlevels ? t->dist.level[l + 1] : t->dist.within));
        CHECK(t->dist.within >= 0);
    }
    for (int l = 0; l < t->nlevels; l++)
        for (int i = 0; i < n; i++) {
            CHECK(t->group[l][i] >= 0 && t->group[l][i] < t->ngroups[l]);
            for (int j = 0; l > 0 && j < n; j++)
                if (t->group[l][i] == t->group[l][j])
                    CHECK(t->group[l - 1][i] == t->group[l - 1][j]);
        }

    tb_ident_rec *ids = calloc((size_t)n, sizeof *ids);
    CHECK(ids);
    for (int r = 0; r < n; r++) {
        const tb_topo_leaf *lf = &t->leaves[n - 1 - r];
        tb_identity id;
        memset(&id, 0, sizeof id);
        snprintf(id.host, sizeof id.host, "%s", t->hosts[lf->host]);
        id.bound = lf->pu >= 0;
        id.pu = lf->pu;
        id.core = lf->core;
        id.package = lf->package;
        id.numa = lf->numa;
        id.world_rank = r;
        ids[r] = tb_ident_rec_of(&id);
    }
    tb_hier h;
    char why[256];
    int rc = tb_topo_derive(ids, n, tb_config_topology(cfg), &h, NULL, why, sizeof why);
    if (rc != 0)
        fprintf(stderr, "fuzz_config: a topology does not map onto itself: %s\n", why);
    CHECK(rc == 0);
    CHECK(h.size == n && h.nlevels <= t->nlevels);
    CHECK(!t->dist.given || (h.dclass && tb_hier_classes_monotone(&h)));
    for (int a = 0; a < n && t->dist.given; a++)
        for (int b = 0; b < n; b++)
            CHECK(tb_hier_distance(&h, a, b) >= (a == b ? 0 : t->dist.within));
    for (int l = 0; l < h.nlevels; l++) {
        int tl = -1;
        for (int k = 0; k < t->nlevels; k++)
            if (strcmp(t->level_name[k], h.level_name[l]) == 0)
                tl = k;
        CHECK(tl >= 0);
        for (int a = 0; a < n; a++) {
            CHECK(h.group[l][a] >= 0 && h.group[l][a] < h.ngroups[l]);
            for (int b = 0; b < n; b++)
                CHECK((h.group[l][a] == h.group[l][b]) ==
                      (t->group[tl][n - 1 - a] == t->group[tl][n - 1 - b]));
        }
    }
    /* a second derivation from the same inputs is identical */
    tb_hier h2;
    CHECK(tb_topo_derive(ids, n, tb_config_topology(cfg), &h2, NULL, why, sizeof why) == 0 && h2.nlevels == h.nlevels);
    for (int l = 0; l < h.nlevels; l++)
        CHECK(memcmp(h.group[l], h2.group[l], sizeof(int) * (size_t)n) == 0);
    tb_hier_free(&h2);
    tb_hier_free(&h);
    free(ids);
    tb_topology_release(&expanded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_config cfg;
    char err[512];
    if (tb_config_load_buffer((const char *)data, size, "fuzz.yaml", &cfg, err, sizeof err) != 0) {
        CHECK(strncmp(err, "fuzz.yaml:", 10) == 0 && strstr(err, ": expected") && !strchr(err, '\n'));
        CHECK(cfg.rules == NULL && cfg.nrules == 0 && !cfg.has_topology && cfg.topo.leaves == NULL);
        return 0;
    }
    CHECK(cfg.hash == tb_config_hash_bytes(data, size));
    check_rules(&cfg);
    if (cfg.has_topology)
        check_topology(&cfg);
    tb_config_free(&cfg);
    return 0;
}
