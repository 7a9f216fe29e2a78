/* Cost curves from the probe's measurement file (topobcast-probe --save). */
#ifndef TN_TUNER_COSTS_PROBE_H
#define TN_TUNER_COSTS_PROBE_H

#include <stddef.h>

#include "config.h"
#include "costs.h"

/* Loads path into per-pair curves indexed by the probe job's ranks.  topo
 * (may be NULL) classifies pairs the probe did not measure.  *hosts (if
 * hosts is not NULL) receives the host name of every probe rank (malloc'd,
 * nprocs entries) so the caller can check the job runs where the probe ran.
 * The eager limit becomes the median rendezvous switch of a LogGP run.
 * The file is read by the probe's own loader (tt_save_read), so it must be
 * complete as the probe writes it.  Returns 0, or -1 with err as
 * "FILE:LINE: expected ..." (the probe's messages). */
int tn_costs_load_probe(const char *path, const tb_topology *topo, tn_costs *out, char (**hosts)[256], char *err,
                        size_t errlen);

#endif
