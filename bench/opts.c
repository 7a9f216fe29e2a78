/* Queries on topobcast-bench's options; see bench.h. */
#include <string.h>

#include "bench.h"

int tbb_alg_width(const tbb_opts *o)
{
    int width = 12;
    for (int ai = 0; ai < o->nalgs; ai++)
        if ((int)strlen(o->algs[ai]) > width)
            width = (int)strlen(o->algs[ai]);
    return width;
}
