/* Synchronised repetitions and robust summaries; see timing.h. */
#include "timing.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tbtime_quantile(const double *sorted, int n, double q)
{
    if (n <= 0)
        return 0.0;
    if (q <= 0.0)
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    double pos = q * (n - 1);
    int i = (int)pos;
    double frac = pos - i;
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

void tbtime_summarize(const double *samples, int n, tbtime_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return;
    memcpy(s, samples, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = tbtime_quantile(s, n, 0.5);
    out->p25 = tbtime_quantile(s, n, 0.25);
    out->p75 = tbtime_quantile(s, n, 0.75);
    out->p90 = tbtime_quantile(s, n, 0.90);
    double sum = 0.0, tsum = 0.0;
    int tn = 0;
    for (int i = 0; i < n; i++) {
        sum += s[i];
        /* Outliers above the 90th percentile are interference, not the
         * algorithm; the trimmed mean leaves them out. */
        if (s[i] <= out->p90) {
            tsum += s[i];
            tn++;
        }
    }
    out->mean = sum / n;
    out->trimmed_mean = tn ? tsum / tn : out->mean;
    free(s);
}

int tbtime_measure(MPI_Comm comm, int warmup, int reps, tbtime_op op, void *ctx,
                   double *samples, tbtime_stats *out)
{
    int rc = MPI_SUCCESS, err, any;
    double *local = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *local);
    double *global = samples ? samples : malloc((size_t)(reps > 0 ? reps : 1) * sizeof *global);
    if (!local || !global) {
        free(local);
        if (!samples)
            free(global);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < warmup && rc == MPI_SUCCESS; i++) {
        MPI_Barrier(comm);
        rc = op(ctx, -1 - i);
    }
    for (int i = 0; i < reps && rc == MPI_SUCCESS; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        rc = op(ctx, i);
        local[i] = MPI_Wtime() - t0;
    }
    /* Agree on failure first: a rank that stopped early must not leave the
     * others waiting in the reduction of times. */
    err = rc != MPI_SUCCESS;
    MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        int code = rc, first;
        MPI_Allreduce(&code, &first, 1, MPI_INT, MPI_MAX, comm);
        rc = first != MPI_SUCCESS ? first : MPI_ERR_OTHER;
        memset(out, 0, sizeof *out);
    } else if (reps > 0) {
        /* One reduction after all repetitions, so the timed loop carries
         * no traffic besides the barrier and the operation itself. */
        MPI_Allreduce(local, global, reps, MPI_DOUBLE, MPI_MAX, comm);
        tbtime_summarize(global, reps, out);
    } else {
        memset(out, 0, sizeof *out);
    }
    free(local);
    if (!samples)
        free(global);
    return rc;
}

/* One broadcast of count bytes from root: PMPI_Bcast, then MPI_Bcast too
 * when through_library. */
static void warm_bcast(void *buf, int count, int root, MPI_Comm comm, int through_library)
{
    PMPI_Bcast(buf, count, MPI_BYTE, root, comm);
    if (through_library)
        MPI_Bcast(buf, count, MPI_BYTE, root, comm);
}

void tbtime_warm_up(MPI_Comm comm, void *buf, size_t max_bytes, int through_library)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < 20; k++) {
        warm_bcast(buf, 1, k % size, comm, through_library);
        if (k < 2)
            warm_bcast(buf, (int)max_bytes, k % size, comm, through_library);
    }
}
