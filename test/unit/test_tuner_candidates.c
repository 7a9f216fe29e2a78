/* Tuner candidate generation: exact counts for known grids, every
 * candidate a valid spec that builds a correct tree, no duplicates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"
#include "schedule.h"
#include "tap.h"

/* size ranks in `nodes` nodes of `sockets` sockets each, contiguous */
static void two_level(tb_hier *h, int size, int nodes, int sockets)
{
    tb_hier_alloc(h, size, 2);
    snprintf(h->level_name[0], TB_LEVEL_NAME_MAX, "node");
    snprintf(h->level_name[1], TB_LEVEL_NAME_MAX, "socket");
    int per_node = size / nodes, per_socket = per_node / sockets;
    h->ngroups[0] = nodes;
    h->ngroups[1] = nodes * sockets;
    for (int r = 0; r < size; r++) {
        h->group[0][r] = r / per_node;
        h->group[1][r] = r / per_socket;
    }
}

static int count_id(const tn_cand_list *l, tb_alg_id id)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += l->v[i].spec.id == id;
    return n;
}

/* every candidate: text parses back to the same spec, is unique, and its
 * plan builds and passes the tree invariants */
static void check_all_valid(const tn_cand_list *l, const tb_hier *h, int size, const char *what)
{
    int bad_parse = 0, dup = 0, bad_plan = 0;
    for (int i = 0; i < l->n; i++) {
        tb_alg_spec s;
        char err[256];
        /* levels= left out: the library counts the bases against the
         * configuration's levels, h's here (tb_config_parse_spec) */
        if (tb_alg_spec_parse(l->v[i].text, &s, err, sizeof err) != 0 || !tb_alg_spec_equal(&s, &l->v[i].spec) ||
            (!s.levels[0] && tb_alg_spec_check_bases(&s, h ? h->nlevels : 0, "h's levels", err, sizeof err) != 0)) {
            if (!bad_parse)
                printf("# bad spec text '%s': %s\n", l->v[i].text, err);
            bad_parse++;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(l->v[i].text, l->v[j].text))
                dup++;
        if (s.id == TB_ALG_DEFAULT)
            continue;
        tb_plan p;
        for (int root = 0; root < size; root += size / 2 + 1) {
            if (tb_plan_build(&p, size, root, &s, h, err, sizeof err) != 0) {
                if (!bad_plan)
                    printf("# %s: %s\n", l->v[i].text, err);
                bad_plan++;
                continue;
            }
            for (int k = 0; k < p.ntrees; k++)
                if (tb_tree_check(tb_plan_tree(&p, k), err, sizeof err) != 0) {
                    if (!bad_plan)
                        printf("# %s root %d tree %d: %s\n", l->v[i].text, root, k, err);
                    bad_plan++;
                }
            tb_plan_free(&p);
        }
    }
    TAP_OK(bad_parse == 0, "%s: all %d candidate texts parse back to their spec", what, l->n);
    TAP_OK(dup == 0, "%s: no duplicate candidates (%d found)", what, dup);
    TAP_OK(bad_plan == 0, "%s: every candidate builds a valid tree (%d failures)", what, bad_plan);
}

/* Levels a hierarchical spec uses on h: its levels= list, or all of h's. */
static int spec_levels(const tb_alg_spec *s, const tb_hier *h)
{
    if (!s->levels[0])
        return h->nlevels;
    int k = 1;
    for (const char *c = s->levels; *c; c++)
        k += *c == '/';
    return k;
}

/* How the candidates of l use shm: *alone the specs that are shm itself,
 * *last the magpie2/interpipe ones with shm as the finest (last) base and
 * nowhere else, *elsewhere every other use (a coarser level's base, or
 * shm with a two-tree base). */
static void shm_uses(const tn_cand_list *l, const tb_hier *h, int *alone, int *last, int *elsewhere)
{
    *alone = *last = *elsewhere = 0;
    for (int i = 0; i < l->n; i++) {
        const tb_alg_spec *s = &l->v[i].spec;
        if (!tb_alg_spec_uses_shm(s))
            continue;
        if (s->id == TB_ALG_SHM) {
            ++*alone;
            continue;
        }
        int k = spec_levels(s, h), ok = (s->id == TB_ALG_MAGPIE2 || s->id == TB_ALG_INTERPIPE) && s->nbase == k + 1 &&
                                        s->base[k] == TB_ALG_SHM;
        for (int j = 0; ok && j < k; j++)
            ok = s->base[j] != TB_ALG_SHM && tb_alg_ntrees(s->base[j]) == 1;
        if (ok)
            ++*last;
        else {
            if (!*elsewhere)
                printf("# shm where it does not belong: %s\n", l->v[i].text);
            ++*elsewhere;
        }
    }
}

int main(void)
{
    tn_cand_grid g;
    tn_cand_grid_default(&g);
    TAP_OK(g.nseg == 11 && g.seg[0] == 1024 && g.seg[10] == 1048576 && g.seg_short == 8192 && g.seg_short_max == 64,
           "default grid: segments 1K..1M (%d), those below 8K up to 64 per message", g.nseg);

    /* short segments: only where the message has at most 64 of them
     * (pipeline with chains 1, 2, 4 on 8 ranks, both send modes) */
    const struct {
        size_t bytes;
        int segments;
        const char *which;
    } shortseg[] = {{4096, 2, "1K 2K"},
                    {65536, 6, "1K..32K"},
                    {131072, 6, "2K..64K (1K would be 128)"},
                    {1048576, 7, "8K..512K (4K would be 256)"}};
    for (size_t i = 0; i < sizeof shortseg / sizeof shortseg[0]; i++) {
        tn_cand_list l = {0};
        tn_cand_generate(&g, NULL, 8, shortseg[i].bytes, &l);
        int smallest = 0;
        for (int c = 0; c < l.n; c++)
            if (l.v[c].spec.id == TB_ALG_PIPELINE && (!smallest || (int)l.v[c].spec.segment < smallest))
                smallest = (int)l.v[c].spec.segment;
        TAP_OK(count_id(&l, TB_ALG_PIPELINE) == 3 * shortseg[i].segments * 2,
               "%zu B: pipeline segments %s (%d candidates, smallest segment %d)", shortseg[i].bytes,
               shortseg[i].which, count_id(&l, TB_ALG_PIPELINE), smallest);
        tn_cand_list_free(&l);
    }

    /* --max-segments 16: at 1 MiB only 64K..512K */
    g.max_segments = 16;
    {
        tn_cand_list l = {0};
        tn_cand_generate(&g, NULL, 8, 1048576, &l);
        int fewest = 1 << 30, most = 0;
        for (int c = 0; c < l.n; c++) {
            if (l.v[c].spec.segment == 0)
                continue;
            int segments = (int)(1048576 / l.v[c].spec.segment);
            fewest = segments < fewest ? segments : fewest;
            most = segments > most ? segments : most;
        }
        TAP_OK(count_id(&l, TB_ALG_PIPELINE) == 3 * 4 * 2 && most == 16 && fewest == 2,
               "max_segments 16, 1 MiB: pipeline segments 64K..512K (%d candidates, 2..%d segments)",
               count_id(&l, TB_ALG_PIPELINE), most);
        tn_cand_list_free(&l);
    }
    g.max_segments = 0;

    /* the counts below are for segments 8K..1M only */
    g.seg_short_max = 0;

    /* flat communicator, 8 ranks, 4 KiB: no segment is shorter than the
     * message; 1 default + 6 trees (dbt, bine too) x 2 sends + circulant
     * (no send mode) + 6 radices x 2 + chains 1,2,4 x 2 (8 chains on 7 ranks
     * is flat) + scatter_allgather 2 x 2 = 36 */
    tn_cand_list l = {0};
    int n = tn_cand_generate(&g, NULL, 8, 4096, &l);
    TAP_OK(n == 36 && l.n == 36, "flat P=8 4K: 36 candidates (got %d)", n);
    TAP_OK(l.n > 0 && l.v[0].spec.id == TB_ALG_DEFAULT && count_id(&l, TB_ALG_DEFAULT) == 1,
           "default is the first candidate, once");
    TAP_OK(count_id(&l, TB_ALG_PIPELINE) == 0, "no pipeline when no segment is shorter than the message");
    TAP_OK(count_id(&l, TB_ALG_MAGPIE) == 0 && count_id(&l, TB_ALG_DISTANCE_TREE) == 0,
           "no topology-aware candidates without a hierarchy");
    check_all_valid(&l, NULL, 8, "flat P=8 4K");
    tn_cand_list_free(&l);

    /* 100 KiB: segments 8K, 16K, 32K, 64K -> trees 6 x 5 x 2 = 60,
     * circulant 5, knomial 6 x 5 x 2 = 60, chain 3 x 2 = 6, pipeline
     * 3 x 4 x 2 = 24, scatter_allgather 4, default 1: 160 */
    n = tn_cand_generate(&g, NULL, 8, 100 * 1024, &l);
    TAP_OK(n == 160, "flat P=8 100K: 160 candidates (got %d)", n);
    TAP_OK(count_id(&l, TB_ALG_PIPELINE) == 24, "pipeline: 3 chain counts x 4 segments x 2 sends (got %d)",
           count_id(&l, TB_ALG_PIPELINE));
    /* generating again adds nothing */
    TAP_OK(tn_cand_generate(&g, NULL, 8, 100 * 1024, &l) == 0 && l.n == 160, "regeneration deduplicates");
    tn_cand_list_free(&l);

    /* two levels, 16 ranks, 4 KiB: base 1 + 12 + 1 + 12 + chains 1,2,4,8 x
     * 2 = 8 + scatter_allgather (ring rank/distance) 8 + distance_tree 2 =
     * 44; magpie: 3 level subsets x 2 = 6; magpie2: subsets {node},
     * {socket} with 4^2 fan-out combinations, {node, socket} with 4^3: 96,
     * and per subset the 5 x 6 coarse/fine pairs less the 8 the first grid
     * has: 66; x 2 = 324; no feeds below 1 MiB, no interpipe (no segment
     * below 4K): 374 */
    tb_hier h;
    two_level(&h, 16, 2, 2);
    n = tn_cand_generate(&g, &h, 16, 4096, &l);
    TAP_OK(n == 374, "2 levels P=16 4K: 374 candidates (got %d)", n);
    TAP_OK(count_id(&l, TB_ALG_MAGPIE2) == 324, "magpie2: 162 level/fan-out combinations x 2 sends (got %d)",
           count_id(&l, TB_ALG_MAGPIE2));
    int dropped = 0, all = 0;
    for (int i = 0; i < l.n; i++)
        if (l.v[i].spec.id == TB_ALG_MAGPIE) {
            dropped += !strcmp(l.v[i].spec.levels, "node") || !strcmp(l.v[i].spec.levels, "socket");
            all += l.v[i].spec.levels[0] == '\0';
        }
    TAP_OK(dropped == 4 && all == 2, "magpie with a level dropped (%d) and with all levels (%d)", dropped, all);
    check_all_valid(&l, &h, 16, "2 levels P=16 4K");
    tn_cand_list_free(&l);

    /* 2 MiB: all 8 segments apply; interpipe = 162 combinations x 8 x 2,
     * the 30 coarse/fine pairs x 3 subsets with 6 per-level segment pairs
     * x 2, and feeds 2 and 4 under 4 top x 3 leaf bases and the 3 chain
     * ones with F chains: 3 subsets x 2 x 15 = 90, x 8 x 2; and each of
     * them with a dbt base again with leaders=2: the 10 coarse/fine pairs
     * with dbt x 3 subsets (8 + 6 segments x 2) and dbt over the 3 leaf
     * bases fed 2 and 4 x 3 subsets = 18 (8 segments x 2) */
    n = tn_cand_generate(&g, &h, 16, 2 * 1024 * 1024, &l);
    TAP_OK(count_id(&l, TB_ALG_INTERPIPE) == 162 * 8 * 2 + 90 * 6 * 2 + 90 * 8 * 2 + 30 * 14 * 2 + 18 * 8 * 2,
           "interpipe: 162 x 8 segments x 2 sends + 90 x 6 per-level segments x 2 + 90 fed x 8 x 2 + leaders=2 "
           "(30 x 14 + 18 x 8) x 2 (got %d)",
           count_id(&l, TB_ALG_INTERPIPE));
    int two_leaders = 0, paired = 0;
    for (int i = 0; i < l.n; i++) {
        const tb_alg_spec *sp = &l.v[i].spec;
        if (sp->leaders != 2)
            continue;
        two_leaders++;
        /* a two-tree base, and the same plan with one leader listed too */
        int dbt = 0;
        for (int b = 0; b < sp->nbase; b++)
            dbt |= sp->base[b] == TB_ALG_DBT;
        tb_alg_spec one = *sp;
        one.leaders = 1;
        for (int j = 0; dbt && j < l.n; j++)
            if (tb_alg_spec_equal(&l.v[j].spec, &one)) {
                paired++;
                break;
            }
    }
    TAP_OK(two_leaders == (30 + 18) * 2 + (30 * 14 + 18 * 8) * 2 && paired == two_leaders,
           "leaders=2 at 2 MiB: %d candidates, %d with a dbt base and listed with one leader too", two_leaders, paired);
    int fed = 0, railed = 0;
    for (int i = 0; i < l.n; i++) {
        fed += l.v[i].spec.feeds > 1;
        railed += l.v[i].spec.feeds > 1 && l.v[i].spec.chains == l.v[i].spec.feeds;
    }
    /* magpie2 90 x 2 and interpipe 90 x 8 x 2, the 18 over dbt again with
     * leaders=2; a chain per rail in 18 of 90 */
    TAP_OK(fed == (90 + 18) * 2 + (90 + 18) * 16 && railed == 18 * 2 + 18 * 16,
           "feeds=2,4 at 2 MiB: %d candidates, %d with a chain per rail", fed, railed);
    int per_level = 0;
    for (int i = 0; i < l.n; i++)
        per_level += l.v[i].spec.nlevel_seg > 1 && l.v[i].spec.level_seg[0] > l.v[i].spec.level_seg[1];
    TAP_OK(per_level == (90 + 30) * 6 * 2, "per-level segments: coarse larger than fine (%d)", per_level);
    TAP_OK(count_id(&l, TB_ALG_MAGPIE) == 3 * 9 * 2, "magpie: 3 subsets x 9 segment choices x 2 (got %d)",
           count_id(&l, TB_ALG_MAGPIE));
    int blocking = 0, one_mode = count_id(&l, TB_ALG_DEFAULT) + count_id(&l, TB_ALG_CIRCULANT);
    for (int i = 0; i < l.n; i++)
        blocking += l.v[i].spec.id != TB_ALG_DEFAULT && !l.v[i].spec.nonblocking;
    TAP_OK(blocking * 2 == l.n - one_mode, "every candidate with a send mode in both (%d of %d)", blocking,
           l.n - one_mode);
    check_all_valid(&l, &h, 16, "2 levels P=16 2M");
    tn_cand_list_free(&l);

    /* feeds and leaders=2 from 1 MiB (candidates.c), with the 7 segments
     * 8 KiB..512 KiB that apply there; none a byte below */
    const size_t near[2] = {1024 * 1024 - 1, 1024 * 1024};
    int fed_near[2] = {0, 0}, led_near[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        tn_cand_generate(&g, &h, 16, near[s], &l);
        for (int i = 0; i < l.n; i++) {
            fed_near[s] += l.v[i].spec.feeds > 1;
            led_near[s] += l.v[i].spec.leaders == 2;
        }
        tn_cand_list_free(&l);
    }
    TAP_OK(fed_near[0] == 0 && fed_near[1] == (90 + 18) * 2 + (90 + 18) * 7 * 2,
           "feeds from 1 MiB: %d candidates at 1 MiB - 1 B, %d at 1 MiB", fed_near[0], fed_near[1]);
    /* (30 + 18) magpie2 x 2; interpipe x 2: 30 x (7 segments + the 4
     * per-level pairs whose top is under 1 MiB), 18 fed x 7 */
    TAP_OK(led_near[0] == 0 && led_near[1] == (30 + 18) * 2 + (30 * 11 + 18 * 7) * 2,
           "leaders=2 from 1 MiB: %d candidates at 1 MiB - 1 B, %d at 1 MiB", led_near[0], led_near[1]);

    /* --max-segments bounds the per-level segments too: at 2 MiB and 16
     * pieces no segment of any level, coarse or fine, is below 128 KiB */
    g.max_segments = 16;
    tn_cand_generate(&g, &h, 16, 2 * 1024 * 1024, &l);
    size_t least = (size_t)-1;
    int seen_level_seg = 0;
    for (int i = 0; i < l.n; i++) {
        const tb_alg_spec *sp = &l.v[i].spec;
        if (sp->segment && sp->segment < least)
            least = sp->segment;
        for (int j = 0; j < sp->nlevel_seg; j++)
            if (sp->level_seg[j] && sp->level_seg[j] < least)
                least = sp->level_seg[j];
        seen_level_seg += sp->nlevel_seg > 1;
    }
    TAP_OK(least == 131072, "max_segments 16, 2 MiB: smallest segment of any level %zu (per-level candidates %d)",
           least, seen_level_seg);
    tn_cand_list_free(&l);
    g.max_segments = 0;

    /* one send mode only halves everything but default */
    g.send_variants = 1;
    n = tn_cand_generate(&g, NULL, 8, 4096, &l);
    TAP_OK(n == 19, "non-blocking only: 1 + 34 / 2 + circulant = 19 (got %d)", n);
    TAP_OK(tn_cand_add_text(&l, "binomial:segment=0,send=nonblocking,outstanding=8") == 0,
           "add_text finds an equal spec");
    TAP_OK(tn_cand_add_text(&l, "knomial:radix=12") == 1 && l.n == 20, "add_text adds a new spec");
    TAP_OK(tn_cand_add_text(&l, "bogus") == -1, "add_text rejects a bad spec");
    tn_cand_list_free(&l);
    g.send_variants = 2;

    /* The shared-memory stage (g.shm): off by default, so none of the
     * counts above has it; on, shm alone once (no segment, no send mode)
     * and as the last base only, under a coarsest base of the coarse list
     * or the per-level grid less dbt (circulant, bine, chain, binary,
     * flat, binomial: 6) and, with two levels, a fine base between
     * (binomial, binary, chain, flat, bine: 5). */
    TAP_OK(g.shm == 0, "shm is off in the default grid");
    const size_t shm_sizes[] = {4096, 2 * 1024 * 1024};
    for (int i = 0; i < 2; i++) {
        size_t bytes = shm_sizes[i];
        tn_cand_list off = {0}, on = {0};
        int alone, last, elsewhere;
        g.shm = 0;
        int n_off = tn_cand_generate(&g, &h, 16, bytes, &off);
        shm_uses(&off, &h, &alone, &last, &elsewhere);
        TAP_OK(n_off > 0 && alone + last + elsewhere == 0, "2 levels P=16 %zu B, shm off: %d candidates, none with shm",
               bytes, n_off);
        g.shm = 1;
        int n_on = tn_cand_generate(&g, &h, 16, bytes, &on);
        shm_uses(&on, &h, &alone, &last, &elsewhere);
        /* per level subset: magpie2 + interpipe's segments (none below 4K;
         * 8K..1M at 2 MiB: 8) in 2 send modes; per-level segment pairs (6)
         * only with a level between the coarsest and shm */
        int per = bytes == 4096 ? 2 : (1 + 8) * 2, per2 = bytes == 4096 ? 2 : (1 + 8 + 6) * 2;
        int want = 2 * 6 * per + 6 * 5 * per2;
        TAP_OK(alone == 1 && last == want && elsewhere == 0 && n_on == n_off + 1 + want,
               "shm on, %zu B: shm alone %d, as the last base %d (expected %d), elsewhere %d; %d -> %d candidates",
               bytes, alone, last, want, elsewhere, n_off, n_on);
        char what[64];
        snprintf(what, sizeof what, "2 levels P=16 %zu B with shm", bytes);
        check_all_valid(&on, &h, 16, what);
        tn_cand_list_free(&off);
        tn_cand_list_free(&on);
    }
    /* no hierarchy: shm alone is the one addition */
    {
        tn_cand_list off = {0}, on = {0};
        g.shm = 0;
        int n_off = tn_cand_generate(&g, NULL, 8, 1 << 20, &off);
        g.shm = 1;
        int n_on = tn_cand_generate(&g, NULL, 8, 1 << 20, &on);
        int at = -1;
        for (int i = 0; i < on.n; i++)
            at = on.v[i].spec.id == TB_ALG_SHM ? i : at;
        TAP_OK(n_on == n_off + 1 && count_id(&on, TB_ALG_SHM) == 1 && at >= 0 && !strcmp(on.v[at].text, "shm"),
               "no levels, 1 MiB: \"shm\" alone is the one more candidate (%d -> %d)", n_off, n_on);
        tn_cand_list_free(&off);
        tn_cand_list_free(&on);
    }
    g.shm = 0;
    tb_hier_free(&h);

    /* --max-segments on a spec as text: the previous size's winner, timed
     * at the next size, keeps its shape with its segments doubled until
     * the message fits (measure.c); per-level segments each on its own */
    {
        struct {
            const char *text;
            size_t bytes;
            int max;
            const char *want;
        } t[] = {
            {"interpipe:segment=65536,levels=host,base=dbt/binomial", 8 << 20, 64,
             "interpipe:segment=131072,levels=host,base=dbt/binomial"},
            {"interpipe:segment=8192,levels=node,base=dbt", 8 << 20, 64, "interpipe:segment=131072,levels=node,base=dbt"},
            {"interpipe:segment=8192,levels=node,base=dbt", 512 << 10, 64, "interpipe:segment=8192,levels=node,base=dbt"},
            {"interpipe:segment=8192,levels=node,base=dbt", 8 << 20, 0, "interpipe:segment=8192,levels=node,base=dbt"},
            {"interpipe:segment=64K/4K,levels=node/socket,base=dbt/binomial", 1 << 20, 64,
             "interpipe:segment=64K/16K,levels=node/socket,base=dbt/binomial"},
            {"interpipe:segment=64K/16K,levels=node/socket,base=dbt/binomial", 1 << 20, 64,
             "interpipe:segment=64K/16K,levels=node/socket,base=dbt/binomial"},
            {"interpipe:segment=4K/64K,levels=node/socket,base=dbt/binomial", 1 << 20, 64,
             "interpipe:segment=16K/64K,levels=node/socket,base=dbt/binomial"},
            {"circulant:segment=262144", 8 << 20, 64, "circulant:segment=262144"},
            {"binomial", 8 << 20, 64, "binomial"},
        };
        int bad = 0;
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
            tb_alg_spec sp, want;
            char err[128], got[256] = "?", exp[256] = "";
            if (tb_alg_spec_parse(t[i].text, &sp, err, sizeof err) == 0 &&
                tb_alg_spec_parse(t[i].want, &want, err, sizeof err) == 0) {
                tn_cand_fit_pieces(&sp, t[i].bytes, t[i].max);
                tb_alg_spec_format(&sp, got, sizeof got);
                tb_alg_spec_format(&want, exp, sizeof exp);
            }
            if (strcmp(got, exp) != 0) {
                printf("# %s at %zu B, max %d: %s, want %s\n", t[i].text, t[i].bytes, t[i].max, got, exp);
                bad++;
            }
        }
        TAP_OK(bad == 0, "tn_cand_fit_pieces: segments doubled until the message fits --max-segments");
    }

    /* a hierarchy of TB_MAX_LEVELS levels: a spec using all of them has
     * more slots than bases, so only one base for every level is written
     * (the per-slot product would overrun tb_alg_spec.base) */
    {
        tn_cand_grid small;
        memset(&small, 0, sizeof small);
        small.base[small.nbase++] = TB_ALG_BINOMIAL;
        small.base[small.nbase++] = TB_ALG_FLAT;
        small.send_variants = 1;
        const int P = 1 << TB_MAX_LEVELS;
        tb_hier deep;
        tb_hier_alloc(&deep, P, TB_MAX_LEVELS);
        for (int l = 0; l < TB_MAX_LEVELS; l++) {
            snprintf(deep.level_name[l], TB_LEVEL_NAME_MAX, "l%d", l);
            deep.ngroups[l] = 2 << l;
            for (int r = 0; r < P; r++)
                deep.group[l][r] = r / (P >> (l + 1));
        }
        tn_cand_list l = {0};
        int n = tn_cand_generate(&small, &deep, P, 1024, &l);
        int all_levels = 0, bad = 0;
        for (int i = 0; i < l.n; i++) {
            const tb_alg_spec *c = &l.v[i].spec;
            if (c->id != TB_ALG_MAGPIE2 && c->id != TB_ALG_INTERPIPE)
                continue;
            bad += c->nbase < 1 || c->nbase > TB_MAX_LEVELS;
            if (c->levels[0] == '\0') { /* every level */
                all_levels++;
                bad += c->nbase != 1;
            }
        }
        /* magpie2 and interpipe (segment 0 is not an interpipe form), one per base */
        TAP_OK(n > 0 && bad == 0 && all_levels == small.nbase,
               "%d levels: %d candidates, those over every level have one base (%d of them, %d bad)",
               TB_MAX_LEVELS, n, all_levels, bad);
        tn_cand_list_free(&l);
        tb_hier_free(&deep);
    }
    TAP_DONE();
}
