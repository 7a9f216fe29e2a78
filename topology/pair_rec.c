/* A measured pair's record (tt_pair_rec, as the measurement file holds
 * it) read as PLogP parameters: put into any pair of a tt_plogp, or its
 * time t(m) for one message.  Used by both ways of completing a run's
 * matrix (analyze.c, sampled.c) and by the probe's sample mode. */
#include <stdlib.h>

#include "analysis_internal.h"

int tt_pair_set_from_rec(tt_plogp *p, int i, int j, const tt_pair_rec *q)
{
    int ns = q->nsizes;
    double *v = malloc(4 * (size_t)ns * sizeof *v);
    if (!v)
        return -1;
    for (int k = 0; k < ns; k++) {
        v[k] = q->s[k].m;
        v[ns + k] = q->s[k].o_s;
        v[2 * ns + k] = q->s[k].o_r;
        v[3 * ns + k] = q->s[k].g;
    }
    int rc = tt_plogp_set_pair(p, i, j, q->L, ns, v, v + ns, v + 2 * ns, v + 3 * ns);
    free(v);
    return rc;
}

int tt_pair_rec_time(const tt_pair_rec *q, double m, tt_interp how, double *t)
{
    tt_plogp p;
    if (!q || !t || tt_plogp_alloc(&p, 2) != 0)
        return -1;
    int rc = tt_pair_set_from_rec(&p, 0, 1, q);
    if (rc == 0)
        *t = tt_plogp_time(&p.pair[0], m, how);
    tt_plogp_free(&p);
    return rc;
}
