#include "comm_state.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"
#include "topo_map.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* Why a communicator falls back to PMPI_Bcast; the allreduce takes the max. */
enum { WHY_NONE = 0, WHY_MAPPING = 1, WHY_CONFIG = 2 };

static void state_free(tb_comm_state *cs)
{
    for (int i = 0; i < TB_SCHEDULE_CACHE; i++)
        if (cs->cache[i].valid)
            tb_schedule_free(&cs->cache[i].sched);
    tb_hier_free(&cs->hier);
    if (cs->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&cs->dup);
    free(cs);
}

/* Bumped whenever a state is freed, so that a freed communicator's handle,
 * reused by MPI for a new one, never hits a thread's lookup cache. */
static unsigned long state_gen;

/* Each thread's last lookup: a broadcast on the communicator of the
 * previous one (the common case) skips MPI's attribute search. */
static __thread struct {
    MPI_Comm comm;
    tb_comm_state *cs;
    unsigned long gen;
} last = {MPI_COMM_NULL, NULL, 0};

static int state_delete(MPI_Comm comm, int kv, void *value, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    __atomic_add_fetch(&state_gen, 1, __ATOMIC_RELEASE);
    state_free(value);
    return MPI_SUCCESS;
}

static void keyval_create(void)
{
    /* not copied on MPI_Comm_dup: a duplicate gets its own private comm */
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete, &keyval, NULL);
}

/* One allreduce settles whether every rank may use the library's
 * configuration on this communicator: same settings hash, config loaded,
 * mapping succeeded everywhere. */
static int agree(tb_comm_state *cs, uint64_t hash, int why_local, int *why_all, int *same)
{
    long long v[3] = {(long long)(hash >> 1), -(long long)(hash >> 1), why_local};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_LONG_LONG, MPI_MAX, cs->dup);
    if (rc != MPI_SUCCESS)
        return rc;
    *same = v[0] == -v[1];
    *why_all = (int)v[2];
    return MPI_SUCCESS;
}

static void warn_fallback(const tb_comm_state *cs, const tb_settings *st, int why_all, int same,
                          const char *local_why)
{
    static int warned_config, warned_differ, warned_mapping;
    if (cs->rank != 0)
        return;
    if (why_all == WHY_CONFIG) {
        if (!st->config_ok)
            tb_log_once(&warned_config, "%s; using MPI_Bcast", st->config_error);
        else
            tb_log_once(&warned_config,
                        "TOPOBCAST_CONFIG could not be loaded on some ranks of a communicator of %d processes; "
                        "using MPI_Bcast on it",
                        cs->size);
    } else if (!same) {
        tb_log_once(&warned_differ,
                    "ranks of a communicator of %d processes have different settings (TOPOBCAST_CONFIG file "
                    "contents or TOPOBCAST_ALGORITHM differ); using MPI_Bcast on it",
                    cs->size);
    } else if (why_all == WHY_MAPPING) {
        if (local_why[0])
            tb_log_once(&warned_mapping, "%s; using MPI_Bcast", local_why);
        else
            tb_log_once(&warned_mapping,
                        "some ranks of a communicator of %d processes could not be placed in the topology of %s; "
                        "using MPI_Bcast on it",
                        cs->size, st->config.source);
    }
}

static tb_comm_state *state_create(MPI_Comm comm)
{
    const tb_settings *st = tb_settings_get();
    tb_comm_state *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    cs->dup = MPI_COMM_NULL;
    if (PMPI_Comm_dup(comm, &cs->dup) != MPI_SUCCESS) {
        free(cs);
        return NULL;
    }
    PMPI_Comm_size(cs->dup, &cs->size);
    PMPI_Comm_rank(cs->dup, &cs->rank);
    int world_size;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);

    tb_identity *ids = NULL;
    if (tb_topo_exchange(cs->dup, &ids) != MPI_SUCCESS) {
        state_free(cs);
        return NULL;
    }
    char why[512] = "";
    int why_local = WHY_NONE, derived = 0;
    if (!st->config_ok) {
        why_local = WHY_CONFIG;
    } else if (st->config.has_topology) {
        if (tb_topo_derive(ids, cs->size, world_size, &st->config, &cs->hier, why, sizeof why) == 0)
            derived = 1;
        else
            why_local = WHY_MAPPING;
    }
    int why_all = 0, same = 0;
    if (agree(cs, st->agree_hash, why_local, &why_all, &same) != MPI_SUCCESS) {
        free(ids);
        if (derived)
            tb_hier_free(&cs->hier);
        state_free(cs);
        return NULL;
    }
    cs->usable = same && why_all == WHY_NONE;
    if (!cs->usable)
        warn_fallback(cs, st, why_all, same, why);
    if (!cs->usable || !derived) {
        if (derived)
            tb_hier_free(&cs->hier);
        /* measured topology unusable or absent: what MPI and hwloc say */
        why[0] = '\0';
        if (tb_topo_derive(ids, cs->size, world_size, NULL, &cs->hier, why, sizeof why) != 0)
            memset(&cs->hier, 0, sizeof cs->hier);
    }
    if (st->verbose >= 1 && cs->rank == 0) {
        tb_log("communicator of %d processes: %s; hierarchy from %s:", cs->size,
               cs->usable ? "topobcast active" : "falling back to MPI_Bcast",
               derived && cs->usable ? st->config.source : "MPI_COMM_TYPE_SHARED + hwloc");
        if (why[0] && cs->usable)
            tb_log("%s", why);
        tb_hier_print(&cs->hier, ids, stderr);
    }
    free(ids);
    return cs;
}

tb_comm_state *tb_comm_state_find(MPI_Comm comm)
{
    unsigned long gen = __atomic_load_n(&state_gen, __ATOMIC_ACQUIRE);
    if (last.cs && last.comm == comm && last.gen == gen)
        return last.cs;
    pthread_once(&keyval_once, keyval_create);
    if (keyval == MPI_KEYVAL_INVALID)
        return NULL;
    void *val = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &found) == MPI_SUCCESS && found) {
        last.comm = comm;
        last.cs = val;
        last.gen = gen;
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
    if (victim->valid) {
        tb_schedule_free(&victim->sched);
        victim->valid = 0;
    }
    if (tb_schedule_build(&victim->sched, cs->size, root, cs->rank, spec, cs->hier.size ? &cs->hier : NULL, err,
                          errlen) != 0)
        return NULL;
    victim->valid = 1;
    victim->root = root;
    victim->spec = *spec;
    victim->stamp = cs->clock;
    return &victim->sched;
}

void tb_comm_state_release_world(void)
{
    if (keyval != MPI_KEYVAL_INVALID) {
        PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
        PMPI_Comm_free_keyval(&keyval);
    }
}
