/* Site shapes built as data for the model; see site_points.h. */
#include "site_points.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h" /* tn_costs_pair_class */

int tn_site_hier_restrict(const tb_hier *world, const int *members, int n, tb_hier *out)
{
    int nl = world && world->size ? world->nlevels : 0;
    if (tb_hier_alloc(out, n, nl) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (members[i] < 0 || (nl && members[i] >= world->size)) {
            tb_hier_free(out);
            return -1;
        }
    if (nl == 0)
        return 0;
    if (world->dclass && !(out->dclass = malloc(sizeof(double) * ((size_t)nl + 1)))) {
        tb_hier_free(out);
        return -1;
    }
    for (int l = 0; l < nl; l++) {
        memcpy(out->level_name[l], world->level_name[l], TB_LEVEL_NAME_MAX);
        out->ngroups[l] = world->ngroups[l];
        for (int i = 0; i < n; i++)
            out->group[l][i] = world->group[l][members[i]];
    }
    if (world->dclass)
        memcpy(out->dclass, world->dclass, sizeof(double) * ((size_t)nl + 1));
    if (tb_hier_normalize(out) != 0) {
        tb_hier_free(out);
        return -1;
    }
    tb_hier_drop_repeats(out);
    return 0;
}

void tn_site_fanout_map(const tb_hier *h, const int *world, const tb_hier *job, const double *job_fanout,
                        double *fanout)
{
    int nl = h && h->size ? h->nlevels : 0;
    for (int c = 0; c <= nl; c++) {
        fanout[c] = 1.0;
        for (int b = 1; h && b < h->size; b++)
            if ((nl ? tn_costs_pair_class(h, 0, b) : 0) == c) {
                fanout[c] = job_fanout[job && job->size ? tn_costs_pair_class(job, world[0], world[b]) : 0];
                break;
            }
    }
}

void tn_site_point_free(tn_site_point *p)
{
    tn_machine_free(&p->c.mach);
    tb_hier_free(&p->hier);
    free(p->members);
    free(p->node);
    memset(p, 0, sizeof *p);
}

int tn_site_point_make(const tn_site_base *b, const tn_site_shape *s, tn_site_point *p)
{
    memset(p, 0, sizeof *p);
    p->sh = *s;
    int size = s->nodes * s->ppn;
    p->members = malloc(sizeof *p->members * (size_t)(size > 0 ? size : 1));
    p->node = malloc(sizeof *p->node * (size_t)(size > 0 ? size : 1));
    if (!p->members || !p->node) {
        tn_site_point_free(p);
        return -1;
    }
    if (size < 2 || (size = tn_site_members(b->nodes, s, p->members, p->node)) < 2) {
        tn_site_point_free(p);
        return 1;
    }
    if (tn_site_hier_restrict(b->world, p->members, size, &p->hier) != 0) {
        tn_site_point_free(p);
        return -1;
    }
    tn_comm *c = &p->c;
    c->size = size;
    tn_site_label(s, c->label, sizeof c->label);
    c->world = p->members;
    c->node = p->node;
    c->shm = 0; /* only what was timed is priced (tn_price checks a plan's shm edges itself) */
    c->comm = MPI_COMM_NULL;
    c->hier = &p->hier;
    if (tb_shape_derive(&p->hier, p->node, size, b->cfg, &c->shape) != 0) {
        tn_site_point_free(p);
        return -1;
    }
    tn_site_fanout_map(&p->hier, p->members, b->world, b->fanout, c->fanout);
    if (b->mach && tn_machine_view(b->mach, p->members, size, &c->mach) == 0)
        c->have_mach = 1;
    return 0;
}
