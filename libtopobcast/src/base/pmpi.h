/* Where the library's own calls of MPI go, and the calls it leaves.
 *
 * The shared library serves two layers (intercept/layer.h): MPI_X, which
 * the program reaches first, and PMPI_X, which a PMPI tool preloaded before
 * it reaches from its own MPI_X.  So its internal calls of those functions
 * must not be plain PMPI_X calls, which would come back into the library
 * itself: they go through tb_mpi, MPI's own functions, resolved once when
 * the library is loaded (dlsym(RTLD_NEXT, "PMPI_X"): the next definition
 * after the library, MPI's).  Calls of functions the library does not
 * define (PMPI_Isend, PMPI_Allreduce, ...) stay plain PMPI_ calls.
 *
 * A call the library leaves from its MPI_X goes to the next layer's MPI_X
 * (tb_next: a tool preloaded after the library, or linked after it), and
 * from its PMPI_X to MPI's own.  While a call passed to a tool runs, the
 * tool's own PMPI_ calls come back into the library's PMPI_X: they go
 * straight to MPI (tb_passed_down), so nothing is done or counted twice.
 *
 * The static library defines no PMPI_X; its tables are resolved the same
 * way, from the program it is linked into.  Under SimGrid SMPI the library
 * is linked into each program and defines no PMPI_X either: tb_mpi is
 * SMPI's PMPI_X as linked, and there is no next layer. */
#ifndef TB_PMPI_H
#define TB_PMPI_H

#include "base/compat.h"

/* Every MPI function the library defines (intercept/), by its name without
 * the MPI_ / PMPI_ prefix: 41 under MPI 4, 30 under MPI 3.1. */
#define TB_SERVED_MPI3(X)                                                                                     \
    X(Init) X(Init_thread) X(Finalize) X(Bcast) X(Ibcast) X(Start) X(Startall) X(Comm_free) X(Cancel)         \
    X(Request_free) X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome)       \
    X(Request_get_status) X(Send) X(Ssend) X(Rsend) X(Recv) X(Mrecv) X(Sendrecv) X(Sendrecv_replace)          \
    X(Probe) X(Mprobe) X(Iprobe) X(Improbe)
#if MPI_VERSION >= 4
#define TB_SERVED_MPI4(X)                                                                                     \
    X(Bcast_c) X(Ibcast_c) X(Bcast_init) X(Bcast_init_c) X(Send_c) X(Ssend_c) X(Rsend_c) X(Recv_c) X(Mrecv_c) \
    X(Sendrecv_c) X(Sendrecv_replace_c)
#else
#define TB_SERVED_MPI4(X)
#endif
#define TB_SERVED(X) TB_SERVED_MPI3(X) TB_SERVED_MPI4(X)

/* One pointer per served function, of its PMPI_ type. */
typedef struct tb_mpi_fns {
#define TB_MPI_FIELD(f) __typeof__(PMPI_##f) *f;
    TB_SERVED(TB_MPI_FIELD)
#undef TB_MPI_FIELD
} tb_mpi_fns;

/* MPI's own PMPI_X (never the library's, never a tool's MPI_X). */
extern tb_mpi_fns tb_mpi;
/* The next layer's MPI_X where it is not MPI's own (a tool after the
 * library), else NULL. */
extern tb_mpi_fns tb_next;
/* Nonzero while this thread runs a call the library passed to a tool
 * (TB_PASS_NEXT): every call that reaches the library meanwhile is the
 * tool's, or MPI's, and goes straight to MPI. */
extern TB_TLS int tb_passed_down;

/* \brief Resolves tb_mpi and tb_next (once; the library's constructor runs
 * it when it is loaded, before any call).  Where MPI's PMPI_X cannot be
 * found (a program linked statically with MPI itself), says so on stderr
 * and ends the process.
 * \return nothing. */
void tb_pmpi_resolve(void);

/* A call the library leaves, passed to the next layer's MPI_f (guarded:
 * tb_passed_down), or to MPI's own where no tool sits there.  GNU C
 * statement expression; f returns int. */
#define TB_PASS_NEXT(f, ...)                                                                                  \
    (tb_next.f ? __extension__({                                                                              \
        int tb_was_ = tb_passed_down;                                                                         \
        tb_passed_down = 1;                                                                                   \
        int tb_rc_ = tb_next.f(__VA_ARGS__);                                                                  \
        tb_passed_down = tb_was_;                                                                             \
        tb_rc_;                                                                                               \
    })                                                                                                        \
               : tb_mpi.f(__VA_ARGS__))

#endif
