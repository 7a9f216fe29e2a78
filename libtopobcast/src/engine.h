/* Executes one rank's schedule on a contiguous byte image of the message. */
#ifndef TB_ENGINE_H
#define TB_ENGINE_H

#include <mpi.h>
#include <stddef.h>

#include "schedule.h"

/* Collective over comm (the private duplicate); every rank passes its own
 * schedule of the same plan and the same nbytes.  buf holds the message at
 * the root and receives it elsewhere.  Returns an MPI error code. */
int tb_engine_run(const tb_schedule *s, void *buf, size_t nbytes, MPI_Comm comm);

#endif
