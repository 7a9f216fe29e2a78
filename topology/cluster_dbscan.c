/* DBSCAN (Ester, Kriegel, Sander & Xu 1996) on a distance matrix.  Dense
 * regions become clusters and isolated ranks become noise, which is how a
 * rank with consistently bad measurements should show up. */
#include <stdlib.h>

#include "cluster.h"

int tt_dbscan(const double *D, int n, double eps, int minpts, int *labels)
{
    if (!D || !labels || n < 1 || minpts < 1 || !(eps >= 0.0))
        return -1;
    char *core = malloc((size_t)n);
    int *queue = malloc((size_t)n * sizeof *queue);
    if (!core || !queue) {
        free(core);
        free(queue);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int cnt = 0;
        const double *row = D + (size_t)i * n;
        for (int j = 0; j < n; j++)
            cnt += row[j] <= eps;
        core[i] = cnt >= minpts;
        labels[i] = -1;
    }
    /* Breadth-first expansion from each unvisited core point; border points
     * join the first cluster that reaches them (object order). */
    int k = 0;
    for (int s = 0; s < n; s++) {
        if (!core[s] || labels[s] >= 0)
            continue;
        int head = 0, tail = 0;
        labels[s] = k;
        queue[tail++] = s;
        while (head < tail) {
            int p = queue[head++];
            if (!core[p])
                continue;
            const double *row = D + (size_t)p * n;
            for (int q = 0; q < n; q++) {
                if (labels[q] >= 0 || row[q] > eps)
                    continue;
                labels[q] = k;
                queue[tail++] = q;
            }
        }
        k++;
    }
    free(core);
    free(queue);
    return tt_labels_canonical(labels, n);
}
