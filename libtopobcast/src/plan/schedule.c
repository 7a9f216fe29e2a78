/* From an algorithm spec to one rank's schedule: tb_plan_build picks the
 * builder from the descriptor table (alg_desc.c) and runs it, the exchange
 * generator of the plan's kind (xchg_*.c) gives each rank its steps, and
 * tb_schedule_from_plan keeps what one rank needs.  The layer above the
 * builders: they never call back into it (plan.c is what they share). */
#include "schedule.h"

#include "plan/alg_desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What plan builders may ask of the table, passed down (builders.h). */
static const tb_plan_env *plan_env(void)
{
    static const tb_plan_env env = {tb_alg_name, tb_tree_builder_for, tb_alg_spec_default, tb_alg_ntrees,
                                    tb_alg_level_xchg};
    return &env;
}

/* The descriptor's tree builder over the whole communicator, once per tree
 * of the plan (dbt: two, tree k carrying block k of ntrees). */
static int plan_single_tree(tb_plan *p, int size, int root, const tb_alg_spec *spec, const tb_alg_desc *d,
                            char *err, size_t errlen)
{
    int ntrees = tb_alg_ntrees(spec->id);
    int *members = malloc(sizeof(int) * (size_t)size);
    if (!members) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < size; r++)
        members[r] = r;
    int rc = 0;
    p->ntrees = ntrees;
    for (int k = 0; k < ntrees && rc == 0; k++) {
        tb_tree *t = k == 0 ? &p->tree : &p->tree2;
        tb_alg_spec ks = *spec;
        ks.tree_index = k;
        if (tb_tree_init(t, size, root, ntrees) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else if (d->tree(t, members, size, root, &ks, k, k + 1) != 0 || tb_tree_finalize(t) != 0) {
            snprintf(err, errlen, "%s: cannot build tree for %d ranks", tb_alg_name(spec->id), size);
            rc = -1;
        }
    }
    free(members);
    return rc;
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
        rc = plan_single_tree(p, size, root, spec, d, err, errlen);
    } else {
        snprintf(err, errlen, "algorithm %s has no schedule", tb_alg_name(spec->id));
        return -1;
    }
    if (rc == 0 && p->ntrees > 1 && tb_plan_has_shm(p)) {
        snprintf(err, errlen, "%s: shm cannot be a base of a two-tree plan (dbt): one ring per rank",
                 tb_alg_name(spec->id));
        rc = -1;
    }
    if (rc != 0)
        tb_plan_free(p);
    else if (p->ntrees == 0)
        p->ntrees = 1;
    return rc;
}

int tb_plan_has_shm(const tb_plan *p)
{
    for (int k = 0; k < (p->ntrees > 1 ? p->ntrees : 1); k++) {
        const tb_tree *t = tb_plan_tree(p, k);
        for (int r = 0; t->shm && r < t->size; r++)
            if (t->shm[r] && t->parent[r] >= 0)
                return 1;
    }
    return 0;
}

int tb_plan_shm_outside(const tb_plan *p, const int *node_of)
{
    for (int k = 0; k < (p->ntrees > 1 ? p->ntrees : 1); k++) {
        const tb_tree *t = tb_plan_tree(p, k);
        for (int r = 0; t->shm && r < t->size; r++)
            if (t->shm[r] && t->parent[r] >= 0 && node_of[r] != node_of[t->parent[r]])
                return r;
    }
    return -1;
}

int tb_plan_xchg_steps(const tb_plan *p, int me, tb_xchg_step **steps)
{
    *steps = NULL;
    switch (p->xchg) {
    case TB_XCHG_RING: return tb_xchg_ring_steps(p, me, steps);
    case TB_XCHG_RDBL: return tb_xchg_rdbl_steps(p, me, steps);
    case TB_XCHG_PAIR: return tb_xchg_pair_steps(p, me, steps);
    case TB_XCHG_CIRC: return tb_xchg_circ_steps(p, me, steps);
    default: return 0;
    }
}

/* Rank me's part of tree t. */
static int sched_tree(tb_sched_tree *st, const tb_tree *t, int me)
{
    st->parent = t->parent[me];
    st->mine.lo = t->blk_lo[me];
    st->mine.hi = t->blk_hi[me];
    st->seg = tb_tree_edge_segment(t, me, 0);
    st->shm_parent = st->parent >= 0 && tb_tree_edge_shm(t, me);
    const int *c = tb_tree_children(t, me);
    int n = tb_tree_nchildren(t, me);
    st->nchildren = 0;
    for (int i = 0; i < n; i++) {
        if (!tb_tree_edge_shm(t, c[i])) {
            st->nchildren++;
        } else if (st->nshm++ == 0) {
            st->shm_blocks.lo = t->blk_lo[c[i]]; /* all alike (tb_tree_check) */
            st->shm_blocks.hi = t->blk_hi[c[i]];
        }
    }
    if (st->nchildren == 0)
        return 0;
    st->children = malloc(sizeof(int) * (size_t)st->nchildren);
    st->child_blocks = malloc(sizeof(tb_blocks) * (size_t)st->nchildren);
    if (t->seg)
        st->child_seg = malloc(sizeof(size_t) * (size_t)st->nchildren);
    if (!st->children || !st->child_blocks || (t->seg && !st->child_seg))
        return -1;
    for (int i = 0, j = 0; i < n; i++) {
        if (tb_tree_edge_shm(t, c[i]))
            continue;
        st->children[j] = c[i];
        st->child_blocks[j].lo = t->blk_lo[c[i]];
        st->child_blocks[j].hi = t->blk_hi[c[i]];
        if (st->child_seg)
            st->child_seg[j] = t->seg[c[i]];
        j++;
    }
    return 0;
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
    s->ntrees = p->ntrees > 1 ? p->ntrees : 1;
    s->shm = tb_plan_has_shm(p);
    for (int k = 0; k < s->ntrees; k++)
        if (sched_tree(&s->tree[k], tb_plan_tree(p, k), me) != 0) {
            tb_schedule_free(s);
            return -1;
        }
    s->xchg_first = tb_plan_xchg_first(p);
    s->nsteps = tb_plan_xchg_steps(p, me, &s->steps);
    if (s->nsteps < 0) {
        s->nsteps = 0;
        tb_schedule_free(s);
        return -1;
    }
    if (p->xchg == TB_XCHG_CIRC)
        s->xperiod = s->nsteps;
    return 0;
}

/* Rank x of a root-0 plan as the rank it is for root: (x + root) mod size
 * (-1, no peer, stays). */
static int renumber(int x, int root, int size)
{
    return x < 0 ? x : (x + root) % size;
}

int tb_schedule_rotated(tb_schedule *s, const tb_plan *p0, int root, int me, const tb_alg_spec *spec)
{
    int size = p0->tree.size;
    if (tb_schedule_from_plan(s, p0, (me - root + size) % size, spec) != 0)
        return -1;
    s->root = root;
    s->me = me;
    for (int k = 0; k < s->ntrees; k++) {
        tb_sched_tree *st = &s->tree[k];
        st->parent = renumber(st->parent, root, size);
        for (int i = 0; i < st->nchildren; i++)
            st->children[i] = renumber(st->children[i], root, size);
    }
    for (int i = 0; i < s->nsteps; i++) {
        s->steps[i].send_peer = renumber(s->steps[i].send_peer, root, size);
        s->steps[i].recv_peer = renumber(s->steps[i].recv_peer, root, size);
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

/* A copy of n elements of size sz (NULL for none); *ok cleared on failure. */
static void *dup_array(const void *src, int n, size_t sz, int *ok)
{
    if (!src || n <= 0)
        return NULL;
    void *d = malloc(sz * (size_t)n);
    if (!d)
        *ok = 0;
    else
        memcpy(d, src, sz * (size_t)n);
    return d;
}

int tb_schedule_copy(tb_schedule *dst, const tb_schedule *src)
{
    int ok = 1;
    *dst = *src;
    for (int k = 0; k < src->ntrees; k++) {
        const tb_sched_tree *a = &src->tree[k];
        tb_sched_tree *b = &dst->tree[k];
        b->children = dup_array(a->children, a->nchildren, sizeof(int), &ok);
        b->child_blocks = dup_array(a->child_blocks, a->nchildren, sizeof(tb_blocks), &ok);
        b->child_seg = dup_array(a->child_seg, a->nchildren, sizeof(size_t), &ok);
    }
    dst->steps = dup_array(src->steps, src->nsteps, sizeof(tb_xchg_step), &ok);
    if (!ok) {
        tb_schedule_free(dst);
        return -1;
    }
    return 0;
}

void tb_schedule_free(tb_schedule *s)
{
    for (int k = 0; k < TB_MAX_TREES; k++) {
        free(s->tree[k].children);
        free(s->tree[k].child_blocks);
        free(s->tree[k].child_seg);
    }
    free(s->steps);
    memset(s, 0, sizeof *s);
}
