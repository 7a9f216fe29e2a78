/* The tool-facing calls of private/tools.h, over the library's internals. */
#include "tools.h"

#include "dispatch/comm_state.h"
#include "dispatch/dispatch.h"
#include "dispatch/finalize.h"
#include "config/settings.h"
#include "topobcast.h"

int tb_tool_bcast(void *buf, size_t bytes, int root, MPI_Comm comm, const tb_alg_spec *spec)
{
    return tb_bcast_or_mpi(buf, (MPI_Count)bytes, MPI_BYTE, root, comm, spec);
}

int tb_tool_disabled(void)
{
    return tb_settings_world0_disabled();
}

const tb_tool_setup *tb_tool_setup_get(void)
{
    static tb_tool_setup v;
    static int done;
    const tb_settings *st = tb_settings_get();
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        /* every field is a copy of the settings, which never change once
         * read: threads racing here write the same values */
        v.disabled = st->disabled;
        v.forced = st->forced;
        v.config_ok = st->config_ok;
        v.config_error = st->config_error;
        v.config = &st->config;
        __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    }
    return &v;
}

/* comm's state, set up now if it has none (NULL where the library keeps
 * none: size 1, intercommunicators, failed set-up). */
static tb_comm_state *tool_state(MPI_Comm comm)
{
    int inter = 0, size = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 2)
        return NULL;
    tb_finalize_arm(); /* as the dispatch does before setting comm up */
    tb_comm_state *cs = tb_comm_state_get(comm);
    return cs && tb_comm_state_complete(cs, comm) == MPI_SUCCESS ? cs : NULL;
}

const tb_hier *tb_tool_comm_hier(MPI_Comm comm, int *usable)
{
    tb_comm_state *cs = tool_state(comm);
    if (usable)
        *usable = cs ? cs->usable : 0;
    return cs ? &cs->hier : NULL;
}

const tb_shape *tb_tool_comm_shape(MPI_Comm comm)
{
    tb_comm_state *cs = tool_state(comm);
    return cs ? &cs->shape : NULL;
}

void tb_tool_version(FILE *out, const char *prog)
{
#if defined(SMPI_H)
    const char *mpi = "SimGrid SMPI";
#elif defined(OPEN_MPI)
    const char *mpi = "Open MPI";
#elif defined(MPICH_VERSION)
    const char *mpi = "MPICH";
#else
    const char *mpi = "an MPI";
#endif
    fprintf(out, "%s %s (built for %s, MPI %d.%d)\n", prog, topobcast_version(), mpi, MPI_VERSION, MPI_SUBVERSION);
}
