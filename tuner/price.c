/* Pricing one candidate, memoised by schedule signature; see price.h. */
#include "price.h"

#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "schedule.h"

int tn_price_memo_init(tn_price_memo *m, int n)
{
    m->cap = 16;
    while (m->cap < 2 * (size_t)n)
        m->cap *= 2;
    m->sig = calloc(m->cap, sizeof *m->sig);
    m->t = malloc(m->cap * sizeof *m->t);
    m->replay = malloc(m->cap * sizeof *m->replay);
    if (!m->sig || !m->t || !m->replay) {
        tn_price_memo_free(m);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        m->t[i] = -2.0; /* empty slot */
    return 0;
}

void tn_price_memo_free(tn_price_memo *m)
{
    free(m->sig);
    free(m->t);
    free(m->replay);
    m->sig = NULL;
    m->t = m->replay = NULL;
    m->cap = 0;
}

/* Slot of sig: the one holding it, or the empty one where it goes. */
static size_t memo_slot(const tn_price_memo *m, uint64_t sig)
{
    size_t i = (size_t)(sig ^ (sig >> 29)) & (m->cap - 1);
    while (m->t[i] != -2.0 && m->sig[i] != sig)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int tn_price(const tn_costs *costs, const tn_comm *ci, const tb_alg_spec *spec, size_t bytes, tn_price_memo *memo,
             double *t, double *replay, char *err, size_t errlen)
{
    const tb_hier *h = ci->hier && ci->hier->size ? ci->hier : NULL; /* as comm_state.c does */
    int roots[2] = {0, ci->size - 1};
    tb_plan p[2];
    uint64_t sig = 0;
    *t = -1;
    for (int k = 0; k < 2; k++) {
        if (tb_plan_build(&p[k], ci->size, roots[k], spec, h, err, errlen) != 0) {
            if (k)
                tb_plan_free(&p[0]);
            return -1;
        }
        sig = sig * 31 + tn_plan_signature(&p[k], spec, bytes);
        /* A shared-memory edge between two nodes: the library would run
         * binomial in shm's place (comm_state.c), which is a candidate of
         * its own; timing it under this name would credit shm with it. */
        if (tb_plan_has_shm(&p[k]) && (!ci->node || tb_plan_shm_outside(&p[k], ci->node) >= 0)) {
            snprintf(err, errlen, "%s: the library would run binomial in shm's place",
                     ci->node ? "a shared-memory edge joins two nodes" : "no node ids to check shm against");
            tb_plan_free(&p[0]);
            if (k)
                tb_plan_free(&p[1]);
            return -1;
        }
    }
    tb_plan_free(&p[1]);
    size_t slot = memo_slot(memo, sig);
    int seen = memo->t[slot] != -2.0;
    if (seen) {
        *t = memo->t[slot];
        *replay = memo->replay[slot];
    } else {
        if (costs)
            *t = tn_model_plan_predict(costs, ci->world, &p[0], h, ci->fanout, ci->have_mach ? &ci->mach : NULL,
                                       spec, bytes, replay);
        memo->sig[slot] = sig, memo->t[slot] = *t, memo->replay[slot] = *replay;
    }
    tb_plan_free(&p[0]);
    if (costs && *t < 0) {
        snprintf(err, errlen, "the model cannot replay it");
        return -1;
    }
    return seen;
}
