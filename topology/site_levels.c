/* Level lists of several passes put into one (tt_levels_union), and a
 * node type's groups filled to that list (tt_type_fill_levels).  Passes
 * name levels alike or not at all: a level is known by its name, and two
 * names are ordered only by a pass that has both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"

/* At most this many distinct names over all lists. */
#define MAX_NAMES 64

static int name_at(tt_level_name *names, int *n, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    if (*n == MAX_NAMES)
        return -1;
    snprintf(names[*n], sizeof names[*n], "%s", s);
    return (*n)++;
}

int tt_levels_union(const tt_level_name *const *lists, const int *counts, const char *const *files, int nlists,
                    tt_level_name *out, int cap, int *n, char *err, size_t errlen)
{
    tt_level_name names[MAX_NAMES];
    /* before[a][b]: 1 + the first list that puts a above b (directly, or,
     * after the closure, through other names); where[a]: the first list
     * that has a */
    short before[MAX_NAMES][MAX_NAMES];
    int where[MAX_NAMES], nn = 0;
    memset(before, 0, sizeof before);
    for (int i = 0; i < nlists; i++)
        for (int k = 0; k < counts[i]; k++) {
            int had = nn, a = name_at(names, &nn, lists[i][k]);
            if (a < 0) {
                snprintf(err, errlen, "%s: expected at most %d level names over all inputs", files[i], MAX_NAMES);
                return -1;
            }
            if (nn > had)
                where[a] = i;
            for (int j = 0; j < k; j++) {
                int b = name_at(names, &nn, lists[i][j]);
                if (!before[b][a])
                    before[b][a] = (short)(i + 1);
            }
        }
    for (int a = 0; a < nn; a++)
        for (int b = 0; b < nn; b++)
            if (before[a][b] && before[b][a]) {
                snprintf(err, errlen,
                         "%s: expected the levels in the order of %s: '%s' comes above '%s' there, below it here",
                         files[before[b][a] - 1], files[before[a][b] - 1], names[a], names[b]);
                return -1;
            }
    /* every pair ordered, directly or through a third (Warshall) */
    for (int c = 0; c < nn; c++)
        for (int a = 0; a < nn; a++) {
            if (!before[a][c])
                continue;
            for (int b = 0; b < nn; b++)
                if (b != a && before[c][b] && !before[a][b])
                    before[a][b] = before[a][c];
        }
    for (int a = 0; a < nn; a++)
        for (int b = a + 1; b < nn; b++) {
            if (before[a][b] && before[b][a]) {
                snprintf(err, errlen, "%s: expected levels in one order: '%s' and '%s' come in both orders over %s and %s",
                         files[where[b]], names[a], names[b], files[where[a]], files[where[b]]);
                return -1;
            }
            if (!before[a][b] && !before[b][a]) {
                snprintf(err, errlen,
                         "%s: expected levels named alike in every input: '%s' (%s) and '%s' (%s) are in no input together, "
                         "so nothing orders them (name the levels with topobcast-probe --truth, or rename one)",
                         files[where[b]], names[a], files[where[a]], names[b], files[where[b]]);
                return -1;
            }
        }
    if (nn > cap) {
        snprintf(err, errlen, "%s: expected at most %d levels in all, the inputs have %d", files[nlists - 1], cap, nn);
        return -1;
    }
    /* a total order: a name's place is the number of names above it */
    for (int a = 0; a < nn; a++) {
        int above = 0;
        for (int b = 0; b < nn; b++)
            above += before[b][a] != 0;
        memcpy(out[above], names[a], sizeof out[above]);
    }
    *n = nn;
    return 0;
}

int tt_type_fill_levels(tt_type_part *t, const tt_level_name *sub, int nsub)
{
    int *group[TB_MAX_LEVELS] = {0};
    double cls[TB_MAX_LEVELS];
    int from = -1; /* the type's level whose groups the current one takes */
    for (int k = 0; k < nsub; k++) {
        int own = -1;
        for (int j = 0; j < t->nlev && own < 0; j++)
            if (strcmp(t->lev[j], sub[k]) == 0)
                own = j;
        if (own >= 0)
            from = own;
        cls[k] = own >= 0 ? t->cls[own] : NAN;
        group[k] = malloc(sizeof(int) * (size_t)(t->npus > 0 ? t->npus : 1));
        if (!group[k]) {
            for (int j = 0; j < k; j++)
                free(group[j]);
            return -1;
        }
        for (int i = 0; i < t->npus; i++)
            group[k][i] = from >= 0 ? t->group[from][i] : 0;
    }
    for (int j = 0; j < t->nlev; j++)
        free(t->group[j]);
    for (int k = 0; k < nsub; k++) {
        t->group[k] = group[k];
        t->cls[k] = cls[k];
        snprintf(t->lev[k], sizeof t->lev[k], "%s", sub[k]);
    }
    t->nlev = nsub;
    return 0;
}
