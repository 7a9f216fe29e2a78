/* MPI_Bcast correctness matrix: a plain MPI program (no topobcast headers),
 * so the same binary checks plain MPICH and, under LD_PRELOAD, the library.
 *
 * Every case: the root fills the type map of its buffer with a pattern that
 * depends only on (case number, position in the type signature); every other
 * rank pre-fills its whole buffer (plus guard bytes around it) with a
 * sentinel.  After the broadcast each rank compares the whole region with
 * what it must be: the expected image is computed with MPI_Unpack (not
 * intercepted), so gaps and padding that are outside the receiver's type map
 * must still hold the sentinel, and the root's buffer must be unchanged.
 * Ranks may use different datatypes with equal signatures (MPI allows it),
 * which catches implementations that split messages by elements.
 *
 * Rank 0 prints one "ok CASE" / "not ok CASE (detail)" line per case. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5
#define GUARD 64
#define DETAIL_LEN 240

/* ---- datatypes --------------------------------------------------------- */

enum { B_BYTE, B_INT, B_DOUBLE, B_VECTOR, B_STRUCT, B_CONTIG7, B_CONTIG6, NBASE };
static MPI_Datatype base_type[NBASE];

/* A datatype case: what the root uses and what the others use.  Mixed cases
 * keep the signature equal: root count*7 MPI_INT vs count contiguous(7 int);
 * the strided vector holds 6 ints, like contiguous(6 int). */
typedef struct type_case {
    const char *name;
    int root_t, root_mult;   /* root: count*root_mult of base_type[root_t] */
    int other_t, other_mult; /* non-roots */
    int alternate;           /* 1: odd ranks use other_t, even ranks root_t, whoever is root */
} type_case;

static const type_case type_cases[] = {
    {"byte", B_BYTE, 1, B_BYTE, 1, 0},
    {"int", B_INT, 1, B_INT, 1, 0},
    {"double", B_DOUBLE, 1, B_DOUBLE, 1, 0},
    {"vector", B_VECTOR, 1, B_VECTOR, 1, 0},
    {"struct", B_STRUCT, 1, B_STRUCT, 1, 0},
    {"intmix", B_INT, 7, B_CONTIG7, 1, 0},
    {"vecmix", B_VECTOR, 1, B_CONTIG6, 1, 1},
};
#define NTYPES ((int)(sizeof type_cases / sizeof type_cases[0]))
enum { T_BYTE, T_INT, T_DOUBLE, T_VECTOR, T_STRUCT, T_INTMIX, T_VECMIX }; /* type_cases[] order */

static void make_types(void)
{
    base_type[B_BYTE] = MPI_BYTE;
    base_type[B_INT] = MPI_INT;
    base_type[B_DOUBLE] = MPI_DOUBLE;

    /* 3 blocks of 2 ints, stride 3 ints, extent resized to 10 ints:
     * gaps inside the element and a trailing gap before the next one. */
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 10 * (MPI_Aint)sizeof(int), &base_type[B_VECTOR]);
    MPI_Type_free(&v);

    /* {int at 0, double at 8}, extent 24: padding after the int and a
     * trailing gap after the double. */
    MPI_Datatype s;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, ts, &s);
    MPI_Type_create_resized(s, 0, 24, &base_type[B_STRUCT]);
    MPI_Type_free(&s);

    MPI_Type_contiguous(7, MPI_INT, &base_type[B_CONTIG7]);
    MPI_Type_contiguous(6, MPI_INT, &base_type[B_CONTIG6]);
    for (int i = B_VECTOR; i < NBASE; i++)
        MPI_Type_commit(&base_type[i]);
}

static void free_types(void)
{
    for (int i = B_VECTOR; i < NBASE; i++)
        MPI_Type_free(&base_type[i]);
}

/* ---- one rank's part of one broadcast ---------------------------------- */

enum { ROLE_ROOT, ROLE_RECV, ROLE_IDLE }; /* IDLE: intercomm root group, not root */

typedef struct xfer {
    MPI_Datatype dt;
    long count;
    int role;
    MPI_Aint extent;
    size_t bytes;          /* count * extent */
    size_t sigbytes;       /* count * type size */
    unsigned char *region; /* GUARD + bytes + GUARD */
    unsigned char *expect;
    int rc;                /* MPI_Bcast return code */
} xfer;

/* The pattern is a hash of (seed, position): a segment delivered to the
 * wrong offset, or left over from an earlier case, differs from what belongs
 * there (a shifted or periodic pattern could match by accident).  It never
 * equals the sentinel, so a byte that was not written is always noticed. */
static uint32_t pattern_word(uint32_t seed, size_t w)
{
    uint32_t x = (uint32_t)w * 0x9E3779B1u ^ (seed + 1) * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    x ^= x >> 15;
    return x;
}

/* Byte k of word w is byte k of pattern_word(seed, w), little end first,
 * with the sentinel replaced.  Whole words are stored at once where no byte
 * is the sentinel (under memcheck this loop was most of a run's work). */
static void pattern_fill(uint32_t seed, unsigned char *out, size_t n)
{
    const uint32_t sent4 = 0x01010101u * SENTINEL;
    for (size_t w = 0; w * 4 < n; w++) {
        uint32_t x = pattern_word(seed, w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint32_t y = x ^ sent4;
        if (w * 4 + 4 <= n && !((y - 0x01010101u) & ~y & 0x80808080u)) { /* no byte is the sentinel */
            memcpy(out + w * 4, &x, 4);
            continue;
        }
#else
        (void)sent4;
#endif
        for (size_t k = 0; k < 4 && w * 4 + k < n; k++) {
            unsigned char b = (unsigned char)(x >> (8 * k));
            out[w * 4 + k] = b == SENTINEL ? (unsigned char)(0x5A + k) : b;
        }
    }
}

static void choose_type(const type_case *tc, long count, int is_root, int comm_rank, MPI_Datatype *dt,
                        long *n)
{
    int use_root_t = tc->alternate ? (comm_rank % 2 == 0) : is_root;
    if (use_root_t) {
        *dt = base_type[tc->root_t];
        *n = count * tc->root_mult;
    } else {
        *dt = base_type[tc->other_t];
        *n = count * tc->other_mult;
    }
}

/* Buffers are kept between cases: re-mapping tens of MiB per case and
 * rank costs more than the broadcast on an oversubscribed machine.  Slot i
 * serves the i-th broadcast of a sequence; each grows to its largest use. */
#define NSLOTS 17
static struct pool {
    unsigned char *p;
    size_t cap;
} pool[NSLOTS][3];

static unsigned char *pool_get(int slot, int which, size_t n)
{
    struct pool *b = &pool[slot][which];
    if (n > b->cap) {
        free(b->p);
        b->p = malloc(n ? n : 1);
        b->cap = b->p ? n : 0;
    }
    return b->p;
}

static void pool_free(void)
{
    for (int i = 0; i < NSLOTS; i++)
        for (int k = 0; k < 3; k++)
            free(pool[i][k].p);
}

static int xfer_prepare(xfer *x, int slot, const type_case *tc, long count, int role, int comm_rank,
                        uint32_t seed)
{
    MPI_Aint lb, tsize;
    int size;
    memset(x, 0, sizeof *x);
    x->role = role;
    choose_type(tc, count, role == ROLE_ROOT, comm_rank, &x->dt, &x->count);
    MPI_Type_get_extent(x->dt, &lb, &x->extent);
    MPI_Type_size(x->dt, &size);
    tsize = size;
    x->bytes = (size_t)x->count * (size_t)x->extent;
    x->sigbytes = (size_t)x->count * (size_t)tsize;
    x->region = pool_get(slot, 0, x->bytes + 2 * GUARD);
    x->expect = pool_get(slot, 1, x->bytes + 2 * GUARD);
    if (!x->region || !x->expect)
        return -1;
    memset(x->expect, SENTINEL, x->bytes + 2 * GUARD);
    if (role != ROLE_IDLE && x->count > 0) {
        unsigned char *stream = pool_get(slot, 2, x->sigbytes);
        if (!stream)
            return -1;
        pattern_fill(seed, stream, x->sigbytes);
        int pos = 0;
        MPI_Unpack(stream, (int)x->sigbytes, &pos, x->expect + GUARD, (int)x->count, x->dt,
                   MPI_COMM_SELF);
    }
    if (role == ROLE_ROOT)
        memcpy(x->region, x->expect, x->bytes + 2 * GUARD);
    else
        memset(x->region, SENTINEL, x->bytes + 2 * GUARD);
    return 0;
}

/* Whether byte `within` of one element of dt belongs to its type map. */
static int in_type_map(MPI_Datatype dt, MPI_Aint extent, MPI_Aint within)
{
    int size, pos = 0, r;
    MPI_Type_size(dt, &size);
    unsigned char *ones = malloc((size_t)size + 1), *mask = calloc((size_t)extent + 1, 1);
    memset(ones, 0xFF, (size_t)size + 1);
    MPI_Unpack(ones, size, &pos, mask, 1, dt, MPI_COMM_SELF);
    r = mask[within] != 0;
    free(ones);
    free(mask);
    return r;
}

/* Returns 0 when the region is exactly as expected, else 1 with detail. */
static int xfer_check(const xfer *x, int world_rank, const char *what, char *detail, size_t len)
{
    if (x->rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int l = 0;
        MPI_Error_string(x->rc, msg, &l);
        snprintf(detail, len, "rank %d%s: MPI_Bcast returned %d: %.120s", world_rank, what, x->rc, msg);
        return 1;
    }
    size_t n = x->bytes + 2 * GUARD, first = n, wrong = 0;
    if (!memcmp(x->region, x->expect, n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (x->region[i] != x->expect[i]) {
            if (first == n)
                first = i;
            wrong++;
        }
    }
    if (!wrong)
        return 0;
    const char *role = x->role == ROLE_ROOT ? "root" : x->role == ROLE_RECV ? "receiver" : "idle";
    char where[128];
    if (first < GUARD) {
        snprintf(where, sizeof where, "guard byte %ld before the buffer", (long)first - GUARD);
    } else if (first >= GUARD + x->bytes) {
        snprintf(where, sizeof where, "guard byte %zu after the buffer end", first - GUARD - x->bytes);
    } else {
        size_t rel = first - GUARD;
        size_t elem = rel / (size_t)x->extent, within = rel % (size_t)x->extent;
        snprintf(where, sizeof where, "byte %zu (element %zu + %zu, %s)", rel, elem, within,
                 in_type_map(x->dt, x->extent, (MPI_Aint)within) ? "in type map" : "gap outside type map");
    }
    snprintf(detail, len, "rank %d%s (%s): %zu bytes wrong (buffer %zu bytes), first at %s: 0x%02x expected 0x%02x",
             world_rank, what, role, wrong, x->bytes, where, x->region[first], x->expect[first]);
    return 1;
}

/* ---- communicators ------------------------------------------------------ */

enum { C_WORLD, C_SPLIT, C_REVERSED, C_DUP, C_SELF, C_INTER, NCOMMS };
static const char *comm_names[NCOMMS] = {"world", "split", "reversed", "dup", "self", "inter"};
static MPI_Comm comms[NCOMMS];
static int wrank, wsize, half0; /* half0: size of the lower half used by split/inter */

/* The intercommunicator only when asked for: SMPI cannot create one. */
static void make_comms(int want_inter)
{
    int color = wrank < half0 ? 0 : 1;
    comms[C_WORLD] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &comms[C_SPLIT]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[C_REVERSED]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[C_DUP]);
    comms[C_SELF] = MPI_COMM_SELF;
    comms[C_INTER] = MPI_COMM_NULL;
    if (want_inter && half0 > 0 && half0 < wsize)
        MPI_Intercomm_create(comms[C_SPLIT], 0, MPI_COMM_WORLD, color == 0 ? half0 : 0, 77,
                             &comms[C_INTER]);
    for (int c = 0; c < NCOMMS; c++)
        if (comms[c] != MPI_COMM_NULL)
            MPI_Comm_set_errhandler(comms[c], MPI_ERRORS_RETURN);
}

static void free_comms(void)
{
    MPI_Comm_free(&comms[C_SPLIT]);
    MPI_Comm_free(&comms[C_REVERSED]);
    MPI_Comm_free(&comms[C_DUP]);
    if (comms[C_INTER] != MPI_COMM_NULL)
        MPI_Comm_free(&comms[C_INTER]);
}

static void comm_label(int c, char *buf, size_t len)
{
    switch (c) {
    case C_SPLIT: snprintf(buf, len, "split size=%d+%d", half0, wsize - half0); break;
    case C_INTER: snprintf(buf, len, "inter size=%d<>%d", half0, wsize - half0); break;
    case C_SELF: snprintf(buf, len, "self size=1"); break;
    default: snprintf(buf, len, "%s size=%d", comm_names[c], wsize);
    }
}

/* ---- roots -------------------------------------------------------------- */

enum { R_FIRST, R_MID, R_LAST, NROOTS };
static const char *root_names[NROOTS] = {"0", "mid", "last"};

static int resolve(int sym, int size)
{
    return sym == R_FIRST ? 0 : sym == R_MID ? size / 2 : size - 1;
}

/* What this rank passes as root and its role.  For the intercommunicator
 * the root lives in the lower half for "0"/"last", in the upper for "mid". */
static void root_for(int c, int sym, int *root_arg, int *role, int *key)
{
    MPI_Comm comm = comms[c];
    if (c == C_INTER) {
        int rgroup = sym == R_MID ? 1 : 0, mygroup = wrank < half0 ? 0 : 1;
        int rsize = rgroup == 0 ? half0 : wsize - half0, lrank;
        int r = resolve(sym, rsize);
        MPI_Comm_rank(comm, &lrank);
        if (mygroup == rgroup) {
            *root_arg = lrank == r ? MPI_ROOT : MPI_PROC_NULL;
            *role = lrank == r ? ROLE_ROOT : ROLE_IDLE;
        } else {
            *root_arg = r;
            *role = ROLE_RECV;
        }
        *key = rgroup * 1000 + r;
        return;
    }
    int size, me;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    *root_arg = resolve(sym, size);
    *role = me == *root_arg ? ROLE_ROOT : ROLE_RECV;
    *key = *root_arg;
}

/* ---- reporting ---------------------------------------------------------- */

static const char *alg_name;
static int ncases, nfailed, verbose, sync_each;

/* Verdicts are collected per batch and combined in one gather: a collective
 * per case costs more than the case on an oversubscribed machine, and
 * cases running back to back without synchronisation are a test too.
 * --sync=1 reports after every case (to pin down a hang). */
#define BATCH_MAX 64
static char batch_name[BATCH_MAX][200];
static char batch_detail[BATCH_MAX][DETAIL_LEN];
static int batch_n;

/* Collective over MPI_COMM_WORLD. */
static void flush_reports(void)
{
    if (!batch_n)
        return;
    char *all = NULL;
    if (wrank == 0)
        all = malloc((size_t)wsize * BATCH_MAX * DETAIL_LEN);
    MPI_Gather(batch_detail, batch_n * DETAIL_LEN, MPI_CHAR, all, batch_n * DETAIL_LEN, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (wrank == 0) {
        for (int k = 0; k < batch_n; k++) {
            int nbad = 0, first = -1;
            for (int r = 0; r < wsize; r++)
                if (all[((size_t)r * batch_n + k) * DETAIL_LEN]) {
                    nbad++;
                    if (first < 0)
                        first = r;
                }
            if (nbad) {
                nfailed++;
                printf("not ok alg=%s np=%d %s (%d rank%s failed; %s)\n", alg_name, wsize,
                       batch_name[k], nbad, nbad > 1 ? "s" : "",
                       all + ((size_t)first * batch_n + k) * DETAIL_LEN);
            } else {
                printf("ok alg=%s np=%d %s\n", alg_name, wsize, batch_name[k]);
            }
        }
        fflush(stdout);
        free(all);
    }
    batch_n = 0;
}

/* Every rank records the same cases in the same order. */
static void report(const char *name, int bad, const char *detail)
{
    snprintf(batch_name[batch_n], sizeof batch_name[0], "%s", name);
    if (bad)
        snprintf(batch_detail[batch_n], DETAIL_LEN, "%s", detail[0] ? detail : "failed");
    else
        batch_detail[batch_n][0] = 0;
    batch_n++;
    ncases++;
    if (sync_each || batch_n == BATCH_MAX)
        flush_reports();
}

/* ---- the matrix ---------------------------------------------------------- */

static uint32_t case_seed; /* advances identically on every rank */

/* Broadcasts a library can run with its own algorithm: intracommunicator of
 * two or more ranks and a non-empty message (size-1 communicators return
 * at once, empty messages have nothing to move, intercommunicators pass
 * through).  Counted by the root, once per broadcast -- the suite compares
 * the total with the library's statistics. */
static long eligible;
/* Non-empty broadcasts on the intercommunicator, counted by MPI_ROOT: the
 * statistics count them as MPI's own, and as fallbacks for that reason. */
static long inter_calls;

static void count_eligible(MPI_Comm comm, const xfer *x)
{
    int inter, size;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    if (x->role == ROLE_ROOT && !inter && size >= 2 && x->sigbytes > 0)
        eligible++;
    if (x->role == ROLE_ROOT && inter && x->sigbytes > 0)
        inter_calls++;
}

static void run_case(int c, int sym, const type_case *tc, long count)
{
    int root_arg, role, key, me = 0;
    char name[200], label[64], detail[DETAIL_LEN] = "";
    xfer x;
    comm_label(c, label, sizeof label);
    snprintf(name, sizeof name, "comm=%s root=%s count=%ld type=%s", label, root_names[sym], count,
             tc->name);
    root_for(c, sym, &root_arg, &role, &key);
    MPI_Comm_rank(comms[c], &me);
    int bad = 0;
    double t0 = MPI_Wtime(), t1 = t0, t2 = t0;
    if (xfer_prepare(&x, 0, tc, count, role, me, case_seed++) != 0) {
        snprintf(detail, sizeof detail, "rank %d: out of memory", wrank);
        bad = 1;
    } else {
        t1 = MPI_Wtime();
        x.rc = MPI_Bcast(x.region + GUARD, (int)x.count, x.dt, root_arg, comms[c]);
        count_eligible(comms[c], &x);
        t2 = MPI_Wtime();
        bad = xfer_check(&x, wrank, "", detail, sizeof detail);
    }
    if (verbose && wrank == 0)
        printf("# %s: prepare %.3f s, bcast %.3f s, check %.3f s\n", name, t1 - t0, t2 - t1,
               MPI_Wtime() - t2);
    report(name, bad, detail);
}

/* Size of the (local group of the) communicator of kind c at world rank r. */
static int comm_size_at(int c, int r)
{
    switch (c) {
    case C_SPLIT: return r < half0 ? half0 : wsize - half0;
    case C_SELF: return 1;
    default: return wsize;
    }
}

/* Root symbols that resolve to the same root as an earlier selected one on
 * every rank are skipped (size-1 communicators, size-2 "mid" == "last"...).
 * Computed locally: the answer depends only on group sizes. */
static int duplicate_root(int c, int sym, long selected)
{
    for (int r = 0; r < wsize; r++) {
        int size = comm_size_at(c, r), dup = 0;
        for (int s = 0; s < sym; s++) {
            if (!(selected & (1L << s)))
                continue;
            if (c == C_INTER) {
                int g1 = sym == R_MID, g0 = s == R_MID;
                int n1 = g1 ? wsize - half0 : half0, n0 = g0 ? wsize - half0 : half0;
                dup |= g1 == g0 && resolve(sym, n1) == resolve(s, n0);
            } else {
                dup |= resolve(sym, size) == resolve(s, size);
            }
        }
        if (!dup)
            return 0;
    }
    return 1;
}

/* ---- sequences: several broadcasts back to back, checked at the end ----- */

typedef struct step {
    int comm, sym, type;
    long count;
} step;

static void run_sequence(const char *name, const step *steps, int n, int use_bcast_c)
{
    (void)use_bcast_c; /* unused where MPI_Bcast_c does not exist (MPI < 4) */
    xfer *xs = calloc((size_t)n, sizeof *xs);
    char detail[DETAIL_LEN] = "";
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int root_arg, role, key, me;
        root_for(steps[i].comm, steps[i].sym, &root_arg, &role, &key);
        MPI_Comm_rank(comms[steps[i].comm], &me);
        if (xfer_prepare(&xs[i], i, &type_cases[steps[i].type], steps[i].count, role, me, case_seed++))
            bad = 1;
    }
    if (bad) {
        snprintf(detail, sizeof detail, "rank %d: out of memory", wrank);
    } else {
        /* No synchronisation between the calls: a rank that finishes one
         * broadcast early starts the next while others are still busy. */
        for (int i = 0; i < n; i++) {
            int root_arg, role, key;
            root_for(steps[i].comm, steps[i].sym, &root_arg, &role, &key);
#if MPI_VERSION >= 4
            if (use_bcast_c)
                xs[i].rc = MPI_Bcast_c(xs[i].region + GUARD, (MPI_Count)xs[i].count, xs[i].dt,
                                       root_arg, comms[steps[i].comm]);
            else
#endif
                xs[i].rc = MPI_Bcast(xs[i].region + GUARD, (int)xs[i].count, xs[i].dt, root_arg,
                                     comms[steps[i].comm]);
            count_eligible(comms[steps[i].comm], &xs[i]);
        }
        for (int i = 0; i < n && !bad; i++) {
            char what[48];
            snprintf(what, sizeof what, " step %d", i);
            bad = xfer_check(&xs[i], wrank, what, detail, sizeof detail);
        }
    }
    free(xs);
    report(name, bad, detail);
    flush_reports();
}

/* Communicators created, used and freed in a loop: the library's state
 * cached on each one must be released by the attribute delete callback and
 * never confused with the next communicator's (MPICH reuses context ids). */
static void run_churn(void)
{
    char detail[DETAIL_LEN] = "";
    int bad = 0;
    for (int i = 0; i < 3 && !bad; i++) {
        MPI_Comm c;
        if (i == 1)
            MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &c);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        int size, me;
        MPI_Comm_size(c, &size);
        MPI_Comm_rank(c, &me);
        int root = i % size;
        xfer x;
        const type_case *tc = &type_cases[i % 2 ? T_VECTOR : T_INT];
        if (xfer_prepare(&x, 0, tc, 4097 + i, me == root ? ROLE_ROOT : ROLE_RECV, me, case_seed++)) {
            snprintf(detail, sizeof detail, "rank %d: out of memory", wrank);
            bad = 1;
        } else {
            x.rc = MPI_Bcast(x.region + GUARD, (int)x.count, x.dt, root, c);
            count_eligible(c, &x);
            char what[32];
            snprintf(what, sizeof what, " iteration %d", i);
            bad = xfer_check(&x, wrank, what, detail, sizeof detail);
        }
        MPI_Comm_free(&c);
    }
    report("seq=churn comm=dup,split,dup each created, used and freed", bad, detail);
    flush_reports();
}

static void run_sequences(unsigned comm_mask)
{
    /* Different roots, sizes and datatypes in a row on one communicator. */
    static const step b2b[] = {
        {0, R_FIRST, T_INT, 4097},   {0, R_LAST, T_BYTE, 7},     {0, R_MID, T_BYTE, 262147},
        {0, R_LAST, T_VECTOR, 1},    {0, R_FIRST, T_DOUBLE, 0},  {0, R_MID, T_STRUCT, 65539},
        {0, R_FIRST, T_INTMIX, 33},  {0, R_LAST, T_VECMIX, 4097}, {0, R_MID, T_INT, 1},
        {0, R_FIRST, T_BYTE, 100003},
    };
    int nb = (int)(sizeof b2b / sizeof b2b[0]);
    step s[16];
    static const int b2b_comms[] = {C_WORLD, C_REVERSED};
    for (int k = 0; k < 2; k++) {
        int c = b2b_comms[k];
        if (!(comm_mask & (1u << c)))
            continue;
        char name[64];
        for (int i = 0; i < nb; i++) {
            s[i] = b2b[i];
            s[i].comm = c;
        }
        snprintf(name, sizeof name, "seq=backtoback comm=%s", comm_names[c]);
        run_sequence(name, s, nb, 0);
    }

    /* Two communicators interleaved: the same ranks, different orders (or
     * halves running concurrently with the whole). */
    static const int pairs[][2] = {{C_DUP, C_REVERSED}, {C_SPLIT, C_WORLD}};
    for (int k = 0; k < 2; k++) {
        int a = pairs[k][0], b = pairs[k][1];
        if (!(comm_mask & (1u << a)) || !(comm_mask & (1u << b)))
            continue;
        char name[64];
        for (int i = 0; i < 8; i++) {
            s[i].comm = i % 2 ? b : a;
            s[i].sym = (i * 2 + k) % NROOTS;
            s[i].type = (i * 3) % NTYPES;
            s[i].count = (long[]){4097, 7, 70001, 1, 0, 4099, 33, 16385}[i];
        }
        snprintf(name, sizeof name, "seq=interleaved comm=%s+%s", comm_names[a], comm_names[b]);
        run_sequence(name, s, 8, 0);
    }

#if MPI_VERSION >= 4
    /* The large-count entry point. */
    if (comm_mask & (1u << C_WORLD)) {
        static const step bc[] = {
            {C_WORLD, R_LAST, T_INT, 4097}, {C_WORLD, R_FIRST, T_VECTOR, 333},
            {C_WORLD, R_MID, T_BYTE, 0},    {C_WORLD, R_MID, T_INTMIX, 65537},
        };
        run_sequence("seq=bcast_c comm=world", bc, 4, 1);
    }
#endif
    run_churn();
}

/* ---- options ------------------------------------------------------------- */

static void usage(void)
{
    printf("usage: bcast_matrix [options]\n"
           "  --roots=LIST   of 0,mid,last                         (default all)\n"
           "  --counts=LIST  element counts                         (default 0,1,7,4097,1048579)\n"
           "  --types=LIST   of byte,int,double,vector,struct,intmix,vecmix (default all)\n"
           "                 vector: 3x2 ints stride 3, extent 10 ints; struct: {int,double}\n"
           "                 with padding, extent 24; intmix: root count*7 MPI_INT, others\n"
           "                 contiguous(7 int); vecmix: even ranks vector, odd contiguous(6 int)\n"
           "  --comms=LIST   of world,split,reversed,dup,self,inter (default all)\n"
           "  --then         start another selection (the options above apply to it)\n"
           "  --sequences=0|1 back-to-back and interleaved broadcasts (default 1)\n"
           "  --matrix=0|1   the case matrix itself (default 1)\n"
           "  --sync=0|1     report (and synchronise) after every case; default 0:\n"
           "                 cases run back to back, verdicts gathered per batch\n"
           "  --verbose      per-case timings as '#' lines\n"
           "  --help\n"
           "Prints one 'ok CASE' / 'not ok CASE (detail)' line per case from rank 0;\n"
           "CASE names the algorithm (TOPOBCAST_ALGORITHM or 'none').  Exit status 1 if any failed.\n");
}

/* Parses a comma list of names into a bit mask; -1 on an unknown name. */
static long parse_names(const char *list, const char *const *names, int n)
{
    long mask = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(t, names[i]))
                found = i;
        if (!strcmp(t, "first"))
            found = 0;
        if (found < 0) {
            free(copy);
            return -1;
        }
        mask |= 1L << found;
    }
    free(copy);
    return mask;
}

/* One selection of the case product; --then starts another, so a single
 * run can cover the full product on one communicator and a cheaper one on
 * others. */
typedef struct selection {
    long roots, types, comms;
    long counts[32];
    int ncounts;
} selection;

static void selection_default(selection *s)
{
    static const long def[] = {0, 1, 7, 4097, 1048579};
    s->roots = (1 << NROOTS) - 1;
    s->types = (1 << NTYPES) - 1;
    s->comms = (1 << NCOMMS) - 1;
    s->ncounts = 5;
    memcpy(s->counts, def, sizeof def);
}

static int parse_counts(const char *p, selection *s)
{
    char *end;
    s->ncounts = 0;
    while (*p) {
        if (s->ncounts == 32)
            return -1;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || (*end && *end != ','))
            return -1;
        s->counts[s->ncounts++] = v;
        p = *end ? end + 1 : end;
    }
    return s->ncounts ? 0 : -1;
}

static void run_selection(const selection *sel)
{
    for (int c = 0; c < NCOMMS; c++) {
        if (!(sel->comms & (1L << c)) || (c == C_INTER && comms[C_INTER] == MPI_COMM_NULL))
            continue;
        for (int ci = 0; ci < sel->ncounts; ci++) {
            for (int t = 0; t < NTYPES; t++) {
                if (!(sel->types & (1L << t)))
                    continue;
                for (int sym = 0; sym < NROOTS; sym++) {
                    if (!(sel->roots & (1L << sym)) || duplicate_root(c, sym, sel->roots))
                        continue;
                    run_case(c, sym, &type_cases[t], sel->counts[ci]);
                }
            }
            flush_reports();
        }
    }
}

int main(int argc, char **argv)
{
    selection sels[16];
    int nsels = 1, sequences = 1, matrix = 1, bad_arg = 0, help = 0;
    const char *type_names[NTYPES];
    for (int i = 0; i < NTYPES; i++)
        type_names[i] = type_cases[i].name;
    selection_default(&sels[0]);

    for (int i = 1; i < argc && !bad_arg; i++) {
        const char *a = argv[i];
        selection *cur = &sels[nsels - 1];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help = 1;
        } else if (!strcmp(a, "--then")) {
            if (nsels == 16)
                bad_arg = 1;
            else
                selection_default(&sels[nsels++]);
        } else if (!strncmp(a, "--roots=", 8)) {
            bad_arg = (cur->roots = parse_names(a + 8, root_names, NROOTS)) <= 0;
        } else if (!strncmp(a, "--types=", 8)) {
            bad_arg = (cur->types = parse_names(a + 8, type_names, NTYPES)) <= 0;
        } else if (!strncmp(a, "--comms=", 8)) {
            bad_arg = (cur->comms = parse_names(a + 8, comm_names, NCOMMS)) <= 0;
        } else if (!strncmp(a, "--counts=", 9)) {
            bad_arg = parse_counts(a + 9, cur) != 0;
        } else if (!strncmp(a, "--sequences=", 12)) {
            sequences = atoi(a + 12);
        } else if (!strncmp(a, "--sync=", 7)) {
            sync_each = atoi(a + 7);
        } else if (!strcmp(a, "--verbose")) {
            verbose = 1;
        } else if (!strncmp(a, "--matrix=", 9)) {
            matrix = atoi(a + 9);
        } else {
            bad_arg = 1;
        }
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (help || bad_arg) {
        if (wrank == 0) {
            if (bad_arg)
                printf("not ok bcast_matrix arguments\n");
            usage();
        }
        MPI_Finalize();
        return bad_arg;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    alg_name = getenv("TOPOBCAST_ALGORITHM");
    if (!alg_name || !*alg_name)
        alg_name = "none";
    half0 = wsize / 2;
    make_types();
    int want_inter = 0;
    for (int k = 0; k < nsels; k++)
        want_inter |= matrix && (sels[k].comms & (1L << C_INTER)) != 0;
    make_comms(want_inter);
    double t0 = MPI_Wtime();

    if (matrix)
        for (int k = 0; k < nsels; k++)
            run_selection(&sels[k]);
    if (sequences)
        run_sequences(comms[C_INTER] == MPI_COMM_NULL ? ((1u << NCOMMS) - 1) & ~(1u << C_INTER)
                                                      : (1u << NCOMMS) - 1);

    double t = MPI_Wtime() - t0;
    long total_eligible = 0, total_inter = 0;
    MPI_Reduce(&eligible, &total_eligible, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&inter_calls, &total_inter, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0) {
        printf("# bcast_matrix alg=%s np=%d: %d cases, %d failed, %.1f s\n", alg_name, wsize, ncases,
               nfailed, t);
        printf("# bcast_matrix eligible broadcasts: %ld\n", total_eligible);
        printf("# bcast_matrix intercommunicator broadcasts: %ld\n", total_inter);
    }
    free_comms();
    free_types();
    pool_free();
    MPI_Finalize();
    return nfailed ? 1 : 0;
}
