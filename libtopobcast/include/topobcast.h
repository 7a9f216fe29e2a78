/* topobcast: topology-aware MPI_Bcast.
 *
 * Normally used without this header: LD_PRELOAD=libtopobcast.so or link
 * with -ltopobcast and every MPI_Bcast / MPI_Bcast_c of the application is
 * dispatched by the library (knobs: README.md).  The functions below are for
 * tools (benchmarks, the tuner) that want one specific algorithm. */
#ifndef TOPOBCAST_H
#define TOPOBCAST_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOPOBCAST_VERSION "0.1.0"

/* Broadcast with one algorithm given as "name[:key=value,...]" (README.md
 * lists them; "default" is PMPI_Bcast).  Collective; every rank must pass
 * the same spec.  Returns an MPI error code; MPI_ERR_ARG (on every rank)
 * when the spec does not pass topobcast_spec_check.  One that passes but
 * cannot be built for this communicator runs as PMPI_Bcast, with a warning
 * from its rank 0. */
int topobcast_bcast_algorithm(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                              const char *spec);

/* The same as a non-blocking broadcast (MPI_Ibcast) with one algorithm: the
 * request completes like any MPI_Ibcast request (MPI_Wait, MPI_Test, ...,
 * which also move the broadcast on; see README, "Non-blocking and
 * persistent broadcasts").  "default" is PMPI_Ibcast.  Collective; every
 * rank passes the same spec.  Local, like MPI_Ibcast: it runs the algorithm
 * where a blocking call (topobcast_bcast_algorithm with this spec, or an
 * MPI_Bcast that ran it) has set comm up for it, else PMPI_Ibcast (counted
 * as a fallback in TOPOBCAST_STATS).  Returns an MPI error code;
 * MPI_ERR_ARG (on every rank) when the spec does not pass
 * topobcast_spec_check. */
int topobcast_ibcast_algorithm(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               const char *spec, MPI_Request *request);

/* Checks a spec without communicating: 0 if it parses and every level it
 * names (levels=a/b) is one of the configuration's topology (or of the
 * zero-configuration hierarchy: node, package, numa), else -1 and a
 * message in err. */
int topobcast_spec_check(const char *spec, char *err, int errlen);

/* The algorithm the library would use for this call on comm (after the
 * configuration agreement), written as a spec into buf.  Collective on first
 * use of comm, and on the first call whose count needs comm's topology
 * (call it on every rank with the same count).  Returns an MPI error code. */
int topobcast_selected_algorithm(MPI_Comm comm, MPI_Count count, MPI_Datatype datatype, char *buf, int len);

const char *topobcast_version(void);

#ifdef __cplusplus
}
#endif
#endif
