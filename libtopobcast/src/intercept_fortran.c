/* Fortran entry points, for MPI libraries whose Fortran bindings bypass the
 * C MPI_Bcast.
 *
 * MPICH's bindings (mpif.h, use mpi, use mpi_f08) call the C MPI_Bcast, which
 * intercept.c defines, so nothing is needed there.  Open MPI's call
 * PMPI_Bcast directly (mpi_bcast_ and mpi_bcast_f08_ -> ompi_bcast_f ->
 * PMPI_Bcast), so under Open MPI the library defines those entry points
 * itself: the program's call resolves to the library (preloaded, or linked
 * before MPI) and reaches the same dispatch as a C call.  Checked by
 * test/suites/20-fortran.sh through the statistics, for each binding. */
#include <mpi.h>

#include "dispatch.h"

#if defined(OPEN_MPI)

#define TB_EXPORT __attribute__((visibility("default")))

/* Open MPI's Fortran MPI_BOTTOM is the address of this common block. */
extern int mpi_fortran_bottom_;

/* Every Fortran binding passes handles and integers by reference; the
 * buffer is an address (choice buffers are not type-checked).  ierror is
 * optional in mpi_f08 (NULL when absent). */
static void fortran_bcast(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,
                          const MPI_Fint *comm, MPI_Fint *ierror)
{
    if (buf == (void *)&mpi_fortran_bottom_)
        buf = MPI_BOTTOM;
    int rc = tb_bcast(buf, (MPI_Count)*count, PMPI_Type_f2c(*type), (int)*root, PMPI_Comm_f2c(*comm), NULL);
    if (ierror)
        *ierror = (MPI_Fint)rc;
}

#define TB_FORTRAN_BCAST(name)                                                                            \
    TB_EXPORT void name(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,       \
                        const MPI_Fint *comm, MPI_Fint *ierror);                                          \
    void name(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,                 \
              const MPI_Fint *comm, MPI_Fint *ierror)                                                     \
    {                                                                                                     \
        fortran_bcast(buf, count, type, root, comm, ierror);                                              \
    }

/* mpif.h and use mpi, in every name mangling Open MPI exports */
TB_FORTRAN_BCAST(mpi_bcast)
TB_FORTRAN_BCAST(mpi_bcast_)
TB_FORTRAN_BCAST(mpi_bcast__)
TB_FORTRAN_BCAST(MPI_BCAST)
/* use mpi_f08 */
TB_FORTRAN_BCAST(mpi_bcast_f08_)

#endif
