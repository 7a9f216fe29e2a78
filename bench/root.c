/* The root of each repetition, and its name, for --root R|rotate; see bench.h. */
#include "bench.h"

int tbb_root_at(int root, int np, int rep)
{
    if (root >= 0)
        return root;
    return (rep < 0 ? -rep : rep) % np;
}

const char *tbb_root_name(int root, char *buf, size_t len)
{
    if (root < 0)
        snprintf(buf, len, "rotate");
    else
        snprintf(buf, len, "%d", root);
    return buf;
}
