/* Progress line with ETA; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* smpicc redirects clock_gettime to simulated time; the user waits in real
 * time. */
#ifdef clock_gettime
#undef clock_gettime
#endif

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double tn_progress_now(void)
{
    return wall();
}

void tn_progress_duration(double s, char *buf, int len)
{
    if (s < 0)
        s = 0;
    long x = (long)(s + 0.5);
    if (x >= 3600)
        snprintf(buf, (size_t)len, "%ldh%02ldm", x / 3600, (x / 60) % 60);
    else if (x >= 60)
        snprintf(buf, (size_t)len, "%ldm%02lds", x / 60, x % 60);
    else
        snprintf(buf, (size_t)len, "%lds", x);
}

void tn_progress_start(tn_progress *p, double total, int active)
{
    memset(p, 0, sizeof *p);
    p->t0 = p->last = wall();
    p->total = total > 0 ? total : 1;
    p->active = active;
    p->tty = active && isatty(2);
}

double tn_progress_elapsed(const tn_progress *p)
{
    return wall() - p->t0;
}

void tn_progress_add(tn_progress *p, double work, const char *what)
{
    if (!p->active)
        return;
    p->done += work;
    double now = wall(), el = now - p->t0;
    double frac = p->done / p->total;
    if (frac > 1)
        frac = 1;
    int tenth = (int)(frac * 10);
    if (!p->tty && tenth <= p->last_tenth && now - p->last < 60)
        return;
    if (p->tty && now - p->last < 0.2 && frac < 1)
        return;
    p->last = now;
    p->last_tenth = tenth;
    char e[32], eta[32];
    tn_progress_duration(el, e, sizeof e);
    if (p->done > 0)
        tn_progress_duration(el * (p->total - p->done) / p->done, eta, sizeof eta);
    else
        snprintf(eta, sizeof eta, "?");
    char line[256];
    int n = snprintf(line, sizeof line, "tuner: %3d%%  elapsed %s  ETA %s  %s", (int)(frac * 100), e, eta,
                     what ? what : "");
    if (p->tty) {
        if (n > 110)
            line[110] = '\0', n = 110;
        fprintf(stderr, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
        p->width = n;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}

void tn_progress_finish(tn_progress *p)
{
    if (p->active && p->tty && p->width)
        fputc('\n', stderr);
}
