/* Properties of the interposition itself, checked from an application's
 * point of view: the library's traffic never reaches the application's
 * communicator, communicators can be created and freed around broadcasts,
 * and concurrent broadcasts on distinct communicators from different threads
 * work under MPI_THREAD_MULTIPLE.  Prints ok/not ok lines from rank 0. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void report(const char *name, int bad)
{
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s (P=%d)%s\n", total ? "not ok" : "ok", name, size, total ? " errors on some ranks" : "");
}

/* Broadcasts count bytes from root and returns the number of wrong bytes. */
static int bcast_check(MPI_Comm comm, int count, int root, int salt)
{
    int me;
    MPI_Comm_rank(comm, &me);
    unsigned char *b = malloc((size_t)count + 1);
    for (int i = 0; i < count; i++)
        b[i] = me == root ? (unsigned char)(i * 31 + salt) : 0xA5;
    int bad = MPI_Bcast(b, count, MPI_BYTE, root, comm) != MPI_SUCCESS;
    for (int i = 0; i < count && !bad; i++)
        bad += b[i] != (unsigned char)(i * 31 + salt);
    free(b);
    return bad;
}

/* A wildcard receive posted on the user's communicator before a series of
 * broadcasts must still get the application's own message afterwards. */
static void test_private_traffic(void)
{
    int bad = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    int got = -1;
    if (rank == 0)
        MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    for (int k = 0; k < 6; k++)
        bad += bcast_check(MPI_COMM_WORLD, k % 2 ? 70001 : 13, k % size, k);
    if (rank == size - 1) {
        int v = 4242;
        MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Status st;
        MPI_Wait(&req, &st);
        bad += got != 4242 || st.MPI_TAG != 99 || st.MPI_SOURCE != size - 1;
    }
    report("private_traffic wildcard receive untouched by library messages", bad);
}

static void test_comm_churn(void)
{
    int bad = 0;
    for (int k = 0; k < 40; k++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, (k % 2) ? -rank : rank, &c);
        int n;
        MPI_Comm_size(c, &n);
        bad += bcast_check(c, 1000 + k, k % n, k);
        MPI_Comm dup;
        MPI_Comm_dup(c, &dup);
        bad += bcast_check(dup, 333, n - 1, k + 1);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&c);
    }
    report("comm_churn 40 split/dup/free cycles with broadcasts", bad);
}

struct thread_arg {
    MPI_Comm comm;
    int salt;
    int bad;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    int n;
    MPI_Comm_size(a->comm, &n);
    for (int k = 0; k < 30; k++)
        a->bad += bcast_check(a->comm, (k % 3 == 0) ? 65536 + k : 100 + k, k % n, a->salt + k);
    return NULL;
}

static void test_threads(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("ok threads skipped: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        return;
    }
    struct thread_arg a[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &a[t].comm);
        a[t].salt = 17 * t;
        a[t].bad = 0;
    }
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, thread_main, &a[t]);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    int bad = a[0].bad + a[1].bad;
    for (int t = 0; t < 2; t++)
        MPI_Comm_free(&a[t].comm);
    report("threads concurrent broadcasts on two communicators (MPI_THREAD_MULTIPLE)", bad);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_private_traffic();
    test_comm_churn();
    test_threads(provided);
    MPI_Finalize();
    return 0;
}
