/* Differences between the MPI libraries we build against: MPICH 4 (MPI-4,
 * large counts) and SimGrid SMPI (MPI-3.1). */
#ifndef TB_COMPAT_H
#define TB_COMPAT_H

#include <mpi.h>
#include <stddef.h>

/* Thread-local data read on every broadcast: initial-exec TLS is a plain
 * load instead of a __tls_get_addr call.  Not under SimGrid SMPI, which may
 * load one copy of the library per simulated rank (static TLS is small). */
#if defined(SMPI_H)
#define TB_TLS __thread
#else
#define TB_TLS __thread __attribute__((tls_model("initial-exec")))
#endif

#if MPI_VERSION >= 4
#define TB_HAVE_LARGE_COUNT 1
#else
#define TB_HAVE_LARGE_COUNT 0
#endif

/* Largest message the library handles itself; above it everything goes to
 * PMPI_Bcast (decided by byte count alone, so all ranks agree). */
size_t tb_max_bytes(void);
/* \brief count elements of type at in (MPI_BOTTOM too) packed into out,
 * bytes long; *used (unless NULL) the bytes written.
 * \return MPI's error code. */
int tb_pack(const void *in, MPI_Count count, MPI_Datatype type, void *out, size_t bytes, size_t *used,
            MPI_Comm comm);
int tb_unpack(const void *in, size_t bytes, void *out, MPI_Count count, MPI_Datatype type, MPI_Comm comm);
/* MPI's own PMPI_Bcast (base/pmpi.h, tb_mpi), with a large count where the
 * library supports it: for the library's own callers (the tools, the
 * public topobcast_*_algorithm) and its internal broadcasts; an
 * application's call it leaves goes to the layer below instead
 * (intercept/layer.h). */
int tb_pmpi_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm);

/* Non-blocking and persistent counterparts. */
int tb_pmpi_ibcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req);
#if MPI_VERSION >= 4
int tb_pmpi_bcast_init(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req);
#endif

/* \brief Right after PMPI_Init: stops the process, with one line from
 * the first rank (PMI_RANK / OMPI_COMM_WORLD_RANK 0, or every process when
 * neither is set), when the MPI running is not the one the library was
 * built for (this MPICH build preloaded into an Open MPI program, or the
 * reverse).  Their handles differ in size, so the library could not even
 * pass a call through: without this the process dies of a segmentation
 * fault in its first collective.  MPICH's ABI relatives (Intel MPI,
 * MVAPICH) pass for an MPICH build; nothing is checked under SimGrid SMPI.
 * \return nothing (does not return on a mismatch: _exit(1)). */
void tb_check_mpi_library(void);

/* A communicator's error handler swapped for MPI_ERRORS_RETURN around the
 * library's collectives on it, so that a failure (context ids exhausted by
 * the application) becomes a fallback, never an abort. */
typedef struct tb_quiet_errors {
    MPI_Errhandler saved;
    int swapped;
} tb_quiet_errors;
/* \brief Sets MPI_ERRORS_RETURN on comm, keeping its handler in *q.  A
 * null handler (SimGrid SMPI gives one for MPI_COMM_WORLD, and warns on
 * every use of it) is left alone: nothing is swapped.
 * \return nothing. */
void tb_quiet_begin(MPI_Comm comm, tb_quiet_errors *q);
/* \brief Puts back (and releases) what tb_quiet_begin kept.
 * \return nothing. */
void tb_quiet_end(MPI_Comm comm, tb_quiet_errors *q);

#endif
