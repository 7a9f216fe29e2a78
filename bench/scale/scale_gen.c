/* Writes a synthetic topology file of P processes for the start-up
 * benchmark (bench/scale/run.sh): 128 processes per host (PER_NODE), hosts
 * named like a real cluster (36 characters), levels island (16 hosts),
 * node, socket (64), numa (32), and distance classes.
 *
 *   scale_gen P [format]      format 2 (default): config/README.md
 *                             format 1: the former format, one mapping per
 *                             leaf and no distance matrix (the baseline)
 *                             format 1m: format 1 with the P x P matrix
 *
 * Output on stdout; a selection table follows, using distance_tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_NODE 128

static void host(char *buf, size_t cap, int h)
{
    snprintf(buf, cap, "c%05d.rack%03d.cluster.example.org", h, h / 16);
}

/* the ranks of group g of size span, as a range (format 2) or a list */
static void group(int g, int span, int ranges)
{
    if (ranges) {
        printf("[%d-%d]", g * span, g * span + span - 1);
        return;
    }
    putchar('[');
    for (int r = g * span; r < g * span + span; r++)
        printf(r > g * span ? ", %d" : "%d", r);
    putchar(']');
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: scale_gen P [2|1|1m]\n");
        return 2;
    }
    int P = atoi(argv[1]);
    const char *fmt = argc > 2 ? argv[2] : "2";
    int v2 = strcmp(fmt, "2") == 0, matrix = strcmp(fmt, "1m") == 0;
    if (P < PER_NODE || P % PER_NODE) {
        fprintf(stderr, "scale_gen: P must be a multiple of %d\n", PER_NODE);
        return 2;
    }
    int H = P / PER_NODE, isl = H >= 32 ? 16 * PER_NODE : P;
    const char *names[4] = {"island", "node", "socket", "numa"};
    const int span[4] = {isl, PER_NODE, 64, 32};
    const double cls[5] = {3.1, 1.4, 0.52, 0.41, 0.3};
    char name[64];
    printf("topobcast: %d\ntopology:\n  fingerprint: {nprocs: %d, hosts: [", v2 ? 2 : 1, P);
    for (int h = 0; h < H; h++) {
        host(name, sizeof name, h);
        printf("%s%s", h ? ", " : "", name);
    }
    printf("]}\n  levels: [island, node, socket, numa]\n  leaves:\n");
    for (int r = 0; r < P; r++) {
        int pu = r % PER_NODE;
        if (v2) {
            printf("    - [%d, %d, %d, %d, %d]\n", r / PER_NODE, pu, pu, pu / 64, pu / 32);
        } else {
            host(name, sizeof name, r / PER_NODE);
            printf("    - {rank: %d, host: %s, pu: %d, core: %d, package: %d, numa: %d}\n", r, name, pu, pu, pu / 64,
                   pu / 32);
        }
    }
    printf("  groups:\n");
    for (int l = 0; l < 4; l++) {
        printf("    %s: [", names[l]);
        for (int g = 0; g < P / span[l]; g++) {
            fputs(g ? ", " : "", stdout);
            group(g, span[l], v2);
        }
        printf("]\n");
    }
    if (v2) {
        printf("  distance: {unit: us, levels: [%g, %g, %g, %g], within: %g}\n", cls[0], cls[1], cls[2], cls[3],
               cls[4]);
    } else if (matrix) {
        printf("  distance:\n");
        for (int a = 0; a < P; a++) {
            printf("    - [");
            for (int b = 0; b < P; b++) {
                int l = 0;
                while (l < 4 && a / span[l] == b / span[l])
                    l++;
                printf(b ? ", %g" : "%g", a == b ? 0 : cls[l]);
            }
            printf("]\n");
        }
    }
    printf("selection:\n  - {comm: 1-2, algorithm: default}\n  - {algorithm: distance_tree}\n");
    return ferror(stdout) ? 1 : 0;
}
