#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int tb_world_ready(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    return init && !fin;
}

int tb_env_rank(void)
{
    const char *r = getenv("PMI_RANK");
    if (!r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    char *end;
    long v = r ? strtol(r, &end, 10) : -1;
    return r && end != r && *end == '\0' && v >= 0 && v <= 0x7fffffff ? (int)v : -1;
}

int tb_world_rank(void)
{
    int r = 0;
    if (tb_world_ready())
        PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    else if ((r = tb_env_rank()) < 0)
        r = 0;
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
