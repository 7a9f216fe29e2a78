/* MPI_Ibcast and MPI_Bcast_init correctness: a plain MPI program (no
 * topobcast headers), so the same binary checks plain MPICH and, under
 * LD_PRELOAD, the library.
 *
 * Every case fills the root's buffer with a pattern that depends on (case,
 * element) and every other rank's buffer (gaps of the derived type
 * included) with a sentinel, then checks every byte after completion.  Rank 0
 * prints one "ok CASE" / "not ok CASE (detail)" line per case, and at the
 * end "# ibcast broadcasts: N", the number of non-empty broadcasts made on
 * communicators of 2+ ranks (what TOPOBCAST_STATS must count at their roots).
 *
 * Cases: roots 0/mid/last x counts 0/1/odd/~1M x byte/int/vector (Ibcast +
 * Wait); several outstanding Ibcasts with an Isend/Irecv pair in one
 * Waitall; completion order (Testany polling: whenever a request completes,
 * every earlier one on the communicator has too); an MPI_Test loop;
 * MPI_Request_free of an active Ibcast; two communicators at once; 8
 * outstanding Ibcasts on one communicator and 8 spread over four; an
 * MPI_Bcast from the same root while two Ibcasts are outstanding (a
 * shared-memory stage's ring is then wanted by three broadcasts); threads
 * (MPI_THREAD_MULTIPLE) each broadcasting on its own communicator; and with
 * MPI 4, persistent broadcasts (MPI_Start, MPI_Startall, repeated, freed --
 * once while active); and ranks blocked in point-to-point calls (MPI_Recv,
 * MPI_Probe, MPI_Mprobe/MPI_Mrecv, MPI_Sendrecv, MPI_Sendrecv_replace,
 * MPI_Ssend, a large MPI_Send, MPI_Recv_c) for a message tied to another
 * rank's wait on a broadcast, which must still move on.
 *
 * --mpi-rules: check only what MPI itself promises (for runs on plain MPI
 * or where some broadcasts go to MPI): skips the completion order and the
 * MPI_Request_free cases, which are the library's own guarantees (MPICH
 * 4.0 refuses MPI_Request_free of an MPI_Ibcast request). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0x5A5A5A5A
#define BIG 1048579

static int rank, size;
static long nbcasts; /* non-empty broadcasts on 2+ ranks this rank was the root of */
static int failures;
static int mpi_rules;
static int ibcast_only; /* --ibcast-only: no blocking MPI_Bcast sets a communicator up first */

/* vector of 3 blocks of 2 ints, stride 3: ints 0,1,3,4,6,7 of 8 */
static MPI_Datatype vec;
static const int vec_pos[6] = {0, 1, 3, 4, 6, 7};

typedef enum { T_BYTE, T_INT, T_VEC } ttype;
static const char *tname[] = {"byte", "int", "vector"};

typedef struct msg {
    ttype t;
    int count, root;
    MPI_Comm comm;
    int crank, csize;
    int *buf; /* ints (bytes for T_BYTE: stored in an int array too) */
    size_t nints;
    unsigned seed;
} msg;

static int value(unsigned seed, size_t i)
{
    return (int)(seed * 2654435761u + (unsigned)i * 40503u + 17u);
}

static MPI_Datatype mtype(const msg *m)
{
    return m->t == T_BYTE ? MPI_BYTE : m->t == T_INT ? MPI_INT : vec;
}

/* Root: the pattern of seed; others: the sentinel everywhere. */
static void msg_fill(msg *m, unsigned seed)
{
    m->seed = seed;
    for (size_t i = 0; i < m->nints; i++)
        m->buf[i] = SENTINEL;
    if (m->crank != m->root)
        return;
    if (m->t == T_BYTE) {
        unsigned char *b = (unsigned char *)m->buf;
        for (int i = 0; i < m->count; i++)
            b[i] = (unsigned char)value(seed, (size_t)i);
    } else if (m->t == T_INT) {
        for (int i = 0; i < m->count; i++)
            m->buf[i] = value(seed, (size_t)i);
    } else {
        for (int e = 0; e < m->count; e++)
            for (int k = 0; k < 6; k++)
                m->buf[(size_t)e * 8 + vec_pos[k]] = value(seed, (size_t)e * 6 + k);
    }
}

static void msg_init(msg *m, ttype t, int count, int root, MPI_Comm comm, unsigned seed)
{
    m->t = t;
    m->count = count;
    m->root = root;
    m->comm = comm;
    MPI_Comm_rank(comm, &m->crank);
    MPI_Comm_size(comm, &m->csize);
    m->nints = t == T_BYTE ? ((size_t)count + 3) / 4 + 1 : t == T_INT ? (size_t)count + 1 : (size_t)count * 8 + 1;
    m->buf = malloc(m->nints * sizeof(int));
    msg_fill(m, seed);
}

/* Every rank counts the broadcasts it is the root of (like the stats). */
static void count_bcast(const msg *m)
{
    if (m->crank == m->root && m->count > 0 && m->csize > 1)
        __atomic_fetch_add(&nbcasts, 1, __ATOMIC_RELAXED); /* threads broadcast too */
}

static long msg_check(const msg *m);
static void msg_free(msg *m);

/* A first broadcast on a new communicator: a blocking MPI_Bcast, or with
 * --ibcast-only an MPI_Ibcast, whose set-up then runs without waiting
 * (every later case on the communicator meets it or what it left).
 * Returns the wrong ints. */
static long set_up(MPI_Comm comm, unsigned seed)
{
    msg m;
    msg_init(&m, T_INT, BIG, 0, comm, seed);
    count_bcast(&m);
    long bad;
    if (ibcast_only) {
        MPI_Request r;
        bad = MPI_Ibcast(m.buf, m.count, MPI_INT, 0, comm, &r) != MPI_SUCCESS;
        bad += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    } else {
        bad = MPI_Bcast(m.buf, m.count, MPI_INT, 0, comm) != MPI_SUCCESS;
    }
    bad += msg_check(&m);
    msg_free(&m);
    return bad;
}

/* Number of wrong ints (bytes), after the broadcast, on this rank. */
static long msg_check(const msg *m)
{
    long bad = 0;
    if (m->t == T_BYTE) {
        const unsigned char *b = (const unsigned char *)m->buf;
        for (int i = 0; i < m->count; i++)
            bad += b[i] != (unsigned char)value(m->seed, (size_t)i);
        bad += m->buf[m->nints - 1] != SENTINEL;
    } else if (m->t == T_INT) {
        for (int i = 0; i < m->count; i++)
            bad += m->buf[i] != value(m->seed, (size_t)i);
        bad += m->buf[m->count] != SENTINEL;
    } else {
        for (int e = 0; e < m->count; e++) {
            for (int k = 0; k < 6; k++)
                bad += m->buf[(size_t)e * 8 + vec_pos[k]] != value(m->seed, (size_t)e * 6 + k);
            bad += m->buf[(size_t)e * 8 + 2] != SENTINEL;
            bad += m->buf[(size_t)e * 8 + 5] != SENTINEL;
        }
        bad += m->buf[m->nints - 1] != SENTINEL;
    }
    return bad;
}

static void msg_free(msg *m)
{
    free(m->buf);
    m->buf = NULL;
}

static int ibcast(msg *m, MPI_Request *r)
{
    count_bcast(m);
    return MPI_Ibcast(m->buf, m->count, mtype(m), m->root, m->comm, r);
}

/* Reports a case: ok when every rank has bad == 0. */
static void report(const char *name, long bad, const char *detail)
{
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all == 0)
            printf("ok %s\n", name);
        else
            printf("not ok %s (%ld wrong values or errors%s%s)\n", name, all, detail ? "; " : "", detail ? detail : "");
        fflush(stdout);
    }
    if (all)
        failures++;
}

static int root_of(int which, int n)
{
    return which == 0 ? 0 : which == 1 ? n / 2 : n - 1;
}

static void case_matrix(void)
{
    static const int counts[] = {0, 1, 7, 4097, BIG};
    static const char *rname[] = {"0", "mid", "last"};
    unsigned seed = 1;
    for (int t = T_BYTE; t <= T_VEC; t++)
        for (int r = 0; r < 3; r++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                int count = counts[c];
                if (t == T_VEC && count == BIG)
                    count = 65539; /* 2 MiB of ints in a 4 MiB buffer */
                msg m;
                msg_init(&m, (ttype)t, count, root_of(r, size), MPI_COMM_WORLD, seed++);
                MPI_Request req;
                long bad = ibcast(&m, &req) != MPI_SUCCESS;
                bad += MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS;
                bad += req != MPI_REQUEST_NULL;
                bad += msg_check(&m);
                char name[128];
                snprintf(name, sizeof name, "ibcast wait type=%s root=%s count=%d", tname[t], rname[r], count);
                report(name, bad, NULL);
                msg_free(&m);
            }
}

/* K broadcasts (large first, so that later ones could finish first) and an
 * Isend/Irecv ring pair, all completed by one MPI_Waitall. */
static void case_waitall(void)
{
    enum { K = 5 };
    static const int counts[K] = {BIG, 1, 4097, 7, 65539};
    msg m[K];
    MPI_Request req[K + 2];
    long bad = 0;
    for (int k = 0; k < K; k++) {
        msg_init(&m[k], k == 2 ? T_VEC : T_INT, counts[k], root_of(k % 3, size), MPI_COMM_WORLD, 100 + (unsigned)k);
        bad += ibcast(&m[k], &req[k]) != MPI_SUCCESS;
    }
    int out = rank * 7 + 3, in = -1;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 42, MPI_COMM_WORLD, &req[K]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 42, MPI_COMM_WORLD, &req[K + 1]);
    MPI_Status st[K + 2];
    bad += MPI_Waitall(K + 2, req, st) != MPI_SUCCESS;
    for (int k = 0; k < K; k++) {
        bad += msg_check(&m[k]);
        bad += req[k] != MPI_REQUEST_NULL;
        msg_free(&m[k]);
    }
    bad += in != ((rank + size - 1) % size) * 7 + 3;
    report("5 outstanding ibcasts + isend/irecv in one waitall", bad, NULL);
}

/* MPI_Waitall while broadcasts are outstanding, as MPI_Waitall answers
 * alone: with MPI_STATUSES_IGNORE (Open MPI's is NULL, which the library
 * took for a failed allocation: MPI_ERR_NO_MEM at once, nothing waited
 * for); and with statuses, where a null request and an inactive persistent
 * one (never started) get the empty status: source MPI_ANY_SOURCE, tag
 * MPI_ANY_TAG, count 0, the persistent request left as it was. */
static void case_waitall_ignore_inactive(void)
{
    msg m[2];
    MPI_Request req[4];
    long bad = 0;
    for (int k = 0; k < 2; k++) {
        msg_init(&m[k], T_INT, k ? 7 : BIG, root_of(k, size), MPI_COMM_WORLD, 150 + (unsigned)k);
        bad += ibcast(&m[k], &req[k]) != MPI_SUCCESS;
    }
    int out = rank * 5 + 1, in = -1;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 43, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 43, MPI_COMM_WORLD, &req[3]);
    /* gcc 12 misreads MPI_STATUSES_IGNORE's size (the other cases pass arrays) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    bad += MPI_Waitall(4, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS;
#pragma GCC diagnostic pop
    for (int k = 0; k < 4; k++)
        bad += req[k] != MPI_REQUEST_NULL;
    for (int k = 0; k < 2; k++) {
        bad += msg_check(&m[k]);
        msg_free(&m[k]);
    }
    bad += in != ((rank + size - 1) % size) * 5 + 1;
    report("2 outstanding ibcasts + isend/irecv in one waitall with MPI_STATUSES_IGNORE", bad, NULL);
#ifndef SMPI_H
    bad = 0;
    msg_init(&m[0], T_INT, BIG, 0, MPI_COMM_WORLD, 160);
    bad += ibcast(&m[0], &req[0]) != MPI_SUCCESS;
    MPI_Request idle;
    MPI_Send_init(&out, 1, MPI_INT, (rank + 1) % size, 44, MPI_COMM_WORLD, &idle);
    req[1] = idle;
    req[2] = MPI_REQUEST_NULL;
    MPI_Status st[3];
    for (int k = 0; k < 3; k++) {
        st[k].MPI_SOURCE = -77;
        st[k].MPI_TAG = -77;
    }
    bad += MPI_Waitall(3, req, st) != MPI_SUCCESS;
    bad += req[0] != MPI_REQUEST_NULL || req[1] != idle || req[2] != MPI_REQUEST_NULL;
    for (int k = 1; k < 3; k++) {
        int count = -1;
        MPI_Get_count(&st[k], MPI_INT, &count);
        bad += st[k].MPI_SOURCE != MPI_ANY_SOURCE || st[k].MPI_TAG != MPI_ANY_TAG || count != 0;
    }
    MPI_Request_free(&idle);
    bad += msg_check(&m[0]);
    msg_free(&m[0]);
    report("an ibcast, an inactive persistent request and a null one in one waitall: the empty status for the "
           "last two",
           bad, NULL);
#endif
}

/* Completion order: polled with MPI_Testany; whenever request j is reported,
 * every earlier one must be complete (reported before, or complete now). */
static void case_order(void)
{
    enum { K = 6 };
    msg m[K];
    MPI_Request req[K];
    int reported[K] = {0};
    long bad = 0, order_bad = 0;
    for (int k = 0; k < K; k++) {
        msg_init(&m[k], T_INT, k % 2 == 0 ? BIG : 3, root_of(k % 3, size), MPI_COMM_WORLD, 200 + (unsigned)k);
        bad += ibcast(&m[k], &req[k]) != MPI_SUCCESS;
    }
    for (int done = 0; done < K;) {
        int idx, flag = 0;
        bad += MPI_Testany(K, req, &idx, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        if (!flag || idx == MPI_UNDEFINED)
            continue;
        for (int i = 0; i < idx; i++) {
            if (reported[i])
                continue;
            int f = 0;
            MPI_Request_get_status(req[i], &f, MPI_STATUS_IGNORE);
            order_bad += !f;
        }
        reported[idx] = 1;
        done++;
    }
    for (int k = 0; k < K; k++) {
        bad += msg_check(&m[k]);
        msg_free(&m[k]);
    }
    report("6 outstanding ibcasts, testany polling: data", bad, NULL);
    if (!mpi_rules)
        report("6 outstanding ibcasts, testany polling: complete in start order", order_bad, NULL);
}

static void case_test_loop(void)
{
    msg m;
    msg_init(&m, T_INT, BIG, root_of(1, size), MPI_COMM_WORLD, 300);
    MPI_Request req;
    long bad = ibcast(&m, &req) != MPI_SUCCESS;
    long polls = 0;
    for (int flag = 0; !flag; polls++)
        bad += MPI_Test(&req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    bad += msg_check(&m);
    msg_free(&m);
    report("ibcast completed by an MPI_Test loop", bad, NULL);
}

/* The end of a case whose request for a was freed while active: an ibcast
 * of b started now completes, both messages arrive, and the case reports
 * what with its bad count so far. */
static void later_ibcast(msg *a, msg *b, long bad, const char *what)
{
    MPI_Request rb;
    bad += ibcast(b, &rb) != MPI_SUCCESS;
    bad += MPI_Wait(&rb, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    bad += msg_check(a) + msg_check(b);
    msg_free(a);
    msg_free(b);
    report(what, bad, NULL);
}

/* A freed request's broadcast still completes, before any later one. */
static void case_request_free(void)
{
    msg a, b;
    msg_init(&a, T_VEC, 65539, root_of(2, size), MPI_COMM_WORLD, 400);
    msg_init(&b, T_INT, 7, 0, MPI_COMM_WORLD, 401);
    MPI_Request ra;
    long bad = ibcast(&a, &ra) != MPI_SUCCESS;
    bad += MPI_Request_free(&ra) != MPI_SUCCESS;
    bad += ra != MPI_REQUEST_NULL;
    later_ibcast(&a, &b, bad, "MPI_Request_free of an active ibcast; a later one completes after it");
}

/* Blocking broadcasts while non-blocking ones on the same communicator, from
 * the same root, are still outstanding (with shm, all want the root's ring). */
static void case_bcast_while_outstanding(void)
{
    msg a, b, c;
    msg_init(&a, T_INT, BIG, 0, MPI_COMM_WORLD, 450);
    msg_init(&b, T_VEC, 65539, 0, MPI_COMM_WORLD, 451);
    msg_init(&c, T_INT, BIG, 0, MPI_COMM_WORLD, 452);
    MPI_Request r[2];
    long bad = ibcast(&a, &r[0]) != MPI_SUCCESS;
    bad += ibcast(&b, &r[1]) != MPI_SUCCESS;
    count_bcast(&c);
    bad += MPI_Bcast(c.buf, c.count, mtype(&c), c.root, c.comm) != MPI_SUCCESS;
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
    bad += MPI_Waitall(2, r, st) != MPI_SUCCESS;
    bad += msg_check(&a) + msg_check(&b) + msg_check(&c);
    msg_free(&a);
    msg_free(&b);
    msg_free(&c);
    report("mpi_bcast from the same root while 2 ibcasts are outstanding", bad, NULL);
}

/* Broadcasts on two communicators at once (halves and reversed world). */
static void case_two_comms(void)
{
    MPI_Comm half, rev;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    msg a, b;
    long bad = set_up(half, 498) + set_up(rev, 499);
    msg_init(&a, T_INT, BIG, 0, half, 500);
    msg_init(&b, T_VEC, 4097, root_of(1, size), rev, 501);
    MPI_Request r[2];
    bad += ibcast(&a, &r[0]) != MPI_SUCCESS;
    bad += ibcast(&b, &r[1]) != MPI_SUCCESS;
    for (int n = 0; n < 2; n++) {
        int idx;
        bad += MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    }
    bad += msg_check(&a) + msg_check(&b);
    msg_free(&a);
    msg_free(&b);
    MPI_Comm_free(&half);
    MPI_Comm_free(&rev);
    report("ibcasts on two communicators at once, waitany", bad, NULL);
}

#if MPI_VERSION >= 4
/* A persistent broadcast and one of MPI's own persistent collectives
 * (an allreduce) started together and completed in one MPI_Waitall, with
 * statuses, 3 times (MPICH 4.0's Testall fails on MPI's request while it
 * is in progress, and its Testsome reports it again once inactive). */
static void case_persistent_mixed(void)
{
    msg m;
    msg_init(&m, T_INT, BIG, root_of(1, size), MPI_COMM_WORLD, 1200);
    int in = rank + 1, sum = 0;
    MPI_Request r[2];
    long bad = MPI_Bcast_init(m.buf, m.count, MPI_INT, m.root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]) != MPI_SUCCESS;
    bad += MPI_Allreduce_init(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]) != MPI_SUCCESS;
    for (int it = 0; it < 3; it++) {
        msg_fill(&m, 1200 + (unsigned)it);
        count_bcast(&m);
        sum = 0;
        bad += MPI_Startall(2, r) != MPI_SUCCESS;
        MPI_Status st[2];
        bad += MPI_Waitall(2, r, st) != MPI_SUCCESS;
        bad += msg_check(&m) + (sum != size * (size + 1) / 2);
        bad += r[0] == MPI_REQUEST_NULL || r[1] == MPI_REQUEST_NULL; /* persistent: inactive, not freed */
    }
    bad += MPI_Request_free(&r[0]) != MPI_SUCCESS;
    bad += MPI_Request_free(&r[1]) != MPI_SUCCESS;
    msg_free(&m);
    report("bcast_init and MPI's allreduce_init x 3 MPI_Startall + one waitall with statuses", bad, NULL);
}

static void case_persistent(void)
{
    /* one request, started 4 times with MPI_Start */
    msg m;
    msg_init(&m, T_VEC, 65539, root_of(1, size), MPI_COMM_WORLD, 600);
    MPI_Request req;
    long bad = MPI_Bcast_init(m.buf, m.count, vec, m.root, MPI_COMM_WORLD, MPI_INFO_NULL, &req) != MPI_SUCCESS;
    for (int it = 0; it < 4; it++) {
        msg_fill(&m, 600 + (unsigned)it);
        count_bcast(&m);
        bad += MPI_Start(&req) != MPI_SUCCESS;
        bad += MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        bad += req == MPI_REQUEST_NULL; /* persistent: inactive, not freed */
        bad += msg_check(&m);
    }
    bad += MPI_Request_free(&req) != MPI_SUCCESS;
    bad += req != MPI_REQUEST_NULL;
    msg_free(&m);
    report("bcast_init: 4 x MPI_Start + MPI_Wait, then MPI_Request_free", bad, NULL);

    /* two requests (different roots, one large) with MPI_Startall, 3 times,
     * mixed with an Ibcast in the same Waitall */
    msg p[3];
    MPI_Request r[3];
    bad = 0;
    msg_init(&p[0], T_INT, BIG, root_of(2, size), MPI_COMM_WORLD, 700);
    msg_init(&p[1], T_BYTE, 4097, 0, MPI_COMM_WORLD, 701);
    for (int k = 0; k < 2; k++)
        bad += MPI_Bcast_init(p[k].buf, p[k].count, mtype(&p[k]), p[k].root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]) !=
               MPI_SUCCESS;
    for (int it = 0; it < 3; it++) {
        for (int k = 0; k < 2; k++) {
            msg_fill(&p[k], 710 + 10 * (unsigned)it + (unsigned)k);
            count_bcast(&p[k]);
        }
        bad += MPI_Startall(2, r) != MPI_SUCCESS;
        msg_init(&p[2], T_INT, 7, root_of(1, size), MPI_COMM_WORLD, 790 + (unsigned)it);
        bad += ibcast(&p[2], &r[2]) != MPI_SUCCESS;
        MPI_Status st[3]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
        bad += MPI_Waitall(3, r, st) != MPI_SUCCESS;
        for (int k = 0; k < 3; k++)
            bad += msg_check(&p[k]);
        msg_free(&p[2]);
    }
    for (int k = 0; k < 2; k++) {
        bad += MPI_Request_free(&r[k]) != MPI_SUCCESS;
        msg_free(&p[k]);
    }
    report("bcast_init: 2 requests x 3 MPI_Startall + an ibcast in one waitall", bad, NULL);

    /* the communicator freed while requests on it live: a persistent one
     * still starts, an active Ibcast still completes */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    msg d, e;
    msg_init(&d, T_INT, BIG, root_of(2, size), dup, 900);
    msg_init(&e, T_VEC, 4097, 0, dup, 901);
    bad = MPI_Bcast_init(d.buf, d.count, MPI_INT, d.root, dup, MPI_INFO_NULL, &req) != MPI_SUCCESS;
    MPI_Request re;
    bad += ibcast(&e, &re) != MPI_SUCCESS;
    bad += MPI_Comm_free(&dup) != MPI_SUCCESS;
    bad += MPI_Wait(&re, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    for (int it = 0; it < 2; it++) {
        msg_fill(&d, 910 + (unsigned)it);
        count_bcast(&d);
        bad += MPI_Start(&req) != MPI_SUCCESS;
        bad += MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        bad += msg_check(&d);
    }
    bad += MPI_Request_free(&req) != MPI_SUCCESS;
    bad += msg_check(&e);
    msg_free(&d);
    msg_free(&e);
    report("communicator freed with an active ibcast and a persistent request on it", bad, NULL);

    if (mpi_rules)
        return;
    /* freed while active: its broadcast still completes before a later one */
    msg a, b;
    msg_init(&a, T_INT, BIG, root_of(1, size), MPI_COMM_WORLD, 800);
    msg_init(&b, T_INT, 1, 0, MPI_COMM_WORLD, 801);
    bad = MPI_Bcast_init(a.buf, a.count, MPI_INT, a.root, MPI_COMM_WORLD, MPI_INFO_NULL, &req) != MPI_SUCCESS;
    count_bcast(&a);
    bad += MPI_Start(&req) != MPI_SUCCESS;
    bad += MPI_Request_free(&req) != MPI_SUCCESS;
    later_ibcast(&a, &b, bad, "bcast_init: MPI_Request_free while active; a later ibcast completes after it");
}
#endif


/* The most outstanding broadcasts the issue asks for: 8 on one
 * communicator, started back to back (sizes and roots mixed, so later ones
 * could finish first), completed by one MPI_Waitall. */
static void case_eight_one_comm(void)
{
    enum { K = 8 };
    static const int counts[K] = {BIG, 1, 4097, 0, 7, 65539, 3, 200000};
    msg m[K];
    MPI_Request req[K];
    long bad = 0;
    for (int k = 0; k < K; k++) {
        msg_init(&m[k], k % 3 == 2 ? T_VEC : k % 3 == 1 ? T_BYTE : T_INT, counts[k], root_of(k % 3, size),
                 MPI_COMM_WORLD, 600 + (unsigned)k);
        bad += ibcast(&m[k], &req[k]) != MPI_SUCCESS;
    }
    MPI_Status st[K]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
    bad += MPI_Waitall(K, req, st) != MPI_SUCCESS;
    for (int k = 0; k < K; k++) {
        bad += req[k] != MPI_REQUEST_NULL;
        bad += msg_check(&m[k]);
        msg_free(&m[k]);
    }
    report("8 outstanding ibcasts on one communicator, one waitall", bad, NULL);
}

/* 8 outstanding broadcasts over four communicators (world, a duplicate,
 * split halves, reversed world), two each, started interleaved across the
 * communicators and completed in reverse order with MPI_Wait. */
static void case_eight_four_comms(void)
{
    enum { K = 8, C = 4 };
    MPI_Comm comms[C];
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[2]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[3]);
    static const int counts[K] = {65539, 4097, BIG, 1, 7, 300000, 2, 4097};
    msg m[K];
    MPI_Request req[K];
    long bad = 0;
    for (int c = 1; c < C; c++)
        bad += set_up(comms[c], 690 + (unsigned)c);
    for (int k = 0; k < K; k++) {
        MPI_Comm c = comms[k % C];
        int cs;
        MPI_Comm_size(c, &cs);
        msg_init(&m[k], k % 2 ? T_VEC : T_INT, counts[k], root_of(k / C, cs), c, 700 + (unsigned)k);
        bad += ibcast(&m[k], &req[k]) != MPI_SUCCESS;
    }
    for (int k = K - 1; k >= 0; k--)
        bad += MPI_Wait(&req[k], MPI_STATUS_IGNORE) != MPI_SUCCESS;
    for (int k = 0; k < K; k++) {
        bad += msg_check(&m[k]);
        msg_free(&m[k]);
    }
    for (int c = 1; c < C; c++)
        MPI_Comm_free(&comms[c]);
    report("8 outstanding ibcasts over four communicators, waited in reverse order", bad, NULL);
}

/* Threads, each on its own communicator: every thread starts ibcasts on its
 * communicator and completes them, alternately by MPI_Wait and by an
 * MPI_Test loop (progress from another thread's calls must not lose or
 * cross anything). */
enum { NTHREADS = 3, THREAD_ROUNDS = 12 };
typedef struct thread_arg {
    MPI_Comm comm;
    int id;
    long bad;
} thread_arg;

static void *thread_body(void *p)
{
    thread_arg *a = p;
    int cs;
    MPI_Comm_size(a->comm, &cs);
    for (int i = 0; i < THREAD_ROUNDS; i++) {
        msg m;
        msg_init(&m, (ttype)(i % 3), i % 4 == 0 ? BIG / 4 : 4097 + i, (i + a->id) % cs, a->comm,
                 800 + 100 * (unsigned)a->id + (unsigned)i);
        MPI_Request req;
        a->bad += ibcast(&m, &req) != MPI_SUCCESS;
        if (i % 2) {
            for (int flag = 0; !flag;)
                a->bad += MPI_Test(&req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        } else {
            a->bad += MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        }
        a->bad += msg_check(&m);
        msg_free(&m);
    }
    return NULL;
}

static void case_threads(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("ok threads # skip: MPI_THREAD_MULTIPLE not provided\n");
        return;
    }
    thread_arg a[NTHREADS];
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        /* distinct communicators, created in the same order on every rank */
        if (t == 0)
            MPI_Comm_dup(MPI_COMM_WORLD, &a[t].comm);
        else
            MPI_Comm_split(MPI_COMM_WORLD, 0, t % 2 ? size - rank : rank, &a[t].comm);
        a[t].id = t;
        a[t].bad = set_up(a[t].comm, 1000 + (unsigned)t);
    }
    long bad = 0;
    for (int t = 0; t < NTHREADS; t++)
        bad += pthread_create(&th[t], NULL, thread_body, &a[t]) != 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        bad += a[t].bad;
        MPI_Comm_free(&a[t].comm);
    }
    report("3 threads, each 12 ibcasts on its own communicator (wait and test loops)", bad, NULL);
}

/* MPI_Ibcast is local: rank 0 starts one, then sends to rank 1, which
 * receives before it starts its own.  A broadcast that waited in MPI_Ibcast
 * for the other ranks (as the library's set-up did) hangs here.  On a
 * communicator set up before (fresh == 0) the library runs it; on a new
 * one (fresh == 1, --fresh-ibcast) MPI does, and says so in the stats. */
static void case_nonlocal(int fresh)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    long bad = fresh ? 0 : set_up(dup, 1100);
    msg m;
    msg_init(&m, T_INT, BIG, 0, dup, 1101);
    MPI_Request r;
    int token = 7;
    if (rank == 0) {
        bad += ibcast(&m, &r) != MPI_SUCCESS;
        bad += MPI_Send(&token, 1, MPI_INT, 1, 55, MPI_COMM_WORLD) != MPI_SUCCESS;
    } else {
        if (rank == 1)
            bad += MPI_Recv(&token, 1, MPI_INT, 0, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        bad += ibcast(&m, &r) != MPI_SUCCESS;
    }
    bad += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    bad += msg_check(&m) + (token != 7);
    msg_free(&m);
    MPI_Comm_free(&dup);
    report(fresh ? "ibcast is local on a new communicator (rank 1 starts it after a message rank 0 sends after its own)"
                 : "ibcast is local on a communicator set up before (rank 1 starts it after a message rank 0 sends after its own)",
           bad, NULL);
}

/* MPI_Ibcasts on new communicators, whose set-up runs without waiting
 * while they wait behind it: what the application may do meanwhile. */
static void case_fresh(void)
{
    long bad = 0;
    /* a derived datatype freed, and the communicator freed, right after
     * the MPI_Ibcasts that use them are started */
    MPI_Comm c1;
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Datatype v2;
    MPI_Type_dup(vec, &v2);
    msg a, b;
    msg_init(&a, T_VEC, 65539, size - 1, c1, 1201);
    msg_init(&b, T_INT, BIG, 0, c1, 1202);
    MPI_Request r[2];
    count_bcast(&a);
    bad += MPI_Ibcast(a.buf, a.count, v2, a.root, c1, &r[0]) != MPI_SUCCESS;
    bad += ibcast(&b, &r[1]) != MPI_SUCCESS;
    MPI_Type_free(&v2);
    MPI_Comm_free(&c1);
    MPI_Status st[4];
    bad += MPI_Waitall(2, r, st) != MPI_SUCCESS;
    bad += msg_check(&a) + msg_check(&b);
    msg_free(&a);
    msg_free(&b);
    report("new communicator: its datatype and itself freed right after its first MPI_Ibcasts", bad, NULL);

    /* the application's own non-blocking collective between two MPI_Ibcasts
     * on a new communicator, then a blocking MPI_Bcast while they are
     * outstanding, then MPI_Ibcasts again */
    bad = 0;
    MPI_Comm c2;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &c2);
    msg m[4];
    int sum = rank, total = 0;
    MPI_Request q[4];
    msg_init(&m[0], T_INT, BIG, 0, c2, 1210);
    msg_init(&m[1], T_BYTE, 7, m[0].csize - 1, c2, 1211);
    bad += ibcast(&m[0], &q[0]) != MPI_SUCCESS;
    bad += MPI_Iallreduce(&sum, &total, 1, MPI_INT, MPI_SUM, c2, &q[2]) != MPI_SUCCESS;
    bad += ibcast(&m[1], &q[1]) != MPI_SUCCESS;
    msg_init(&m[2], T_INT, 4097, m[0].csize / 2, c2, 1212);
    count_bcast(&m[2]);
    bad += MPI_Bcast(m[2].buf, m[2].count, MPI_INT, m[2].root, c2) != MPI_SUCCESS;
    bad += MPI_Waitall(3, q, st) != MPI_SUCCESS;
    msg_init(&m[3], T_INT, BIG, m[0].csize - 1, c2, 1213);
    bad += ibcast(&m[3], &q[3]) != MPI_SUCCESS;
    bad += MPI_Wait(&q[3], MPI_STATUS_IGNORE) != MPI_SUCCESS;
    int want = 0;
    for (int i = 0; i < size; i++)
        want += i % 2 == rank % 2 ? i : 0;
    bad += total != want;
    for (int i = 0; i < 4; i++) {
        bad += msg_check(&m[i]);
        msg_free(&m[i]);
    }
    MPI_Comm_free(&c2);
    report("new communicator: MPI_Iallreduce between its first MPI_Ibcasts, then MPI_Bcast while they are outstanding",
           bad, NULL);
}

/* A rank blocked in a point-to-point call still forwards the broadcast:
 * every rank starts one (root 0, ~4 MiB), then every rank but the last
 * blocks in CALL for a message the last rank sends (or receives) only once
 * its own MPI_Wait on the broadcast has returned.  MPI moves its own
 * broadcasts inside any blocking call, so this completes under MPI alone;
 * a library that moved its broadcasts only in waits and tests hangs. */
enum { B_RECV, B_PROBE, B_MPROBE, B_SENDRECV, B_REPLACE, B_SSEND, B_SEND_BIG, B_RECV_C, B_IPROBE, B_IMPROBE, B_KINDS };
static const char *bname[B_KINDS] = {"MPI_Recv", "MPI_Probe + MPI_Recv", "MPI_Mprobe + MPI_Mrecv", "MPI_Sendrecv",
                                     "MPI_Sendrecv_replace", "MPI_Ssend", "MPI_Send of 256 KiB", "MPI_Recv_c",
                                     "an MPI_Iprobe loop + MPI_Recv", "an MPI_Improbe loop + MPI_Mrecv"};
#define BLOCKED_BIG 65536 /* ints */

static void case_blocked(int kind)
{
    int last = size - 1, tag = 60 + kind;
    msg m;
    msg_init(&m, T_INT, BIG, 0, MPI_COMM_WORLD, 1200 + (unsigned)kind);
    MPI_Request r;
    long bad = ibcast(&m, &r) != MPI_SUCCESS;
    int *big = calloc(BLOCKED_BIG, sizeof(int));
    int tok = rank, got = -1;
    int sends = kind == B_SSEND || kind == B_SEND_BIG, pairs = kind == B_SENDRECV || kind == B_REPLACE;
    if (rank != last) {
        MPI_Status st;
        MPI_Message msgh;
        switch (kind) {
        case B_RECV:
            bad += MPI_Recv(&got, 1, MPI_INT, last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
            break;
        case B_PROBE:
            bad += MPI_Probe(last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
            bad += MPI_Recv(&got, 1, MPI_INT, last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
            break;
        case B_MPROBE:
            bad += MPI_Mprobe(last, tag, MPI_COMM_WORLD, &msgh, &st) != MPI_SUCCESS;
            bad += MPI_Mrecv(&got, 1, MPI_INT, &msgh, &st) != MPI_SUCCESS;
            break;
        case B_SENDRECV:
            bad += MPI_Sendrecv(&tok, 1, MPI_INT, last, tag, &got, 1, MPI_INT, last, tag, MPI_COMM_WORLD, &st) !=
                   MPI_SUCCESS;
            break;
        case B_REPLACE:
            got = tok;
            bad += MPI_Sendrecv_replace(&got, 1, MPI_INT, last, tag, last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
            break;
        case B_SSEND:
            bad += MPI_Ssend(&tok, 1, MPI_INT, last, tag, MPI_COMM_WORLD) != MPI_SUCCESS;
            break;
        case B_SEND_BIG:
            big[BLOCKED_BIG - 1] = tok;
            bad += MPI_Send(big, BLOCKED_BIG, MPI_INT, last, tag, MPI_COMM_WORLD) != MPI_SUCCESS;
            break;
        case B_IPROBE: {
            int flag = 0;
            while (!flag && !bad)
                bad += MPI_Iprobe(last, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS;
            bad += MPI_Recv(&got, 1, MPI_INT, last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
            break;
        }
        case B_IMPROBE: {
            int flag = 0;
            while (!flag && !bad)
                bad += MPI_Improbe(last, tag, MPI_COMM_WORLD, &flag, &msgh, &st) != MPI_SUCCESS;
            bad += MPI_Mrecv(&got, 1, MPI_INT, &msgh, &st) != MPI_SUCCESS;
            break;
        }
        case B_RECV_C:
#if MPI_VERSION >= 4
            bad += MPI_Recv_c(&got, 1, MPI_INT, last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
#else
            bad += MPI_Recv(&got, 1, MPI_INT, last, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS;
#endif
            break;
        }
        if (!sends)
            bad += got != last * 1000 + rank; /* the last rank's word for this one */
        bad += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    } else {
        bad += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        for (int k = 0; k < last; k++) {
            int word = last * 1000 + k, in = -1;
            if (sends) {
                bad += MPI_Recv(kind == B_SSEND ? (void *)&in : (void *)big, kind == B_SSEND ? 1 : BLOCKED_BIG, MPI_INT,
                                k, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS;
                bad += (kind == B_SSEND ? in : big[BLOCKED_BIG - 1]) != k;
            } else if (pairs) {
                bad += MPI_Sendrecv(&word, 1, MPI_INT, k, tag, &in, 1, MPI_INT, k, tag, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE) != MPI_SUCCESS;
                bad += in != k;
            } else {
                bad += MPI_Send(&word, 1, MPI_INT, k, tag, MPI_COMM_WORLD) != MPI_SUCCESS;
            }
        }
    }
    bad += msg_check(&m);
    msg_free(&m);
    free(big);
    char name[160];
    snprintf(name, sizeof name, "ibcast moves on while ranks block in %s for a message tied to the last rank's wait",
             bname[kind]);
    report(name, bad, NULL);
}

/* While an MPI_Ibcast is in progress, the blocking calls that the library
 * turns into polling waits report a receive from MPI_PROC_NULL as MPI does:
 * source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 (MPICH 4.0.2's MPI_Irecv
 * from it reports source 0, tag 0). */
static void case_proc_null(void)
{
    msg m;
    msg_init(&m, T_INT, BIG, 0, MPI_COMM_WORLD, 1300);
    MPI_Request r;
    long bad = ibcast(&m, &r) != MPI_SUCCESS;
    int word = rank, got = -7, count;
    MPI_Status st[4];
    for (int k = 0; k < 4; k++) {
        st[k].MPI_SOURCE = 4321;
        st[k].MPI_TAG = 4321;
    }
    bad += MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st[0]) != MPI_SUCCESS;
    bad += MPI_Sendrecv(&word, 1, MPI_INT, MPI_PROC_NULL, 5, &got, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD,
                        &st[1]) != MPI_SUCCESS;
    bad += MPI_Sendrecv_replace(&word, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st[2]) !=
           MPI_SUCCESS;
    bad += MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st[3]) != MPI_SUCCESS;
    for (int k = 0; k < 4; k++) {
        MPI_Get_count(&st[k], MPI_INT, &count);
        bad += st[k].MPI_SOURCE != MPI_PROC_NULL || st[k].MPI_TAG != MPI_ANY_TAG || count != 0;
    }
    bad += got != -7 || word != rank;
    /* a shift without wrap-around: MPI_PROC_NULL at the ends */
    int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    bad += MPI_Sendrecv_replace(&word, 1, MPI_INT, up, 6, down, 6, MPI_COMM_WORLD, &st[0]) != MPI_SUCCESS;
    bad += word != (rank > 0 ? rank - 1 : rank) || st[0].MPI_SOURCE != down;
    bad += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    bad += msg_check(&m);
    msg_free(&m);
    report("MPI_Recv, MPI_Sendrecv, MPI_Sendrecv_replace and MPI_Probe from MPI_PROC_NULL during an MPI_Ibcast: "
           "source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; a shift with MPI_Sendrecv_replace and MPI_PROC_NULL ends",
           bad, NULL);
}

/* MPI_Comm_free while an MPI_Ibcast on the communicator is in progress
 * (legal: it completes as usual): rank 0 starts its part, frees the
 * communicator, and only then tells the others to start theirs.  A
 * library that ran the broadcast to its end inside MPI_Comm_free would
 * wait there for the others: a hang. */
static void case_free_while_running(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    long bad = set_up(c, 1400);
    msg m;
    msg_init(&m, T_INT, BIG, size - 1, c, 1401);
    MPI_Request r;
    int tok = 5;
    if (rank == 0) {
        bad += ibcast(&m, &r) != MPI_SUCCESS;
        bad += MPI_Comm_free(&c) != MPI_SUCCESS;
        for (int p = 1; p < size; p++)
            bad += MPI_Send(&tok, 1, MPI_INT, p, 71, MPI_COMM_WORLD) != MPI_SUCCESS;
    } else {
        bad += MPI_Recv(&tok, 1, MPI_INT, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        bad += ibcast(&m, &r) != MPI_SUCCESS;
        bad += MPI_Comm_free(&c) != MPI_SUCCESS;
    }
    bad += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    bad += msg_check(&m);
    msg_free(&m);
    report("MPI_Comm_free while an ibcast on it is in progress, the other ranks starting theirs after a message "
           "sent after the free",
           bad, NULL);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpi_rules = argc > 1 && strcmp(argv[1], "--mpi-rules") == 0;
    ibcast_only = argc > 1 && strcmp(argv[1], "--ibcast-only") == 0;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (argc > 1 && strcmp(argv[1], "--fresh-ibcast") == 0) {
        if (size > 1)
            case_nonlocal(1);
        MPI_Type_free(&vec);
        MPI_Finalize();
        return failures != 0;
    }
    long bad = set_up(MPI_COMM_WORLD, 1);
    report(ibcast_only ? "an MPI_Ibcast sets the world up" : "a blocking broadcast sets the world up", bad, NULL);
    if (ibcast_only)
        case_fresh();

    case_matrix();
    case_waitall();
    case_waitall_ignore_inactive();
    case_order();
    case_test_loop();
    if (!mpi_rules)
        case_request_free();
    case_two_comms();
    case_eight_one_comm();
    case_eight_four_comms();
    case_bcast_while_outstanding();
    case_proc_null();
    case_threads(provided);
    if (size > 1)
        case_nonlocal(0);
    /* with shared-memory rings MPI_Comm_free runs the broadcasts to their
     * end (README), so the case would wait for the peers it tells later */
    const char *alg = getenv("TOPOBCAST_ALGORITHM");
    if (size > 1 && !(alg && strstr(alg, "shm")))
        case_free_while_running();
    for (int k = 0; size > 1 && k < B_KINDS; k++)
#ifdef SMPI_H
        if (k != B_MPROBE && k != B_IMPROBE) /* SimGrid 3.32 aborts in MPI_Mprobe: "Not yet implemented" */
#endif
            case_blocked(k);
#if MPI_VERSION >= 4
    case_persistent();
    case_persistent_mixed();
#endif

    MPI_Type_free(&vec);
    long total = 0;
    MPI_Reduce(&nbcasts, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# ibcast broadcasts: %ld\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return failures != 0;
}
