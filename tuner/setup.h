/* Set-up of a tuning run, before any candidate is planned: the topology
 * file, the communicators tuned (shapes of the job, or --comm-sizes) with the library's hierarchy of each, the costs the model
 * prices messages with (the probe's measurements, or a quick per-level
 * calibration), and the fan-out per class of destination of each
 * communicator.  All collective over MPI_COMM_WORLD unless said. */
#ifndef TN_TUNER_SETUP_H
#define TN_TUNER_SETUP_H

#include "run.h"

/* \brief Points the library at --topology (or takes $TOPOBCAST_CONFIG as
 *        the topology) before anything else touches the library, and loads
 *        it for the table (T->topo_cfg, T->have_topo).
 * \return 0, or -1 on every rank if a rank cannot load it (said on stderr
 *         by rank 0, naming --topology/--config or TOPOBCAST_CONFIG). */
int tn_setup_topology(tn_run *T);

/* \brief Creates the communicators of T->comms (the shapes of
 *        --shapes, by default all of shapes.h, then the first ranks of
 *        --comm-sizes; only the latter when --comm-sizes alone is given)
 *        and gets the library's hierarchy and shape of each and the
 *        hierarchy of the job; marks those where shm is offered (not
 *        under SMPI, a node holding 2 or more of their ranks); aborts
 *        the job when the library cannot use the topology file on one of
 *        them.
 * \return 0, or -1 if no communicator of at least 2 ranks is left. */
int tn_setup_comms(tn_run *T);

/* \brief Fills T->costs (rank 0): the probe's measurements if given and
 *        taken with this job's size and placement, else the quick
 *        calibration; T->have_costs says whether there are costs at all.
 * \return 0 (what it falls back to is said on stderr), or -1 on every
 *         rank, before any calibration, when --measurements names a file
 *         that cannot be read (missing, unreadable, malformed: said on
 *         stderr by rank 0). */
int tn_setup_costs(tn_run *T);

/* \brief Measures the fan-out per pair class of every tuned communicator
 *        (collective per communicator; 1 everywhere without costs).
 * \return nothing. */
void tn_setup_fanout(tn_run *T);

/* \brief Rank 0: the machine of each tuned communicator for the model's
 *        resource term (machine.h): --platform/--hostfile when given, else
 *        built from the costs, the communicator's levels and its fan-out;
 *        prints where it comes from.
 * \return nothing; a communicator without one is priced by the replay
 *         alone (said on stderr). */
void tn_setup_machine(tn_run *T);

/* \brief The configuration the library derived the shapes with (its level
 *        list numbers their levels), NULL when it has none loaded.
 * \return it, valid until MPI_Finalize. */
const tb_config *tn_shape_config(void);

/* \brief Rank 0: prints the run's settings, costs, and each communicator's
 *        levels and fan-out to stdout.
 * \return nothing. */
void tn_setup_print(const tn_run *T);

#endif
