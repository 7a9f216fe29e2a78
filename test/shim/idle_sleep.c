/* LD_PRELOAD shim for oversubscribed test runs (the emulated cluster's
 * ranks, and the suites' runs with more ranks than cores, test/suites/lib.sh):
 * a rank that polls UCX without finding work sleeps briefly instead of
 * spinning on.  Only timing changes, never what MPI delivers; runs with no
 * more ranks than cores go without it, so real busy-polling is tested too.
 *
 * MPICH (ch4:ucx) waits by busy-polling ucp_worker_progress, and it never
 * yields.  On this 2-core machine the 4 node ranks plus other work are
 * oversubscribed, so while two ranks measure a message, the ranks waiting
 * their turn take the cores, and the measured pair only runs when the
 * scheduler's tick hands the core back: every transfer then costs whole
 * multiples of 4 ms (HZ=250).  Seen with topobcast-probe over 4 nodes: 0 B
 * and 64 KiB within an island at 12-60 ms instead of ~20 us and ~0.1 ms,
 * hiding the trunk entirely.
 *
 * The shim wraps ucp_worker_progress (MPICH calls it through the PLT): after
 * VC_IDLE_SPINS (default 64) empty polls in a row, the thread sleeps
 * VC_IDLE_SLEEP_US (default 20) microseconds.  A message that arrives while
 * a rank sleeps waits at most that long plus the timer slack (~50 us), far
 * below a scheduler tick.  VC_IDLE_SLEEP_US=0 turns the sleep off.
 *
 * The suites' matrix at 8 ranks on 2 cores, one spec (pipeline:segment=3001,
 * 105 cases), at load 16: 51-61 s without the shim, 11-13 s with it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <ucp/api/ucp.h>

typedef unsigned (*progress_fn)(ucp_worker_h);

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    return (*end || v < 0) ? dflt : v;
}

unsigned ucp_worker_progress(ucp_worker_h worker)
{
    static progress_fn real;
    static long spins = -1, sleep_us;
    static __thread long idle;
    if (!real) {
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        sleep_us = env_long("VC_IDLE_SLEEP_US", 20);
        spins = env_long("VC_IDLE_SPINS", 64);
    }
    unsigned events = real(worker);
    if (events) {
        idle = 0;
    } else if (sleep_us > 0 && ++idle >= spins) {
        struct timespec ts = {0, sleep_us * 1000};
        idle = 0;
        nanosleep(&ts, NULL);
    }
    return events;
}
