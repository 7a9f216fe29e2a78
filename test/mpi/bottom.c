/* Broadcasts from MPI_BOTTOM: a struct type of absolute addresses (two
 * separate arrays), through MPI_Bcast, MPI_Ibcast and (MPI 4)
 * MPI_Bcast_init, small and pipelined sizes, every root; in the mixed case
 * the root names its arrays by MPI_BOTTOM and the others receive into one
 * plain buffer of ints (same type signature).  Prints "ok ..." / "not ok
 * ..." per kind of call, from rank 0; exit status 1 when any failed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_BCAST, KIND_IBCAST, KIND_INIT, NKIND };
static const char *const kind_name[NKIND] = {"MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init"};

static int value(int i, int salt)
{
    return i * 7 + salt * 1000003 + 1;
}

/* one broadcast of n ints from `root`: a[0..n/2) and b[0..n - n/2) by
 * absolute addresses, or (plain) one buffer of n ints */
static void bcast(int kind, void *buf, int count, MPI_Datatype t, int root)
{
    MPI_Request req;
    switch (kind) {
    case KIND_BCAST:
        MPI_Bcast(buf, count, t, root, MPI_COMM_WORLD);
        break;
    case KIND_IBCAST:
        MPI_Ibcast(buf, count, t, root, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    default:
#if MPI_VERSION >= 4
        MPI_Bcast_init(buf, count, t, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
#endif
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int sizes[] = {1, 2, 1001, 300000};
    int most = 300000;
    int *a = malloc(sizeof(int) * (size_t)most), *b = malloc(sizeof(int) * (size_t)most);
    int *plain = malloc(sizeof(int) * (size_t)most);
    if (!a || !b || !plain)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int kind = 0; kind < NKIND; kind++) {
        if (kind == KIND_INIT && MPI_VERSION < 4)
            continue;
        int bad = 0;
        for (int mixed = 0; mixed < 2; mixed++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (int root = 0; root < size; root++) {
                    int n = sizes[s], salt = (int)s * 37 + root + 100 * kind + 1000 * mixed;
                    int blen[2] = {n / 2, n - n / 2};
                    MPI_Aint disp[2];
                    MPI_Get_address(a, &disp[0]);
                    MPI_Get_address(b, &disp[1]);
                    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, t;
                    MPI_Type_create_struct(2, blen, disp, types, &t);
                    MPI_Type_commit(&t);
                    for (int i = 0; i < most; i++)
                        a[i] = b[i] = plain[i] = -1;
                    if (rank == root)
                        for (int i = 0; i < n; i++)
                            *(i < blen[0] ? &a[i] : &b[i - blen[0]]) = value(i, salt);
                    if (mixed && rank != root)
                        bcast(kind, plain, n, MPI_INT, root);
                    else
                        bcast(kind, MPI_BOTTOM, 1, t, root);
                    MPI_Type_free(&t);
                    for (int i = 0; i < n; i++) {
                        int got = mixed && rank != root ? plain[i] : i < blen[0] ? a[i] : b[i - blen[0]];
                        if (got != value(i, salt)) {
                            bad = 1;
                            break;
                        }
                    }
                    /* nothing written past either array's part */
                    if (!(mixed && rank != root) && ((blen[0] < most && a[blen[0]] != -1) ||
                                                     (blen[1] < most && b[blen[1]] != -1)))
                        bad = 1;
                }
        int wrong = 0;
        MPI_Allreduce(&bad, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%s bottom %s: %d of %d ranks received wrong bytes\n", wrong ? "not ok" : "ok", kind_name[kind],
                   wrong, size);
        failed |= wrong != 0;
    }
    free(a);
    free(b);
    free(plain);
    MPI_Finalize();
    return failed;
}
