/* Label bookkeeping shared by every method: canonical numbering makes
 * results comparable byte for byte between methods and runs. */
#include <stdlib.h>

#include "cluster.h"
#include "cluster_internal.h"

/* Largest label, -1 when all are noise (or n == 0). */
static int max_label(const int *labels, int n)
{
    int maxl = -1;
    for (int i = 0; i < n; i++)
        if (labels[i] > maxl)
            maxl = labels[i];
    return maxl;
}

int tt_labels_canonical(int *labels, int n)
{
    int maxl = max_label(labels, n);
    if (maxl < 0)
        return 0;
    int *map = malloc((size_t)(maxl + 1) * sizeof *map);
    int k = 0;
    if (!map)
        return -1;
    for (int i = 0; i <= maxl; i++)
        map[i] = -1;
    for (int i = 0; i < n; i++) {
        if (labels[i] < 0) {
            labels[i] = -1;
            continue;
        }
        if (map[labels[i]] < 0)
            map[labels[i]] = k++;
        labels[i] = map[labels[i]];
    }
    free(map);
    return k;
}

int tt_labels_count(const int *labels, int n)
{
    int maxl = max_label(labels, n);
    if (maxl < 0)
        return 0;
    char *seen = calloc((size_t)maxl + 1, 1);
    if (!seen)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (labels[i] >= 0 && !seen[labels[i]]) {
            seen[labels[i]] = 1;
            k++;
        }
    free(seen);
    return k;
}

int tt_labels_noise(const int *labels, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += labels[i] < 0;
    return c;
}

int tt_labels_from_uf(int *parent, int n, int *labels)
{
    for (int i = 0; i < n; i++)
        labels[i] = tt_uf_find(parent, i);
    return tt_labels_canonical(labels, n);
}
