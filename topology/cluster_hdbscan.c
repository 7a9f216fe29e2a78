/* HDBSCAN (Campello, Moulavi & Sander 2013; the condensed tree and excess-of-
 * mass selection as popularised by the hdbscan library).  Chosen because it
 * needs no distance threshold: clusters are the groups that stay together
 * over the widest range of density, which is what a socket or node is in a
 * latency matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_internal.h"

/* k-th smallest (0-based) of a[0..n) by quickselect; a is reordered. */
static double select_kth(double *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

typedef struct mst_edge {
    int a, b;
    double w;
} mst_edge;

static int cmp_edge(const void *x, const void *y)
{
    const mst_edge *p = x, *q = y;
    if (p->w < q->w)
        return -1;
    if (p->w > q->w)
        return 1;
    if (p->a != q->a)
        return p->a - q->a;
    return p->b - q->b;
}

/* Condensed-tree cluster. */
typedef struct ccluster {
    int parent;      /* -1 for the root */
    double birth;    /* lambda at which it appeared */
    double stab;     /* stability, later the best subtree stability */
    int selected;
    int nchild;
} ccluster;

int tt_hdbscan(const double *D, int n, int min_samples, int min_cluster_size, int *labels,
               tt_dendrogram *mr)
{
    if (!D || !labels || n < 1 || min_samples < 1 || min_cluster_size < 2)
        return -1;
    if (mr) {
        mr->n = n;
        mr->merge = NULL;
    }
    if (min_samples > n)
        min_samples = n;
    double *core = malloc((size_t)n * sizeof *core);
    double *tmp = malloc((size_t)n * sizeof *tmp);
    if (!core || !tmp) {
        free(core);
        free(tmp);
        return -1;
    }
    /* core distance: the point itself is its first neighbour */
    for (int i = 0; i < n; i++) {
        memcpy(tmp, D + (size_t)i * n, (size_t)n * sizeof *tmp);
        tmp[i] = 0.0;
        core[i] = select_kth(tmp, n, min_samples - 1);
    }
    free(tmp);
    int rc = tt_hdbscan_core(D, n, core, min_cluster_size, labels, mr);
    free(core);
    return rc;
}

int tt_hdbscan_core(const double *D, int n, const double *core, int min_cluster_size,
                    int *labels, tt_dendrogram *mr)
{
    if (!D || !core || !labels || n < 1 || min_cluster_size < 2)
        return -1;
    if (mr) {
        mr->n = n;
        mr->merge = NULL;
    }
    if (n == 1) {
        labels[0] = -1;
        return 0;
    }
    int rc = -1;
    double *best = malloc((size_t)n * sizeof *best);
    int *from = malloc((size_t)n * sizeof *from);
    char *in = calloc((size_t)n, 1);
    mst_edge *e = malloc((size_t)(n - 1) * sizeof *e);
    int *parent = malloc((size_t)n * sizeof *parent);
    int *cid = malloc((size_t)n * sizeof *cid);
    tt_merge *mg = malloc((size_t)(n - 1) * sizeof *mg);
    int *lab = malloc((size_t)(2 * n - 1) * sizeof *lab);    /* dendrogram node -> cluster */
    int *stack = malloc((size_t)(2 * n) * sizeof *stack);
    int *pt_parent = malloc((size_t)n * sizeof *pt_parent);
    double *pt_lambda = malloc((size_t)n * sizeof *pt_lambda);
    ccluster *cl = malloc((size_t)n * sizeof *cl);
    if (!best || !from || !in || !e || !parent || !cid || !mg || !lab || !stack ||
        !pt_parent || !pt_lambda || !cl)
        goto out;

    /* 2. Prim's MST on the mutual reachability distance */
    for (int i = 0; i < n; i++) {
        best[i] = INFINITY;
        from[i] = -1;
    }
    int cur = 0;
    in[0] = 1;
    for (int step = 0; step < n - 1; step++) {
        int nxt = -1;
        for (int j = 0; j < n; j++) {
            if (in[j])
                continue;
            double d = D[(size_t)cur * n + j];
            if (core[cur] > d)
                d = core[cur];
            if (core[j] > d)
                d = core[j];
            if (d < best[j]) {
                best[j] = d;
                from[j] = cur;
            }
            if (nxt < 0 || best[j] < best[nxt])
                nxt = j;
        }
        e[step].a = from[nxt] < nxt ? from[nxt] : nxt;
        e[step].b = from[nxt] < nxt ? nxt : from[nxt];
        e[step].w = best[nxt];
        in[nxt] = 1;
        cur = nxt;
    }
    qsort(e, (size_t)(n - 1), sizeof *e, cmp_edge);
    /* 3. single-linkage dendrogram of the MST */
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        cid[i] = i;
    }
    int *size = from; /* reuse: cluster size per union-find root */
    for (int i = 0; i < n; i++)
        size[i] = 1;
    for (int r = 0; r < n - 1; r++) {
        int ra = tt_uf_find(parent, e[r].a), rb = tt_uf_find(parent, e[r].b);
        int ca = cid[ra], cb = cid[rb];
        mg[r].a = ca < cb ? ca : cb;
        mg[r].b = ca < cb ? cb : ca;
        mg[r].dist = e[r].w;
        mg[r].size = size[ra] + size[rb];
        int root = tt_uf_union(parent, ra, rb);
        cid[root] = n + r;
        size[root] = mg[r].size;
    }

    /* 4. condensed tree.  lambda = 1/distance; exact zeros get a finite
     * lambda just above the largest real one so stabilities stay finite. */
    double dpos = INFINITY;
    for (int r = 0; r < n - 1; r++)
        if (mg[r].dist > 0.0 && mg[r].dist < dpos)
            dpos = mg[r].dist;
    double lambda_zero = isfinite(dpos) ? 2.0 / dpos : 1.0;
#define LAMBDA(dist) ((dist) > 0.0 ? 1.0 / (dist) : lambda_zero)
#define NODE_SIZE(id) ((id) < n ? 1 : mg[(id) - n].size)
    int ncl = 0;
    cl[0] = (ccluster){.parent = -1, .birth = 0.0, .stab = 0.0, .selected = 0, .nchild = 0};
    ncl = 1;
    int sp = 0;
    lab[2 * n - 2] = 0;
    stack[sp++] = 2 * n - 2;
    while (sp > 0) {
        int node = stack[--sp];
        int c = lab[node];
        if (node < n) {
            /* a leaf reached while its cluster is still alive: it leaves
             * when its cluster does, handled below by the falling branch */
            continue;
        }
        const tt_merge *m = &mg[node - n];
        double lam = LAMBDA(m->dist);
        int kids[2] = {m->a, m->b};
        int big[2];
        for (int t = 0; t < 2; t++)
            big[t] = NODE_SIZE(kids[t]) >= min_cluster_size;
        if (big[0] && big[1]) {
            for (int t = 0; t < 2; t++) {
                int nc = ncl++;
                cl[nc] = (ccluster){.parent = c, .birth = lam, .stab = 0.0, .selected = 0,
                                    .nchild = 0};
                cl[c].nchild++;
                cl[c].stab += (lam - cl[c].birth) * NODE_SIZE(kids[t]);
                lab[kids[t]] = nc;
                stack[sp++] = kids[t];
            }
            continue;
        }
        for (int t = 0; t < 2; t++) {
            if (big[t]) {
                lab[kids[t]] = c; /* the cluster continues, only shrinking */
                stack[sp++] = kids[t];
                continue;
            }
            /* every point below kids[t] falls out of c at lam */
            int sub_sp = 0;
            int *sub = stack + sp; /* free space above the live stack */
            sub[sub_sp++] = kids[t];
            while (sub_sp > 0) {
                int x = sub[--sub_sp];
                if (x < n) {
                    pt_parent[x] = c;
                    pt_lambda[x] = lam;
                    cl[c].stab += lam - cl[c].birth;
                } else {
                    sub[sub_sp++] = mg[x - n].a;
                    sub[sub_sp++] = mg[x - n].b;
                }
            }
        }
    }
    /* 5. excess-of-mass selection, children before parents (clusters are
     * numbered in creation order, so descending order is bottom-up) */
    double *subtree = best; /* reuse: best selectable stability below */
    for (int c = 0; c < ncl; c++)
        subtree[c] = 0.0;
    for (int c = ncl - 1; c >= 1; c--) {
        if (cl[c].nchild > 0 && subtree[c] > cl[c].stab) {
            cl[c].stab = subtree[c];
            cl[c].selected = 0;
        } else {
            cl[c].selected = 1;
        }
        subtree[cl[c].parent] += cl[c].stab;
    }
    /* a selected cluster hides every selected descendant */
    for (int c = 1; c < ncl; c++) {
        for (int a = cl[c].parent; a > 0; a = cl[a].parent)
            if (cl[a].selected) {
                cl[c].selected = 0;
                break;
            }
    }
    /* 6. labels: the selected cluster on the way up from where a point fell */
    for (int p = 0; p < n; p++) {
        labels[p] = -1;
        for (int c = pt_parent[p]; c > 0; c = cl[c].parent)
            if (cl[c].selected) {
                labels[p] = c;
                break;
            }
    }
    rc = tt_labels_canonical(labels, n);
    if (mr && rc >= 0) {
        mr->merge = mg;
        mg = NULL;
    }
#undef LAMBDA
#undef NODE_SIZE
out:
    free(best); free(from); free(in); free(e); free(parent); free(cid);
    free(mg); free(lab); free(stack); free(pt_parent); free(pt_lambda); free(cl);
    return rc;
}
