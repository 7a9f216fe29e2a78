/* From an algorithm spec to one rank's schedule: tb_plan_build picks the
 * builder from the descriptor table (alg_desc.c) and runs it, the exchange
 * generator of the plan's kind (xchg_*.c) gives each rank its steps, and
 * tb_schedule_from_plan keeps what one rank needs.  The layer above the
 * builders: they never call back into it (plan.c is what they share). */
#include "schedule.h"

#include "alg_desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What plan builders may ask of the table, passed down (builders.h). */
static const tb_plan_env *plan_env(void)
{
    static const tb_plan_env env = {tb_alg_name, tb_tree_builder_for, tb_alg_spec_default};
    return &env;
}

static int plan_single_tree(tb_plan *p, int size, int root, const tb_alg_spec *spec, tb_tree_builder build,
                            char *err, size_t errlen)
{
    int *members = malloc(sizeof(int) * (size_t)size);
    if (!members || tb_tree_init(&p->tree, size, root, 1) != 0) {
        free(members);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < size; r++)
        members[r] = r;
    int rc = build(&p->tree, members, size, root, spec, 0, 1);
    free(members);
    if (rc != 0 || tb_tree_finalize(&p->tree) != 0) {
        snprintf(err, errlen, "%s: cannot build tree for %d ranks", tb_alg_name(spec->id), size);
        return -1;
    }
    return 0;
}

int tb_plan_build(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_hier *h, char *err,
                  size_t errlen)
{
    memset(p, 0, sizeof *p);
    const tb_alg_desc *d = tb_alg_desc_of(spec->id);
    int rc;
    if (d && d->plan) {
        rc = d->plan(p, size, root, spec, h, plan_env(), err, errlen);
    } else if (d && d->tree) {
        rc = plan_single_tree(p, size, root, spec, d->tree, err, errlen);
    } else {
        snprintf(err, errlen, "algorithm %s has no schedule", tb_alg_name(spec->id));
        return -1;
    }
    if (rc != 0)
        tb_plan_free(p);
    return rc;
}

int tb_plan_xchg_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    *steps = NULL;
    switch (p->xchg) {
    case TB_XCHG_RING: return tb_xchg_ring_steps(p, me, steps);
    case TB_XCHG_RDBL: return tb_xchg_rdbl_steps(p, me, steps);
    case TB_XCHG_PAIR: return tb_xchg_pair_steps(p, me, steps);
    default: return 0;
    }
}

int tb_schedule_from_plan(tb_schedule *s, const tb_plan *p, int me, const tb_alg_spec *spec)
{
    const tb_tree *t = &p->tree;
    memset(s, 0, sizeof *s);
    s->spec = *spec;
    s->size = t->size;
    s->root = t->root;
    s->me = me;
    s->nblocks = t->nblocks;
    s->parent = t->parent[me];
    s->mine.lo = t->blk_lo[me];
    s->mine.hi = t->blk_hi[me];
    s->nchildren = tb_tree_nchildren(t, me);
    if (s->nchildren > 0) {
        s->children = malloc(sizeof(int) * (size_t)s->nchildren);
        s->child_blocks = malloc(sizeof(tb_blocks) * (size_t)s->nchildren);
        if (!s->children || !s->child_blocks) {
            tb_schedule_free(s);
            return -1;
        }
        const int *c = tb_tree_children(t, me);
        for (int i = 0; i < s->nchildren; i++) {
            s->children[i] = c[i];
            s->child_blocks[i].lo = t->blk_lo[c[i]];
            s->child_blocks[i].hi = t->blk_hi[c[i]];
        }
    }
    s->nsteps = tb_plan_xchg_steps(p, me, &s->steps);
    if (s->nsteps < 0) {
        s->nsteps = 0;
        tb_schedule_free(s);
        return -1;
    }
    return 0;
}

int tb_schedule_build(tb_schedule *s, int size, int root, int me, const tb_alg_spec *spec, const tb_hier *h,
                      char *err, size_t errlen)
{
    tb_plan p;
    if (tb_plan_build(&p, size, root, spec, h, err, errlen) != 0)
        return -1;
    int rc = tb_schedule_from_plan(s, &p, me, spec);
    tb_plan_free(&p);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

int tb_schedule_copy(tb_schedule *dst, const tb_schedule *src)
{
    *dst = *src;
    dst->children = NULL;
    dst->child_blocks = NULL;
    dst->steps = NULL;
    if (src->nchildren > 0) {
        dst->children = malloc(sizeof(int) * (size_t)src->nchildren);
        dst->child_blocks = malloc(sizeof(tb_blocks) * (size_t)src->nchildren);
    }
    if (src->nsteps > 0)
        dst->steps = malloc(sizeof(tb_xchg_step) * (size_t)src->nsteps);
    if ((src->nchildren > 0 && (!dst->children || !dst->child_blocks)) || (src->nsteps > 0 && !dst->steps)) {
        tb_schedule_free(dst);
        return -1;
    }
    if (src->nchildren > 0) {
        memcpy(dst->children, src->children, sizeof(int) * (size_t)src->nchildren);
        memcpy(dst->child_blocks, src->child_blocks, sizeof(tb_blocks) * (size_t)src->nchildren);
    }
    if (src->nsteps > 0)
        memcpy(dst->steps, src->steps, sizeof(tb_xchg_step) * (size_t)src->nsteps);
    return 0;
}

void tb_schedule_free(tb_schedule *s)
{
    free(s->children);
    free(s->child_blocks);
    free(s->steps);
    memset(s, 0, sizeof *s);
}
