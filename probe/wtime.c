/* The clock of the measurement: the overhead of MPI_Wtime (subtracted from
 * every timing) and a wait until a given time. */
#include <math.h>
#include <mpi.h>
#include <time.h>

#include "wtime.h"

void tbp_spin_until(double t)
{
#ifdef SMPI_H
    /* smpicc maps nanosleep onto simulated time (smpi_execute does not
     * advance it without simulate-computation) */
    double now = MPI_Wtime();
    if (t > now) {
        double d = t - now;
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        if (ts.tv_sec == 0 && ts.tv_nsec == 0)
            ts.tv_nsec = 1;
        nanosleep(&ts, NULL);
    }
#else
    while (MPI_Wtime() < t)
        ;
#endif
}

static void busy(void)
{
    volatile int i, dummy;
    for (dummy = 42, i = 0; i < 300; i++)
        dummy++;
}

double tbp_wtime_overhead(void)
{
    double best_plain = INFINITY, best_timed = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < 1000; k++)
            busy();
        double plain = (MPI_Wtime() - t0) / 1000;
        double sum = 0;
        for (int k = 0; k < 1000; k++) {
            double ts = MPI_Wtime();
            busy();
            sum += MPI_Wtime() - ts;
        }
        if (plain < best_plain)
            best_plain = plain;
        if (sum / 1000 < best_timed)
            best_timed = sum / 1000;
    }
    double w = best_timed - best_plain;
    return w > 0 ? w : 0;
}
