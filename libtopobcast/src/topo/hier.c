/* The communicator hierarchy: allocation, normalisation, distance classes,
 * and the locality-preserving ring order.  Every function here is deterministic in
 * its inputs, because every rank derives the same trees from them without
 * talking to the others. */
#define _GNU_SOURCE /* qsort_r */
#include "hier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tb_hier_alloc(tb_hier *h, int size, int nlevels)
{
    memset(h, 0, sizeof *h);
    if (size < 1 || nlevels < 0)
        return -1;
    h->size = size;
    h->nlevels = nlevels;
    if (nlevels == 0)
        return 0;
    h->level_name = calloc((size_t)nlevels, sizeof *h->level_name);
    h->ngroups = calloc((size_t)nlevels, sizeof(int));
    h->group = calloc((size_t)nlevels, sizeof(int *));
    if (!h->level_name || !h->ngroups || !h->group) {
        tb_hier_free(h);
        return -1;
    }
    for (int l = 0; l < nlevels; l++) {
        h->group[l] = calloc((size_t)size, sizeof(int));
        if (!h->group[l]) {
            tb_hier_free(h);
            return -1;
        }
        h->ngroups[l] = 1; /* zeroed groups: everyone in group 0 */
    }
    return 0;
}

void tb_hier_free(tb_hier *h)
{
    if (h->group)
        for (int l = 0; l < h->nlevels; l++)
            free(h->group[l]);
    free(h->group);
    free(h->ngroups);
    free(h->level_name);
    free(h->dclass);
    memset(h, 0, sizeof *h);
}

static int int_cmp(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* Whether ord[i] starts a run of equal key rows in the sorted order ord. */
static int run_starts(const int *keys, int width, const int *ord, int i)
{
    return i == 0 || memcmp(keys + (size_t)width * (size_t)ord[i - 1], keys + (size_t)width * (size_t)ord[i],
                            sizeof(int) * (size_t)width) != 0;
}

int tb_hier_refine(int n, const int *coarse, const int *fine, int *out)
{
    if (n < 1)
        return 0;
    int *keys = malloc(sizeof(int) * 2 * (size_t)n); /* (coarse, fine) of each rank */
    int *ord = malloc(sizeof(int) * (size_t)n);
    int *lowest = malloc(sizeof(int) * (size_t)n);     /* lowest rank of each group */
    int ng = -1;
    if (!keys || !ord || !lowest)
        goto out;
    for (int r = 0; r < n; r++) {
        keys[2 * r] = coarse ? coarse[r] : 0;
        keys[2 * r + 1] = fine ? fine[r] : 0;
    }
    if (tb_sort_ranks_by_keys(keys, 2, n, ord) != 0)
        goto out;
    /* Runs of equal (coarse, fine) are the groups, each starting with its
     * lowest rank; numbering groups by that rank is first-appearance order. */
    ng = 0;
    for (int i = 0; i < n; i++)
        if (run_starts(keys, 2, ord, i))
            lowest[ng++] = ord[i];
    qsort(lowest, (size_t)ng, sizeof(int), int_cmp);
    for (int g = 0; g < ng; g++)
        out[lowest[g]] = g; /* ids parked at each group's lowest rank ... */
    for (int i = 0, head = 0; i < n; i++) {
        if (run_starts(keys, 2, ord, i))
            head = ord[i];
        out[ord[i]] = out[head]; /* ... then copied to the members */
    }
out:
    free(keys);
    free(ord);
    free(lowest);
    return ng;
}

int tb_hier_normalize(tb_hier *h)
{
    if (h->size < 1 || h->nlevels < 0)
        return -1;
    for (int l = 0; l < h->nlevels; l++) {
        if (!h->group || !h->group[l])
            return -1;
        for (int r = 0; r < h->size; r++)
            if (h->group[l][r] < 0)
                return -1;
    }
    int *ids = malloc(sizeof(int) * (size_t)h->size);
    if (!ids)
        return -1;
    int kept = 0, split_all = 0;
    double *cls = h->dclass, within = cls ? cls[h->nlevels] : 0.0;
    for (int l = 0; l < h->nlevels; l++) {
        /* intersecting with the last kept level makes this one refine it
         * (a no-op when the input was already a proper hierarchy) */
        const int *above = kept > 0 ? h->group[kept - 1] : NULL;
        int ng = tb_hier_refine(h->size, above, h->group[l], ids);
        if (ng < 0) {
            free(ids);
            return -1;
        }
        if (ng <= 1 || ng >= h->size) {
            /* trivial: one group of everyone, or singletons; neither changes
             * any tree, and singletons would only add a level of distance.
             * The first level that splits every rank apart is where ranks of
             * the finest group left first differ: its class is theirs. */
            if (ng >= h->size && ng > 1 && !split_all++ && cls)
                within = cls[l];
            free(h->group[l]);
            h->group[l] = NULL;
            continue;
        }
        memcpy(h->group[l], ids, sizeof(int) * (size_t)h->size);
        if (kept != l) {
            h->group[kept] = h->group[l];
            h->group[l] = NULL;
            memcpy(h->level_name[kept], h->level_name[l], TB_LEVEL_NAME_MAX);
        }
        if (cls)
            cls[kept] = cls[l]; /* kept <= l: cls[kept] was read already */
        h->ngroups[kept] = ng;
        kept++;
    }
    free(ids);
    h->nlevels = kept;
    if (cls)
        cls[kept] = within;
    /* arrays keep their original capacity; tb_hier_free only walks nlevels,
     * and the dropped slots are NULL */
    return 0;
}

void tb_hier_drop_level(tb_hier *h, int l)
{
    if (l < 0 || l >= h->nlevels)
        return;
    free(h->group[l]);
    for (int k = l; k + 1 < h->nlevels; k++) {
        h->group[k] = h->group[k + 1];
        h->ngroups[k] = h->ngroups[k + 1];
        memcpy(h->level_name[k], h->level_name[k + 1], TB_LEVEL_NAME_MAX);
    }
    int kept = 0;
    for (int i = 0; i < h->nalias; i++) {
        if (h->alias_of[i] == l)
            continue; /* a dropped level's aliases go with it */
        h->alias_of[kept] = h->alias_of[i] - (h->alias_of[i] > l);
        memmove(h->alias[kept], h->alias[i], TB_LEVEL_NAME_MAX);
        kept++;
    }
    h->nalias = kept;
    h->group[h->nlevels - 1] = NULL;
    if (h->dclass)
        memmove(h->dclass + l, h->dclass + l + 1, sizeof(double) * (size_t)(h->nlevels - l));
    h->nlevels--;
}

void tb_hier_drop_repeats(tb_hier *h)
{
    for (int l = 1; l < h->nlevels;) {
        if (h->ngroups[l] != h->ngroups[l - 1]) {
            l++;
            continue;
        }
        for (int i = 0; i < h->nalias; i++)
            if (h->alias_of[i] == l)
                h->alias_of[i] = l - 1;
        if (h->nalias < TB_MAX_LEVELS) {
            h->alias_of[h->nalias] = l - 1;
            memcpy(h->alias[h->nalias++], h->level_name[l], TB_LEVEL_NAME_MAX);
        }
        tb_hier_drop_level(h, l);
    }
}

int tb_hier_classes_monotone(const tb_hier *h)
{
    if (!h || !h->dclass)
        return 1;
    for (int l = 0; l < h->nlevels; l++)
        if (!(h->dclass[l] >= h->dclass[l + 1]))
            return 0;
    return 1;
}

double tb_hier_distance(const tb_hier *h, int a, int b)
{
    if (a == b)
        return 0.0;
    if (!h)
        return 1.0;
    int shared = 0; /* levels whose group a and b share, from the coarsest */
    while (shared < h->nlevels && h->group[shared][a] == h->group[shared][b])
        shared++;
    if (h->dclass)
        return h->dclass[shared];
    /* 1 inside the finest group, nlevels + 1 across the coarsest one */
    return (double)(h->nlevels - shared + 1);
}

const char *tb_hier_finest_name(const tb_hier *h, int l)
{
    const char *name = h->level_name[l];
    for (int i = 0; i < h->nalias; i++) /* appended coarse to fine */
        if (h->alias_of[i] == l)
            name = h->alias[i];
    return name;
}

int tb_hier_level_index(const tb_hier *h, const char *name)
{
    if (!h || !name)
        return -1;
    for (int l = 0; l < h->nlevels; l++)
        if (strncmp(h->level_name[l], name, TB_LEVEL_NAME_MAX) == 0)
            return l;
    for (int i = 0; i < h->nalias; i++)
        if (strncmp(h->alias[i], name, TB_LEVEL_NAME_MAX) == 0)
            return h->alias_of[i];
    return -1;
}

typedef struct key_ctx {
    const int *keys;
    int width;
} key_ctx;

static int key_cmp(const void *pa, const void *pb, void *ctx)
{
    const key_ctx *c = ctx;
    int a = *(const int *)pa, b = *(const int *)pb;
    const int *ka = c->keys + (size_t)a * (size_t)c->width, *kb = c->keys + (size_t)b * (size_t)c->width;
    for (int i = 0; i < c->width; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return (a > b) - (a < b);
}

/* One stable counting-sort pass of order[0..n) by column col, whose keys
 * lie in [lo, lo + range), through tmp[n] and count[range + 1]. */
static void count_pass(const int *keys, int width, int n, int col, int lo, int range, int *order, int *tmp,
                       int *count)
{
    memset(count, 0, sizeof(int) * ((size_t)range + 1));
    for (int i = 0; i < n; i++)
        count[keys[(size_t)order[i] * (size_t)width + (size_t)col] - lo + 1]++;
    for (int k = 0; k < range; k++)
        count[k + 1] += count[k];
    for (int i = 0; i < n; i++)
        tmp[count[keys[(size_t)order[i] * (size_t)width + (size_t)col] - lo]++] = order[i];
    memcpy(order, tmp, sizeof(int) * (size_t)n);
}

int tb_sort_ranks_by_keys(const int *keys, int width, int n, int *order)
{
    for (int r = 0; r < n; r++)
        order[r] = r;
    if (n < 2 || width < 1)
        return 0;
    /* Keys are group ids and ranks, below n or a little above: stable
     * counting sorts from the last column to the first (LSD radix) give
     * the lexicographic order, ties by index, in O(width (n + range)) --
     * this sort is most of a hierarchical plan's build.  A column of wider
     * range (no caller has one) takes the comparison sort instead. */
    int *lo = malloc(sizeof(int) * (size_t)width), *range = malloc(sizeof(int) * (size_t)width);
    int maxrange = 0, narrow = lo && range;
    for (int c = 0; narrow && c < width; c++) {
        int a = keys[c], b = keys[c];
        for (int i = 1; i < n; i++) {
            int k = keys[(size_t)i * (size_t)width + (size_t)c];
            a = k < a ? k : a;
            b = k > b ? k : b;
        }
        long long r = (long long)b - a + 1;
        narrow = r <= 4LL * n + 1024;
        lo[c] = a;
        range[c] = (int)r;
        maxrange = narrow && range[c] > maxrange ? range[c] : maxrange;
    }
    int *tmp = narrow ? malloc(sizeof(int) * (size_t)n) : NULL;
    int *count = narrow ? malloc(sizeof(int) * ((size_t)maxrange + 1)) : NULL;
    if (tmp && count) {
        for (int c = width - 1; c >= 0; c--)
            if (range[c] > 1)
                count_pass(keys, width, n, c, lo[c], range[c], order, tmp, count);
    } else {
        /* the indexes themselves are sorted, their keys looked up: 4 bytes
         * a rank of scratch (glibc's merge sort), not a record per rank */
        key_ctx kc = {keys, width};
        qsort_r(order, (size_t)n, sizeof *order, key_cmp, &kc);
    }
    free(lo);
    free(range);
    free(tmp);
    free(count);
    return 0;
}

int tb_hier_ring_order(const tb_hier *h, int size, int root, int *order)
{
    if (size < 1 || root < 0 || root >= size)
        return -1;
    if (h && h->size != size)
        return -1;
    int nl = h ? h->nlevels : 0;
    int width = nl + 1;
    int *keys = malloc(sizeof(int) * (size_t)size * (size_t)width);
    int *mod = calloc((size_t)width, sizeof(int)); /* group ids per level, for rotation */
    if (!keys || !mod) {
        free(keys);
        free(mod);
        return -1;
    }
    for (int l = 0; l < nl; l++)
        for (int x = 0; x < size; x++)
            if (h->group[l][x] >= mod[l])
                mod[l] = h->group[l][x] + 1;
    /* Key per level: the group id, except that inside the root's own groups
     * it is rotated so the root's subgroup comes first (and the others
     * follow cyclically); the last key is the rank, rotated the same way
     * inside the root's finest group only.  Sorting lexicographically walks
     * the levels depth-first, keeps every group contiguous, starts at the
     * root, and leaves other groups in plain increasing order. */
    for (int r = 0; r < size; r++) {
        int *k = keys + (size_t)r * (size_t)width;
        int with_root = 1; /* r shares every level above l with the root */
        for (int l = 0; l < nl; l++) {
            int g = h->group[l][r], g0 = h->group[l][root];
            k[l] = with_root ? (g - g0 + mod[l]) % mod[l] : g;
            with_root = with_root && g == g0;
        }
        k[nl] = with_root ? (r - root + size) % size : r;
    }
    int rc = tb_sort_ranks_by_keys(keys, width, size, order);
    free(keys);
    free(mod);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Canonical order: a numbering of the ranks that depends only on the
 * physical layout (up to swapping interchangeable parts).  Groups get a
 * shape id bottom-up, like tree isomorphism (Aho-Hopcroft-Ullman): a group's
 * signature is the sorted list of its subgroups' (size, shape); equal
 * signatures, equal shape.  Ranks are then ordered depth-first with, among
 * siblings, bigger groups first, then by shape, and only then by lowest
 * rank, which can only decide between groups of the same shape. */

typedef struct shape_rec {
    int parent; /* group one level up */
    int negsize;
    int shape;
} shape_rec;

typedef struct sig_ref {
    const shape_rec *sub; /* the group's subgroups, sorted */
    int n;
    int group;
} sig_ref;

static int sig_cmp(const void *pa, const void *pb)
{
    const sig_ref *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = 0; i < a->n; i++) {
        if (a->sub[i].negsize != b->sub[i].negsize)
            return a->sub[i].negsize < b->sub[i].negsize ? -1 : 1;
        if (a->sub[i].shape != b->sub[i].shape)
            return a->sub[i].shape < b->sub[i].shape ? -1 : 1;
    }
    return 0;
}

int tb_hier_canonical_order(const tb_hier *h, int *pos)
{
    if (!h)
        return -1; /* no size to fill in */
    int P = h->size, L = h->nlevels;
    if (L == 0) {
        for (int r = 0; r < P; r++)
            pos[r] = r;
        return 0;
    }
    int rc = -1;
    /* per level l (and l = L for the ranks themselves): group of each rank,
     * group count, size, lowest rank, shape */
    int **eff = calloc((size_t)L + 1, sizeof(int *));
    int **gsize = calloc((size_t)L + 1, sizeof(int *));
    int **gmin = calloc((size_t)L + 1, sizeof(int *));
    int **shape = calloc((size_t)L + 1, sizeof(int *));
    int *ng = calloc((size_t)L + 1, sizeof(int));
    shape_rec *rec = malloc(sizeof *rec * (size_t)P);
    sig_ref *sig = malloc(sizeof *sig * (size_t)P);
    int *start = malloc(sizeof(int) * ((size_t)P + 1));
    int *keys = malloc(sizeof(int) * (size_t)P * 4);
    int *order = malloc(sizeof *order * (size_t)P);
    int *gpos = NULL, *prev = NULL; /* a level's groups' places in the order, and the level above's */
    if (!eff || !gsize || !gmin || !shape || !ng || !rec || !sig || !start || !keys || !order)
        goto out;
    for (int l = 0; l <= L; l++) {
        if (!(eff[l] = malloc(sizeof(int) * (size_t)P)))
            goto out;
        if (l < L) {
            ng[l] = tb_hier_refine(P, l ? eff[l - 1] : NULL, h->group[l], eff[l]);
        } else {
            ng[l] = P; /* the ranks: groups of one, all of shape 0 */
            for (int r = 0; r < P; r++)
                eff[l][r] = r;
        }
        if (ng[l] < 0)
            goto out;
        /* per group, not per rank: the coarse levels have few */
        gsize[l] = calloc((size_t)ng[l], sizeof(int));
        gmin[l] = malloc(sizeof(int) * (size_t)ng[l]);
        shape[l] = calloc((size_t)ng[l], sizeof(int));
        if (!gsize[l] || !gmin[l] || !shape[l])
            goto out;
        for (int r = P - 1; r >= 0; r--) {
            gsize[l][eff[l][r]]++;
            gmin[l][eff[l][r]] = r;
        }
    }
    for (int l = L - 1; l >= 0; l--) {
        int n = ng[l + 1];
        /* the subgroups c sorted by (parent, negsize, shape): keys and order
         * serve as scratch here (3n <= 4P ints, n <= P) */
        for (int c = 0; c < n; c++) {
            keys[3 * c] = eff[l][gmin[l + 1][c]];
            keys[3 * c + 1] = -gsize[l + 1][c];
            keys[3 * c + 2] = shape[l + 1][c];
        }
        if (tb_sort_ranks_by_keys(keys, 3, n, order) != 0)
            goto out;
        for (int i = 0; i < n; i++) {
            const int *k = keys + 3 * order[i];
            rec[i] = (shape_rec){k[0], k[1], k[2]};
        }
        for (int g = 0, i = 0; g < ng[l]; g++) { /* every group has >= 1 subgroup */
            start[g] = i;
            while (i < n && rec[i].parent == g)
                i++;
            sig[g] = (sig_ref){rec + start[g], i - start[g], g};
        }
        qsort(sig, (size_t)ng[l], sizeof *sig, sig_cmp);
        for (int i = 0, id = 0; i < ng[l]; i++) {
            if (i > 0 && sig_cmp(&sig[i - 1], &sig[i]) != 0)
                id++;
            shape[l][sig[i].group] = id;
        }
    }
    /* Top down: the groups of level l in order of (their parent's place,
     * bigger first, shape, lowest rank), which is depth-first; then the
     * ranks of each finest group in rank order, by a counting pass. */
    for (int l = 0; l < L; l++) {
        int n = ng[l];
        for (int g = 0; g < n; g++) {
            keys[4 * g] = l ? prev[eff[l - 1][gmin[l][g]]] : 0;
            keys[4 * g + 1] = -gsize[l][g];
            keys[4 * g + 2] = shape[l][g];
            keys[4 * g + 3] = gmin[l][g];
        }
        if (!(gpos = malloc(sizeof(int) * (size_t)n)) || tb_sort_ranks_by_keys(keys, 4, n, order) != 0)
            goto out;
        for (int i = 0; i < n; i++)
            gpos[order[i]] = i;
        free(prev);
        prev = gpos;
        gpos = NULL;
    }
    /* start[g] = first place of finest group g: sizes summed in place order */
    for (int g = 0; g < ng[L - 1]; g++)
        order[prev[g]] = g;
    for (int i = 0, at = 0; i < ng[L - 1]; i++) {
        start[order[i]] = at;
        at += gsize[L - 1][order[i]];
    }
    for (int r = 0; r < P; r++)
        pos[r] = start[eff[L - 1][r]]++;
    rc = 0;
out:
    for (int l = 0; l <= L; l++) {
        if (eff)
            free(eff[l]);
        if (gsize)
            free(gsize[l]);
        if (gmin)
            free(gmin[l]);
        if (shape)
            free(shape[l]);
    }
    free(eff);
    free(gsize);
    free(gmin);
    free(shape);
    free(ng);
    free(rec);
    free(sig);
    free(start);
    free(keys);
    free(order);
    free(gpos);
    free(prev);
    return rc;
}
