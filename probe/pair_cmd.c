/* The command protocol of a pair test: the sender (the lower rank) drives,
 * telling the receiver before each timed loop "receive n messages of m
 * bytes, answer with r bytes, c times" (tag TBP_TAG_CMD), and may end such
 * a command early (tag TBP_TAG_STOP); the receiver obeys until a command
 * of count 0.  Both measurement modes (plogp.c, loggp.c) and the batches
 * (batches.c) speak it, so the receiver needs no knowledge of the method. */
#include <mpi.h>
#include <stddef.h>

#include "pair_cmd.h"

int tbp_cmd_send(MPI_Comm comm, int receiver, long m, long n, long reply, long count)
{
    long cmd[4] = {m, n, reply, count};
    return MPI_Send(cmd, 4, MPI_LONG, receiver, TBP_TAG_CMD, comm);
}

int tbp_cmd_stop(MPI_Comm comm, int receiver)
{
    return MPI_Send(NULL, 0, MPI_BYTE, receiver, TBP_TAG_STOP, comm);
}

/* The receiver: obey commands until count == 0.  Where data is expected,
 * an empty message tagged TBP_TAG_STOP may come instead: the sender
 * stopped early (its batches agreed, --agree), and a new command follows.
 * Data receives therefore take any tag; they stay posted back to back as
 * with a fixed count, and nothing is read from the payload (under SMPI it
 * is a shared buffer whose contents are not transferred). */
int tbp_cmd_serve(MPI_Comm comm, int sender, char *buf)
{
    for (;;) {
        long cmd[4];
        int rc = MPI_Recv(cmd, 4, MPI_LONG, sender, TBP_TAG_CMD, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        if (cmd[3] == 0)
            return MPI_SUCCESS;
        int stop = 0;
        for (long c = 0; c < cmd[3] && !stop; c++) {
            for (long k = 0; k < cmd[1] && !stop; k++) {
                MPI_Status st;
                if ((rc = MPI_Recv(buf, (int)cmd[0], MPI_BYTE, sender, MPI_ANY_TAG, comm, &st)) != MPI_SUCCESS)
                    return rc;
                stop = st.MPI_TAG == TBP_TAG_STOP;
            }
            if (!stop && (rc = MPI_Send(buf, (int)cmd[2], MPI_BYTE, sender, TBP_TAG_DATA, comm)) != MPI_SUCCESS)
                return rc;
        }
    }
}
