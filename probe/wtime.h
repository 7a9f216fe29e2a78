/* The measurement clock (wtime.c). */
#ifndef TBP_WTIME_H
#define TBP_WTIME_H


/** \brief Busy-waits until MPI_Wtime() reaches t (under SMPI: sleeps in
 *  simulated time).
 *  \return nothing. */
void tbp_spin_until(double t);
/** \brief MPI_Wtime overhead of this process (seed thesis fig. 3.7): a
 *  fixed busy loop timed with and without MPI_Wtime around each call.
 *  \return the overhead of one call in seconds, at least 0. */
double tbp_wtime_overhead(void);

#endif
