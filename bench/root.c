/* The root of each repetition, for --root R|rotate; see bench.h. */
#include "bench.h"

int tbb_root_at(int root, int np, int rep)
{
    if (root >= 0)
        return root;
    return (rep < 0 ? -rep : rep) % np;
}
