/* The command protocol of a pair test (pair_cmd.c): the sender drives,
 * the receiver follows; the tags it uses, and the error check of the
 * measurement functions. */
#ifndef TBP_PAIR_CMD_H
#define TBP_PAIR_CMD_H

#include <mpi.h>

/* In the measurement functions (int rc and a label out in scope): rc = x,
 * and on an MPI error straight to out. */
#define TBP_CHECK(x)                                                                               \
    do {                                                                                           \
        if ((rc = (x)) != MPI_SUCCESS)                                                             \
            goto out;                                                                              \
    } while (0)

#define TBP_TAG_CMD 11
#define TBP_TAG_DATA 12
#define TBP_TAG_STOP 13 /* ends a command early (empty) */

/* The command protocol shared by the two modes (pair_cmd.c). */
/** \brief Sender: tells the receiver its next command, "count times:
 *  receive n messages of m bytes, answer with reply bytes" (count 0: the
 *  pair is done).
 *  \return MPI_SUCCESS or the error code of MPI_Send. */
int tbp_cmd_send(MPI_Comm comm, int receiver, long m, long n, long reply, long count);
/** \brief Sender: ends the receiver's current command before its count
 *  (the batches agreed); the next command follows.
 *  \return MPI_SUCCESS or the error code of MPI_Send. */
int tbp_cmd_stop(MPI_Comm comm, int receiver);
/** \brief Receiver: obeys the sender's commands, with buf (large enough
 *  for the largest message) as payload, until a command of count 0.
 *  \return MPI_SUCCESS, or the first MPI error code. */
int tbp_cmd_serve(MPI_Comm comm, int sender, char *buf);

#endif
