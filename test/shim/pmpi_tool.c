/* A stand-in for a profiling tool preloaded before the library (Darshan,
 * mpiP and the like: LD_PRELOAD=tool.so:libtopobcast.so).  It defines
 * MPI_Init, MPI_Init_thread and MPI_Finalize and calls the PMPI_ ones, as
 * such tools do, so the library's own MPI_Init and MPI_Finalize never run:
 * nothing is shared at MPI_Init, and the statistics come from the
 * library's MPI_COMM_SELF callback.  test/suites/15-knobs.sh runs ranks
 * that differ in TOPOBCAST_DISABLE and TOPOBCAST_STATS under it. */
#include <mpi.h>
#include <stdio.h>

int MPI_Init(int *argc, char ***argv)
{
    return PMPI_Init(argc, argv);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return PMPI_Init_thread(argc, argv, required, provided);
}

int MPI_Finalize(void)
{
    return PMPI_Finalize();
}
