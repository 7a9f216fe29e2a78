/* The reader of a configuration's topology (read_topology.c). */
#ifndef TB_CONFIG_READ_TOPOLOGY_H
#define TB_CONFIG_READ_TOPOLOGY_H

#include "config/yaml_tree.h"

/* \brief Reads the node of 'topology:' into L->cfg->topo, checked, with
 * its lookup indexes (topo.h).
 * \return 0, or -1 with the message in L->err. */
int tb_yaml_read_topology(tb_yaml_loader *L, const tb_ynode *n);

#endif
