/* Ground-truth partitions of the ranks, for naming and validating the
 * discovered levels only: "node" = same host, "socket" = same host and
 * package, "numa" = same host and NUMA node (each only when known for
 * every rank and different from the level above), plus partitions a
 * truth file declares per host (islands, or the physical nodes of a
 * simulated platform whose hosts are sockets). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/* Dense ids by first appearance of each distinct key. */
static void dense_by_key(int n, const char *const *key, const int *sub, int *out)
{
    for (int r = 0; r < n; r++) {
        out[r] = -1;
        for (int q = 0; q < r && out[r] < 0; q++)
            if (strcmp(key[q], key[r]) == 0 && (!sub || sub[q] == sub[r]))
                out[r] = out[q];
        if (out[r] < 0) {
            int g = 0;
            for (int q = 0; q < r; q++)
                if (out[q] + 1 > g)
                    g = out[q] + 1;
            out[r] = g;
        }
    }
}

static int same_partition(const int *a, const int *b, int n)
{
    /* both dense by first appearance: equal partitions are equal arrays */
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* The partition of the ranks by (host, sub[r]) (malloc'd), or NULL when it
 * is the partition above (nothing new) or out of memory. */
static int *refined(int n, const char *const *host, const int *sub, const int *above)
{
    int *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return NULL;
    dense_by_key(n, host, sub, p);
    if (same_partition(p, above, n)) {
        free(p);
        return NULL;
    }
    return p;
}

static int add(tt_truthset *t, const char *name, int *labels)
{
    for (int k = 0; k < t->ntruth; k++)
        if (strcmp(t->name[k], name) == 0) {
            free(t->labels[k]);
            t->labels[k] = labels;
            return 0;
        }
    if (t->ntruth == TT_MAX_TRUTH) {
        free(labels);
        return -1;
    }
    snprintf(t->name[t->ntruth], sizeof t->name[0], "%s", name);
    t->labels[t->ntruth++] = labels;
    return 0;
}

void tt_truth_free(tt_truthset *t)
{
    for (int k = 0; k < t->ntruth; k++)
        free(t->labels[k]);
    memset(t, 0, sizeof *t);
}

static int valid_name(const char *s)
{
    if (!*s || strlen(s) >= 32)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return 0;
    return 1;
}

/* Truth file: "HOST name=value ..." per line, '#' comments. */
static int read_file(const tt_meas *m, const char *file, tt_truthset *t, char *err, size_t errlen)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", file);
        return -1;
    }
    int n = m->n, rc = 0, lineno = 0;
    char names[TT_MAX_TRUTH][32];
    int nnames = 0;
    /* value strings per (truth, rank) */
    char *(*val)[TT_MAX_TRUTH] = calloc((size_t)n, sizeof *val);
    char line[4096];
    if (!val) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *save = NULL, *host = strtok_r(line, " \t\r\n", &save);
        if (!host)
            continue;
        for (char *tok = strtok_r(NULL, " \t\r\n", &save); tok && rc == 0; tok = strtok_r(NULL, " \t\r\n", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq || eq == tok || !eq[1]) {
                snprintf(err, errlen, "%s:%d: expected name=value, got '%s'", file, lineno, tok);
                rc = -1;
                break;
            }
            *eq = 0;
            if (!valid_name(tok)) {
                snprintf(err, errlen, "%s:%d: expected a level name (letters, digits, '_', '-'), got '%s'", file,
                         lineno, tok);
                rc = -1;
                break;
            }
            int k = 0;
            while (k < nnames && strcmp(names[k], tok) != 0)
                k++;
            if (k == nnames) {
                if (nnames == TT_MAX_TRUTH) {
                    snprintf(err, errlen, "%s:%d: more than %d truth names", file, lineno, TT_MAX_TRUTH);
                    rc = -1;
                    break;
                }
                snprintf(names[nnames++], sizeof names[0], "%s", tok);
            }
            for (int r = 0; r < n; r++)
                if (strcmp(m->rank[r].host, host) == 0) {
                    free(val[r][k]);
                    val[r][k] = strdup(eq + 1);
                }
        }
    }
    fclose(f);
    for (int k = 0; k < nnames && rc == 0; k++) {
        int *labels = malloc((size_t)n * sizeof *labels);
        const char **keys = malloc((size_t)n * sizeof *keys);
        if (!labels || !keys) {
            free(labels);
            free(keys);
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        for (int r = 0; r < n && rc == 0; r++) {
            keys[r] = val[r][k];
            if (!keys[r]) {
                snprintf(err, errlen, "%s: no '%s' for host %s (rank %d)", file, names[k], m->rank[r].host, r);
                rc = -1;
            }
        }
        if (rc == 0) {
            dense_by_key(n, keys, NULL, labels);
            rc = add(t, names[k], labels);
            if (rc != 0)
                snprintf(err, errlen, "%s: too many truths", file);
        } else {
            free(labels);
        }
        free(keys);
    }
    for (int r = 0; r < n; r++)
        for (int k = 0; k < TT_MAX_TRUTH; k++)
            free(val[r][k]);
    free(val);
    return rc;
}

int tt_truth_build(const tt_meas *m, const char *file, tt_truthset *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int n = m->n;
    t->n = n;
    if (n < 1) {
        snprintf(err, errlen, "no ranks");
        return -1;
    }
    const char **host = malloc((size_t)n * sizeof *host);
    int *sub = malloc((size_t)n * sizeof *sub);
    int *node = malloc((size_t)n * sizeof *node);
    if (!host || !sub || !node) {
        free(host);
        free(sub);
        free(node);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < n; r++)
        host[r] = m->rank[r].host;
    dense_by_key(n, host, NULL, node);
    const int *above = node;
    int *socket = NULL, *numa = NULL;
    int pk = 1, nu = 1;
    for (int r = 0; r < n; r++) {
        pk &= m->rank[r].package >= 0;
        nu &= m->rank[r].numa >= 0;
    }
    if (pk) {
        for (int r = 0; r < n; r++)
            sub[r] = m->rank[r].package;
        if ((socket = refined(n, host, sub, node)) != NULL)
            above = socket;
    }
    if (nu) {
        for (int r = 0; r < n; r++)
            sub[r] = m->rank[r].numa;
        numa = refined(n, host, sub, above);
    }
    int rc = 0;
    if (file)
        rc = read_file(m, file, t, err, errlen);
    /* file truths first (a file most often adds coarse levels); the
     * identity ones unless the file redefines them */
    const char *bn[3] = {"node", "socket", "numa"};
    int *bl[3] = {node, socket, numa};
    for (int k = 0; k < 3; k++) {
        int dup = 0;
        for (int q = 0; q < t->ntruth; q++)
            dup |= strcmp(t->name[q], bn[k]) == 0;
        if (!bl[k] || dup || rc != 0) {
            free(bl[k]);
            continue;
        }
        if (add(t, bn[k], bl[k]) != 0) {
            snprintf(err, errlen, "too many truths");
            rc = -1;
        }
    }
    free(host);
    free(sub);
    if (rc != 0)
        tt_truth_free(t);
    return rc;
}
