/* Messages to stderr, prefixed "topobcast:".  Warnings that concern every
 * rank are printed by one rank only. */
#ifndef TB_LOG_H
#define TB_LOG_H

#include <mpi.h>

/* Prints if rank 0 of MPI_COMM_WORLD. */
void tb_log_world0(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints at most once per process for a given once-flag. */
void tb_log_once(int *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* \brief This process's rank in MPI_COMM_WORLD.
 * \return that rank while the world model is initialized; otherwise (before
 * MPI_Init, after MPI_Finalize, a process of the MPI-4 sessions model) the
 * launcher's rank (tb_env_rank), or 0 where the launcher sets none. */
int tb_world_rank(void);
/* \brief Whether MPI_COMM_WORLD may be used: MPI_Init or MPI_Init_thread has
 * run and MPI_Finalize has not (MPI_Initialized, MPI_Finalized).
 * \return 1 or 0. */
int tb_world_ready(void);
/* \brief The rank the launcher gives this process in its environment
 * (PMI_RANK: MPICH's Hydra; OMPI_COMM_WORLD_RANK: Open MPI), usable
 * before MPI_Init and without it.
 * \return that rank, or -1 when neither is set to a rank. */
int tb_env_rank(void);

#endif
