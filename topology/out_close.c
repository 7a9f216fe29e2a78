/* The end of a tool's output file: a write that failed on the way (a full
 * disk) shows only here, where the tools say so. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topology.h"

int tt_out_close(FILE *f, const char *path, const char *prog)
{
    int bad = ferror(f);
    errno = 0;
    int failed = (f == stdout ? fflush(f) : fclose(f)) != 0;
    if (!failed && !bad)
        return 0;
    if (prog)
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, errno ? strerror(errno) : "write error");
    return -1;
}
