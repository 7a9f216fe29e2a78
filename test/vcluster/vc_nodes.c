/* Checks that the emulated cluster really is one: every rank reports its
 * processor name and network namespace, MPI must see one node per namespace
 * (MPI_Comm_split_type SHARED), and a 1 MiB broadcast over the inter-node
 * transport must arrive byte-exact from every root.
 *
 *   vc_nodes EXPECTED_NODES
 *
 * Rank 0 prints "ok ..." / "not ok ..." lines; exit status 1 if any failed. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BCAST_BYTES (1 << 20)

typedef struct rank_info {
    char name[MPI_MAX_PROCESSOR_NAME];
    unsigned long long netns; /* inode of /proc/self/ns/net */
} rank_info;

static int rank, size;
static int failures;

static void report(int ok, const char *fmt, const char *detail)
{
    if (rank != 0)
        return;
    printf("%s %s%s%s\n", ok ? "ok" : "not ok", fmt, detail[0] ? " " : "", detail);
    if (!ok)
        failures++;
}

/* Depends on root and position so a block delivered from the wrong root or
 * at the wrong offset is detected. */
static unsigned char pattern(int root, size_t i)
{
    return (unsigned char)((i * 131u + (size_t)root * 17u + (i >> 12)) & 0xff);
}

static void check_identity(int expected_nodes)
{
    rank_info me, *all = NULL;
    int len = 0;
    struct stat st;
    char detail[256] = "";

    memset(&me, 0, sizeof me);
    MPI_Get_processor_name(me.name, &len);
    me.netns = stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;
    if (rank == 0)
        all = calloc((size_t)size, sizeof *all);
    MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        int dup_name = 0, dup_ns = 0, zero_ns = 0;
        for (int i = 0; i < size; i++) {
            printf("# rank %d name %s netns %llu\n", i, all[i].name, all[i].netns);
            zero_ns += all[i].netns == 0;
            for (int j = 0; j < i; j++) {
                dup_name += strcmp(all[i].name, all[j].name) == 0;
                dup_ns += all[i].netns == all[j].netns;
            }
        }
        /* One rank per node is how the cluster is driven: names and
         * namespaces must then all differ. */
        snprintf(detail, sizeof detail, "(%d ranks, %d repeated names)", size, dup_name);
        report(dup_name == 0 && size == expected_nodes, "distinct processor names", detail);
        snprintf(detail, sizeof detail, "(%d repeated, %d unreadable)", dup_ns, zero_ns);
        report(dup_ns == 0 && zero_ns == 0, "distinct network namespaces", detail);
        free(all);
    }
}

static void check_shared_split(int expected_nodes)
{
    MPI_Comm node;
    int node_rank, node_size, leaders = 0, max_node_size = 0;
    char detail[128];

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    int leader = node_rank == 0;
    MPI_Reduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&node_size, &max_node_size, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    snprintf(detail, sizeof detail, "(%d nodes, largest has %d ranks, expected %d nodes)",
             leaders, max_node_size, expected_nodes);
    report(leaders == expected_nodes, "MPI_Comm_split_type SHARED sees one node per namespace", detail);
}

static void check_bcast(void)
{
    unsigned char *buf = malloc(BCAST_BYTES);
    char detail[128];

    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int root = 0; root < size; root++) {
        for (size_t i = 0; i < BCAST_BYTES; i++)
            buf[i] = rank == root ? pattern(root, i) : (unsigned char)~pattern(root, i);
        MPI_Bcast(buf, BCAST_BYTES, MPI_BYTE, root, MPI_COMM_WORLD);
        long bad = 0, first_bad = -1;
        for (size_t i = 0; i < BCAST_BYTES; i++)
            if (buf[i] != pattern(root, i)) {
                if (first_bad < 0)
                    first_bad = (long)i;
                bad++;
            }
        /* Worst rank's count of wrong bytes, and which rank that was. */
        struct { long bad; int rank; } mine = {bad, rank}, worst;
        MPI_Reduce(&mine, &worst, 1, MPI_LONG_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
        snprintf(detail, sizeof detail, "(root %d: %ld wrong bytes on rank %d)", root, worst.bad,
                 worst.rank);
        report(worst.bad == 0, "MPI_Bcast 1 MiB byte-exact", detail);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expected = argc > 1 ? atoi(argv[1]) : size;

    check_identity(expected);
    check_shared_split(expected);
    check_bcast();

    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
