/* From an MPI_Bcast call to an algorithm: argument screening, agreement,
 * selection, schedule lookup, datatype handling, engine. */
#ifndef TB_DISPATCH_H
#define TB_DISPATCH_H

#include <mpi.h>

#include "algorithm.h"

/* explicit_spec NULL: choose by TOPOBCAST_ALGORITHM or the selection table. */
int tb_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
             const tb_alg_spec *explicit_spec);
/* The spec tb_bcast would choose (without broadcasting).  Collective on
 * first use of comm. */
int tb_bcast_choice(MPI_Comm comm, MPI_Count count, MPI_Datatype type, tb_alg_spec *out);

#endif
