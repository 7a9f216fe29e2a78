/* The plan as data, below every builder and exchange generator: what they
 * share (release, and a rank's position in the exchange order).  Building
 * and dispatch live one layer up, in schedule.c. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

void tb_plan_free(tb_plan *p)
{
    tb_tree_free(&p->tree);
    free(p->order);
    free(p->partner);
    memset(p, 0, sizeof *p);
}

int tb_plan_position(const tb_plan *p, int rank)
{
    for (int v = 0; p->order && v < p->tree.size; v++)
        if (p->order[v] == rank)
            return v;
    return -1;
}
