#include "dispatch/dispatch.h"

#include <stdio.h>

#include "dispatch/comm_state.h"
#include "base/compat.h"
#include "run/datatype.h"
#include "run/engine.h"
#include "dispatch/finalize.h"
#include "base/log.h"
#include "run/nbc.h"
#include "config/settings.h"
#include "run/stats.h"

/* A process that has not called MPI_Init (MPI-4 sessions: communicators
 * from MPI_Comm_create_from_group) has no MPI_COMM_WORLD and no
 * MPI_COMM_SELF, which the library's set-up and end need: its calls are
 * MPI's own, with one line per job (the launcher's rank 0).  Every process
 * of such a communicator decides so alone; one that has called MPI_Init
 * beside the sessions it uses is served as usual. */
static void no_world(MPI_Comm comm)
{
    static int warned;
    int fin = 0;
    PMPI_Finalized(&fin);
    if (fin) /* a call after MPI_Finalize: erroneous, and MPI's own says so */
        return;
    int env = tb_env_rank(), rank = -1;
    if (env < 0)
        PMPI_Comm_rank(comm, &rank);
    if (env == 0 || rank == 0)
        tb_log_once(&warned, "MPI_Bcast in a process that has not called MPI_Init (MPI-4 sessions): the library "
                             "needs MPI_COMM_WORLD; using MPI_Bcast");
}

/* Calls the library leaves to MPI: invalid arguments (so MPI reports them
 * as it would without us), intercommunicators, sizes we cannot pack, and
 * processes without MPI_Init.
 * *cs: comm's state when it has one already -- the common case, which then
 * costs one attribute lookup instead of three MPI queries. */
static int pass_through(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int root, int *size,
                        tb_comm_state **cs)
{
    *cs = NULL;
    if (comm == MPI_COMM_NULL || type == MPI_DATATYPE_NULL || count < 0)
        return 1;
    if ((*cs = tb_comm_state_find(comm)) != NULL) {
        *size = (*cs)->size; /* states exist only on intracommunicators */
        return root < 0 || root >= *size;
    }
    if (!tb_world_ready()) {
        no_world(comm);
        return 1;
    }
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 1;
    if (inter) {
        /* counted at the root (MPI_ROOT), each non-empty broadcast once */
        MPI_Count tsize = 0;
        if (root == MPI_ROOT && tb_settings_get()->stats && PMPI_Type_size_x(type, &tsize) == MPI_SUCCESS &&
            count > 0 && tsize > 0) {
            tb_stats_fallback(TB_FALLBACK_INTERCOMM, 1);
            tb_stats_count(TB_ALG_DEFAULT, (size_t)count * (size_t)tsize, -1, 1);
        }
        return 1;
    }
    if (PMPI_Comm_size(comm, size) != MPI_SUCCESS || root < 0 || root >= *size)
        return 1;
    return 0;
}

/* comm's state, set up now (comm has none yet).  The end of MPI is armed
 * first, on every rank that sets up a communicator (finalize.h). */
static tb_comm_state *state_setup(MPI_Comm comm)
{
    tb_finalize_arm();
    return tb_comm_state_get(comm);
}

/* Whether a call of `bytes` (explicit_spec: topobcast_bcast_algorithm's)
 * needs cs's hierarchy first: from agreed inputs only, so every rank of the
 * communicator completes the state in the same call or none does. */
static int needs_hier(const tb_comm_state *cs, size_t bytes, const tb_alg_spec *explicit_spec)
{
    if (cs->complete)
        return 0;
    return explicit_spec ? explicit_spec->id != TB_ALG_DEFAULT : bytes > cs->hier_above;
}

/* Same inputs on every rank (settings agreed, the communicator's shape,
 * byte count), so every rank makes the same choice. */
static void choose(const tb_comm_state *cs, size_t bytes, tb_alg_spec *spec, int *rule)
{
    const tb_settings *st = tb_settings_get();
    *rule = -1;
    if (!cs->usable) {
        tb_alg_spec_default(spec, TB_ALG_DEFAULT);
    } else if (st->forced) {
        *spec = st->forced_spec;
    } else if (!cs->complete) {
        /* bytes <= cs->hier_above (callers complete the state above it):
         * default whatever the shape */
        tb_alg_spec_default(spec, TB_ALG_DEFAULT);
    } else {
        const tb_rule *r = tb_config_select(&st->config, &cs->shape, bytes, rule);
        if (r)
            *spec = r->spec;
        else
            tb_alg_spec_default(spec, TB_ALG_DEFAULT);
    }
}

/* The common small call, on a communicator seen before, with a predefined
 * type, that the table sends to MPI_Bcast: one thread-local lookup, one
 * cached type size and one comparison before PMPI_Bcast.  The bound was
 * computed from the same agreed inputs as choose(), so every rank makes the
 * same decision whichever path it takes. */
static inline int fast_default(MPI_Count count, MPI_Datatype type, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || count < 0)
        return 0;
    const tb_comm_state *cs = tb_comm_state_find(comm);
    if (!cs || !cs->default_upto)
        return 0;
    size_t tsize = tb_named_type_size_slow(type);
    return tsize && (size_t)count <= cs->default_upto / tsize;
}

/* A local call (MPI_Ibcast) on a communicator, or at a size, that no
 * blocking call has set up yet: MPI's own call, counted as a fallback. */
static tb_call_kind not_set_up(const tb_comm_state *cs, MPI_Comm comm, int root, const tb_bcast_call *c)
{
    int rank = -1;
    if (cs)
        rank = cs->rank;
    else
        PMPI_Comm_rank(comm, &rank);
    int counted = rank == root && tb_settings_get()->stats;
    tb_stats_fallback(TB_FALLBACK_NOT_SET_UP, counted);
    tb_stats_count(TB_ALG_DEFAULT, c->msg.bytes, -1, counted);
    return TB_CALL_MPI;
}

/* A call of more bytes than the library handles with this MPI (MPI 3.1:
 * INT_MAX, the positions of MPI_Pack): MPI's own, decided by the byte count
 * alone, so on every rank; counted as a fallback, and said once per job
 * where an algorithm was asked for (TOPOBCAST_ALGORITHM or an explicit
 * spec), or under TOPOBCAST_VERBOSE. */
static tb_call_kind too_large(const tb_comm_state *cs, MPI_Comm comm, int root, const tb_alg_spec *explicit_spec,
                              const tb_bcast_call *c)
{
    static int warned;
    const tb_settings *st = tb_settings_get();
    int rank = -1;
    if (cs)
        rank = cs->rank;
    else
        PMPI_Comm_rank(comm, &rank);
    int counted = rank == root && st->stats;
    tb_stats_fallback(TB_FALLBACK_SIZE, counted);
    tb_stats_count(TB_ALG_DEFAULT, c->msg.bytes, -1, counted);
    if ((explicit_spec || st->forced || st->verbose >= 1) && tb_world_rank() == 0)
        tb_log_once(&warned, "a broadcast of %zu bytes: more than INT_MAX, which this MPI (3.1, no large-count "
                             "MPI_Pack) lets the library move; using MPI_Bcast for such calls",
                    c->msg.bytes);
    return TB_CALL_MPI;
}

/* An MPI_Ibcast that needs comm's set-up: starts it without waiting (cs
 * NULL: a new state) and defers the call; MPI's own call where none can
 * be started (SMPI, out of memory). */
static tb_call_kind defer(tb_comm_state *cs, MPI_Comm comm, int root, tb_bcast_call *c)
{
    tb_finalize_arm();
    tb_comm_state *s = tb_comm_setup_start(comm, cs);
    if (!s)
        return not_set_up(cs, comm, root, c);
    c->cs = s;
    return TB_CALL_DEFER;
}

/* The decision once comm's state cs exists (comm MPI_COMM_NULL when a
 * deferred call is resolved: its set-up is then complete). */
static tb_call_kind decide_on(tb_comm_state *cs, MPI_Comm comm, int root, const tb_alg_spec *explicit_spec,
                              int local, tb_bcast_call *c)
{
    const tb_settings *st = tb_settings_get();
    if (cs->nb_route && cs->dup != MPI_COMM_NULL)
        c->mpi_comm = cs->dup;
    if (needs_hier(cs, c->msg.bytes, explicit_spec)) {
        if (local)
            return defer(cs, comm, root, c);
        if (tb_comm_state_complete(cs, comm) != MPI_SUCCESS)
            return TB_CALL_MPI;
    }
    c->is_root = cs->rank == root;
    c->rule = -1;
    if (explicit_spec)
        c->spec = *explicit_spec;
    else
        choose(cs, c->msg.bytes, &c->spec, &c->rule);
    /* each broadcast counted once, at its root; no shared counter touched
     * (atomics on every call) unless TOPOBCAST_STATS asks for them */
    c->count_it = c->is_root && st->stats;
    if (!cs->usable && !explicit_spec)
        tb_stats_fallback((tb_fallback_why)cs->why, c->count_it);
    else if (st->forced_bad && !explicit_spec)
        tb_stats_fallback(TB_FALLBACK_ALGORITHM, c->count_it);
    c->priv = MPI_COMM_NULL;
    if (local && c->spec.id != TB_ALG_DEFAULT && cs->dup == MPI_COMM_NULL && !cs->no_dup)
        return defer(cs, comm, root, c);
    if (local && tb_alg_spec_uses_shm(&c->spec) && !cs->shm_tried) {
        /* the rings are made only in a blocking call: until one has, binomial
         * in shm's place (on every rank: shm_tried is agreed) */
        tb_alg_spec sub;
        tb_alg_spec_without_shm(&c->spec, &sub);
        c->spec = sub;
    }
    if (c->spec.id != TB_ALG_DEFAULT &&
        (cs->cap_full || (c->priv = tb_comm_private(cs, comm)) == MPI_COMM_NULL)) {
        c->priv = MPI_COMM_NULL;
        tb_stats_fallback(TB_FALLBACK_CAPACITY, c->count_it);
    }
    if (c->priv == MPI_COMM_NULL) {
        tb_stats_count(TB_ALG_DEFAULT, c->msg.bytes, c->rule, c->count_it);
        return TB_CALL_MPI;
    }
    char err[256];
    /* the rings, created once per communicator in the first broadcast that
     * asks for them (collective, like the duplicate) */
    if (tb_alg_spec_uses_shm(&c->spec))
        tb_comm_shm(cs, c->priv);
    c->sched = tb_comm_schedule(cs, root, &c->spec, err, sizeof err);
    if (!c->sched) {
        /* builders are deterministic, so every rank lands here together */
        static int warned;
        if (tb_world_rank() == 0)
            tb_log_once(&warned, "%s; using MPI_Bcast", err);
        else if (tb_settings_get()->verbose >= 1 && cs->rank == 0)
            tb_log("communicator of %d processes: %s; using MPI_Bcast", cs->size, err);
        tb_stats_count(TB_ALG_DEFAULT, c->msg.bytes, c->rule, c->count_it);
        return TB_CALL_MPI;
    }
    c->cs = cs;
    c->shm = c->sched->shm ? cs->shm : NULL;
    return TB_CALL_LIBRARY;
}

/* A buffer no algorithm of the library can use, which MPI then reports as
 * it would without it: MPI_IN_PLACE (erroneous in a broadcast), and NULL
 * with data to move unless the type's addresses are absolute (MPI_BOTTOM
 * is NULL under MPICH). */
static int bad_buffer(const void *buf, MPI_Count count, MPI_Datatype type)
{
    if (buf == MPI_IN_PLACE)
        return 1;
    if (buf || count == 0)
        return 0;
    MPI_Count lb = 0, extent = 0, tsize = 0;
    return PMPI_Type_size_x(type, &tsize) == MPI_SUCCESS && tsize > 0 &&
           PMPI_Type_get_true_extent_x(type, &lb, &extent) == MPI_SUCCESS && lb == 0;
}

tb_call_kind tb_bcast_decide(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                             const tb_alg_spec *explicit_spec, int local, tb_bcast_call *c)
{
    c->mpi_comm = comm;
    c->cs = NULL;
    if (!explicit_spec && fast_default(count, type, comm))
        return TB_CALL_MPI;
    const tb_settings *st = tb_settings_get();
    int size = 0;
    tb_comm_state *cs = NULL;
    if ((st->disabled && !explicit_spec) || pass_through(comm, count, type, root, &size, &cs) ||
        bad_buffer(buf, count, type))
        return TB_CALL_MPI;
    /* nothing to move (one process, no bytes): MPI's own call, which costs
     * nothing there and checks the arguments as MPI would */
    if (size == 1)
        return TB_CALL_MPI;
    if (tb_msg_init(&c->msg, buf, count, type) != MPI_SUCCESS)
        return TB_CALL_MPI;
    if (c->msg.bytes > tb_max_bytes())
        return too_large(cs, comm, root, explicit_spec, c);
    if (c->msg.bytes == 0)
        return TB_CALL_MPI;

    if (local && (!cs || cs->setup || cs->deferred)) {
        if (cs) { /* behind the set-up in flight, in call order */
            c->cs = cs;
            return TB_CALL_DEFER;
        }
        return defer(NULL, comm, root, c);
    }
    if (cs && !local)
        tb_comm_setup_sync(cs);
    if (!cs && !(cs = state_setup(comm)))
        return TB_CALL_MPI;
    return decide_on(cs, comm, root, explicit_spec, local, c);
}

tb_call_kind tb_bcast_resolve(int root, tb_bcast_call *c)
{
    c->mpi_comm = tb_comm_setup_priv(c->cs);
    return decide_on(c->cs, MPI_COMM_NULL, root, NULL, 1, c);
}

int tb_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
             const tb_alg_spec *explicit_spec)
{
    if (!explicit_spec && fast_default(count, type, comm))
        return TB_PASS;
    tb_bcast_call c;
    if (tb_bcast_decide(buf, count, type, root, comm, explicit_spec, 0, &c) == TB_CALL_MPI)
        return TB_PASS;
    /* a shared-memory stage polls flags, which no MPI progress writes: the
     * non-blocking broadcasts in progress move on between polls (one may
     * hold the ring this one waits for, here or on a peer) */
    int rc = tb_msg_prepare(&c.msg, c.is_root, comm);
    if (rc == MPI_SUCCESS)
        rc = tb_engine_run(c.sched, c.msg.image, c.msg.bytes, c.priv, c.shm, tb_nbc_progress);
    int frc = tb_msg_finish(&c.msg, c.is_root, comm);
    if (rc == MPI_SUCCESS)
        rc = frc;
    if (rc == MPI_SUCCESS)
        tb_stats_count(c.spec.id, c.msg.bytes, c.rule, c.count_it);
    else /* an error in the library's own calls: the application's handler, as MPI's would */
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

/* The MPI_Ibcasts queued behind a communicator's set-up (comm_state.h,
 * deferred); counted by run/nbc.c under its lock. */
static void deferred_count(tb_comm_state *cs, int delta)
{
    cs->deferred += delta;
}

static const tb_nbc_deferral deferral = {deferred_count, tb_comm_setup_test, tb_bcast_resolve};

int tb_ibcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
              const tb_alg_spec *explicit_spec, MPI_Request *req)
{
    tb_bcast_call c;
    switch (tb_bcast_decide(buf, count, type, root, comm, explicit_spec, 1, &c)) {
    case TB_CALL_LIBRARY:
        return tb_nbc_ibcast(&c, req);
    case TB_CALL_DEFER:
        c.priv = tb_comm_setup_priv(c.cs); /* the one its set-up makes, or has */
        return tb_nbc_defer(&c, buf, count, type, root, &deferral, req);
    default: /* MPI's own on the private duplicate while Ibcasts are routed through it: the library's */
        return c.mpi_comm == comm ? TB_PASS : tb_pmpi_ibcast(buf, count, type, root, c.mpi_comm, req);
    }
}

int tb_bcast_or_mpi(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                    const tb_alg_spec *explicit_spec)
{
    int rc = tb_bcast(buf, count, type, root, comm, explicit_spec);
    return rc == TB_PASS ? tb_pmpi_bcast(buf, count, type, root, comm) : rc;
}

#if MPI_VERSION >= 4
int tb_bcast_init(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    tb_bcast_call c;
    if (tb_bcast_decide(buf, count, type, root, comm, NULL, 0, &c) != TB_CALL_LIBRARY)
        return TB_PASS;
    if (c.shm) {
        /* a persistent request may outlive its communicator, and the rings
         * are freed with it: binomial runs in place of shm (on every rank) */
        tb_alg_spec sub;
        char err[256];
        tb_alg_spec_without_shm(&c.spec, &sub);
        c.shm = NULL;
        if (!(c.sched = tb_comm_schedule(c.cs, root, &sub, err, sizeof err)))
            return TB_PASS;
    }
    return tb_nbc_bcast_init(&c, req);
}
#endif

int tb_bcast_choice(MPI_Comm comm, MPI_Count count, MPI_Datatype type, tb_alg_spec *out)
{
    const tb_settings *st = tb_settings_get();
    int size = 0, rule;
    tb_comm_state *cs = NULL;
    tb_alg_spec_default(out, TB_ALG_DEFAULT);
    tb_msg msg;
    if (st->disabled || pass_through(comm, count, type, 0, &size, &cs) || size == 1 ||
        tb_msg_init(&msg, NULL, count, type) != MPI_SUCCESS || msg.bytes == 0 || msg.bytes > tb_max_bytes())
        return MPI_SUCCESS;
    if (cs)
        tb_comm_setup_sync(cs);
    if ((cs || (cs = state_setup(comm))) &&
        (!needs_hier(cs, msg.bytes, NULL) || tb_comm_state_complete(cs, comm) == MPI_SUCCESS))
        choose(cs, msg.bytes, out, &rule);
    return MPI_SUCCESS;
}
