/* The cost model's error per algorithm family; see model_error.h. */
#include "model_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../timing/timing.h"
#include "algorithm.h"
#include "array.h"

typedef struct fam_err {
    int n, cap;
    double *ratio; /* measured / predicted */
} fam_err;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void tn_model_error_report(const tn_results *rs, FILE *f)
{
    fam_err fe[TB_ALG_COUNT];
    memset(fe, 0, sizeof fe);
    for (int i = 0; i < rs->n; i++) {
        const tn_result *r = &rs->v[i];
        double s = tn_result_score(r);
        if (r->status != TN_RES_OK || r->predicted <= 0 || s <= 0)
            continue;
        tb_alg_spec sp;
        char err[256];
        if (tb_alg_spec_parse(r->spec, &sp, err, sizeof err) != 0)
            continue;
        fam_err *e = &fe[sp.id];
        double *nr = tn_array_room(e->ratio, e->n, &e->cap, sizeof *nr, 256);
        if (!nr)
            continue;
        e->ratio = nr;
        e->ratio[e->n++] = s / r->predicted;
    }
    fprintf(f, "\nmodel error by algorithm family (timed candidates; ratio = measured / predicted):\n");
    fprintf(f, "  %-18s %6s %10s %10s %10s %14s\n", "family", "n", "p10", "median", "p90", "median |error|");
    for (int id = 0; id < TB_ALG_COUNT; id++) {
        fam_err *e = &fe[id];
        if (e->n == 0)
            continue;
        qsort(e->ratio, (size_t)e->n, sizeof(double), cmp_double);
        double *ae = malloc(sizeof(double) * (size_t)e->n);
        if (ae) {
            for (int k = 0; k < e->n; k++)
                ae[k] = fabs(e->ratio[k] - 1.0);
            qsort(ae, (size_t)e->n, sizeof(double), cmp_double);
        }
        fprintf(f, "  %-18s %6d %10.2f %10.2f %10.2f %13.0f%%\n", tb_alg_name((tb_alg_id)id), e->n,
                tbtime_quantile(e->ratio, e->n, 0.1), tbtime_quantile(e->ratio, e->n, 0.5),
                tbtime_quantile(e->ratio, e->n, 0.9), ae ? 100 * tbtime_quantile(ae, e->n, 0.5) : 0.0);
        free(ae);
        free(e->ratio);
    }
}
