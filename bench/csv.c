/* The end of a --csv file: a write that failed shows at the close; see
 * bench.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

int tbb_csv_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    errno = 0;
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "topobcast-bench: cannot write %s: %s\n", path, errno ? strerror(errno) : "write error");
        return -1;
    }
    return 0;
}
