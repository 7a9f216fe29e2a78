#include "alg_desc.h"

#include <stddef.h>

/* pipelines need a segment to be pipelines; 64 KiB balances per-message
 * overhead against fill time for MiB-sized messages */
#define PIPELINE_SEGMENT ((size_t)64 * 1024)

static const tb_alg_desc table[TB_ALG_COUNT] = {
    [TB_ALG_DEFAULT] = {"default", 0, 0, TB_ALG_DEFAULT, NULL, NULL},
    [TB_ALG_FLAT] = {"flat", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_flat_build, NULL},
    [TB_ALG_CHAIN] = {"chain", TB_PARAM_TREE | TB_PARAM_CHAINS, 0, TB_ALG_DEFAULT, tb_tree_chain_build, NULL},
    [TB_ALG_BINARY] = {"binary", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_binary_build, NULL},
    [TB_ALG_SPLIT_BINARY] = {"split_binary", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, NULL, tb_plan_split_binary},
    [TB_ALG_BINOMIAL] = {"binomial", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, tb_tree_binomial_build, NULL},
    [TB_ALG_KNOMIAL] = {"knomial", TB_PARAM_TREE | TB_PARAM_RADIX, 0, TB_ALG_DEFAULT, tb_tree_knomial_build, NULL},
    [TB_ALG_PIPELINE] = {"pipeline", TB_PARAM_TREE | TB_PARAM_CHAINS, PIPELINE_SEGMENT, TB_ALG_DEFAULT,
                         tb_tree_chain_build, NULL},
    [TB_ALG_SCATTER_ALLGATHER] = {"scatter_allgather",
                                  TB_PARAM_SEND | TB_PARAM_OUTSTANDING | TB_PARAM_ALLGATHER | TB_PARAM_RING, 0,
                                  TB_ALG_DEFAULT, NULL, tb_plan_scatter_allgather},
    [TB_ALG_MAGPIE] = {"magpie", TB_PARAM_TREE | TB_PARAM_LEVELS, 0, TB_ALG_FLAT, NULL, tb_plan_hierarchical},
    [TB_ALG_MAGPIE2] = {"magpie2", TB_PARAM_TREE | TB_PARAM_LEVELS | TB_PARAM_BASE, 0, TB_ALG_BINOMIAL, NULL,
                        tb_plan_hierarchical},
    [TB_ALG_INTERPIPE] = {"interpipe", TB_PARAM_TREE | TB_PARAM_LEVELS | TB_PARAM_BASE, PIPELINE_SEGMENT,
                          TB_ALG_BINOMIAL, NULL, tb_plan_hierarchical},
    [TB_ALG_DISTANCE_TREE] = {"distance_tree", TB_PARAM_TREE, 0, TB_ALG_DEFAULT, NULL, tb_plan_distance_tree},
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
