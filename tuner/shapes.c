/* The communicators the tuner times; see shapes.h. */
#include "shapes.h"

#include "hier.h" /* tb_sort_ranks_by_keys */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier.h" /* tb_sort_ranks_by_keys */

static const char *const names[TN_SHAPE_COUNT] = {"job", "one-per-node", "one-node", "rows", "half-nodes"};

const char *tn_shape_name(int kind)
{
    return kind >= 0 && kind < TN_SHAPE_COUNT ? names[kind] : "?";
}

int tn_shapes_parse(const char *text)
{
    if (strcmp(text, "all") == 0)
        return (1 << TN_SHAPE_COUNT) - 1;
    int set = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < TN_SHAPE_COUNT && (strlen(names[k]) != len || strncmp(p, names[k], len) != 0))
            k++;
        if (k == TN_SHAPE_COUNT)
            return -1;
        set |= 1 << k;
        p += len;
        if (*p == ',')
            p++;
    }
    return set ? set : -1;
}

void tn_shape_picks_free(tn_shape_pick *out, int n)
{
    for (int i = 0; i < n; i++) {
        free(out[i].members);
        free(out[i].node);
        out[i].members = out[i].node = NULL;
    }
}

/* Adds the ranks with in[r] set, unless too few or already there. */
static int add(tn_shape_pick *out, int *n, int cap, const char *label, const char *in, int P, int min_size)
{
    int size = 0;
    for (int r = 0; r < P; r++)
        size += in[r] != 0;
    if (size < min_size || *n >= cap)
        return 0;
    for (int i = 0; i < *n; i++) {
        int same = out[i].size == size;
        for (int k = 0; same && k < size; k++)
            same = in[out[i].members[k]] != 0;
        if (same)
            return 0;
    }
    int *m = malloc(sizeof *m * (size_t)size), *node = malloc(sizeof *node * (size_t)size);
    if (!m || !node) {
        free(m);
        free(node);
        return -1;
    }
    for (int r = 0, k = 0; r < P; r++)
        if (in[r])
            m[k++] = r;
    tn_shape_pick *p = &out[(*n)++];
    snprintf(p->label, sizeof p->label, "%s", label);
    p->size = size;
    p->members = m;
    p->node = node; /* filled by nodes_of */
    p->ppn_max = 0;
    return 0;
}

/* p's members' nodes (first[r]: the lowest rank of r's node) and the most
 * of them on one node; count[0..P) is zero before and after. */
static void nodes_of(tn_shape_pick *p, const int *first, int *count)
{
    for (int k = 0; k < p->size; k++) {
        p->node[k] = first[p->members[k]];
        if (++count[p->node[k]] > p->ppn_max)
            p->ppn_max = count[p->node[k]];
    }
    for (int k = 0; k < p->size; k++)
        count[p->node[k]] = 0;
}

int tn_shapes_choose(int P, const int *node_of, unsigned which, const int *comm_sizes, int ncomm_sizes,
                     tn_shape_pick *out, int cap)
{
    int n = 0, nodes = 0, ppn_max = 0;
    size_t cells = (size_t)(P > 0 ? P : 1);
    char *in = calloc(cells, 1);
    int *first = malloc(sizeof *first * cells); /* per rank: the lowest rank of its node */
    int *order = malloc(sizeof *order * cells);
    int *count = calloc(cells, sizeof *count); /* members per node, for nodes_of */
    if (!in || !first || !order || !count || (P > 0 && tb_sort_ranks_by_keys(node_of, 1, P, order) != 0))
        goto oom;
    /* ranks by node, ascending inside a node: a node's first is its lowest */
    for (int i = 0; i < P;) {
        int j = i;
        while (j + 1 < P && node_of[order[j + 1]] == node_of[order[i]])
            j++;
        for (int q = i; q <= j; q++)
            first[order[q]] = order[i];
        ppn_max = j - i + 1 > ppn_max ? j - i + 1 : ppn_max;
        nodes++;
        i = j + 1;
    }
    for (int k = 0; k < TN_SHAPE_COUNT; k++) {
        if (!(which & (1u << k)) && k != TN_SHAPE_JOB)
            continue;
        memset(in, 0, (size_t)P);
        int ok = 1;
        switch (k) {
        case TN_SHAPE_JOB:
            ok = which & (1u << k);
            memset(in, 1, (size_t)P);
            break;
        case TN_SHAPE_ONE_PER_NODE:
            ok = nodes >= 2 && ppn_max >= 2;
            for (int r = 0; r < P; r++)
                in[r] = first[r] == r;
            break;
        case TN_SHAPE_ONE_NODE:
            ok = nodes >= 2;
            for (int r = 0; r < P; r++)
                in[r] = first[r] == 0;
            break;
        case TN_SHAPE_ROWS: {
            int c = 1;
            for (int d = 2; (long)d * d <= P; d++)
                if (P % d == 0)
                    c = d;
            ok = c >= 2 && c < P;
            for (int r = 0; r < c; r++)
                in[r] = 1;
            break;
        }
        default: { /* half of the nodes, in the order of their lowest ranks */
            int want = nodes / 2, taken = 0;
            ok = want >= 1;
            for (int r = 0; r < P && taken < want; r++)
                if (first[r] == r) {
                    taken++;
                    for (int q = r; q < P; q++)
                        in[q] |= first[q] == r;
                }
            break;
        }
        }
        if (ok && add(out, &n, cap, names[k], in, P, k == TN_SHAPE_JOB ? 2 : TN_SHAPE_MIN_SIZE) != 0)
            goto oom;
    }
    for (int k = 0; k < ncomm_sizes; k++) {
        char label[TN_SHAPE_LABEL];
        int s = comm_sizes[k];
        if (s < 2 || s > P)
            continue;
        snprintf(label, sizeof label, s == P ? "job" : "first-%d", s);
        for (int r = 0; r < P; r++)
            in[r] = r < s;
        if (add(out, &n, cap, label, in, P, 2) != 0)
            goto oom;
    }
    for (int i = 0; i < n; i++)
        nodes_of(&out[i], first, count);
    free(in);
    free(first);
    free(order);
    free(count);
    return n;
oom:
    free(in);
    free(first);
    free(order);
    free(count);
    tn_shape_picks_free(out, n);
    return -1;
}
