/* Decisions every rank shares.  A rank that goes its own way (stops, skips
 * a phase, or lacks a buffer the others use) leaves the rest of the job
 * waiting in a collective, so each verdict below is made once and is the
 * same on every rank. */
#ifndef TN_TUNER_AGREE_H
#define TN_TUNER_AGREE_H

#include <mpi.h>
#include <stddef.h>

/* \brief Rank 0's value of v on every rank of MPI_COMM_WORLD (collective;
 *        never through the library's MPI_Bcast, so callable before the
 *        library's configuration is chosen).
 * \return rank 0's v. */
int tn_agree(int v);

/* \brief The same over comm: its rank 0's v on all its ranks (collective
 *        over comm).
 * \return comm's rank 0's v. */
int tn_agree_on(MPI_Comm comm, int v);

/* \brief A zeroed buffer of `bytes` on every rank of comm, or on none
 *        (collective over comm); rank 0 of comm says on stderr when some
 *        rank could not allocate it.
 * \return the buffer (the caller frees it), or NULL on every rank. */
unsigned char *tn_agree_buffer(MPI_Comm comm, size_t bytes);

#endif
