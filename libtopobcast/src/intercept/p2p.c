/* Exported blocking point-to-point calls that keep the library's
 * non-blocking broadcasts moving while the application waits in them, at
 * both layers (layer.h).
 *
 * MPI moves its own MPI_Ibcast on inside any call that blocks, so a program
 * may wait in MPI_Recv for a message that a peer sends only once its
 * MPI_Wait on a broadcast has returned.  The library's broadcasts move only
 * when it runs: while one of them is in progress on this process
 * (tb_nbc_busy), each call below becomes its non-blocking form and a
 * polling wait (tb_nbc_wait: every broadcast on, then a test), a probe
 * polls with its immediate form, and an immediate probe (a program's own
 * polling loop) makes one progress pass first.  Otherwise each goes
 * straight to the layer below: one load, no other cost.  The polling forms
 * are the library's and use MPI's own calls: a tool below the library sees
 * the blocking call only when no broadcast of the library is in progress.
 * The non-blocking forms match the blocking ones on the other side (MPI's
 * matching rules are the same for both), so the peers' decisions need not
 * agree.
 *
 * Not covered: MPI's blocking collectives (a blocking collective must not
 * meet its non-blocking form on another rank, and whether this one is busy
 * is local), and, in the static library, which defines no PMPI_ layer,
 * calls made from Fortran bindings that call PMPI directly.
 * MPI_Bsend and MPI_Ibsend are local and never wait for a peer. */
#include "base/compat.h"
#include "intercept/layer.h"
#include "run/nbc.h"

#include <stdlib.h>

/* MPI_Send, MPI_Ssend, MPI_Rsend and their large-count forms. */
#define TB_P2P_SEND(F, IF, CT)                                                                                \
    TB_ENTRY(F, (const void *buf, CT count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),         \
             (buf, count, datatype, dest, tag, comm), !tb_nbc_busy())                                         \
    {                                                                                                         \
        if (!tb_nbc_busy())                                                                                   \
            return TB_DOWN(F, buf, count, datatype, dest, tag, comm);                                         \
        MPI_Request r;                                                                                        \
        int rc = PMPI_##IF(buf, count, datatype, dest, tag, comm, &r);                                        \
        return rc != MPI_SUCCESS ? rc : tb_nbc_wait(&r, MPI_STATUS_IGNORE);                                   \
    }

#define TB_P2P_RECV(F, IF, CT)                                                                                \
    TB_ENTRY(F,                                                                                               \
             (void *buf, CT count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,                 \
              MPI_Status *status),                                                                            \
             (buf, count, datatype, source, tag, comm, status), !tb_nbc_busy() || source == MPI_PROC_NULL)    \
    {                                                                                                         \
        if (!tb_nbc_busy() || source == MPI_PROC_NULL)                                                        \
            return TB_DOWN(F, buf, count, datatype, source, tag, comm, status);                               \
        MPI_Request r;                                                                                        \
        int rc = PMPI_##IF(buf, count, datatype, source, tag, comm, &r);                                      \
        return rc != MPI_SUCCESS ? rc : tb_nbc_wait(&r, status);                                              \
    }

#define TB_P2P_MRECV(F, IF, CT)                                                                               \
    TB_ENTRY(F, (void *buf, CT count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status),       \
             (buf, count, datatype, message, status),                                                         \
             !tb_nbc_busy() || !message || *message == MPI_MESSAGE_NO_PROC)                                   \
    {                                                                                                         \
        if (!tb_nbc_busy() || !message || *message == MPI_MESSAGE_NO_PROC)                                    \
            return TB_DOWN(F, buf, count, datatype, message, status);                                         \
        MPI_Request r;                                                                                        \
        int rc = PMPI_##IF(buf, count, datatype, message, &r);                                                \
        return rc != MPI_SUCCESS ? rc : tb_nbc_wait(&r, status);                                              \
    }

/* A receive from MPI_PROC_NULL ends with source MPI_PROC_NULL, tag
 * MPI_ANY_TAG and count 0 (MPI 4.0, 3.11).  MPICH 4.0.2's MPI_Irecv from it
 * reports source 0 and tag 0 after the wait, so the polling forms below set
 * what the blocking call would have.  (A blocking receive from
 * MPI_PROC_NULL has nothing to wait for and goes to MPI as it is.) */
static void proc_null_status(int source, MPI_Status *status)
{
    if (source != MPI_PROC_NULL || status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
}

/* The end of a polling MPI_Sendrecv: the receive r[0] from `source` is
 * posted, and send_rc says whether posting the send r[1] succeeded.  Waits
 * for both (the receive's status), or withdraws the receive when the send
 * failed. */
static int sendrecv_finish(int send_rc, MPI_Request r[2], int source, MPI_Status *status)
{
    if (send_rc != MPI_SUCCESS) {
        tb_mpi.Cancel(&r[0]);
        tb_mpi.Request_free(&r[0]);
        return send_rc;
    }
    int rc = tb_nbc_wait(&r[0], status);
    int rs = tb_nbc_wait(&r[1], MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        proc_null_status(source, status);
    return rc != MPI_SUCCESS ? rc : rs;
}

/* The receive first, then the send, then both waited for: what
 * MPI_Sendrecv does, with the receive's status. */
#define TB_P2P_SENDRECV(F, IRECV, ISEND, CT)                                                                  \
    TB_ENTRY(F,                                                                                               \
             (const void *sendbuf, CT sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, \
              CT recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status), \
             (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, \
              status),                                                                                        \
             !tb_nbc_busy())                                                                                  \
    {                                                                                                         \
        if (!tb_nbc_busy())                                                                                   \
            return TB_DOWN(F, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, \
                           recvtag, comm, status);                                                            \
        MPI_Request r[2];                                                                                     \
        int rc = PMPI_##IRECV(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);                    \
        if (rc != MPI_SUCCESS)                                                                                \
            return rc;                                                                                        \
        return sendrecv_finish(PMPI_##ISEND(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]), r,     \
                               source, status);                                                               \
    }

/* Every call above, for one count type: SFX is empty (int) or _c. */
#define TB_P2P_ALL(SFX, CT)                                                                                   \
    TB_P2P_SEND(Send##SFX, Isend##SFX, CT)                                                                    \
    TB_P2P_SEND(Ssend##SFX, Issend##SFX, CT)                                                                  \
    TB_P2P_SEND(Rsend##SFX, Irsend##SFX, CT)                                                                  \
    TB_P2P_RECV(Recv##SFX, Irecv##SFX, CT)                                                                    \
    TB_P2P_MRECV(Mrecv##SFX, Imrecv##SFX, CT)                                                                 \
    TB_P2P_SENDRECV(Sendrecv##SFX, Irecv##SFX, Isend##SFX, CT)

TB_P2P_ALL(, int)
#if TB_HAVE_LARGE_COUNT
TB_P2P_ALL(_c, MPI_Count)
#endif

/* MPI_Sendrecv_replace as a polling wait: the message to send is packed
 * first, so the receive may land in buf.  (Not MPI 4's
 * MPI_Isendrecv_replace: MPICH 4.0.2's reports source 0 in the status
 * whoever sent, and crashes in UCX when dest is MPI_PROC_NULL.) */
#if TB_HAVE_LARGE_COUNT
typedef MPI_Count p2p_count;
#define P2P_C(f) f##_c
#else
typedef int p2p_count;
#define P2P_C(f) f
#endif
static int replace_polling(void *buf, p2p_count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Status *status)
{
    p2p_count size = 0;
    size_t used = 0;
    int rc = P2P_C(PMPI_Pack_size)(count, datatype, comm, &size);
    char *packed = rc == MPI_SUCCESS ? malloc(size > 0 ? (size_t)size : 1) : NULL;
    if (rc == MPI_SUCCESS && !packed)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = tb_pack(buf, count, datatype, packed, (size_t)size, &used, comm);
    MPI_Request r[2];
    if (rc == MPI_SUCCESS)
        rc = P2P_C(PMPI_Irecv)(buf, count, datatype, source, recvtag, comm, &r[0]);
    if (rc == MPI_SUCCESS)
        rc = sendrecv_finish(P2P_C(PMPI_Isend)(packed, (p2p_count)used, MPI_PACKED, dest, sendtag, comm, &r[1]), r,
                             source, status);
    free(packed);
    return rc;
}

/* MPI_Sendrecv_replace and its large-count form. */
#define TB_P2P_REPLACE(F, CT)                                                                                 \
    TB_ENTRY(F,                                                                                               \
             (void *buf, CT count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,     \
              MPI_Comm comm, MPI_Status *status),                                                             \
             (buf, count, datatype, dest, sendtag, source, recvtag, comm, status), !tb_nbc_busy())            \
    {                                                                                                         \
        if (!tb_nbc_busy())                                                                                   \
            return TB_DOWN(F, buf, count, datatype, dest, sendtag, source, recvtag, comm, status);            \
        return replace_polling(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);           \
    }

TB_P2P_REPLACE(Sendrecv_replace, int)
#if TB_HAVE_LARGE_COUNT
TB_P2P_REPLACE(Sendrecv_replace_c, MPI_Count)
#endif

/* Probes poll with their immediate forms. */
TB_ENTRY(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status), (source, tag, comm, status), !tb_nbc_busy())
{
    while (tb_nbc_busy()) {
        int flag = 0;
        tb_nbc_progress();
        int rc = tb_mpi.Iprobe(source, tag, comm, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return TB_DOWN(Probe, source, tag, comm, status);
}

TB_ENTRY(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status),
         (source, tag, comm, message, status), !tb_nbc_busy())
{
    while (tb_nbc_busy()) {
        int flag = 0;
        tb_nbc_progress();
        int rc = tb_mpi.Improbe(source, tag, comm, &flag, message, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return TB_DOWN(Mprobe, source, tag, comm, message, status);
}

/* A program may poll with the immediate probes, as MPI moves its own
 * broadcasts inside them: one progress pass, then the probe, as the tests
 * do (intercept/nbc.c). */
TB_ENTRY(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status), (source, tag, comm, flag, status),
         !tb_nbc_busy())
{
    tb_nbc_progress();
    return TB_DOWN(Iprobe, source, tag, comm, flag, status);
}

TB_ENTRY(Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status),
         (source, tag, comm, flag, message, status), !tb_nbc_busy())
{
    tb_nbc_progress();
    return TB_DOWN(Improbe, source, tag, comm, flag, message, status);
}
