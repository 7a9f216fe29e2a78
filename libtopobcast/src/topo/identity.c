/* Where this process runs: host name and the hwloc place it is bound to.
 * The probe records the same identity for each leaf of a topology, so a
 * later job can be matched onto it by (host, PU) whatever its rank order. */
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"

/* Under SimGrid SMPI the simulated ranks share one real machine: its binding
 * means nothing there, and loading hwloc once per simulated rank cost 13% of
 * the CPU of a trivial P=1024 job.  smpicc pre-includes smpi_helpers.h in
 * every file (SMPI_H comes only with <mpi.h>, not included here). */
#if defined(SMPI_H) || defined(SMPI_HELPERS_H)
#define TB_IDENTITY_HWLOC 0
#else
#define TB_IDENTITY_HWLOC 1
#endif

#if TB_IDENTITY_HWLOC

/* Loading an hwloc topology costs milliseconds; one per process is enough
 * (the machine does not change, only the binding is asked each time).  It
 * is kept until exit on purpose. */
static hwloc_topology_t machine;
static int machine_ok;
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static void machine_load(void)
{
    if (hwloc_topology_init(&machine) != 0)
        return;
    if (hwloc_topology_load(machine) != 0) {
        hwloc_topology_destroy(machine);
        return;
    }
    machine_ok = 1;
}

static int numa_containing(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
    hwloc_obj_t n = NULL;
    while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) != NULL)
        if (n->cpuset && !hwloc_bitmap_iszero(n->cpuset) && hwloc_bitmap_isincluded(set, n->cpuset))
            return (int)n->logical_index;
    return -1;
}

/* A single PU, or a core with its hardware threads, is one place (pu = its
 * first PU): launchers bind "to core" as often as "to hwthread".  A set
 * inside one package still tells the package and NUMA node.  Anything
 * wider, up to the whole machine, counts as unbound. */
static void describe_binding(hwloc_topology_t topo, hwloc_cpuset_t set, tb_identity *id)
{
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    hwloc_bitmap_and(set, set, allowed);
    int weight = hwloc_bitmap_weight(set);
    if (weight < 1)
        return;
    if (weight > 1 && hwloc_bitmap_isincluded(allowed, set))
        return;
    hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, 0);
    if (!pu)
        return;
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    if (weight == 1 || (core && hwloc_bitmap_isincluded(set, core->cpuset))) {
        id->pu = (int)pu->logical_index;
        id->core = core ? (int)core->logical_index : -1;
    } else if (!pkg || !hwloc_bitmap_isincluded(set, pkg->cpuset)) {
        return;
    }
    id->bound = 1;
    id->package = pkg ? (int)pkg->logical_index : -1;
    id->numa = numa_containing(topo, set);
}

#endif /* TB_IDENTITY_HWLOC */

int tb_identity_self(tb_identity *id)
{
    memset(id, 0, sizeof *id);
    id->pu = id->core = id->package = id->numa = -1;
    id->node = -1;
    id->world_rank = -1;
    if (gethostname(id->host, sizeof id->host - 1) != 0 || !id->host[0])
        strcpy(id->host, "unknown");
    id->host[sizeof id->host - 1] = 0;

#if TB_IDENTITY_HWLOC
    pthread_once(&machine_once, machine_load);
    if (!machine_ok)
        return 0; /* no hwloc: unbound, node level only */
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return 0;
    if (hwloc_get_cpubind(machine, set, 0) == 0 || hwloc_get_cpubind(machine, set, HWLOC_CPUBIND_THREAD) == 0)
        describe_binding(machine, set, id);
    hwloc_bitmap_free(set);
#endif
    return 0;
}

int tb_hwloc_summary(char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
#if TB_IDENTITY_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    int rc = -1;
    if (hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) == 0 && hwloc_topology_load(topo) == 0) {
        int pk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        int nu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        int co = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int pu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        if (pk >= 0 && nu >= 0 && co >= 0 && pu > 0) {
            snprintf(buf, len, "%d package%s, %d NUMA node%s, %d core%s, %d PU%s", pk, pk == 1 ? "" : "s", nu,
                     nu == 1 ? "" : "s", co, co == 1 ? "" : "s", pu, pu == 1 ? "" : "s");
            rc = 0;
        }
    }
    hwloc_topology_destroy(topo);
    return rc;
#else
    return -1;
#endif
}
