/* Threshold components: ranks closer than a threshold are linked and every
 * connected component is a group (the "connected components" clustering of
 * the seed thesis).  Equivalent to cutting a single-linkage dendrogram, but
 * needs no dendrogram and keeps the threshold semantics (strict <). */
#include <stdlib.h>

#include "cluster.h"
#include "cluster_internal.h"

int tt_components(const double *D, int n, double threshold, int *labels)
{
    if (!D || !labels || n < 1)
        return -1;
    int *parent = malloc((size_t)n * sizeof *parent);
    if (!parent)
        return -1;
    for (int i = 0; i < n; i++)
        parent[i] = i;
    for (int i = 0; i < n; i++) {
        const double *row = D + (size_t)i * n;
        for (int j = i + 1; j < n; j++)
            if (row[j] < threshold)
                tt_uf_union(parent, i, j);
    }
    int k = tt_labels_from_uf(parent, n, labels);
    free(parent);
    return k;
}
