/* The reader of a configuration's selection table (read_selection.c). */
#ifndef TB_CONFIG_READ_SELECTION_H
#define TB_CONFIG_READ_SELECTION_H

#include "config/yaml_tree.h"

/* \brief Reads the node of 'selection:' into L->cfg->rules, checked:
 * the last rule matches everything, no rule is unreachable.
 * \return 0, or -1 with the message in L->err. */
int tb_yaml_read_selection(tb_yaml_loader *L, const tb_ynode *n);

#endif
