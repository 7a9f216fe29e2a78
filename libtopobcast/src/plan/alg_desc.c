#include "plan/alg_desc.h"

#include <stddef.h>

/* pipelines need a segment to be pipelines; 64 KiB balances per-message
 * overhead against fill time for MiB-sized messages */
#define PIPELINE_SEGMENT ((size_t)64 * 1024)

static const tb_alg_desc table[TB_ALG_COUNT] = {
    [TB_ALG_DEFAULT] = {"default", 0, 0, TB_ALG_DEFAULT, NULL, NULL},
    [TB_ALG_FLAT] = {"flat", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_flat_build, NULL, 1, TB_XCHG_NONE, 1},
    [TB_ALG_CHAIN] = {"chain", TB_PARAM_TREE | TB_PARAM_CHAINS, 0, TB_ALG_DEFAULT, tb_tree_chain_build, NULL, 1, TB_XCHG_NONE, 1},
    [TB_ALG_BINARY] = {"binary", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_binary_build, NULL, 1, TB_XCHG_NONE, 1},
    [TB_ALG_SPLIT_BINARY] = {"split_binary", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, NULL, tb_plan_split_binary, 1, TB_XCHG_NONE, 1},
    [TB_ALG_BINOMIAL] = {"binomial", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_binomial_build, NULL, 1, TB_XCHG_NONE, 1},
    [TB_ALG_KNOMIAL] = {"knomial", TB_PARAM_TREE | TB_PARAM_RADIX, 0, TB_ALG_DEFAULT, tb_tree_knomial_build, NULL, 1, TB_XCHG_NONE, 1},
    [TB_ALG_PIPELINE] = {"pipeline", TB_PARAM_TREE | TB_PARAM_CHAINS, PIPELINE_SEGMENT, TB_ALG_DEFAULT,
                         tb_tree_chain_build, NULL, 1, TB_XCHG_NONE, 1},
    [TB_ALG_SCATTER_ALLGATHER] = {"scatter_allgather",
                                  TB_PARAM_SEND | TB_PARAM_OUTSTANDING | TB_PARAM_ALLGATHER | TB_PARAM_RING, 0,
                                  TB_ALG_DEFAULT, NULL, tb_plan_scatter_allgather, 1, TB_XCHG_NONE, 1},
    [TB_ALG_MAGPIE] = {"magpie", TB_PARAM_TREE | TB_PARAM_LEVELS, 0, TB_ALG_FLAT, NULL, tb_plan_hierarchical},
    [TB_ALG_MAGPIE2] = {"magpie2", TB_PARAM_TREE | TB_PARAM_LEVELS | TB_PARAM_BASE | TB_PARAM_CHAINS | TB_PARAM_FEEDS | TB_PARAM_LEADERS, 0, TB_ALG_BINOMIAL, NULL,
                        tb_plan_hierarchical},
    [TB_ALG_INTERPIPE] = {"interpipe", TB_PARAM_TREE | TB_PARAM_LEVELS | TB_PARAM_BASE | TB_PARAM_CHAINS | TB_PARAM_FEEDS | TB_PARAM_LEADERS, PIPELINE_SEGMENT,
                          TB_ALG_BINOMIAL, NULL, tb_plan_hierarchical},
    [TB_ALG_DISTANCE_TREE] = {"distance_tree", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, NULL, tb_plan_distance_tree},
    /* two trees each carrying half the message: pipelined like a chain */
    [TB_ALG_DBT] = {"dbt", TB_PARAM_TREE, PIPELINE_SEGMENT, TB_ALG_DEFAULT, tb_tree_dbt_build, NULL, 2,
                    TB_XCHG_NONE, 1},
    [TB_ALG_BINE] = {"bine", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_bine_build, NULL, 1, TB_XCHG_NONE, 1},
    /* segment= sets the block count, so it pipelines like a chain */
    [TB_ALG_CIRCULANT] = {"circulant", TB_PARAM_SEGMENT, PIPELINE_SEGMENT, TB_ALG_DEFAULT, NULL, tb_plan_circulant,
                          1, TB_XCHG_CIRC, 1},
    /* one copy into a node-shared ring, concurrent copies out (tree_shm.c);
     * a level's base where the level's groups share memory */
    [TB_ALG_SHM] = {"shm", 0, 0, TB_ALG_DEFAULT, tb_tree_shm_build, NULL, 1, TB_XCHG_NONE},
};

const tb_alg_desc *tb_alg_desc_of(tb_alg_id id)
{
    return (int)id >= 0 && id < TB_ALG_COUNT ? &table[id] : NULL;
}

tb_tree_builder tb_tree_builder_for(tb_alg_id id)
{
    const tb_alg_desc *d = tb_alg_desc_of(id);
    return d ? d->tree : NULL;
}

int tb_alg_ntrees(tb_alg_id id)
{
    const tb_alg_desc *d = tb_alg_desc_of(id);
    return d && d->ntrees > 1 ? d->ntrees : 1;
}

tb_xchg_kind tb_alg_level_xchg(tb_alg_id id)
{
    const tb_alg_desc *d = tb_alg_desc_of(id);
    return d ? d->level_xchg : TB_XCHG_NONE;
}

int tb_plan_rotates(const tb_alg_spec *spec)
{
    const tb_alg_desc *d = tb_alg_desc_of(spec->id);
    return d && d->rotates && spec->ring != TB_RING_DISTANCE;
}

int tb_alg_desc_is_base(tb_alg_id id)
{
    const tb_alg_desc *d = tb_alg_desc_of(id);
    return d && (d->tree || d->level_xchg != TB_XCHG_NONE);
}
