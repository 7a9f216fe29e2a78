/* Fortran entry points, for MPI libraries whose Fortran bindings bypass the
 * C MPI_Bcast or the C MPI_Init (the latter below).
 *
 * MPICH's bindings (mpif.h, use mpi, use mpi_f08) call the C MPI_Bcast, which
 * entry.c defines, so nothing is needed there.  Open MPI's call
 * PMPI_Bcast directly (mpi_bcast_ and mpi_bcast_f08_ -> ompi_bcast_f ->
 * PMPI_Bcast), which only the shared library serves, so under Open MPI the
 * library defines those entry points itself: the program's call resolves
 * to the library (preloaded, or linked before MPI) and reaches the same
 * dispatch as a C call.  They belong to the library's upper layer
 * (layer.h): what it leaves goes to the next C MPI_Bcast.  Checked by
 * test/suites/20-fortran.sh through the statistics, for each binding. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <mpi.h>

#include "dispatch/dispatch.h"
#include "config/settings.h"
#include "intercept/layer.h"

#if defined(OPEN_MPI)

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
    MPI_Datatype t = PMPI_Type_f2c(*type);
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    int rc = tb_bcast(buf, (MPI_Count)*count, t, (int)*root, c, NULL);
    if (rc == TB_PASS)
        rc = TB_PASS_NEXT(Bcast, buf, (int)*count, t, (int)*root, c);
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

/* Fortran MPI_INIT and MPI_INIT_THREAD that call PMPI_Init directly (Open
 * MPI's in every binding, MPICH's in mpi_f08) would skip the library's part
 * of MPI_Init in the static library (settings.h: world rank 0's settings
 * shared with every process), and ranks that differ in TOPOBCAST_DISABLE or
 * TOPOBCAST_STATS would then make different collectives.  The library
 * defines them too: the next definition of the same name (a tool's, or
 * MPI's own: libmpi_mpifh, libmpi_usempif08, libmpichfort) runs, then the
 * hook, unless the shared library's PMPI_Init ran it already.
 * ierror is optional in mpi_f08 (NULL when absent), so success is read from
 * MPI itself.  (MPICH's mpif.h and use mpi call the C MPI_Init.) */
typedef void (*tb_f_init)(MPI_Fint *ierror);
typedef void (*tb_f_init_thread)(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);

static void after_init(void)
{
    int init = 0;
    PMPI_Initialized(&init);
    if (init)
        tb_settings_init_hook();
}

static void fortran_init(const char *name, MPI_Fint *ierror)
{
    tb_f_init next = (tb_f_init)dlsym(RTLD_NEXT, name);
    if (next) {
        next(ierror);
    } else { /* no Fortran library after this one: what it does, in C */
        int rc = tb_mpi.Init(NULL, NULL);
        if (ierror)
            *ierror = (MPI_Fint)rc;
    }
    after_init();
}

static void fortran_init_thread(const char *name, const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    tb_f_init_thread next = (tb_f_init_thread)dlsym(RTLD_NEXT, name);
    if (next) {
        next(required, provided, ierror);
    } else {
        int prov = 0, rc = tb_mpi.Init_thread(NULL, NULL, (int)*required, &prov);
        *provided = (MPI_Fint)prov;
        if (ierror)
            *ierror = (MPI_Fint)rc;
    }
    after_init();
}

#define TB_FORTRAN_INIT(name)                                                                             \
    TB_EXPORT void name(MPI_Fint *ierror);                                                                \
    void name(MPI_Fint *ierror)                                                                           \
    {                                                                                                     \
        fortran_init(#name, ierror);                                                                      \
    }
#define TB_FORTRAN_INIT_THREAD(name)                                                                      \
    TB_EXPORT void name(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);                  \
    void name(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)                             \
    {                                                                                                     \
        fortran_init_thread(#name, required, provided, ierror);                                           \
    }

TB_FORTRAN_INIT(mpi_init_f08_)
TB_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)
#if defined(OPEN_MPI)
TB_FORTRAN_INIT(mpi_init)
TB_FORTRAN_INIT(mpi_init_)
TB_FORTRAN_INIT(mpi_init__)
TB_FORTRAN_INIT(MPI_INIT)
TB_FORTRAN_INIT_THREAD(mpi_init_thread)
TB_FORTRAN_INIT_THREAD(mpi_init_thread_)
TB_FORTRAN_INIT_THREAD(mpi_init_thread__)
TB_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
#endif
