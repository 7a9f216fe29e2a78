/* Requests for non-blocking and persistent broadcasts (see nbc.h).
 *
 * Each operation owns a copy of its schedule (a persistent one builds it
 * once, at MPI_Bcast_init) and a tb_engine_op.  Operations in progress are
 * kept in one list in start order; a progress pass moves each engine on,
 * then completes, front to back, every finished operation that no earlier
 * unfinished one on the same communicator precedes -- so broadcasts on one
 * communicator complete in the order they were started, on every rank.
 *
 * Tags on a private duplicate: blocking broadcasts use
 * TB_ENGINE_TAG_BLOCKING..+TB_ENGINE_TAGS-1; every non-blocking operation gets its own
 * TB_ENGINE_TAGS tags from a slot: MPI_Ibcast number k on the communicator
 * (counted identically on every rank, since all ranks make the same
 * decisions in the same order) takes slot k mod half, a persistent request
 * takes slot half + (its init number mod half), fixed for its life.  An
 * MPI_Ibcast whose slot is still held by an unfinished one on this rank
 * first waits for it, so outstanding operations never share tags. */
#include "run/nbc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/compat.h"
#include "base/pmpi.h"
#include "run/engine.h"
#include "base/log.h"
#include "run/stats.h"

#define TB_NBC_TAG0 (TB_ENGINE_TAG_BLOCKING + TB_ENGINE_TAGS)
#define TB_NBC_MAX_SLOTS (1 << 20)

/* What an operation runs: the engine on a schedule; or, for an MPI_Ibcast
 * deferred behind its communicator's set-up, nothing yet, then one of the
 * two, MPI's own broadcast on the private duplicate being the other. */
enum { NBC_ENGINE = 0, NBC_DEFERRED, NBC_MPI };

typedef struct tb_nbc {
    struct tb_nbc *next; /* list of operations in progress */
    int kind;
    /* NBC_DEFERRED: the call, the communicator state whose set-up it waits
     * for, and how it is finished */
    struct tb_comm_state *cs;
    const tb_nbc_deferral *how;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;   /* a duplicate of a derived type (type_dup) */
    int root, type_dup;
    MPI_Request inner;   /* NBC_MPI: MPI's MPI_Ibcast */
    tb_schedule sched;   /* own copy */
    tb_msg msg;
    MPI_Comm priv;
    int tag;             /* first engine tag on priv */
    int is_root, rule, count_it;
    tb_alg_id alg;
    tb_shm *shm;         /* the communicator's rings (never for a persistent request) */
    int persistent;
    int released;        /* the application freed its request while active */
    int active, engine_done;
    int shell_tag;       /* tag of the user's request on selfcomm */
    MPI_Request shell;   /* the application's request (the library's again once released) */
    tb_engine_op op;
} tb_nbc;

/* Per private duplicate: operation counters, and the persistent requests
 * that refer to it (which keep it alive once its communicator is freed). */
typedef struct comm_entry {
    MPI_Comm priv;
    unsigned long started, inits;
    int refs, orphan;
} comm_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tb_nbc *head, *tail;
int tb_nbc_nactive;      /* read without the lock by the wrappers (nbc.h) */
static int npersistent; /* the same */
static tb_nbc **pers;            /* the application's persistent requests */
#if MPI_VERSION >= 4
static int pers_cap;
#endif
/* The requests of MPI_Ibcasts that have ended, which the application has
 * not completed yet: still the library's (tb_nbc_owns) until a call it
 * runs on them completes them (tb_nbc_settled) or frees them. */
static MPI_Request *ended;
static int nended;      /* read without the lock, like npersistent */
static int ended_cap;
static comm_entry *comms;
static int ncomms, comms_cap;
static MPI_Comm selfcomm = MPI_COMM_NULL;
static int half_slots;  /* slots per kind of operation on a private duplicate */
static int shell_ub;    /* largest tag on selfcomm */
static unsigned long shell_next;

/* The lock, and whether this thread holds it: MPI may call a
 * communicator's attribute delete callback from inside any call that
 * completes the last operation on it -- one of the library's, under this
 * lock -- and the state's release must not take it again
 * (tb_nbc_holding). */
static __thread int held;
static void (*reaper)(void);
static comm_entry *comm_find(MPI_Comm priv, int create);
static void comm_drop(comm_entry *e);

static void lock_take(void)
{
    pthread_mutex_lock(&lock);
    held = 1;
}

static void lock_give(void)
{
    held = 0;
    pthread_mutex_unlock(&lock);
}

int tb_nbc_holding(void)
{
    return held;
}

/* Whether an operation in progress runs on priv (lock held). */
static int running_on(MPI_Comm priv)
{
    for (const tb_nbc *nb = head; nb; nb = nb->next)
        if (nb->priv == priv)
            return 1;
    return 0;
}

int tb_nbc_running(MPI_Comm priv)
{
    if (!tb_nbc_busy())
        return 0;
    lock_take();
    int found = running_on(priv);
    lock_give();
    return found;
}

int tb_nbc_uses(MPI_Comm priv)
{
    if (running_on(priv))
        return 1;
    const comm_entry *e = comm_find(priv, 0);
    return e && e->refs > 0;
}

void tb_nbc_forget(MPI_Comm priv)
{
    comm_entry *e = comm_find(priv, 0);
    if (e)
        comm_drop(e);
}

int tb_nbc_persistent(void)
{
    return __atomic_load_n(&npersistent, __ATOMIC_RELAXED);
}

/* selfcomm and the tag bounds, on first use (lock held). */
static int setup(void)
{
    if (selfcomm != MPI_COMM_NULL)
        return MPI_SUCCESS;
    void *v = NULL;
    int found = 0, ub = 32767;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &found) == MPI_SUCCESS && found && v)
        ub = *(int *)v;
    shell_ub = ub;
    long slots = ((long)ub - TB_NBC_TAG0 + 1) / TB_ENGINE_TAGS;
    if (slots > TB_NBC_MAX_SLOTS)
        slots = TB_NBC_MAX_SLOTS;
    half_slots = (int)(slots / 2);
    return PMPI_Comm_dup(MPI_COMM_SELF, &selfcomm);
}

static comm_entry *comm_find(MPI_Comm priv, int create)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i].priv == priv)
            return &comms[i];
    if (!create)
        return NULL;
    if (ncomms == comms_cap) {
        int cap = comms_cap ? 2 * comms_cap : 8;
        comm_entry *c = realloc(comms, sizeof *c * (size_t)cap);
        if (!c)
            return NULL;
        comms = c;
        comms_cap = cap;
    }
    comm_entry *e = &comms[ncomms++];
    *e = (comm_entry){.priv = priv};
    return e;
}

static void comm_drop(comm_entry *e)
{
    *e = comms[--ncomms];
}

/* A tag on selfcomm that no request of the library waits on (lock held). */
static int shell_tag_new(void)
{
    for (;;) {
        int t = (int)(shell_next++ % ((unsigned long)shell_ub + 1));
        int used = 0;
        for (tb_nbc *nb = head; nb && !used; nb = nb->next)
            used = nb->shell_tag == t;
        for (int i = 0; i < npersistent && !used; i++)
            used = pers[i]->shell_tag == t;
        if (!used)
            return t;
    }
}

/* ended[]: add (a request the application holds still), find, drop
 * (lock held).  Without memory the request is just not the library's
 * any more: a call on it goes on like any other. */
static void ended_add(MPI_Request r)
{
    if (nended == ended_cap) {
        int cap = ended_cap ? 2 * ended_cap : 8;
        MPI_Request *e = realloc(ended, sizeof *e * (size_t)cap);
        if (!e)
            return;
        ended = e;
        ended_cap = cap;
    }
    ended[nended] = r;
    __atomic_add_fetch(&nended, 1, __ATOMIC_RELEASE);
}

static int ended_find(MPI_Request r)
{
    for (int i = 0; i < nended; i++)
        if (ended[i] == r)
            return i;
    return -1;
}

static void ended_drop(int i)
{
    ended[i] = ended[nended - 1];
    __atomic_sub_fetch(&nended, 1, __ATOMIC_RELAXED);
}

static void nbc_free(tb_nbc *nb)
{
    if (nb->persistent) {
        comm_entry *e = comm_find(nb->priv, 0);
        if (e && --e->refs == 0 && e->orphan) {
            tb_mpi.Comm_free(&e->priv);
            comm_drop(e);
        }
    }
    if (nb->type_dup)
        PMPI_Type_free(&nb->type);
    tb_schedule_free(&nb->sched);
    free(nb);
}

/* nb takes the call c the dispatch decided the library runs: a copy of its
 * schedule, its message, duplicate and statistics, and the tags of its
 * slot on the duplicate (lock held; in call order, as every rank does).
 * \return 0, or -1 out of memory (nb unchanged but for the schedule). */
static int nbc_take(tb_nbc *nb, const tb_bcast_call *c, int persistent)
{
    comm_entry *e = comm_find(c->priv, 1);
    if (!e || tb_schedule_copy(&nb->sched, c->sched) != 0)
        return -1;
    nb->msg = c->msg;
    nb->priv = c->priv;
    nb->is_root = c->is_root;
    nb->rule = c->rule;
    nb->count_it = c->count_it;
    nb->alg = c->spec.id;
    nb->shm = c->shm;
    nb->persistent = persistent;
    if (persistent) {
        e->refs++;
        nb->tag = TB_NBC_TAG0 + TB_ENGINE_TAGS * (half_slots + (int)(e->inits++ % (unsigned long)half_slots));
    } else {
        nb->tag = TB_NBC_TAG0 + TB_ENGINE_TAGS * (int)(e->started++ % (unsigned long)half_slots);
    }
    return 0;
}

/* The operation for a decided call (lock held). */
static tb_nbc *nbc_new(const tb_bcast_call *c, int persistent)
{
    tb_nbc *nb = calloc(1, sizeof *nb);
    if (nb && nbc_take(nb, c, persistent) != 0) {
        free(nb);
        return NULL;
    }
    if (nb) {
        nb->shell = MPI_REQUEST_NULL;
        nb->shell_tag = shell_tag_new();
    }
    return nb;
}

/* Whether an earlier operation on nb's duplicate (one ahead of nb in the
 * list, or any when nb is not in it yet) holds nb's tags: an MPI_Ibcast
 * then waits for it (only after half_slots outstanding operations; lock
 * held). */
static int slot_busy(const tb_nbc *nb)
{
    for (const tb_nbc *o = head; o && o != nb; o = o->next)
        if (o->priv == nb->priv && o->tag == nb->tag)
            return 1;
    return 0;
}

/* Starts nb's engine on its message: a failed preparation ends the
 * operation at once, with its error (lock held). */
static void engine_begin(tb_nbc *nb)
{
    int rc = tb_msg_prepare(&nb->msg, nb->is_root, nb->priv);
    tb_engine_start(&nb->op, &nb->sched, nb->msg.image, rc == MPI_SUCCESS ? nb->msg.bytes : 0, nb->priv, nb->tag,
                    0, nb->shm);
    if (rc != MPI_SUCCESS)
        nb->op.rc = rc;
    nb->engine_done = rc != MPI_SUCCESS;
    nb->kind = NBC_ENGINE;
}

/* The application's request completes: its receive gets its message. */
static void complete(tb_nbc *nb)
{
    int rc = nb->op.rc;
    if (nb->kind == NBC_ENGINE) {
        int frc = tb_msg_finish(&nb->msg, nb->is_root, nb->priv);
        if (rc == MPI_SUCCESS)
            rc = frc;
        if (rc == MPI_SUCCESS)
            tb_stats_count(nb->alg, nb->msg.bytes, nb->rule, nb->count_it);
    }
    if (rc != MPI_SUCCESS) {
        /* the request completes as a receive would, without the error:
         * said here, once per process, with MPI's words */
        static int warned;
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS)
            snprintf(text, sizeof text, "MPI error %d", rc);
        tb_log_once(&warned, "a non-blocking broadcast (MPI_Ibcast or MPI_Start) failed: %s; its request completes "
                             "without the error, and its buffer does not hold the root's data", text);
    }
    /* the application's request stays the library's once ended: recorded
     * before anything shows it ended (the count of operations in progress,
     * the message that completes the request), which another thread may
     * see without the lock (holds_any, tb_nbc_settled) */
    if (!nb->persistent && !nb->released)
        ended_add(nb->shell);
    nb->active = 0;
    __atomic_sub_fetch(&tb_nbc_nactive, 1, __ATOMIC_RELEASE);
    MPI_Request sreq;
    if (PMPI_Isend(NULL, 0, MPI_BYTE, 0, nb->shell_tag, selfcomm, &sreq) == MPI_SUCCESS)
        tb_mpi.Request_free(&sreq);
    if (nb->released) {
        /* the application let go of it: the library completes and frees it
         * (freeing an active receive in MPI could leave it unmatched) */
        tb_mpi.Wait(&nb->shell, MPI_STATUS_IGNORE);
        if (nb->persistent)
            tb_mpi.Request_free(&nb->shell);
    }
    if (!nb->persistent || nb->released)
        nbc_free(nb);
}

/* Is an unfinished operation on nb's communicator ahead of nb? */
static int preceded(const tb_nbc *nb)
{
    for (const tb_nbc *o = head; o != nb; o = o->next)
        if (o->priv == nb->priv)
            return 1;
    return 0;
}

/* A deferred MPI_Ibcast whose communicator's set-up has ended here, and
 * before which no other deferred one of that communicator waits: decided
 * now (as every rank decides it, nb->cs NULL from then on) and started,
 * the engine once no other operation holds its tags, as launch does
 * (lock held).
 * \return 1 once started, 0 while it still waits. */
static int resolve(tb_nbc *nb)
{
    if (nb->cs) {
        for (const tb_nbc *o = head; o != nb; o = o->next)
            if (o->kind == NBC_DEFERRED && o->cs == nb->cs)
                return 0;
        if (!nb->how->ready(nb->cs))
            return 0;
        tb_bcast_call c = {.cs = nb->cs, .msg = nb->msg};
        nb->how->waiting(nb->cs, -1);
        tb_call_kind k = nb->how->resolve(nb->root, &c);
        nb->cs = NULL;
        if (k != TB_CALL_LIBRARY || nbc_take(nb, &c, 0) != 0) {
            /* MPI's own (on the duplicate), or nothing when out of memory */
            int rc = k == TB_CALL_LIBRARY ? MPI_ERR_NO_MEM
                                          : tb_pmpi_ibcast(nb->buf, nb->count, nb->type, nb->root, c.mpi_comm,
                                                           &nb->inner);
            nb->kind = NBC_MPI;
            nb->op.rc = rc;
            nb->engine_done = rc != MPI_SUCCESS;
            return 1;
        }
    }
    if (slot_busy(nb))
        return 0;
    engine_begin(nb);
    return 1;
}

/* NBC_MPI: whether MPI's broadcast has ended (its error in op.rc). */
static int mpi_done(tb_nbc *nb)
{
    int flag = 0;
    int rc = tb_mpi.Test(&nb->inner, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        nb->op.rc = rc;
    return rc != MPI_SUCCESS || flag;
}

static void progress_locked(void)
{
    for (tb_nbc *nb = head; nb; nb = nb->next) {
        if (nb->kind == NBC_DEFERRED && !resolve(nb))
            continue;
        if (!nb->engine_done)
            nb->engine_done = nb->kind == NBC_MPI ? mpi_done(nb) : tb_engine_progress(&nb->op);
    }
    tb_nbc **pp = &head;
    tail = NULL;
    while (*pp) {
        tb_nbc *nb = *pp;
        if (nb->engine_done && !preceded(nb)) {
            *pp = nb->next;
            complete(nb);
        } else {
            tail = nb;
            pp = &nb->next;
        }
    }
    if (reaper)
        reaper();
}

void tb_nbc_set_reaper(void (*fn)(void))
{
    __atomic_store_n(&reaper, fn, __ATOMIC_RELAXED);
}

void tb_nbc_progress_then(void (*fn)(void *), void *arg)
{
    lock_take();
    progress_locked();
    fn(arg);
    lock_give();
}

void tb_nbc_progress(void)
{
    if (!tb_nbc_busy() || pthread_mutex_trylock(&lock) != 0)
        return;
    held = 1;
    progress_locked();
    lock_give();
}

int tb_nbc_wait(MPI_Request *req, MPI_Status *status)
{
    while (tb_nbc_busy()) {
        int flag = 0;
        tb_nbc_progress();
        int rc = tb_mpi.Test(req, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return tb_mpi.Wait(req, status);
}

void tb_nbc_progress_until(int count, const MPI_Request reqs[])
{
    int i = 0; /* reqs[0..i) have completed (a request stays so) */
    while (i < count && tb_nbc_busy()) {
        tb_nbc_progress();
        for (; i < count; i++) {
            int flag = 1;
            if (reqs[i] != MPI_REQUEST_NULL &&
                tb_mpi.Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                flag = 1; /* the call that follows reports it */
            if (!flag)
                break;
        }
    }
}

/* nb joins the operations in progress, last, and they all move on (lock
 * held). */
static void enqueue(tb_nbc *nb)
{
    nb->active = 1;
    nb->next = NULL;
    if (tail)
        tail->next = nb;
    else
        head = nb;
    tail = nb;
    __atomic_add_fetch(&tb_nbc_nactive, 1, __ATOMIC_RELAXED);
    progress_locked();
}

/* Starts nb's engine and queues it (lock held). */
static void launch(tb_nbc *nb)
{
    while (!nb->persistent && slot_busy(nb))
        progress_locked();
    engine_begin(nb);
    enqueue(nb);
}

int tb_nbc_ibcast(const tb_bcast_call *c, MPI_Request *req)
{
    lock_take();
    int rc = setup();
    tb_nbc *nb = rc == MPI_SUCCESS ? nbc_new(c, 0) : NULL;
    if (rc == MPI_SUCCESS && !nb)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, 0, nb->shell_tag, selfcomm, req);
    if (rc == MPI_SUCCESS) {
        nb->shell = *req;
        launch(nb);
    }
    else if (nb)
        nbc_free(nb);
    lock_give();
    return rc;
}

int tb_nbc_defer(const tb_bcast_call *c, void *buf, MPI_Count count, MPI_Datatype type, int root,
                 const tb_nbc_deferral *how, MPI_Request *req)
{
    lock_take();
    int rc = setup();
    tb_nbc *nb = rc == MPI_SUCCESS ? calloc(1, sizeof *nb) : NULL;
    if (rc == MPI_SUCCESS && !nb)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        nb->kind = NBC_DEFERRED;
        nb->cs = c->cs;
        nb->how = how;
        nb->msg = c->msg;
        nb->buf = buf;
        nb->count = count;
        nb->type = type;
        nb->root = root;
        nb->priv = c->priv;
        nb->shell = nb->inner = MPI_REQUEST_NULL;
        int ni, na, nd, combiner = MPI_COMBINER_NAMED;
        PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
        if (combiner != MPI_COMBINER_NAMED && (rc = PMPI_Type_dup(type, &nb->type)) == MPI_SUCCESS)
            nb->type_dup = 1;
        nb->msg.type = nb->type;
    }
    if (rc == MPI_SUCCESS) {
        nb->shell_tag = shell_tag_new();
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, 0, nb->shell_tag, selfcomm, req);
    }
    if (rc == MPI_SUCCESS) {
        nb->shell = *req;
        how->waiting(c->cs, +1);
        enqueue(nb);
    } else if (nb) {
        nbc_free(nb);
    }
    lock_give();
    return rc;
}

#if MPI_VERSION >= 4
int tb_nbc_bcast_init(const tb_bcast_call *c, MPI_Request *req)
{
    lock_take();
    int rc = setup();
    tb_nbc *nb = rc == MPI_SUCCESS ? nbc_new(c, 1) : NULL;
    if (rc == MPI_SUCCESS && !nb)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && npersistent == pers_cap) {
        int cap = pers_cap ? 2 * pers_cap : 8;
        tb_nbc **p = realloc(pers, sizeof *p * (size_t)cap);
        if (p) {
            pers = p;
            pers_cap = cap;
        } else {
            rc = MPI_ERR_NO_MEM;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, nb->shell_tag, selfcomm, &nb->shell);
    if (rc == MPI_SUCCESS) {
        pers[npersistent] = nb;
        __atomic_add_fetch(&npersistent, 1, __ATOMIC_RELAXED);
        *req = nb->shell;
    } else if (nb) {
        nbc_free(nb);
    }
    lock_give();
    return rc;
}
#endif

/* Index of the persistent request *req in pers[], or -1 (lock held). */
static int pers_find(const MPI_Request *req)
{
    for (int i = 0; i < npersistent; i++)
        if (pers[i]->shell == *req)
            return i;
    return -1;
}

/* The MPI_Ibcast in progress whose request the application holds as *req,
 * or NULL (lock held). */
static tb_nbc *active_of(const MPI_Request *req)
{
    for (tb_nbc *o = head; o; o = o->next)
        if (!o->persistent && !o->released && o->shell == *req)
            return o;
    return NULL;
}

/* Whether the library holds any request (a fast check, without the lock:
 * an operation that ends counts in nended before it leaves nactive). */
static int holds_any(void)
{
    return tb_nbc_persistent() || __atomic_load_n(&tb_nbc_nactive, __ATOMIC_ACQUIRE) ||
           __atomic_load_n(&nended, __ATOMIC_ACQUIRE);
}

int tb_nbc_owns_any(int count, const MPI_Request reqs[])
{
    if (!holds_any() || !reqs || count <= 0)
        return 0;
    int found = 0;
    lock_take();
    for (int i = 0; i < count && !found; i++)
        found = reqs[i] != MPI_REQUEST_NULL &&
                (pers_find(&reqs[i]) >= 0 || active_of(&reqs[i]) != NULL || ended_find(reqs[i]) >= 0);
    lock_give();
    return found;
}

void tb_nbc_settled(int count, const MPI_Request before[], const MPI_Request after[])
{
    /* a request recorded as ended was so before MPI could complete it */
    if (!__atomic_load_n(&nended, __ATOMIC_ACQUIRE))
        return;
    lock_take();
    for (int i = 0, k; i < count; i++)
        if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL && (k = ended_find(before[i])) >= 0)
            ended_drop(k);
    lock_give();
}

int tb_nbc_owns(const MPI_Request *req)
{
    return tb_nbc_owns_any(1, req);
}

int tb_nbc_start(MPI_Request *req, int *rc)
{
    if (!tb_nbc_persistent() || !req)
        return 0;
    lock_take();
    int i = pers_find(req);
    if (i >= 0) {
        tb_nbc *nb = pers[i];
        *rc = nb->active ? MPI_ERR_REQUEST : tb_mpi.Start(&nb->shell);
        if (*rc == MPI_SUCCESS)
            launch(nb);
    }
    lock_give();
    return i >= 0;
}

int tb_nbc_request_free(MPI_Request *req, int *rc)
{
    if (!holds_any() || !req || *req == MPI_REQUEST_NULL)
        return 0;
    lock_take();
    tb_nbc *nb = NULL;
    int i = pers_find(req), e;
    if (i >= 0) {
        nb = pers[i];
        pers[i] = pers[npersistent - 1];
        __atomic_sub_fetch(&npersistent, 1, __ATOMIC_RELAXED);
    } else if (!(nb = active_of(req)) && (e = ended_find(*req)) >= 0) {
        /* an ended MPI_Ibcast's: a completed receive */
        ended_drop(e);
        *rc = tb_mpi.Request_free(req);
        lock_give();
        return 1;
    }
    if (nb) {
        *rc = MPI_SUCCESS;
        *req = MPI_REQUEST_NULL;
        if (nb->active) {
            nb->released = 1; /* completed and freed with the broadcast */
        } else {
            *rc = tb_mpi.Request_free(&nb->shell);
            nbc_free(nb);
        }
    }
    lock_give();
    return nb != NULL;
}

/* Runs to their end the operations in progress on priv, or on every
 * communicator when priv is MPI_COMM_NULL (lock held). */
static void drain(MPI_Comm priv)
{
    for (;;) {
        int left = 0;
        for (tb_nbc *nb = head; nb && !left; nb = nb->next)
            left = priv == MPI_COMM_NULL || nb->priv == priv;
        if (!left)
            return;
        progress_locked();
    }
}

void tb_nbc_finalize(void)
{
    lock_take();
    drain(MPI_COMM_NULL);
    free(ended); /* requests the application never completed */
    ended = NULL;
    ended_cap = 0;
    __atomic_store_n(&nended, 0, __ATOMIC_RELAXED);
    if (selfcomm != MPI_COMM_NULL && npersistent == 0)
        tb_mpi.Comm_free(&selfcomm);
    lock_give();
}

int tb_nbc_release_comm(MPI_Comm priv)
{
    lock_take();
    drain(priv);
    comm_entry *e = comm_find(priv, 0);
    int keep = e && e->refs > 0;
    if (keep)
        e->orphan = 1;
    else if (e)
        comm_drop(e);
    lock_give();
    return keep;
}
