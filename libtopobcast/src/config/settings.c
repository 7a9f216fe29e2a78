#include "config/settings.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/compat.h"
#include "config/share.h"
#include "config/site_path.h"
#include "hash.h"
#include "base/log.h"
#include "run/stats.h"
#include "base/pmpi.h"

static tb_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;
static int settings_loaded;
/* World rank 0's TOPOBCAST_DISABLE and TOPOBCAST_STATS, broadcast at
 * MPI_Init (tb_settings_at_init): every process follows them, so that all
 * of them make the same collective calls (the setup's agreement, the
 * statistics' sums at MPI_Finalize) whatever their own environment. */
enum { WORLD0_DISABLE = 1, WORLD0_STATS = 2, WORLD0_KNOWN = 4 };
static int world0_flags;

/* 1 or 0 for the usual spellings of a 0/1 knob, -1 otherwise. */
static int flag_value(const char *v)
{
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off"))
        return 0;
    return -1;
}

/* 0/1 knobs accept the usual spellings; anything else is reported and the
 * default kept, never fatal. */
static int env_flag(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    int f = flag_value(v);
    if (f >= 0)
        return f;
    tb_log_world0("%s='%s' is not a boolean (expected 1/0, yes/no, true/false, on/off); using %d", name, v, dflt);
    return dflt;
}

/* Whether a 0/1 knob is set on, quietly (world rank 0's values are read
 * at MPI_Init, before settings_load reports a bad one). */
static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && flag_value(v) == 1;
}

/* v as a level from 0 to 9 (unset or empty: 0), or -1 if it is none. */
static int level_value(const char *v)
{
    if (!v || !*v)
        return 0;
    char *end;
    long x = strtol(v, &end, 10);
    return *end || x < 0 || x > 9 ? -1 : (int)x;
}

static int env_level(const char *name)
{
    int x = level_value(getenv(name));
    if (x < 0) {
        tb_log_world0("%s='%s' is not a level from 0 to 9; using 0", name, getenv(name));
        return 0;
    }
    return x;
}

static int env_count(const char *name, int dflt, int max)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > max) {
        tb_log_world0("%s='%s' is not a number from 0 to %d; using %d", name, v, max, dflt);
        return dflt;
    }
    return (int)x;
}

/* The configuration at path: the bytes world rank 0 broadcast at MPI_Init
 * when it read this very path (checked against this process's own size
 * limit), else read by this process (no init hook ran, or its path is not
 * rank 0's: it then reads its own file, and the agreement on each
 * communicator compares what each loaded, as before). */
static int config_load(const char *path, tb_config *cfg, char *err, size_t errlen)
{
    tb_config_shared sh;
    if (!tb_config_share_take(path, &sh))
        return tb_config_load(path, cfg, err, errlen);
    int rc = -1;
    memset(cfg, 0, sizeof *cfg);
    if (sh.is_error)
        snprintf(err, errlen, "%s", sh.data); /* rank 0's message, the same on every process */
    else if (tb_config_check_size(path, sh.len, tb_config_max_bytes(NULL), err, errlen) == 0)
        rc = tb_config_load_buffer(sh.data, sh.len, path, cfg, err, errlen);
    tb_config_shared_free(&sh);
    return rc;
}

static void settings_load(void)
{
    __atomic_store_n(&settings_loaded, 1, __ATOMIC_RELEASE);
    tb_settings *s = &settings;
    memset(s, 0, sizeof *s);
    int own_disabled = env_flag("TOPOBCAST_DISABLE", 0);
    s->disabled = own_disabled;
    s->verbose = env_level("TOPOBCAST_VERBOSE");
    s->stats = env_flag("TOPOBCAST_STATS", 0);
    int max_bytes_bad;
    tb_config_max_bytes(&max_bytes_bad);
    if (max_bytes_bad)
        tb_log_world0("TOPOBCAST_CONFIG_MAX_BYTES='%s' is not a size (expected e.g. 64M, 1G); using 64M",
                      getenv("TOPOBCAST_CONFIG_MAX_BYTES"));
    int w0 = __atomic_load_n(&world0_flags, __ATOMIC_ACQUIRE);
    if (w0 & WORLD0_KNOWN) {
        s->disabled = (w0 & WORLD0_DISABLE) != 0;
        s->stats = (w0 & WORLD0_STATS) != 0;
    } else if (tb_world_ready()) {
        /* MPI is up, but the library's MPI_Init did not run: PMPI_Init
         * was called past it (the static library defines no PMPI_Init; the
         * shared one runs its part there too).  Nothing was shared, so a process disabled on its own
         * must still make the collectives its communicators' other
         * processes make: it takes part and they fall back, agreed. */
        s->per_process = 1;
        s->disabled_here = own_disabled;
        s->disabled = 0;
        if (s->verbose >= 1)
            tb_log_world0("the library's MPI_Init did not run (PMPI_Init was called past the static library, "
                          "which defines no PMPI_Init): each process follows its own TOPOBCAST_* settings "
                          "and reads TOPOBCAST_CONFIG itself; TOPOBCAST_STATS gives world rank 0's counts only");
    }
    s->max_comms = env_count("TOPOBCAST_MAX_COMMS", TB_MAX_COMMS_DEFAULT, 1 << 20);
    if (s->disabled || s->disabled_here)
        return;

    int site = 0;
    const char *path = tb_config_path(&site);
    if (path) {
        char err[sizeof s->config_error - 64];
        if (config_load(path, &s->config, err, sizeof err) == 0) {
            s->config_ok = 1;
            if (s->verbose >= 1)
                tb_log_world0("configuration: %s%s", path, site ? " (the site's: TOPOBCAST_CONFIG is unset)" : "");
        } else {
            /* the same on every rank that reads the same path: one line per
             * job, from world rank 0; the calls fall back on every
             * communicator (agreed in comm_state.c) */
            snprintf(s->config_error, sizeof s->config_error, "%s: %s",
                     site ? "the site configuration (TOPOBCAST_CONFIG unset)" : "TOPOBCAST_CONFIG", err);
            tb_stats_fallback_text(TB_FALLBACK_CONFIG, s->config_error);
            tb_log_world0("%s; using MPI_Bcast", s->config_error);
        }
    } else {
        tb_config_builtin(&s->config);
        s->config_ok = 1;
    }

    /* after the configuration: its topology names the levels= it may use */
    const char *alg = getenv("TOPOBCAST_ALGORITHM");
    if (alg && *alg) {
        char err[512];
        s->forced = 1;
        if (tb_config_parse_spec(s->config_ok ? &s->config : NULL, alg, &s->forced_spec, err, sizeof err) != 0) {
            char text[sizeof err + 256];
            snprintf(text, sizeof text, "TOPOBCAST_ALGORITHM='%.200s': %s", alg, err);
            tb_log_world0("%s; using default (the MPI library's MPI_Bcast)", text);
            tb_stats_fallback_text(TB_FALLBACK_ALGORITHM, text);
            tb_alg_spec_default(&s->forced_spec, TB_ALG_DEFAULT);
            s->forced_bad = 1;
        }
    }

    uint64_t h = TB_FNV_BASIS;
    h = tb_hash_u64(h, (uint64_t)s->forced);
    h = tb_hash_u64(h, s->forced ? tb_alg_spec_hash(&s->forced_spec) : 0);
    h = tb_hash_u64(h, (uint64_t)s->config_ok);
    h = tb_hash_u64(h, s->config_ok ? s->config.hash : 0);
    /* a process disabled on its own while world rank 0 is not: every
     * communicator it is in falls back (agreed, one warning) */
    h = tb_hash_u64(h, (uint64_t)own_disabled);
    s->agree_hash = h;
}

const tb_settings *tb_settings_get(void)
{
    pthread_once(&settings_once, settings_load);
    return &settings;
}

void tb_settings_at_init(void)
{
    /* only world rank 0's knobs decide what is read and whether the library
     * and its statistics are on (a bad value is reported later, by
     * settings_load); settings already loaded (a call before MPI_Init)
     * keep what they have */
    int flags = (env_on("TOPOBCAST_DISABLE") ? WORLD0_DISABLE : 0) | (env_on("TOPOBCAST_STATS") ? WORLD0_STATS : 0);
    tb_quiet_errors q;
    tb_quiet_begin(MPI_COMM_WORLD, &q);
    int rc = tb_mpi.Bcast(&flags, 1, MPI_INT, 0, MPI_COMM_WORLD);
    tb_quiet_end(MPI_COMM_WORLD, &q);
    if (rc == MPI_SUCCESS)
        __atomic_store_n(&world0_flags, flags | WORLD0_KNOWN, __ATOMIC_RELEASE);
    /* TOPOBCAST_VERBOSE says why nothing follows (its value read quietly:
     * settings_load reports a bad one) */
    if ((flags & WORLD0_DISABLE) && level_value(getenv("TOPOBCAST_VERBOSE")) >= 1)
        tb_log_world0("TOPOBCAST_DISABLE is set on world rank 0: every broadcast of the job goes to MPI's own");
    int site;
    tb_config_share_at_init(flags & WORLD0_DISABLE ? NULL : tb_config_path(&site),
                            !__atomic_load_n(&settings_loaded, __ATOMIC_ACQUIRE));
}

void tb_settings_init_hook(void)
{
    static int ran;
    if (__atomic_exchange_n(&ran, 1, __ATOMIC_ACQ_REL))
        return;
    tb_check_mpi_library();
    tb_settings_at_init();
}

int tb_settings_world0_disabled(void)
{
    int w0 = __atomic_load_n(&world0_flags, __ATOMIC_ACQUIRE);
    return (w0 & WORLD0_KNOWN) && (w0 & WORLD0_DISABLE);
}

void tb_settings_release(void)
{
    if (settings.config_ok)
        tb_config_free(&settings.config);
    settings.config_ok = 0;
}
