/* Cost model of a broadcast: the plan the library would run (tb_plan_build
 * with the communicator's hierarchy) is replayed message by message the way
 * the engine (libtopobcast/src/run/engine.c) sends them, each message priced by
 * the PLogP costs of its edge (costs.h):
 *
 *   - a rank forwards segment k to its children as soon as it has it, one
 *     segment per child per pass, children in send order;
 *   - a message is complete at the receiver g(m) + L after it started (so
 *     pipelines, LogGP-style, cost ~ (depth + segments) x g(segment));
 *   - a rank has one link per class of destination (the coarsest level at
 *     which the two differ): consecutive sends on one link are at least
 *     g(m) / f apart, f the class's measured fan-out (fanout.h; 1 without
 *     it), while sends on different links overlap; in a plan of two
 *     trees a receiver takes each tree's pieces at half its way in (the
 *     first rendezvous piece of an edge alone), while the sender's link
 *     holds each at the sender's own rate;
 *   - the CPU pays o_s(m) per send and o_r(m) per received segment, once
 *     it has arrived and before it is forwarded; non-blocking sends: at
 *     most `outstanding` in flight; blocking sends of messages at or above
 *     the eager limit return only on delivery; rendezvous messages cost the
 *     CPU only an empty message's overheads;
 *   - a shared-memory edge (base shm, tree_shm.c) is no message: the
 *     parent copies each piece of its shm children's range (tb_shm_piece
 *     of it, whatever the segment) once into its ring, its CPU busy for
 *     one copy -- the byte term gbw of g(piece) on the edge to its first
 *     shm child, the same-node cost of the costs table -- not for one send
 *     per child, and only once the slot's piece TB_SHM_SLOTS earlier has
 *     been copied out by every reader; each shm child has the piece the
 *     edge's L (the flag's way) plus its own copy (gbw) after it was
 *     published, all of them at once, no earlier than its previous piece,
 *     and pays no o_r for it.  The parent publishes one piece per pass,
 *     after a segment to each of its other children, which it sends as
 *     above.  Not modelled: a reader's copies delaying its own sends;
 *   - then the exchange steps (ring / recursive doubling / pair swap), each
 *     step a send and a receive that start when the rank reaches the step.
 *
 * Contention between ranks on shared links and memories is bounded
 * separately (tn_model_resource_time, on the machine of machine.h: the
 * lower bound's reasoning applied to this schedule's bytes); the MPI
 * library's own algorithm ("default") is not modelled: default is always
 * measured.  Pure, no MPI, deterministic. */
#ifndef TN_TUNER_MODEL_H
#define TN_TUNER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "costs.h"
#include "hier.h"
#include "machine.h"
#include "schedule.h"

/* Predicted seconds for a plan (built for comm ranks; world[r] maps comm
 * rank r to the world rank the costs are indexed by, NULL = same).  h: the
 * communicator's hierarchy (comm ranks) for the links' classes, or NULL
 * (one link per rank, class 0); fanout[0..h->nlevels] (fanout[0] without
 * h): fan-out per class, or NULL (1).  spec supplies segment, nonblocking and outstanding.  Returns -1.0
 * if the plan cannot be replayed (a step pattern that would deadlock). */
double tn_model_plan_time(const tn_costs *c, const int *world, const tb_plan *p, const tb_hier *h,
                          const double *fanout, const tb_alg_spec *spec, size_t bytes);

/* \brief The prediction of a built plan: the larger of its replay and of
 *        the resource time on m (tn_model_resource_time; none when m is
 *        NULL), in which a resource starts no earlier than the replay
 *        gives a tree edge crossing it its first bytes: the parent's first
 *        piece (the pipeline's fill up to a resource comes before its
 *        load, not beside it); *replay (if not NULL) gets the replay alone.
 * \return seconds, or -1.0 if the plan cannot be replayed. */
double tn_model_plan_predict(const tn_costs *c, const int *world, const tb_plan *p, const tb_hier *h,
                             const double *fanout, const tn_machine *m, const tb_alg_spec *spec, size_t bytes,
                             double *replay);

/* \brief Builds the plan for (size, root, spec, h) and predicts it
 *        (tn_model_plan_predict, with machine m or NULL).
 * \return 0 and *seconds, or -1 with err set (default has no model;
 *         unbuildable plan). */
int tn_model_predict(const tn_costs *c, const int *world, const tb_hier *h, const double *fanout,
                     const tn_machine *m, int size, int root, const tb_alg_spec *spec, size_t bytes, double *seconds,
                     char *err, size_t errlen);

/* \brief The least time the resources of m (its links and memories) need
 *        to carry the plan's messages: each message's bytes are charged to
 *        every resource of its route (comm rank r on host m->host_of[r]);
 *        a resource starts at the least latency of the routes crossing it
 *        and carries its bytes at its capacity.  The largest over the
 *        resources bounds the broadcast from below, whatever the order of
 *        the messages; the replay ignores this sharing between ranks.  A
 *        shared-memory edge is charged like a message (its child's copy
 *        out of the ring); the parent's one copy in is not charged.
 * \return seconds (0 with m NULL, one rank or no bytes), -1.0 on failure. */
double tn_model_resource_time(const tn_machine *m, const tb_plan *p, size_t bytes);

/* Hash of everything the engine does with a plan at this message size:
 * tree (parents, blocks, send order, which edges are shared memory),
 * exchange, effective segmentation (a segment at least as long as the
 * message is none; none on shared-memory edges, which have the ring's
 * pieces) and send mode (neither when no edge is a message).  Two
 * specs with equal signatures run the same messages in the same order, so
 * only one of them needs timing. */
uint64_t tn_plan_signature(const tb_plan *p, const tb_alg_spec *spec, size_t bytes);

#endif
