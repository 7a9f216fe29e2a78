/* The exported MPI entry points of the broadcast and of MPI's start and
 * end, at both layers (layer.h), and the topobcast_* of the public header.
 * Everything else in the library is hidden. */
#include <string.h>

#include "dispatch/comm_state.h"
#include "dispatch/dispatch.h"
#include "dispatch/finalize.h"
#include "config/settings.h"
#include "intercept/layer.h"
#include "run/stats.h"
#include "topobcast.h"

/* MPI_Bcast and MPI_Bcast_c (CT the count's type; FAST the inlined check
 * of a small call the table leaves to MPI): the library's algorithm, or
 * the call passed on. */
#define TB_BCAST(F, CT, FAST)                                                                                 \
    TB_ENTRY(F, (void *buffer, CT count, MPI_Datatype datatype, int root, MPI_Comm comm),                     \
             (buffer, count, datatype, root, comm), FAST)                                                     \
    {                                                                                                         \
        int rc = tb_bcast(buffer, count, datatype, root, comm, NULL);                                         \
        return rc != TB_PASS ? rc : TB_DOWN(F, buffer, count, datatype, root, comm);                          \
    }

TB_BCAST(Bcast, int, tb_bcast_fast_default(count, datatype, comm))
#if MPI_VERSION >= 4
TB_BCAST(Bcast_c, MPI_Count, 0)
#endif

/* The configuration file is read once per job, by world rank 0, inside
 * MPI_Init (settings.h): the library's part runs once, as soon as MPI's
 * own MPI_Init has returned to it -- inside a tool's MPI_Init when the tool
 * comes first (its PMPI_Init is the library's), after a tool's when the
 * library comes first.  A Fortran MPI_INIT that reaches neither layer (the
 * static library: Open MPI's, MPICH's mpi_f08) gets it too (fortran.c).
 * Where none runs (a program that calls PMPI_Init itself, linked with the
 * static library), each process follows its own settings (settings.h,
 * per_process). */
TB_ENTRY(Init, (int *argc, char ***argv), (argc, argv), 0)
{
    int rc = TB_DOWN(Init, argc, argv);
    if (rc == MPI_SUCCESS)
        tb_settings_init_hook();
    return rc;
}

TB_ENTRY(Init_thread, (int *argc, char ***argv, int required, int *provided), (argc, argv, required, provided), 0)
{
    int rc = TB_DOWN(Init_thread, argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        tb_settings_init_hook();
    return rc;
}

/* The library ends first (its broadcasts in progress, statistics), then
 * the layer below: a tool there still writes its report.  By hand, as
 * TB_ENTRY would write it: the only served function without arguments. */
static inline __attribute__((always_inline)) int finalize_at(tb_layer layer)
{
    tb_finalize_run(1);
    return TB_DOWN(Finalize);
}

TB_EXPORT int MPI_Finalize(void)
{
    return tb_passed_down ? tb_mpi.Finalize() : finalize_at(TB_ABOVE);
}

#if TB_PMPI_LAYER
TB_EXPORT int PMPI_Finalize(void)
{
    return tb_passed_down ? tb_mpi.Finalize() : finalize_at(TB_BELOW);
}
#endif

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
    return tb_bcast_or_mpi(buf, count, datatype, root, comm, &s);
}

TB_EXPORT int topobcast_ibcast_algorithm(void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                                        MPI_Comm comm, const char *spec, MPI_Request *request)
{
    tb_alg_spec s;
    char err[512];
    if (spec_parse_checked(spec, &s, err, sizeof err) != 0)
        return MPI_ERR_ARG;
    int rc = tb_ibcast(buf, count, datatype, root, comm, &s, request);
    return rc == TB_PASS ? tb_pmpi_ibcast(buf, count, datatype, root, comm, request) : rc;
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
