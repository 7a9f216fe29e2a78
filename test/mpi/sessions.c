/* MPI-4 sessions: broadcasts on a communicator made from a session's group
 * (MPI_Comm_create_from_group), in a process that never calls MPI_Init
 * (the default), or that calls it beside the session (--with-init).
 *
 * Every rank checks the bytes of MPI_Bcast, MPI_Ibcast and MPI_Bcast_init
 * + MPI_Start at several counts and roots, then of a derived datatype, and
 * prints "ok ..." / "not ok ..." lines.  Under MPI 3 (no sessions) it prints
 * one "skip" line.  Without MPI_Init the library leaves every call to MPI
 * (one warning); with it, the library serves the session's communicator as
 * any other (the suite checks the statistics). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4
static unsigned char pattern(size_t i, int salt)
{
    return (unsigned char)(i * 131u + (unsigned)salt * 7u + 1u);
}

/* 0 if buf holds the root's pattern */
static int check(const unsigned char *buf, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(i, salt))
            return 1;
    return 0;
}

static void fill(unsigned char *buf, size_t n, int salt, int is_root)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = is_root ? pattern(i, salt) : 0;
}

/* the number of ranks whose bytes are wrong, on every rank */
static int wrong_ranks(MPI_Comm comm, int bad)
{
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, comm);
    return all;
}

static int run(MPI_Comm comm, int *calls)
{
    int rank, size, failed = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int counts[] = {0, 1, 7, 4099, 65536, 1 << 20};
    size_t most = 1 << 20;
    unsigned char *buf = malloc(most);
    if (!buf)
        return 1;
    for (int mode = 0; mode < 3; mode++) {
        static const char *const names[] = {"MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init"};
        int bad = 0;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int root = 0; root < size; root += size > 2 ? size - 2 : 1) {
                int salt = (int)c * 31 + root + mode * 1000;
                size_t n = (size_t)counts[c];
                fill(buf, n, salt, rank == root);
                MPI_Request req;
                if (mode == 0) {
                    MPI_Bcast(buf, counts[c], MPI_BYTE, root, comm);
                } else if (mode == 1) {
                    MPI_Ibcast(buf, counts[c], MPI_BYTE, root, comm, &req);
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                } else {
                    MPI_Bcast_init(buf, counts[c], MPI_BYTE, root, comm, MPI_INFO_NULL, &req);
                    for (int k = 0; k < 2; k++) {
                        if (k)
                            fill(buf, n, salt, rank == root);
                        MPI_Start(&req);
                        MPI_Wait(&req, MPI_STATUS_IGNORE);
                        bad |= check(buf, n, salt);
                        ++*calls;
                    }
                    MPI_Request_free(&req);
                }
                if (mode != 2) {
                    bad |= check(buf, n, salt);
                    ++*calls;
                }
            }
        int wrong = wrong_ranks(comm, bad);
        if (rank == 0)
            printf("%s sessions %s: %d of %d ranks received wrong bytes\n", wrong ? "not ok" : "ok", names[mode],
                   wrong, size);
        failed |= wrong != 0;
    }
    /* a derived datatype: every other int of 3 * 50000 */
    MPI_Datatype vec;
    MPI_Type_vector(50000, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *v = calloc(100000, sizeof *v);
    int bad = !v;
    for (int i = 0; v && i < 100000; i++)
        v[i] = rank == 1 % size ? i * 3 + 1 : (i % 2 ? -5 : 0);
    if (v) {
        MPI_Bcast(v, 1, vec, 1 % size, comm);
        ++*calls;
        for (int i = 0; i < 100000; i++)
            if (v[i] != (i % 2 == 0 ? i * 3 + 1 : rank == 1 % size ? i * 3 + 1 : -5))
                bad = 1;
    }
    int wrong = wrong_ranks(comm, bad);
    if (rank == 0)
        printf("%s sessions derived datatype: %d of %d ranks received wrong bytes\n", wrong ? "not ok" : "ok", wrong,
               size);
    failed |= wrong != 0;
    MPI_Type_free(&vec);
    free(v);
    free(buf);
    return failed;
}

int main(int argc, char **argv)
{
    int with_init = argc > 1 && strcmp(argv[1], "--with-init") == 0;
    if (with_init)
        MPI_Init(&argc, &argv);
    MPI_Session session;
    MPI_Group group;
    MPI_Comm comm;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS ||
        MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS ||
        MPI_Comm_create_from_group(group, "topobcast.test.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm) !=
            MPI_SUCCESS) {
        printf("not ok sessions: no communicator from the session's mpi://WORLD\n");
        return 1;
    }
    int calls = 0, rank;
    int failed = run(comm, &calls);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        printf("sessions: %d broadcasts\n", calls);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Session_finalize(&session);
    if (with_init)
        MPI_Finalize();
    return failed;
}
#else
int main(void)
{
    printf("skip sessions: MPI %d.%d has no sessions\n", MPI_VERSION, MPI_SUBVERSION);
    return 0;
}
#endif
