/* Lifetime and defaults of a run's records, shared by the MPI side and
 * the offline analysis. */
#include <stdlib.h>
#include <string.h>

#include "topology.h"

static const char *const conc_names[TT_CONC_COUNT] = {"serial", "intra", "groups", "ranks"};

const char *tt_concurrency_name(tt_concurrency c)
{
    return c >= 0 && c < TT_CONC_COUNT ? conc_names[c] : "?";
}

int tt_concurrency_from_name(const char *s)
{
    for (int c = 0; c < TT_CONC_COUNT; c++)
        if (strcmp(s, conc_names[c]) == 0)
            return c;
    return -1;
}

void tt_meas_opts_default(tt_meas_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = TT_MODE_PLOGP;
    o->reps = 8;
    o->max_reps = 32;
    o->rep_budget = 500e-6;
    o->max_size = 1L << 20;
    o->eps = 0.05;
    o->max_insert = 12;
    o->min_spacing = 32;
    o->k_wait = 1.3;
    o->gsat_max = 64L << 10;
    o->gsat_cap = 256;
    o->batch_time = 10e-6;
    o->use_min = 0;
    o->prtt_n = 8;
    o->conc = TT_CONC_INTRA;
    o->fast = 1.0;
    o->agree = 1e-3;
    o->seed = 1;
}

void tt_size_rec_pack(const tt_size_rec *s, double *v)
{
    double head[6] = {s->m, s->rtt, s->o_s, s->o_r, s->g, s->gsat};
    memcpy(v, head, sizeof head);
    memcpy(v + 6, s->q, sizeof s->q);
}

void tt_size_rec_unpack(tt_size_rec *s, const double *v)
{
    s->m = v[0];
    s->rtt = v[1];
    s->o_s = v[2];
    s->o_r = v[3];
    s->g = v[4];
    s->gsat = (int)v[5];
    memcpy(s->q, v + 6, sizeof s->q);
}

void tt_pair_rec_free(tt_pair_rec *p)
{
    if (!p)
        return;
    free(p->s);
    p->s = NULL;
    p->nsizes = 0;
}

void tt_meas_free(tt_meas *m)
{
    if (!m)
        return;
    for (int k = 0; k < m->npairs; k++)
        tt_pair_rec_free(&m->pair[k]);
    free(m->pair);
    free(m->rank);
    memset(m, 0, sizeof *m);
}

static int cmp_pair(const void *a, const void *b)
{
    const tt_pair_rec *p = a, *q = b;
    if (p->i != q->i)
        return p->i < q->i ? -1 : 1;
    return (p->j > q->j) - (p->j < q->j);
}

int tt_meas_sort_pairs(tt_meas *m)
{
    qsort(m->pair, (size_t)m->npairs, sizeof *m->pair, cmp_pair);
    for (int k = 1; k < m->npairs; k++)
        if (m->pair[k].i == m->pair[k - 1].i && m->pair[k].j == m->pair[k - 1].j)
            return -1;
    return 0;
}
