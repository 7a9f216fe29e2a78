/* The exported MPI entry points.  Everything else in the library is hidden. */
#include <string.h>

#include "dispatch/comm_state.h"
#include "dispatch/dispatch.h"
#include "dispatch/finalize.h"
#include "config/settings.h"
#include "run/stats.h"
#include "topobcast.h"

#define TB_EXPORT __attribute__((visibility("default")))

TB_EXPORT int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (tb_bcast_fast_default(count, datatype, comm))
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    return tb_bcast(buffer, count, datatype, root, comm, NULL);
}

#if MPI_VERSION >= 4
TB_EXPORT int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return tb_bcast(buffer, count, datatype, root, comm, NULL);
}
#endif

/* The configuration file is read once per job, by world rank 0, inside
 * MPI_Init (settings.h); a Fortran MPI_INIT that calls PMPI_Init directly
 * (Open MPI's, MPICH's mpi_f08) gets the same hook (fortran.c).
 * Where none runs (another tool's MPI_Init first in LD_PRELOAD), each
 * process follows its own settings (settings.h, per_process). */
TB_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        tb_settings_init_hook();
    return rc;
}

TB_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        tb_settings_init_hook();
    return rc;
}

TB_EXPORT int MPI_Finalize(void)
{
    tb_finalize_run(1);
    return PMPI_Finalize();
}

/* Tools call topobcast_bcast_algorithm inside timing loops, one spec at a
 * time: each thread keeps the last spec that passed, so a repetition does
 * not time the parse and the level check too.  (What specs are checked
 * against, the configuration, does not change once loaded.) */
static __thread struct {
    char text[512];
    tb_alg_spec spec;
} last_ok;

/* Level names are checked against the loaded configuration: a typo there
 * would otherwise quietly build a flatter tree. */
static int spec_parse_checked(const char *text, tb_alg_spec *s, char *err, size_t errlen)
{
    if (text && last_ok.text[0] && strcmp(text, last_ok.text) == 0) {
        *s = last_ok.spec;
        return 0;
    }
    const tb_settings *st = tb_settings_get();
    if (tb_config_parse_spec(st->config_ok ? &st->config : NULL, text, s, err, errlen) != 0)
        return -1;
    if (strlen(text) < sizeof last_ok.text) {
        strcpy(last_ok.text, text);
        last_ok.spec = *s;
    }
    return 0;
}

TB_EXPORT int topobcast_bcast_algorithm(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                        const char *spec)
{
    tb_alg_spec s;
    char err[512];
    if (spec_parse_checked(spec, &s, err, sizeof err) != 0)
        return MPI_ERR_ARG;
    return tb_bcast(buf, count, datatype, root, comm, &s);
}

TB_EXPORT int topobcast_ibcast_algorithm(void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                                        MPI_Comm comm, const char *spec, MPI_Request *request)
{
    tb_alg_spec s;
    char err[512];
    if (spec_parse_checked(spec, &s, err, sizeof err) != 0)
        return MPI_ERR_ARG;
    return tb_ibcast(buf, count, datatype, root, comm, &s, request);
}

TB_EXPORT int topobcast_spec_check(const char *spec, char *err, int errlen)
{
    tb_alg_spec s;
    char buf[512];
    int rc = spec_parse_checked(spec, &s, buf, sizeof buf);
    if (rc != 0 && err && errlen > 0) {
        strncpy(err, buf, (size_t)errlen - 1);
        err[errlen - 1] = '\0';
    }
    return rc;
}

TB_EXPORT int topobcast_selected_algorithm(MPI_Comm comm, MPI_Count count, MPI_Datatype datatype, char *buf, int len)
{
    tb_alg_spec s;
    int rc = tb_bcast_choice(comm, count, datatype, &s);
    if (len > 0)
        tb_alg_spec_format(&s, buf, (size_t)len);
    return rc;
}

TB_EXPORT const char *topobcast_version(void)
{
    return TOPOBCAST_VERSION;
}
