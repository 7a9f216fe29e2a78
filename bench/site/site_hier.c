/* The hierarchy the library derives for MPI_COMM_WORLD, checked against
 * the platform's truth (bench/site/run.sh, one run per job):
 *
 *   site_hier TRUTH.txt [CONFIG.yaml]
 *
 * TRUTH.txt has one line per SimGrid host, "HOST level=value ...", coarsest
 * first (test/platforms/PLATFORM-truth.txt); CONFIG.yaml, when given,
 * becomes TOPOBCAST_CONFIG before MPI_Init (under SMPI the ranks share one
 * environment).  Rank 0 gathers every rank's host, labels each rank with
 * its host's truth, and keeps the truth levels that split the job's ranks
 * as the library's derivation keeps a level (more than one group, not one
 * rank per group, not the same groups as a coarser level kept).  Each of
 * those must match a level of the library's hierarchy
 * (tb_tool_comm_hier) with an adjusted Rand index of 1 (tt_ari,
 * topology/cluster_validate.c), and each level of the hierarchy a truth
 * level, on the job's ranks.  One line per level, then
 * "hierarchy: match" or "hierarchy: MISMATCH"; exit status 0 or 1 (2: bad
 * input).  Built for SMPI only (bench/module.mk). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h" /* tt_ari */
#include "tools.h"   /* tb_tool_comm_hier, tb_tool_comm_shape */

#define MAXT 8        /* truth levels */
#define NAME 64

typedef struct truth {
    int nlev;
    char lev[MAXT][NAME];
    int nhost;
    char (*host)[NAME];
    int (*id)[MAXT];            /* [host][level]: interned value */
} truth;

/* Reads "HOST a=x b=y ..." lines; values interned per level as small ints. */
static int truth_read(const char *path, truth *t)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(t, 0, sizeof *t);
    int cap = 0, nval[MAXT] = {0}, vcap[MAXT] = {0};
    char(*vals[MAXT])[NAME] = {0};
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *save = NULL, *tok = strtok_r(line, " \t\n", &save);
        if (!tok)
            continue;
        if (t->nhost == cap) {
            cap = cap ? 2 * cap : 256;
            t->host = realloc(t->host, sizeof *t->host * (size_t)cap);
            t->id = realloc(t->id, sizeof *t->id * (size_t)cap);
            if (!t->host || !t->id) {
                fclose(f);
                return -1;
            }
        }
        snprintf(t->host[t->nhost], NAME, "%s", tok);
        int l = 0;
        while ((tok = strtok_r(NULL, " \t\n", &save)) && l < MAXT) {
            char *eq = strchr(tok, '=');
            if (!eq)
                continue;
            *eq = 0;
            if (t->nhost == 0)
                snprintf(t->lev[t->nlev++], NAME, "%s", tok);
            int v = 0;
            while (v < nval[l] && strcmp(vals[l][v], eq + 1) != 0)
                v++;
            if (v == nval[l]) {
                if (nval[l] == vcap[l]) {
                    vcap[l] = vcap[l] ? 2 * vcap[l] : 64;
                    vals[l] = realloc(vals[l], sizeof *vals[l] * (size_t)vcap[l]);
                    if (!vals[l]) {
                        fclose(f);
                        return -1;
                    }
                }
                snprintf(vals[l][nval[l]++], NAME, "%s", eq + 1);
            }
            t->id[t->nhost][l++] = v;
        }
        if (l != t->nlev) {
            fclose(f);
            return -1;
        }
        t->nhost++;
    }
    fclose(f);
    for (int l = 0; l < MAXT; l++)
        free(vals[l]);
    return t->nhost > 0 && t->nlev > 0 ? 0 : -1;
}

/* The number of distinct labels among lab[0..n). */
static int ngroups(const int *lab, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < i && lab[j] != lab[i])
            j++;
        k += j == i;
    }
    return k;
}

/* Whether two labellings are the same partition. */
static int same_partition(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((a[i] == a[j]) != (b[i] == b[j]))
                return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3)
        setenv("TOPOBCAST_CONFIG", argv[2], 1);
    MPI_Init(&argc, &argv);
    int rank, size, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char me[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(me, &len);
    char(*hosts)[MPI_MAX_PROCESSOR_NAME] = rank == 0 ? malloc(sizeof *hosts * (size_t)size) : NULL;
    MPI_Gather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    int usable = 0;
    const tb_hier *h = tb_tool_comm_hier(MPI_COMM_WORLD, &usable);
    const tb_shape *sh = tb_tool_comm_shape(MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        truth t;
        if (argc < 2 || truth_read(argv[1], &t) != 0) {
            fprintf(stderr, "site_hier: usage: site_hier TRUTH.txt [CONFIG.yaml] (a truth file could not be read)\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int *lab[MAXT];
        for (int l = 0; l < t.nlev; l++)
            lab[l] = malloc(sizeof(int) * (size_t)size);
        for (int r = 0; r < size; r++) {
            int k = 0;
            while (k < t.nhost && strcmp(t.host[k], hosts[r]) != 0)
                k++;
            if (k == t.nhost) {
                fprintf(stderr, "site_hier: host %s (rank %d) is not in %s\n", hosts[r], r, argv[1]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            for (int l = 0; l < t.nlev; l++)
                lab[l][r] = t.id[k][l];
        }
        int nl = h ? h->nlevels : 0;
        char shape[256] = "none";
        const tb_tool_setup *su = tb_tool_setup_get();
        if (sh)
            tb_shape_format(sh, su->config_ok ? su->config : NULL, shape, sizeof shape);
        printf("site_hier: %d ranks, configuration %s, shape %s\n", size, usable ? "in use" : "NOT IN USE", shape);
        status = !usable;
        /* the truth levels that split the job's ranks, as the library keeps levels */
        int keep[MAXT] = {0}, nkeep = 0, matched_level[TB_MAX_LEVELS] = {0};
        for (int l = 0; l < t.nlev; l++) {
            int g = ngroups(lab[l], size), dup = 0;
            for (int m = 0; m < l; m++)
                dup |= keep[m] && same_partition(lab[m], lab[l], size);
            keep[l] = g > 1 && g < size && !dup;
            nkeep += keep[l];
            double best = -2;
            int bl = -1;
            for (int d = 0; keep[l] && d < nl; d++) {
                double a = tt_ari(h->group[d], lab[l], size);
                if (a > best)
                    best = a, bl = d;
            }
            if (keep[l]) {
                printf("  truth %-10s %4d groups: level %-10s ARI %.3f\n", t.lev[l], g, bl >= 0 ? h->level_name[bl] : "(none)",
                       bl >= 0 ? best : 0.0);
                status |= !(bl >= 0 && best > 1 - 1e-9);
                if (bl >= 0 && best > 1 - 1e-9)
                    matched_level[bl] = 1;
            } else
                printf("  truth %-10s %4d groups: splits nothing the library keeps (%s)\n", t.lev[l], g,
                       g <= 1 ? "one group" : g >= size ? "one rank each" : "the same groups as a coarser level");
        }
        for (int d = 0; d < nl; d++) {
            printf("  level %-10s %4d groups: %s\n", h->level_name[d], h->ngroups[d],
                   matched_level[d] ? "matches a truth level" : "MATCHES NO TRUTH LEVEL");
            status |= !matched_level[d];
        }
        printf("hierarchy: %s (%d truth levels split the job, %d derived levels)\n", status ? "MISMATCH" : "match",
               nkeep, nl);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
