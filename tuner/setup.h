/* Set-up of a tuning run, before any candidate is planned: the topology
 * file, the communicators tuned (the job, its first half and quarter, or
 * --comm-sizes) with the library's hierarchy of each, the costs the model
 * prices messages with (the probe's measurements, or a quick per-level
 * calibration), and the fan-out per class of destination of each
 * communicator.  All collective over MPI_COMM_WORLD unless said. */
#ifndef TN_TUNER_SETUP_H
#define TN_TUNER_SETUP_H

#include "run.h"

/* \brief Points the library at --topology (or takes $TOPOBCAST_CONFIG as
 *        the topology) before anything else touches the library, and loads
 *        it for the table (T->topo_cfg, T->have_topo).
 * \return 0, or -1 on every rank if rank 0 cannot load it (said on stderr). */
int tn_setup_topology(tn_run *T);

/* \brief Creates the communicators of T->comms and gets the library's
 *        hierarchy of each and of the job; aborts the job when the library
 *        cannot use the topology file on one of them.
 * \return 0, or -1 if no communicator of at least 2 ranks is left. */
int tn_setup_comms(tn_run *T);

/* \brief Fills T->costs (rank 0): the probe's measurements if given and
 *        taken with this job's size and placement, else the quick
 *        calibration; T->have_costs says whether there are costs at all.
 * \return nothing; what it falls back to is said on stderr. */
void tn_setup_costs(tn_run *T);

/* \brief Measures the fan-out per pair class of every tuned communicator
 *        (collective per communicator; 1 everywhere without costs).
 * \return nothing. */
void tn_setup_fanout(tn_run *T);

/* \brief Rank 0: prints the run's settings, costs, and each communicator's
 *        levels and fan-out to stdout.
 * \return nothing. */
void tn_setup_print(const tn_run *T);

#endif
