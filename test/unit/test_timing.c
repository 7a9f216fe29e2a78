/* The summary statistics of the timing method (timing/timing.c, linked
 * from libtbtiming.a), on samples whose answers are known by hand.  No MPI
 * execution. */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "timing.h"

static int near(double a, double b)
{
    return fabs(a - b) < 1e-12;
}

int main(void)
{
    const double sorted4[] = {1, 2, 3, 4};
    TAP_OK(near(tbtime_quantile(sorted4, 4, 0.5), 2.5), "median of 1..4 interpolates to 2.5");
    TAP_OK(near(tbtime_quantile(sorted4, 4, 0.25), 1.75), "p25 of 1..4 is 1.75");
    TAP_OK(near(tbtime_quantile(sorted4, 4, 0.0), 1) && near(tbtime_quantile(sorted4, 4, 1.0), 4),
           "q=0 and q=1 are min and max");
    TAP_OK(near(tbtime_quantile(sorted4, 1, 0.9), 1), "one sample is every quantile");

    /* Unsorted, with one outlier: the median and trimmed mean ignore it,
     * the mean does not. */
    double s[10] = {5, 3, 1000, 4, 2, 6, 1, 8, 7, 9};
    double copy[10];
    memcpy(copy, s, sizeof s);
    tbtime_stats st;
    tbtime_summarize(s, 10, &st);
    TAP_OK(st.n == 10, "n counted");
    TAP_OK(near(st.min, 1) && near(st.max, 1000), "min 1, max 1000 (got %g, %g)", st.min, st.max);
    TAP_OK(near(st.median, 5.5), "median 5.5 (got %g)", st.median);
    TAP_OK(near(st.p25, 3.25) && near(st.p75, 7.75), "quartiles 3.25 / 7.75 (got %g / %g)", st.p25,
           st.p75);
    /* p90 = 9 + 0.1 * (1000 - 9); only the outlier lies above it */
    TAP_OK(near(st.p90, 9 + 0.1 * 991), "p90 interpolated (got %g)", st.p90);
    TAP_OK(near(st.mean, 1045.0 / 10), "mean includes the outlier (got %g)", st.mean);
    TAP_OK(near(st.trimmed_mean, 5.0), "trimmed mean drops the outlier: 45/9 = 5 (got %g)",
           st.trimmed_mean);
    TAP_OK(memcmp(s, copy, sizeof s) == 0, "samples left in their order");

    /* Equal samples: every statistic is that value. */
    double eq[5] = {2.5, 2.5, 2.5, 2.5, 2.5};
    tbtime_summarize(eq, 5, &st);
    TAP_OK(near(st.median, 2.5) && near(st.p25, 2.5) && near(st.p90, 2.5) && near(st.trimmed_mean, 2.5),
           "constant samples summarise to the constant");
    tbtime_summarize(eq, 0, &st);
    TAP_OK(st.n == 0 && st.median == 0.0, "no samples give an empty summary");
    TAP_DONE();
}
