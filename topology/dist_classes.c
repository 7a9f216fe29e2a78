/* Distance classes as the loader wants them (config/README.md,
 * "distance"): one per level and `within`, every one known, none larger
 * than a coarser one.  The probe's classes (topo_write.c) and a site's
 * (site_build.c) are completed here, by one rule. */
#include <math.h>

#include "topology.h"

int tt_classes_complete(double *cls, int L)
{
    int known = 0;
    for (int c = 0; c <= L; c++) {
        if (isnan(cls[c]) || cls[c] < 0)
            cls[c] = -1;
        else
            known = 1;
    }
    /* an empty class takes its finer neighbour's value, within its
     * coarser one's */
    for (int c = L - 1; c >= 0; c--)
        if (cls[c] < 0)
            cls[c] = cls[c + 1];
    for (int c = L; c > 0 && cls[L] < 0; c--)
        if (cls[c - 1] >= 0)
            cls[L] = cls[c - 1];
    /* a finer class above a coarser one is noise: the coarser takes it */
    for (int c = L; c >= 0; c--) {
        if (cls[c] < 0)
            cls[c] = 0;
        if (c < L && cls[c] < cls[c + 1])
            cls[c] = cls[c + 1];
    }
    return known;
}
