/* What the library does when MPI ends, by whichever path the application's
 * binding takes: the MPI_Finalize hook (at either layer in the shared
 * library), or, where PMPI_Finalize is called past the static library
 * (MPICH's mpi_f08), a delete callback on an attribute of MPI_COMM_SELF,
 * which MPI runs first thing in MPI_Finalize. */
#ifndef TB_FINALIZE_H
#define TB_FINALIZE_H

/* \brief Sets the MPI_COMM_SELF attribute (once per process; cheap after).
 * Called by the dispatch (and tools.c) before the library sets up a
 * communicator, so every rank that holds a communicator state runs
 * tb_finalize_run.
 * \return nothing (without the attribute only the C MPI_Finalize hook
 * runs it). */
void tb_finalize_arm(void);
/* Prints the statistics and frees the library's state, once per process.
 * every_rank: the caller knows every rank of MPI_COMM_WORLD is here (the
 * MPI_Finalize hook); otherwise the statistics are gathered over
 * MPI_COMM_WORLD only if every rank has set it up. */
void tb_finalize_run(int every_rank);

#endif
