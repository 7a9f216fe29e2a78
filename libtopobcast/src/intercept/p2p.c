/* Exported blocking point-to-point calls that keep the library's
 * non-blocking broadcasts moving while the application waits in them.
 *
 * MPI moves its own MPI_Ibcast on inside any call that blocks, so a program
 * may wait in MPI_Recv for a message that a peer sends only once its
 * MPI_Wait on a broadcast has returned.  The library's broadcasts move only
 * when it runs: while one of them is in progress on this process
 * (tb_nbc_busy), each call below becomes its non-blocking form and a
 * polling wait (tb_nbc_wait: every broadcast on, then a test), a probe
 * polls with its immediate form, and an immediate probe (a program's own
 * polling loop) makes one progress pass first.  Otherwise each goes straight to MPI: one
 * load, no other cost.  The non-blocking forms match the blocking ones on
 * the other side (MPI's matching rules are the same for both), so the
 * peers' decisions need not agree.
 *
 * Not covered: MPI's blocking collectives (a blocking collective must not
 * meet its non-blocking form on another rank, and whether this one is busy
 * is local), and calls made from Fortran bindings that call PMPI directly.
 * MPI_Bsend and MPI_Ibsend are local and never wait for a peer. */
#include "base/compat.h"
#include "run/nbc.h"

#include <stdlib.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* MPI_Send, MPI_Ssend, MPI_Rsend and their large-count forms. */
#define TB_P2P_SEND(NAME, INAME, CT)                                                                          \
    TB_EXPORT int NAME(const void *buf, CT count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)    \
    {                                                                                                         \
        if (!tb_nbc_busy())                                                                                   \
            return P##NAME(buf, count, datatype, dest, tag, comm);                                            \
        MPI_Request r;                                                                                        \
        int rc = P##INAME(buf, count, datatype, dest, tag, comm, &r);                                         \
        return rc != MPI_SUCCESS ? rc : tb_nbc_wait(&r, MPI_STATUS_IGNORE);                                   \
    }

#define TB_P2P_RECV(NAME, INAME, CT)                                                                          \
    TB_EXPORT int NAME(void *buf, CT count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,       \
                       MPI_Status *status)                                                                    \
    {                                                                                                         \
        if (!tb_nbc_busy() || source == MPI_PROC_NULL)                                                        \
            return P##NAME(buf, count, datatype, source, tag, comm, status);                                  \
        MPI_Request r;                                                                                        \
        int rc = P##INAME(buf, count, datatype, source, tag, comm, &r);                                       \
        return rc != MPI_SUCCESS ? rc : tb_nbc_wait(&r, status);                                              \
    }

#define TB_P2P_MRECV(NAME, INAME, CT)                                                                         \
    TB_EXPORT int NAME(void *buf, CT count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) \
    {                                                                                                         \
        if (!tb_nbc_busy() || !message || *message == MPI_MESSAGE_NO_PROC)                                    \
            return P##NAME(buf, count, datatype, message, status);                                            \
        MPI_Request r;                                                                                        \
        int rc = P##INAME(buf, count, datatype, message, &r);                                                 \
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
        PMPI_Cancel(&r[0]);
        PMPI_Request_free(&r[0]);
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
#define TB_P2P_SENDRECV(NAME, IRECV, ISEND, CT)                                                               \
    TB_EXPORT int NAME(const void *sendbuf, CT sendcount, MPI_Datatype sendtype, int dest, int sendtag,      \
                       void *recvbuf, CT recvcount, MPI_Datatype recvtype, int source, int recvtag,          \
                       MPI_Comm comm, MPI_Status *status)                                                     \
    {                                                                                                         \
        if (!tb_nbc_busy())                                                                                   \
            return P##NAME(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, \
                           recvtag, comm, status);                                                            \
        MPI_Request r[2];                                                                                     \
        int rc = P##IRECV(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);                        \
        if (rc != MPI_SUCCESS)                                                                                \
            return rc;                                                                                        \
        return sendrecv_finish(P##ISEND(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]), r, source,  \
                               status);                                                                       \
    }

/* Every call above, for one count type: SFX is empty (int) or _c. */
#define TB_P2P_ALL(SFX, CT)                                                                                   \
    TB_P2P_SEND(MPI_Send##SFX, MPI_Isend##SFX, CT)                                                            \
    TB_P2P_SEND(MPI_Ssend##SFX, MPI_Issend##SFX, CT)                                                          \
    TB_P2P_SEND(MPI_Rsend##SFX, MPI_Irsend##SFX, CT)                                                          \
    TB_P2P_RECV(MPI_Recv##SFX, MPI_Irecv##SFX, CT)                                                            \
    TB_P2P_MRECV(MPI_Mrecv##SFX, MPI_Imrecv##SFX, CT)                                                         \
    TB_P2P_SENDRECV(MPI_Sendrecv##SFX, MPI_Irecv##SFX, MPI_Isend##SFX, CT)

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

TB_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!tb_nbc_busy())
        return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    return replace_polling(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

#if TB_HAVE_LARGE_COUNT
TB_EXPORT int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                     int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!tb_nbc_busy())
        return PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    return replace_polling(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
#endif

/* Probes poll with their immediate forms. */
TB_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    while (tb_nbc_busy()) {
        int flag = 0;
        tb_nbc_progress();
        int rc = PMPI_Iprobe(source, tag, comm, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return PMPI_Probe(source, tag, comm, status);
}

TB_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    while (tb_nbc_busy()) {
        int flag = 0;
        tb_nbc_progress();
        int rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return PMPI_Mprobe(source, tag, comm, message, status);
}

/* A program may poll with the immediate probes, as MPI moves its own
 * broadcasts inside them: one progress pass, then MPI's probe, as the
 * tests do (intercept/nbc.c). */
TB_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    tb_nbc_progress();
    return PMPI_Iprobe(source, tag, comm, flag, status);
}

TB_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    tb_nbc_progress();
    return PMPI_Improbe(source, tag, comm, flag, message, status);
}
