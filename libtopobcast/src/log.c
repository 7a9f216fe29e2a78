#include "log.h"

#include <stdarg.h>
#include <stdio.h>

int tb_world_rank(void)
{
    int init = 0, fin = 0, r = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin)
        PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static void vlog(const char *fmt, va_list ap)
{
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    /* one write per line so ranks' messages do not interleave mid-line */
    fprintf(stderr, "topobcast: %s\n", line);
    fflush(stderr);
}

void tb_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void tb_log_world0(const char *fmt, ...)
{
    if (tb_world_rank() != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void tb_log_once(int *flag, const char *fmt, ...)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_ACQ_REL))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}
