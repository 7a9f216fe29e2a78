#include "dispatch/comm_state.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "run/nbc.h"
#include "config/settings.h"
#include "run/stats.h"
#include "topo/map.h"
#include "base/pmpi.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* Private duplicates held by this process; bounded by TOPOBCAST_MAX_COMMS. */
static int live_dups;

/* cs's duplicate, and its rings, go: the non-blocking broadcasts on it end
 * first (persistent ones never use the rings); persistent ones may keep
 * the duplicate, run/nbc.c then frees it with the last of them. */
static void dup_release(tb_comm_state *cs)
{
    if (cs->dup == MPI_COMM_NULL)
        return;
    int keep = tb_nbc_release_comm(cs->dup);
    tb_shm_free(cs->shm);
    cs->shm = NULL;
    if (!keep)
        tb_mpi.Comm_free(&cs->dup);
    cs->dup = MPI_COMM_NULL;
    __atomic_sub_fetch(&live_dups, 1, __ATOMIC_RELAXED);
}

/* What cs holds, freed; a duplicate still held only if nothing runs on it
 * (the caller made sure: tb_comm_state_reap). */
static void state_release(tb_comm_state *cs)
{
    for (int i = 0; i < TB_SCHEDULE_CACHE; i++)
        if (cs->cache[i].valid)
            tb_schedule_free(&cs->cache[i].sched);
    for (int i = 0; i < TB_ROOT0_PLANS; i++)
        if (cs->root0[i].valid)
            tb_plan_free(&cs->root0[i].plan);
    tb_hier_free(&cs->hier);
    if (cs->dup != MPI_COMM_NULL) {
        tb_mpi.Comm_free(&cs->dup);
        __atomic_sub_fetch(&live_dups, 1, __ATOMIC_RELAXED);
    }
    free(cs->node_of);
    free(cs);
}

static void state_free(tb_comm_state *cs)
{
    /* freed with its communicator (collective) or at MPI_Finalize: the
     * set-up and the broadcasts waiting for it end first */
    tb_comm_setup_sync(cs);
    dup_release(cs);
    state_release(cs);
}

unsigned long tb_state_gen;
TB_TLS tb_state_lookup tb_state_last = {MPI_COMM_NULL, NULL, 0};

static pthread_mutex_t orphan_lock = PTHREAD_MUTEX_INITIALIZER;
static tb_comm_state *orphans;

static int state_delete(MPI_Comm comm, int kv, void *value, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    tb_comm_state *cs = value;
    __atomic_add_fetch(&tb_state_gen, 1, __ATOMIC_RELEASE);
    if (cs->setup || cs->deferred || tb_nbc_holding() ||
        (cs->dup != MPI_COMM_NULL && !cs->shm && tb_nbc_running(cs->dup))) {
        /* MPI frees a communicator's attributes when its last operation
         * completes, which may be one of the set-up's, inside a progress
         * pass; and a communicator may be freed while its broadcasts are
         * in progress, which MPI completes as usual, so they are not run
         * to their end here (a peer may need this rank's next call to
         * start its own): the state goes when nothing uses it
         * (tb_comm_state_reap).  Not with shared-memory rings: freeing
         * them is collective, and whether this rank's broadcasts still run
         * is its own, so every rank runs them to their end and frees the
         * rings here. */
        tb_nbc_set_reaper(tb_comm_state_reap);
        pthread_mutex_lock(&orphan_lock);
        cs->next_orphan = orphans;
        orphans = cs;
        pthread_mutex_unlock(&orphan_lock);
        return MPI_SUCCESS;
    }
    state_free(cs);
    return MPI_SUCCESS;
}

void tb_comm_state_reap(void)
{
    if (!__atomic_load_n(&orphans, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&orphan_lock);
    for (tb_comm_state **pp = &orphans; *pp;) {
        tb_comm_state *cs = *pp;
        if (cs->setup || cs->deferred || (cs->dup != MPI_COMM_NULL && tb_nbc_uses(cs->dup))) {
            pp = &cs->next_orphan;
            continue;
        }
        *pp = cs->next_orphan;
        /* its window, if any, is left to MPI_Finalize (freeing it is collective) */
        if (cs->dup != MPI_COMM_NULL)
            tb_nbc_forget(cs->dup);
        state_release(cs);
    }
    pthread_mutex_unlock(&orphan_lock);
}

static void keyval_create(void)
{
    /* not copied on MPI_Comm_dup: a duplicate gets its own state */
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete, &keyval, NULL);
}

/* One allreduce settles whether every rank may use the library's
 * configuration on this communicator (same settings hash, config loaded;
 * at completion: mapping succeeded everywhere) and whether any rank wants
 * the hierarchy at once.  It runs on the application's communicator: a
 * collective there cannot match the application's point-to-point
 * messages, and every rank is inside the same MPI_Bcast call. */
static int agree(MPI_Comm comm, uint64_t hash, int why_local, int want_local, int *why_all, int *same,
                 int *want_all)
{
    long long v[4] = {(long long)(hash >> 1), -(long long)(hash >> 1), why_local, want_local};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    *same = v[0] == -v[1];
    *why_all = (int)v[2];
    *want_all = (int)v[3];
    return MPI_SUCCESS;
}

/* Configuration problems are a fact about the job: one line per job, printed
 * by world rank 0 the first time a communicator holding it meets the
 * problem.  What each other communicator decided is behind
 * TOPOBCAST_VERBOSE=1. */
static void warn_job(const tb_comm_state *cs, tb_fallback_why why, const char *text)
{
    static int warned[TB_FALLBACK_COUNT];
    tb_stats_fallback_text(why, text);
    if (tb_world_rank() == 0)
        tb_log_once(&warned[why], "%s; using MPI_Bcast", text);
    else if (cs->rank == 0 && tb_settings_get()->verbose >= 1)
        tb_log("communicator of %d processes: %s; using MPI_Bcast on it", cs->size, text);
}

/* A host the topology does not have, as the rank on it names it. */
typedef struct tb_unknown_host {
    char name[256];
    int world_rank;
} tb_unknown_host;

/* Why a communicator falls back; the local code is agreed by a max. */
enum { WHY_NONE = 0, WHY_MAPPING = 1, WHY_CONFIG = 2, WHY_DISABLED = 3 };

/* This process's code from its settings alone. */
static int settings_why(const tb_settings *st)
{
    return st->disabled_here ? WHY_DISABLED : st->config_ok ? WHY_NONE : WHY_CONFIG;
}

/* A rank of cs on a host the topology does not have: the job's warning
 * names the host, which the rank on it (`unknown`, the one the derivation
 * names on every rank) has sent to the others (host). */
static void warn_unknown_host(tb_comm_state *cs, const tb_settings *st, int world_rank, const char *host)
{
    char text[700];
    tb_topo_unknown_host_text(text, sizeof text, &st->config.topo, st->config.source, host, world_rank);
    cs->why = TB_FALLBACK_MAPPING;
    warn_job(cs, cs->why, text);
}

static void warn_fallback(tb_comm_state *cs, const tb_settings *st, int why_all, int same, const char *local_why)
{
    char text[600];
    if (why_all == WHY_DISABLED) {
        cs->why = TB_FALLBACK_DIFFER;
        snprintf(text, sizeof text,
                 "TOPOBCAST_DISABLE is set on processes of a communicator, and the library's MPI_Init did not run "
                 "to share world rank 0's value (PMPI_Init was called past the static library)");
    } else if (why_all == WHY_CONFIG) {
        cs->why = TB_FALLBACK_CONFIG;
        if (!st->config_ok) /* this rank's own error, printed when loaded */
            return;
        snprintf(text, sizeof text, "TOPOBCAST_CONFIG could not be loaded on some ranks");
    } else if (!same) {
        cs->why = TB_FALLBACK_DIFFER;
        snprintf(text, sizeof text,
                 "ranks have different settings (TOPOBCAST_CONFIG file contents, TOPOBCAST_ALGORITHM or TOPOBCAST_DISABLE differ)");
    } else {
        cs->why = TB_FALLBACK_MAPPING;
        if (local_why[0])
            snprintf(text, sizeof text, "%s", local_why);
        else
            snprintf(text, sizeof text, "some ranks could not be placed in the topology of %s", st->config.source);
    }
    warn_job(cs, cs->why, text);
}

/* The dispatch's fast path: the same choice it would make, precomputed
 * (stats count each call by rule, so they take the full path).  Before the
 * state is complete, the bound that holds for every shape. */
static void set_default_upto(tb_comm_state *cs, const tb_settings *st)
{
    if (st->stats || cs->nb_route)
        cs->default_upto = 0;
    else if (!cs->usable)
        cs->default_upto = SIZE_MAX;
    else if (st->forced)
        cs->default_upto = st->forced_spec.id == TB_ALG_DEFAULT ? SIZE_MAX : 0;
    else if (!cs->complete)
        cs->default_upto = tb_config_default_upto_any(&st->config, cs->size);
    else
        cs->default_upto = tb_config_default_upto(&st->config, &cs->shape);
}

/* The calls of more than hier_above bytes need the hierarchy: from agreed
 * inputs only (usable, and the settings the agreed hash covers), so every
 * rank completes the state in the same call. */
static void set_hier_above(tb_comm_state *cs, const tb_settings *st)
{
    if (!cs->usable)
        cs->hier_above = SIZE_MAX;
    else if (st->forced)
        cs->hier_above = st->forced_spec.id == TB_ALG_DEFAULT ? SIZE_MAX : 0;
    else
        cs->hier_above = tb_config_default_upto_any(&st->config, cs->size);
}

/* With a topology: derives cs->hier from it (*derived = 1), or says why
 * this rank cannot be placed in it.
 * \return WHY_NONE or WHY_MAPPING, the code the ranks then agree on. */
static int map_ranks(tb_comm_state *cs, const tb_ident_rec *ids, char *why, size_t whylen, int *derived, int *unknown)
{
    const tb_settings *st = tb_settings_get();
    *derived = tb_topo_derive(ids, cs->size, tb_config_topology(&st->config), &cs->hier, unknown, why, whylen) == 0;
    return *derived ? WHY_NONE : WHY_MAPPING;
}

/* The ranks agreed that the topology does not place them all (why_all);
 * host: the name of the unknown host the derivation found first, sent by
 * the rank on it (NULL: another reason). */
static void unplaced(tb_comm_state *cs, int why_all, const tb_unknown_host *host, const char *why)
{
    const tb_settings *st = tb_settings_get();
    cs->usable = 0;
    if (why_all == WHY_MAPPING && host)
        warn_unknown_host(cs, st, host->world_rank, host->name);
    else
        warn_fallback(cs, st, why_all, 1, why);
}

/* The unknown host's name, in the message the rank on it sends. */
static void unknown_host_of(const tb_identity *self, const tb_ident_rec *ids, int unknown, tb_unknown_host *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", self->host);
    out->world_rank = ids[unknown].world_rank;
}

/* The rest of completing cs, once the ranks have agreed whether the
 * topology placed them all (cs->usable): the hierarchy MPI and hwloc give
 * where the topology does not serve, the shape, the fast path's bound. */
static void complete_from(tb_comm_state *cs, const tb_ident_rec *ids, const tb_identity *self, int derived,
                          char *why, size_t whylen)
{
    const tb_settings *st = tb_settings_get();
    if (!cs->usable || !derived) {
        if (derived)
            tb_hier_free(&cs->hier);
        /* measured topology unusable or absent: what MPI and hwloc say */
        why[0] = '\0';
        if (tb_topo_derive(ids, cs->size, NULL, &cs->hier, NULL, why, whylen) != 0)
            memset(&cs->hier, 0, sizeof cs->hier);
        derived = 0;
    }
    /* the shape the table's rules see: a function of the hierarchy and the
     * allgathered node ids, the same on every rank */
    int *node_of = malloc(sizeof *node_of * (size_t)cs->size);
    for (int r = 0; node_of && r < cs->size; r++)
        node_of[r] = ids[r].node;
    if (tb_shape_derive(&cs->hier, node_of, cs->size, &st->config, &cs->shape) != 0)
        tb_shape_unknown(&cs->shape, cs->size); /* out of memory on some rank: rules without shape keys only */
    cs->node_of = node_of; /* NULL (out of memory): no shared-memory stage on this rank */
    cs->complete = 1;
    set_default_upto(cs, st);
    cs->hier_above = SIZE_MAX;
    if (st->verbose >= 1 && cs->rank == 0) {
        tb_log("communicator of %d processes: %s; hierarchy from %s:", cs->size,
               cs->usable ? "topobcast active" : "falling back to MPI_Bcast",
               derived && cs->usable ? st->config.source : "MPI_COMM_TYPE_SHARED + hwloc");
        if (why[0] && cs->usable)
            tb_log("%s", why);
        tb_hier_print(&cs->hier, ids, st->config_ok && st->config.has_topology ? &st->config.topo : NULL, self,
                      stderr);
        char shape[256];
        tb_shape_format(&cs->shape, &st->config, shape, sizeof shape);
        tb_log("shape: %s", shape);
    }
}

int tb_comm_state_complete(tb_comm_state *cs, MPI_Comm comm)
{
    if (cs->complete)
        return MPI_SUCCESS;
    const tb_settings *st = tb_settings_get();
    tb_ident_rec *ids = NULL;
    tb_identity self;
    char why[512] = "";
    int derived = 0;
    tb_quiet_errors q;
    tb_quiet_begin(comm, &q);
    int rc = tb_topo_exchange(comm, &ids, &self);
    if (rc == MPI_SUCCESS && cs->usable && st->config.has_topology) {
        /* a rank that cannot be placed in the topology makes every rank
         * fall back: agreed (usable and the topology are agreed inputs, so
         * every rank makes this allreduce or none does) */
        int why_all = 0, same = 1, want = 0, unknown = -1;
        int why_local = map_ranks(cs, ids, why, sizeof why, &derived, &unknown);
        rc = agree(comm, 0, why_local, 0, &why_all, &same, &want);
        /* every rank derived the same unknown rank from the same
         * identities: it sends its host's name to the others (who warn) */
        tb_unknown_host host;
        if (rc == MPI_SUCCESS && why_all == WHY_MAPPING && unknown >= 0) {
            unknown_host_of(&self, ids, unknown, &host);
            rc = tb_mpi.Bcast(&host, (int)sizeof host, MPI_BYTE, unknown, comm);
        }
        if (rc == MPI_SUCCESS && why_all != WHY_NONE)
            unplaced(cs, why_all, why_all == WHY_MAPPING && unknown >= 0 ? &host : NULL, why);
    }
    tb_quiet_end(comm, &q);
    if (rc != MPI_SUCCESS) {
        tb_hier_free(&cs->hier);
        free(ids);
        return rc;
    }
    complete_from(cs, ids, &self, derived, why, sizeof why);
    free(ids);
    return MPI_SUCCESS;
}

/* The agreement alone (one allreduce); the hierarchy waits for the first
 * call that needs it (tb_comm_state_complete), unless some rank asks for
 * TOPOBCAST_STATS or TOPOBCAST_VERBOSE, which report it per communicator. */
static tb_comm_state *state_create(MPI_Comm comm)
{
    const tb_settings *st = tb_settings_get();
    tb_comm_state *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    cs->dup = MPI_COMM_NULL;
    PMPI_Comm_size(comm, &cs->size);
    PMPI_Comm_rank(comm, &cs->rank);
    int why_all = 0, same = 0, want_all = 0;
    tb_quiet_errors q;
    tb_quiet_begin(comm, &q);
    int rc = agree(comm, st->agree_hash, settings_why(st), st->stats || st->verbose >= 1,
                   &why_all, &same, &want_all);
    tb_quiet_end(comm, &q);
    if (rc != MPI_SUCCESS) {
        state_free(cs);
        return NULL;
    }
    cs->usable = same && why_all == WHY_NONE;
    if (!cs->usable)
        warn_fallback(cs, st, why_all, same, "");
    set_default_upto(cs, st);
    set_hier_above(cs, st);
    if (want_all && tb_comm_state_complete(cs, comm) != MPI_SUCCESS) {
        state_free(cs);
        return NULL;
    }
    return cs;
}

/* No private duplicate for cs: full 1, world rank `rank` holds `limit`;
 * 0, MPI could not make one (its error code mpi_rc, MPI_SUCCESS when not
 * known); -1, the ranks could not agree. */
static void warn_capacity(tb_comm_state *cs, int full, int limit, int rank, int mpi_rc)
{
    char text[512];
    cs->why = TB_FALLBACK_CAPACITY;
    if (full == 0) {
        char err[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (mpi_rc != MPI_SUCCESS)
            PMPI_Error_string(mpi_rc, err, &len);
        snprintf(text, sizeof text,
                 "MPI could not duplicate the communicator for the library's messages%s%.200s%s: its context ids "
                 "may be exhausted, or an attribute copy callback of the application refused the duplicate",
                 len ? " (" : "", err, len ? ")" : "");
    }
    else if (full < 0)
        snprintf(text, sizeof text, "the ranks could not agree on a private communicator (MPI_Allreduce failed)");
    else
        snprintf(text, sizeof text,
                 "world rank %d already holds TOPOBCAST_MAX_COMMS=%d private communicators (raise the limit, "
                 "or free communicators) and a new communicator needs one",
                 rank, limit);
    warn_job(cs, TB_FALLBACK_CAPACITY, text);
}

MPI_Comm tb_comm_private(tb_comm_state *cs, MPI_Comm comm)
{
    if (cs->dup != MPI_COMM_NULL || cs->no_dup)
        return cs->dup;
    /* Every rank reaches this in the same call (the choice is collective);
     * whether all ranks are below their limit is agreed first, so all of
     * them duplicate or none does.  The limit may differ by rank: the
     * agreement (a MINLOC) also says whose limit was reached, the smallest
     * such limit and the lowest world rank that has it, so the warning is
     * the same and true on every rank. */
    const tb_settings *st = tb_settings_get();
    int room = __atomic_add_fetch(&live_dups, 1, __ATOMIC_RELAXED) <= st->max_comms;
    struct {
        int limit, rank;
    } mine = {room ? INT_MAX : st->max_comms, tb_world_rank()}, full = {0, 0};
    tb_quiet_errors q;
    tb_quiet_begin(comm, &q);
    int agreed = PMPI_Allreduce(&mine, &full, 1, MPI_2INT, MPI_MINLOC, comm) == MPI_SUCCESS;
    int all = agreed && full.limit == INT_MAX;
    int dup_rc = all ? PMPI_Comm_dup(comm, &cs->dup) : MPI_SUCCESS;
    if (dup_rc != MPI_SUCCESS)
        cs->dup = MPI_COMM_NULL;
    tb_quiet_end(comm, &q);
    if (cs->dup == MPI_COMM_NULL) {
        __atomic_sub_fetch(&live_dups, 1, __ATOMIC_RELAXED);
        cs->no_dup = 1;
        warn_capacity(cs, !agreed ? -1 : all ? 0 : 1, full.limit, full.rank, dup_rc);
    }
    return cs->dup;
}

tb_comm_state *tb_comm_state_find(MPI_Comm comm)
{
    tb_comm_state *hit = tb_comm_state_cached(comm);
    if (hit)
        return hit;
    unsigned long gen = __atomic_load_n(&tb_state_gen, __ATOMIC_ACQUIRE);
    pthread_once(&keyval_once, keyval_create);
    if (keyval == MPI_KEYVAL_INVALID)
        return NULL;
    void *val = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &found) == MPI_SUCCESS && found) {
        tb_state_last.comm = comm;
        tb_state_last.cs = val;
        tb_state_last.gen = gen;
        return val;
    }
    return NULL;
}

tb_comm_state *tb_comm_state_get(MPI_Comm comm)
{
    tb_comm_state *cs = tb_comm_state_find(comm);
    if (cs || keyval == MPI_KEYVAL_INVALID)
        return cs;
    cs = state_create(comm);
    if (cs && PMPI_Comm_set_attr(comm, keyval, cs) != MPI_SUCCESS) {
        state_free(cs);
        return NULL;
    }
    return cs;
}

tb_shm *tb_comm_shm(tb_comm_state *cs, MPI_Comm priv)
{
    if (cs->shm_tried)
        return cs->shm;
    cs->shm_tried = 1;
    char why[160] = "out of memory";
    cs->shm = tb_shm_create(priv, cs->node_of, why, sizeof why);
    if (!cs->shm && cs->rank == 0 && tb_settings_get()->verbose >= 1)
        tb_log("communicator of %d processes: no shared-memory stage (%s); binomial runs in place of shm", cs->size,
               why);
    return cs->shm;
}

/* The plan of (root, spec) and its schedule for this rank; shm becomes
 * binomial where the communicator cannot run it.  Every input is agreed,
 * so every rank takes the same plan. */
static int schedule_build(tb_comm_state *cs, tb_schedule *s, int root, const tb_alg_spec *spec, char *err,
                          size_t errlen)
{
    tb_alg_spec sub;
    const tb_hier *h = cs->hier.size ? &cs->hier : NULL;
    if (tb_alg_spec_uses_shm(spec) && !cs->shm) {
        tb_alg_spec_without_shm(spec, &sub);
        spec = &sub;
    }
    tb_plan p;
    if (tb_plan_build(&p, cs->size, root, spec, h, err, errlen) != 0)
        return -1;
    int outside = tb_plan_has_shm(&p) ? tb_plan_shm_outside(&p, cs->node_of) : -1;
    if (outside >= 0) {
        if (!cs->shm_warned++ && cs->rank == 0 && tb_settings_get()->verbose >= 1) {
            char text[256];
            tb_alg_spec_format(spec, text, sizeof text);
            tb_log("communicator of %d processes: %s joins rank %d to a rank of another node through shared "
                   "memory; binomial runs in place of shm",
                   cs->size, text, outside);
        }
        tb_plan_free(&p);
        tb_alg_spec_without_shm(spec, &sub);
        spec = &sub;
        if (tb_plan_build(&p, cs->size, root, spec, h, err, errlen) != 0)
            return -1;
    }
    int rc = tb_schedule_from_plan(s, &p, cs->rank, spec);
    tb_plan_free(&p);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* spec's plan for root 0 (tb_plan_rotates(spec)), kept in cs->root0. */
static const tb_plan *root0_plan(tb_comm_state *cs, const tb_alg_spec *spec, char *err, size_t errlen)
{
    tb_root0_plan *victim = &cs->root0[0];
    for (int i = 0; i < TB_ROOT0_PLANS; i++) {
        tb_root0_plan *e = &cs->root0[i];
        if (e->valid && tb_alg_spec_equal(&e->spec, spec)) {
            e->stamp = cs->clock;
            return &e->plan;
        }
        if (!e->valid || (victim->valid && e->stamp < victim->stamp))
            victim = e;
    }
    if (victim->valid)
        tb_plan_free(&victim->plan);
    victim->valid = 0;
    if (tb_plan_build(&victim->plan, cs->size, 0, spec, cs->hier.size ? &cs->hier : NULL, err, errlen) != 0)
        return NULL;
    victim->valid = 1;
    victim->spec = *spec;
    victim->stamp = cs->clock;
    return &victim->plan;
}

const tb_schedule *tb_comm_schedule(tb_comm_state *cs, int root, const tb_alg_spec *spec, char *err, size_t errlen)
{
    tb_cached_schedule *victim = &cs->cache[0];
    cs->clock++;
    for (int i = 0; i < TB_SCHEDULE_CACHE; i++) {
        tb_cached_schedule *c = &cs->cache[i];
        if (c->valid && c->root == root && tb_alg_spec_equal(&c->spec, spec)) {
            c->stamp = cs->clock;
            return &c->sched;
        }
        if (!c->valid || (victim->valid && c->stamp < victim->stamp))
            victim = c;
    }
    int full = victim->valid;
    if (full) {
        tb_schedule_free(&victim->sched);
        victim->valid = 0;
    }
    if (full && tb_plan_rotates(spec)) {
        const tb_plan *p0 = root0_plan(cs, spec, err, errlen);
        if (!p0)
            return NULL;
        if (tb_schedule_rotated(&victim->sched, p0, root, cs->rank, spec) != 0) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
    } else if (schedule_build(cs, &victim->sched, root, spec, err, errlen) != 0) {
        return NULL;
    }
    victim->valid = 1;
    victim->root = root;
    victim->spec = *spec;
    victim->stamp = cs->clock;
    return &victim->sched;
}

void tb_comm_state_release_world(void)
{
    if (keyval != MPI_KEYVAL_INVALID) {
        /* only if set: Open MPI reports deleting an absent attribute as an
         * error (fatal under the default handler) */
        if (tb_comm_state_find(MPI_COMM_WORLD))
            PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
        PMPI_Comm_free_keyval(&keyval);
    }
}

/* ---- set-up without waiting (comm_state.h) ------------------------------ */

struct tb_comm_setup {
    int phase;              /* 0: agreement, identities, duplicate; 1: the placement in the topology;
                               2: the name of a host the topology does not have */
    int fresh, gathering, duplicating;
    MPI_Request req[3];
    long long v[5];         /* MAX over ranks: hash/2, -hash/2, config verdict, 0, capacity code */
    long long map;          /* phase 1: MAX of the WHY_ codes of the placement */
    tb_ident_rec mine, *ids;
    tb_identity self;
    MPI_Comm dup;           /* from MPI_Comm_idup */
    int derived, unknown;
    tb_unknown_host host;   /* phase 2: the unknown host's name, from the rank on it */
    char why[512];
};

/* The capacity code a rank contributes: LLONG_MIN with room for one more
 * duplicate; else -(limit * 2^32 + world rank), so that the MAX is the
 * smallest limit reached and the lowest world rank that has it (what
 * tb_comm_private's MINLOC agrees). */
static long long capacity_code(int room)
{
    if (room)
        return LLONG_MIN;
    return -(((long long)tb_settings_get()->max_comms << 32) | (long long)tb_world_rank());
}

MPI_Comm tb_comm_setup_priv(const tb_comm_state *cs)
{
    if (cs->dup != MPI_COMM_NULL || !cs->setup)
        return cs->dup;
    return cs->setup->dup;
}

tb_comm_state *tb_comm_setup_start(MPI_Comm comm, tb_comm_state *cs)
{
#ifdef SMPI_H
    (void)comm, (void)cs, (void)capacity_code;
    return NULL; /* SMPI's MPI_Comm_idup waits for the other ranks */
#else
    const tb_settings *st = tb_settings_get();
    pthread_once(&keyval_once, keyval_create);
    if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL || (cs && cs->setup))
        return NULL; /* MPI_COMM_NULL: a deferred call being resolved, whose set-up is done */
    struct tb_comm_setup *su = calloc(1, sizeof *su);
    tb_comm_state *fresh = NULL;
    if (su && !cs && (fresh = cs = calloc(1, sizeof *cs)) != NULL) {
        cs->dup = MPI_COMM_NULL;
        PMPI_Comm_size(comm, &cs->size);
        PMPI_Comm_rank(comm, &cs->rank);
    }
    if (!su || !cs) {
        free(su);
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        su->req[i] = MPI_REQUEST_NULL;
    su->dup = MPI_COMM_NULL;
    su->fresh = fresh != NULL;
    su->gathering = !cs->complete;
    su->duplicating = cs->dup == MPI_COMM_NULL && !cs->no_dup;
    int room = 1;
    if (su->duplicating)
        room = __atomic_add_fetch(&live_dups, 1, __ATOMIC_RELAXED) <= st->max_comms;
    /* a fresh state agrees on the settings as state_create does; the
     * capacity is agreed whenever a duplicate is made */
    uint64_t hash = su->fresh ? st->agree_hash : 0;
    su->v[0] = (long long)(hash >> 1);
    su->v[1] = -(long long)(hash >> 1);
    su->v[2] = su->fresh ? settings_why(st) : WHY_NONE;
    su->v[3] = 0;
    su->v[4] = capacity_code(room);
    tb_quiet_errors q;
    tb_quiet_begin(comm, &q);
    int rc = PMPI_Iallreduce(MPI_IN_PLACE, su->v, 5, MPI_LONG_LONG, MPI_MAX, comm, &su->req[0]);
    if (rc == MPI_SUCCESS && su->gathering) {
        tb_topo_self(&su->self);
        su->mine = tb_ident_rec_of(&su->self);
        su->ids = calloc((size_t)cs->size, sizeof *su->ids);
        rc = su->ids ? PMPI_Iallgather(&su->mine, (int)sizeof su->mine, MPI_BYTE, su->ids, (int)sizeof su->mine,
                                       MPI_BYTE, comm, &su->req[1])
                     : MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS && su->duplicating)
        rc = PMPI_Comm_idup(comm, &su->dup, &su->req[2]);
    if (rc == MPI_SUCCESS && fresh && PMPI_Comm_set_attr(comm, keyval, cs) != MPI_SUCCESS)
        rc = MPI_ERR_OTHER;
    tb_quiet_end(comm, &q);
    if (rc != MPI_SUCCESS) {
        /* only out of memory or a broken MPI: what was issued cannot be
         * taken back, and the job is unlikely to go on */
        if (su->duplicating)
            __atomic_sub_fetch(&live_dups, 1, __ATOMIC_RELAXED);
        free(fresh);
        return NULL;
    }
    cs->setup = su;
    cs->nb_route = 1;
    set_default_upto(cs, st); /* 0: every call takes the full path while routed */
    return cs;
#endif
}

/* The identities are in: the nodes, then, with a usable topology, this
 * rank's placement, which the ranks agree on (phase 1) before completing. */
static int setup_identities(tb_comm_state *cs, struct tb_comm_setup *su)
{
    const tb_settings *st = tb_settings_get();
    if (tb_topo_nodes_by_host(su->ids, cs->size) != 0)
        for (int r = 0; r < cs->size; r++)
            su->ids[r].node = r; /* out of memory: one node per rank (no shared-memory stage) */
    if (!cs->usable || !st->config.has_topology)
        return 0;
    if (cs->dup == MPI_COMM_NULL) { /* nowhere to agree (MPI made no duplicate), nothing to run either */
        cs->usable = 0;
        return 0;
    }
    su->map = map_ranks(cs, su->ids, su->why, sizeof su->why, &su->derived, &su->unknown);
    return 1;
}

/* Phase 0 ended (failed: an MPI error on this rank). */
static void setup_agreed(tb_comm_state *cs, struct tb_comm_setup *su, int failed)
{
    const tb_settings *st = tb_settings_get();
    if (su->fresh) {
        int same = su->v[0] == -su->v[1], why_all = (int)su->v[2];
        cs->usable = !failed && same && why_all == WHY_NONE;
        if (!cs->usable && !failed)
            warn_fallback(cs, st, why_all, same, "");
        set_hier_above(cs, st);
    }
    if (su->duplicating) {
        if (failed || su->dup == MPI_COMM_NULL) {
            __atomic_sub_fetch(&live_dups, 1, __ATOMIC_RELAXED);
            cs->no_dup = 1;
            warn_capacity(cs, failed ? -1 : 0, 0, 0, MPI_SUCCESS);
        } else {
            cs->dup = su->dup;
            if (su->v[4] != LLONG_MIN) {
                long long code = -su->v[4];
                cs->cap_full = 1;
                warn_capacity(cs, 1, (int)(code >> 32), (int)(code & 0xffffffffLL), MPI_SUCCESS);
            }
        }
    }
    if (failed) {
        cs->usable = 0;
        su->gathering = 0;
    }
}

int tb_comm_setup_test(tb_comm_state *cs)
{
    struct tb_comm_setup *su = cs->setup;
    if (!su)
        return 1;
    if (su->phase == 0) {
        int flag = 1, rc;
        MPI_Status sts[3];
        rc = tb_mpi.Testall(3, su->req, &flag, sts);
        if (rc == MPI_SUCCESS && !flag)
            return 0;
        setup_agreed(cs, su, rc != MPI_SUCCESS);
        if (su->gathering && setup_identities(cs, su)) {
            /* the same MPI_Iallreduce on every rank: usable and the
             * topology are agreed inputs; on the duplicate, where only the
             * library's collectives run, in this same order on every rank */
            su->phase = 1;
            if (PMPI_Iallreduce(MPI_IN_PLACE, &su->map, 1, MPI_LONG_LONG, MPI_MAX, cs->dup, &su->req[0]) != MPI_SUCCESS)
                su->map = WHY_MAPPING;
        }
    }
    if (su->phase == 1) {
        int flag = 1;
        if (su->req[0] != MPI_REQUEST_NULL) {
            int rc = tb_mpi.Test(&su->req[0], &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                su->map = WHY_MAPPING;
        }
        if (!flag)
            return 0;
        if (su->map == WHY_MAPPING && su->unknown >= 0) {
            /* as the blocking set-up does, on the duplicate */
            unknown_host_of(&su->self, su->ids, su->unknown, &su->host);
            su->phase = 2;
            if (tb_mpi.Ibcast(&su->host, (int)sizeof su->host, MPI_BYTE, su->unknown, cs->dup, &su->req[0]) !=
                MPI_SUCCESS)
                su->unknown = -1;
        } else if (su->map != WHY_NONE) {
            unplaced(cs, (int)su->map, NULL, su->why);
        }
    }
    if (su->phase == 2) {
        int flag = 1;
        if (su->unknown >= 0 && su->req[0] != MPI_REQUEST_NULL &&
            tb_mpi.Test(&su->req[0], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            su->unknown = -1;
        if (!flag)
            return 0;
        unplaced(cs, WHY_MAPPING, su->unknown >= 0 ? &su->host : NULL, su->why);
    }
    if (su->gathering)
        complete_from(cs, su->ids, &su->self, su->derived, su->why, sizeof su->why);
    free(su->ids);
    free(su);
    cs->setup = NULL;
    return 1;
}

/* tb_comm_setup_wait's step, under nbc.c's lock: the set-up moves on in
 * the progress pass while a deferred call waits for it, else here. */
static void setup_step(void *arg)
{
    tb_comm_state *cs = arg;
    if (cs->setup && !cs->deferred)
        tb_comm_setup_test(cs);
}

void tb_comm_setup_wait(tb_comm_state *cs)
{
    while (cs->setup || cs->deferred)
        tb_nbc_progress_then(setup_step, cs);
}

void tb_comm_setup_sync(tb_comm_state *cs)
{
    if (!cs->setup && !cs->deferred && !cs->nb_route)
        return;
    tb_comm_setup_wait(cs);
    cs->nb_route = 0;
    if (cs->cap_full) {
        /* one duplicate too many: MPI's own broadcasts on it end, then it goes */
        dup_release(cs);
        cs->no_dup = 1;
        cs->cap_full = 0;
    }
    set_default_upto(cs, tb_settings_get());
}
