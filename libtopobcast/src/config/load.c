/* Loading the YAML configuration (schema: config/README.md): the top
 * level, then the readers of its keys.  Everything is validated here,
 * once, so that the mapping and the dispatch can trust every index and
 * every rule, and so that every mistake is reported where a human would
 * fix it: "FILE:LINE:COLUMN: expected ...". */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config/read_selection.h"
#include "config/read_topology.h"
#include "config/yaml_node.h"

static int parse_root(tb_yaml_loader *L, const tb_ynode *root)
{
    if (root->type != Y_MAP)
        return tb_yaml_fail(L, root, "expected a mapping starting with 'topobcast: 2', got %s", tb_yaml_kind(root));
    tb_yaml_field f[] = {{"topobcast", 1, 0, 0}, {"topology", 0, 0, 0}, {"selection", 0, 0, 0}, {"meta", 0, 0, 0}};
    if (tb_yaml_take_fields(L, root, f, 4, "the top level") != 0)
        return -1;
    const char *version;
    char sh[64];
    if (tb_yaml_scalar(L, f[0].val, "format version 2", &version) != 0)
        return -1;
    if (strcmp(version, "1") != 0 && strcmp(version, "2") != 0)
        return tb_yaml_fail(L, f[0].val, "expected format version 2 ('topobcast: 2'; 1 for a file without a topology), got '%s'",
                    tb_yaml_shown(L, f[0].val, sh, sizeof sh));
    /* format 1 differs in the topology only (config/README.md) */
    if (f[1].val && strcmp(version, "2") != 0)
        return tb_yaml_fail(L, f[1].val, TB_YAML_FORMAT1_TOPOLOGY);
    if (f[1].val && tb_yaml_read_topology(L, f[1].val) != 0)
        return -1;
    if (f[2].val)
        return tb_yaml_read_selection(L, f[2].val);
    /* A topology-only file (straight from the probe) keeps the built-in
     * table; the topology still serves TOPOBCAST_ALGORITHM. */
    tb_config builtin;
    tb_config_builtin(&builtin);
    L->cfg->rules = builtin.rules;
    L->cfg->nrules = builtin.nrules;
    return 0;
}


int tb_config_load_buffer(const char *data, size_t len, const char *name, tb_config *cfg, char *err,
                          size_t errlen)
{
    tb_yaml_loader L;
    memset(&L, 0, sizeof L);
    memset(cfg, 0, sizeof *cfg);
    L.name = name ? name : "<buffer>";
    L.data = data;
    L.len = len;
    L.err = err;
    L.errlen = errlen;
    L.cfg = cfg;
    if (err && errlen)
        err[0] = 0;
    snprintf(cfg->source, sizeof cfg->source, "%s", L.name);
    cfg->hash = tb_config_hash_bytes(data, len);

    long root;
    int rc = tb_yaml_read_tree(&L, data, len, &root);
    if (rc == 0 && root < 0) {
        yaml_mark_t m = {0, 0, 0};
        rc = tb_yaml_fail_at(&L, &m, "expected a mapping starting with 'topobcast: 2', the file is empty");
    }
    if (rc == 0)
        rc = parse_root(&L, &L.t.nodes[root]);
    tb_yaml_tree_free(&L.t);
    if (rc != 0)
        tb_config_free(cfg);
    return rc;
}

int tb_config_load(const char *path, tb_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    size_t len = 0;
    char *data = tb_config_read_file(path, tb_config_max_bytes(NULL), &len, err, errlen);
    if (!data)
        return -1;
    int rc = tb_config_load_buffer(data, len, path, cfg, err, errlen);
    free(data);
    return rc;
}

void tb_config_free(tb_config *cfg)
{
    tb_topology_release(&cfg->topo);
    free(cfg->rules);
    memset(cfg, 0, sizeof *cfg);
}
