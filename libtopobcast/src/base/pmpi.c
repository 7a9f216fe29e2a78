/* MPI's own functions and the next layer's, resolved once (pmpi.h). */
#define _GNU_SOURCE /* RTLD_NEXT, dladdr */
#include "base/pmpi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

TB_TLS int tb_passed_down;
tb_mpi_fns tb_next;

#if defined(SMPI_H)

/* SMPI's PMPI_ functions as linked; no tools under SMPI. */
#define TB_MPI_LINKED(f) .f = PMPI_##f,
tb_mpi_fns tb_mpi = {TB_SERVED(TB_MPI_LINKED)};

void tb_pmpi_resolve(void)
{
}

#else

tb_mpi_fns tb_mpi;

/* Whether p lies in the object that holds this library (the shared
 * library, or the program it is linked into). */
static int ours(void *p)
{
    Dl_info mine, theirs;
    return dladdr((void *)&tb_mpi, &mine) && dladdr(p, &theirs) && mine.dli_fbase == theirs.dli_fbase;
}

/* MPI's own PMPI_f: the next definition after the library's; where the
 * library comes after MPI in the search order (a program linked with
 * -lmpi before -ltopobcast), the first one, which is then not ours. */
static void *own(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p && (p = dlsym(RTLD_DEFAULT, name)) && ours(p))
        p = NULL;
    if (!p) {
        fprintf(stderr, "topobcast: MPI's %s was not found (is the program linked statically with MPI?): "
                        "exiting\n", name);
        _exit(1);
    }
    return p;
}

/* The next layer's MPI_f, unless it is MPI's own (MPI_f an alias of
 * PMPI_f, as in MPICH and Open MPI) or there is none. */
static void *next(const char *name, void *mpi_own)
{
    void *p = dlsym(RTLD_NEXT, name);
    return p && p != mpi_own ? p : NULL;
}

void tb_pmpi_resolve(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
#define TB_MPI_RESOLVE(f)                                                                                     \
    tb_mpi.f = (__typeof__(tb_mpi.f))own("PMPI_" #f);                                                         \
    tb_next.f = (__typeof__(tb_next.f))next("MPI_" #f, (void *)tb_mpi.f);
    TB_SERVED(TB_MPI_RESOLVE)
#undef TB_MPI_RESOLVE
}

__attribute__((constructor)) static void resolve_at_load(void)
{
    tb_pmpi_resolve();
}

#endif
