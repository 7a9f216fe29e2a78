/* The plan as data, below every builder and exchange generator: what they
 * share (release, and a rank's position in the exchange order).  Building
 * and dispatch live one layer up, in schedule.c. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

void tb_plan_free(tb_plan *p)
{
    tb_tree_free(&p->tree);
    tb_tree_free(&p->tree2);
    free(p->order);
    free(p->partner);
    memset(p, 0, sizeof *p);
}

int tb_plan_position(const tb_plan *p, int rank)
{
    int n = p->norder > 0 ? p->norder : p->tree.size;
    for (int v = 0; p->order && v < n; v++)
        if (p->order[v] == rank)
            return v;
    return -1;
}
