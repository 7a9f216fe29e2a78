/* The lower bound of a broadcast (topology/bound.c) and the SimGrid
 * platform reader (topology/platform.c) on small machines whose answers are
 * worked out by hand in the comments: a shared trunk carries one copy
 * whatever the number of hosts behind it, a host's ranks share its memory
 * and its way in, the machine of measured levels, the latency floor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "platform.h"
#include "tap.h"

/* Two islands of two hosts (a0 a1 | b0 b1).  A host copies between its
 * ranks through shm (per flow, 8 GB/s) and its memory (shared, 20 GB/s),
 * reaches its island's switch through its own split-duplex link (10 GB/s,
 * 100 ns), and the switches share a 5 GB/s trunk (1 us). */
static const char *mini =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<!-- two islands; a comment with <tags> inside -->\n"
    "<platform version=\"4.1\">\n"
    "<zone id=\"mini\" routing=\"Floyd\">\n"
    "  <host id=\"a0\" speed=\"1Gf\"/> <host id=\"a1\" speed=\"1Gf\"/>\n"
    "  <host id=\"b0\" speed=\"1Gf\"/> <host id=\"b1\" speed=\"1Gf\" core=\"4\"/>\n"
    "  <router id=\"s0\"/> <router id=\"s1\"/>\n"
    "  <link id=\"trunk\" bandwidth=\"40Gbps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    "  <link id='a0-up' bandwidth='10GBps' latency='100ns' sharing_policy='SPLITDUPLEX'/>\n"
    "  <link id='a1-up' bandwidth='10GBps' latency='100ns' sharing_policy='SPLITDUPLEX'/>\n"
    "  <link id='b0-up' bandwidth='10GBps' latency='100ns' sharing_policy='SPLITDUPLEX'/>\n"
    "  <link id='b1-up' bandwidth='10GBps' latency='100ns' sharing_policy='SPLITDUPLEX'/>\n"
    "  <link id='shm' bandwidth='8GBps' latency='50ns' sharing_policy='FATPIPE'/>\n"
    "  <link id='a0-mem' bandwidth='20GBps' latency='0'/> <link id='a1-mem' bandwidth='20GBps' latency='0ns'/>\n"
    "  <link id='b0-mem' bandwidth='20GBps' latency='0'/> <link id='b1-mem' bandwidth='20000MBps' latency='0s'/>\n"
    "  <route src='s0' dst='s1'><link_ctn id='trunk' direction='UP'/></route>\n"
    "  <route src='a0' dst='s0'><link_ctn id='a0-up' direction='UP'/></route>\n"
    "  <route src='a1' dst='s0'><link_ctn id='a1-up' direction='UP'/></route>\n"
    "  <route src='b0' dst='s1'><link_ctn id='b0-up' direction='UP'/></route>\n"
    "  <route src='b1' dst='s1'><link_ctn id='b1-up' direction='UP'/></route>\n"
    "  <route src='a0' dst='a0' symmetrical='NO'><link_ctn id='shm'/><link_ctn id='a0-mem'/></route>\n"
    "  <route src='a1' dst='a1' symmetrical='NO'><link_ctn id='shm'/><link_ctn id='a1-mem'/></route>\n"
    "  <route src='b0' dst='b0' symmetrical='NO'><link_ctn id='shm'/><link_ctn id='b0-mem'/></route>\n"
    "  <route src='b1' dst='b1' symmetrical='NO'><link_ctn id='shm'/><link_ctn id='b1-mem'/></route>\n"
    "</zone>\n"
    "</platform>\n";

static int host_id(const tt_net *n, const char *name)
{
    for (int h = 0; h < n->nhost; h++)
        if (!strcmp(n->host[h], name))
            return h;
    return -1;
}

/* The route a -> b as "res res ...". */
static const char *route_text(const tt_net *n, const char *a, const char *b, char *out, size_t len)
{
    int x = host_id(n, a), y = host_id(n, b);
    out[0] = 0;
    if (x < 0 || y < 0)
        return out;
    size_t k = (size_t)x * (size_t)n->nhost + (size_t)y, o = 0;
    for (int i = n->roff[k]; i < n->roff[k + 1] && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i > n->roff[k] ? " | " : "", n->res[n->rid[i]]);
    return out;
}

static double bound_at(const tt_net *n, const int *host_of, int P, int root, double m, char *what, size_t wl)
{
    tt_bound b;
    char err[256];
    if (tt_bound_prepare(n, host_of, P, root, &b, err, sizeof err) != 0) {
        printf("# %s\n", err);
        return -1;
    }
    double t = tt_bound_time(&b, m, NULL);
    if (what)
        tt_bound_describe(&b, m, what, wl);
    tt_bound_free(&b);
    return t;
}

int main(void)
{
    tt_net n;
    char err[512], txt[512], what[256];
    int rc = tt_platform_parse(mini, "mini", &n, err, sizeof err);
    TAP_OK(rc == 0 && n.nhost == 4, "mini platform parses: 4 hosts (%s)", rc ? err : "");
    if (rc != 0)
        TAP_DONE();
    /* 5 split-duplex links x 2 directions + shm + 4 memories */
    TAP_OK(n.nres == 15, "resources: one per direction of a split-duplex link, one per other link (%d)", n.nres);
    route_text(&n, "a0", "b1", txt, sizeof txt);
    TAP_OK(!strcmp(txt, "a0-up UP | trunk UP | b1-up DOWN"), "route a0 -> b1 through the switches: %s", txt);
    route_text(&n, "b1", "a0", txt, sizeof txt);
    TAP_OK(!strcmp(txt, "b1-up UP | trunk DOWN | a0-up DOWN"), "the reverse, directions swapped: %s", txt);
    route_text(&n, "b0", "b0", txt, sizeof txt);
    int ab = host_id(&n, "a0") * n.nhost + host_id(&n, "b1");
    TAP_OK(!strcmp(txt, "shm | b0-mem") && fabs(n.rlat[ab] - 1.2e-6) < 1e-15 && isinf(n.cap[n.rid[n.roff[0]]]),
           "self-route shm + memory (%s), latencies add (a0 -> b1 %.2f us), FATPIPE unlimited", txt,
           n.rlat[ab] * 1e6);

    /* Two ranks per host, root on a0.  Island 1 must receive the message
     * once through the trunk (5 GB/s: 40 Gbps), however many hosts are
     * behind it: 1.2 us + m / 5 GB/s.  Per host: 2 ranks through its way
     * in (10) and memory (20), m / 15 GB/s; island 1's four ranks through
     * two ways in and two memories, 4 m / 60; all but a0: 6 m / 90. */
    int two[8];
    const char *order[4] = {"a0", "a1", "b0", "b1"};
    for (int r = 0; r < 8; r++)
        two[r] = host_id(&n, order[r / 2]);
    double m = 1e6;
    double t = bound_at(&n, two, 8, 0, m, what, sizeof what);
    TAP_OK(fabs(t - (1.2e-6 + m / 5e9)) < 1e-12 && strstr(what, "trunk UP") && strstr(what, "entry"),
           "shared trunk counted once: %.2f us = 1.2 + 200 (%s)", t * 1e6, what);
    /* a root in island 1: the trunk's other direction */
    t = bound_at(&n, two, 8, 5, m, what, sizeof what);
    TAP_OK(fabs(t - (1.2e-6 + m / 5e9)) < 1e-12 && strstr(what, "trunk DOWN"), "root on b0: through trunk DOWN (%s)",
           what);

    /* Eight ranks on b1 (one on each other host, root a0): b1's 8 ranks
     * need 8 m through its way in and memory: 8 m / 30 GB/s, above the
     * trunk's m / 5; the first latency is the self-route's 50 ns. */
    int many[11];
    many[0] = host_id(&n, "a0"), many[1] = host_id(&n, "a1"), many[2] = host_id(&n, "b0");
    for (int r = 3; r < 11; r++)
        many[r] = host_id(&n, "b1");
    t = bound_at(&n, many, 11, 0, m, what, sizeof what);
    TAP_OK(fabs(t - (50e-9 + 8 * m / 30e9)) < 1e-12 && strstr(what, "host b1") && strstr(what, "b1-mem"),
           "8 ranks on one host: 8 m through its way in and memory, %.2f us (%s)", t * 1e6, what);

    /* Any root (rotating roots): no copy is forced through the trunk; the
     * largest set, all four hosts, holds 8 ranks less one through its ways
     * in and memories: 7 m / (4 x 10 + 4 x 20), a bound below both roots' */
    tt_bound anyb;
    rc = tt_bound_prepare(&n, two, 8, -1, &anyb, err, sizeof err);
    t = rc == 0 ? tt_bound_time(&anyb, m, NULL) : -1;
    TAP_OK(rc == 0 && fabs(t - (50e-9 + 7 * m / 120e9)) < 1e-12 && t <= bound_at(&n, two, 8, 0, m, NULL, 0) &&
               t <= bound_at(&n, two, 8, 5, m, NULL, 0),
           "any root: %.2f us = 0.05 + 7 m / 120 GB/s, below root 0's and root 5's (%s)", t * 1e6,
           rc == 0 ? tt_bound_describe(&anyb, m, what, sizeof what) : err);
    if (rc == 0)
        tt_bound_free(&anyb);

    /* The whole job on one host: 7 copies through its memory alone */
    int solo[8] = {0};
    t = bound_at(&n, solo, 8, 0, m, what, sizeof what);
    TAP_OK(fabs(t - (50e-9 + 7 * m / 20e9)) < 1e-12, "one host of 8 ranks: 7 m / 20 GB/s + 50 ns = %.2f us (%s)",
           t * 1e6, what);
    TAP_OK(bound_at(&n, solo, 1, 0, m, NULL, 0) == 0.0 && bound_at(&n, two, 8, 0, 0, NULL, 0) == 0.0,
           "one rank or no bytes: 0");

    /* The latency floor: the farthest host 1.2 us away; with 2 us of CPU
     * per send and 50 ns to the nearest rank, a send started at s informs
     * at s + 2.05: rank 1 at 2.05, then 4.05 and 4.1, then 6.05, 6.1,
     * 6.1 and 6.15 us for the eighth */
    TAP_OK(fabs(tt_bound_latency_floor(&n, two, 8, 0) - 1.2e-6) < 1e-15, "latency floor: the farthest host, 1.2 us");
    n.send_cpu = 2e-6;
    double lf = tt_bound_latency_floor(&n, solo, 8, 0);
    TAP_OK(fabs(lf - 6.15e-6) < 1e-15, "LogP floor: 8 ranks, o = 2 us, L = 50 ns: %.3f us (6.15)", lf * 1e6);
    n.send_cpu = 0;

    /* hostfile: host:count and plain lines, comments */
    char path[] = "/tmp/test_bound_hostsXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int *hof = NULL;
    if (f) {
        fprintf(f, "# a comment\nb1:3\n\na0\nb0 # trailing\n");
        fclose(f);
    }
    rc = f ? tt_hostfile_read(path, &n, 5, &hof, err, sizeof err) : -1;
    TAP_OK(rc == 0 && hof[0] == 3 && hof[2] == 3 && hof[3] == 0 && hof[4] == 2, "hostfile: host:count and plain lines");
    free(hof);
    TAP_OK(tt_hostfile_read(path, &n, 6, &hof, err, sizeof err) == -1 && strstr(err, "fewer than 6"),
           "hostfile too short: %s", err);
    remove(path);
    tt_net_free(&n);

    /* errors: refused, never guessed */
    tt_net bad;
    TAP_OK(tt_platform_parse("<platform><zone id='z' routing='Floyd'><cluster id='c'/></zone></platform>", "c", &bad,
                             err, sizeof err) == -1 &&
               strstr(err, "cluster"),
           "a <cluster> is refused: %s", err);
    TAP_OK(tt_platform_parse("<platform><zone id='z' routing='Floyd'><host id='h'/>"
                             "<route src='h' dst='h'><link_ctn id='nope'/></route></zone></platform>",
                             "u", &bad, err, sizeof err) == -1 &&
               strstr(err, "unknown link"),
           "an unknown link is refused: %s", err);
    TAP_OK(tt_platform_parse("<platform><zone id='z' routing='Floyd'><host id='h'/>"
                             "<link id='l' bandwidth='1parsecs'/></zone></platform>",
                             "w", &bad, err, sizeof err) == -1 &&
               strstr(err, "not understood"),
           "an unknown unit is refused: %s", err);

    /* The machine of measured levels: nodes {0,1} > sockets, two ranks per
     * socket, root 0.  Other node: 10 GB/s, 1 us; other socket: 6 GB/s,
     * 0.5 us; same socket (the memory): 20 GB/s.  A socket (host) has a way
     * to its sibling socket (6) and one beyond its node (10); a node's ways
     * carry what its two sockets' do (20).  Socket 1 of node 0 must be
     * entered once, from socket 0 (through their 6 GB/s) or from node 1
     * (through its own way beyond, 10): 0.5 us + m / 16 GB/s, above its two
     * ranks' 2 m through 10 + 6 + 20 and node 1's entry through 20. */
    int node[8] = {0, 0, 0, 0, 1, 1, 1, 1}, sock[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    int *grp[2] = {node, sock};
    double agg[3] = {10e9, 6e9, 20e9}, lat[3] = {1e-6, 0.5e-6, 0.1e-6};
    tt_net lv;
    int *lh = NULL;
    rc = tt_net_from_levels(&lv, 8, 2, grp, agg, lat, &lh);
    TAP_OK(rc == 0 && lv.nhost == 4 && lh[7] == 3, "machine from levels: a host per socket");
    if (rc == 0) {
        t = bound_at(&lv, lh, 8, 0, m, what, sizeof what);
        TAP_OK(fabs(t - (0.5e-6 + m / 16e9)) < 1e-12 && strstr(what, "entry"),
               "levels: a socket entered once through its two ways in, 6 + 10 GB/s: %.2f us (%s)", t * 1e6, what);
        /* with 6 ranks a socket, a socket's 6 m through its two ways in
         * (other node 10, other socket 6) and memory 20: 6 m / 36 */
        int node6[24], sock6[24];
        for (int r = 0; r < 24; r++)
            node6[r] = r / 12, sock6[r] = r / 6;
        int *grp6[2] = {node6, sock6}, *lh6 = NULL;
        tt_net l6;
        if (tt_net_from_levels(&l6, 24, 2, grp6, agg, lat, &lh6) == 0) {
            t = bound_at(&l6, lh6, 24, 0, m, what, sizeof what);
            /* one socket: 6 m / 36 = 166.7 us after the 0.1 us of a copy;
             * node 1: 12 m through 20 + 6 + 6 + 40 = 72 GB/s, the same */
            TAP_OK(fabs(t - (0.1e-6 + 6 * m / 36e9)) < 1e-12 && strstr(what, "memory"),
                   "levels: a socket's 6 ranks through its ways in and its memory: %.2f us (%s)", t * 1e6, what);
            tt_net_free(&l6);
            free(lh6);
        }
        /* the same bandwidth to the other socket and to the other node
         * (10 GB/s both): one wire, so socket 1 is entered through it
         * alone, 1 us + m / 10 GB/s (it was 6 + 10 apart) */
        double same[3] = {10e9, 10e9, 20e9};
        tt_net l1;
        int *lh1 = NULL;
        if (tt_net_from_levels(&l1, 8, 2, grp, same, lat, &lh1) == 0) {
            t = bound_at(&l1, lh1, 8, 0, m, what, sizeof what);
            TAP_OK(fabs(t - (0.5e-6 + m / 10e9)) < 1e-12 && strstr(what, "entry"),
                   "levels: one bandwidth to siblings and beyond is one wire: %.2f us (%s)", t * 1e6, what);
            tt_net_free(&l1);
            free(lh1);
        }
        /* loads: a message from rank 0 to rank 4 crosses socket 0's way
         * beyond, node 0's way out, node 1's way in, socket 2's way beyond;
         * the sockets' (10 GB/s) are the slowest */
        double *load = calloc((size_t)lv.nres, sizeof *load), *first = malloc(sizeof *first * (size_t)lv.nres);
        for (int i = 0; i < lv.nres; i++)
            first[i] = INFINITY;
        tt_net_charge(&lv, lh[0], lh[4], m, 0.0, load, first);
        tt_net_charge(&lv, lh[0], lh[5], m, 0.0, load, first);
        int busy = 0, which = -1;
        for (int i = 0; i < lv.nres; i++)
            busy += load[i] == 2 * m;
        double lt = tt_net_load_time(&lv, load, first, &which);
        TAP_OK(busy == 4 && fabs(lt - (1e-6 + 2 * m / 10e9)) < 1e-12 && which >= 0,
               "two messages to the other node load 4 ways with 2 m each; the slowest takes 1 + 200 us (%.2f)",
               lt * 1e6);
        /* a resource starts no earlier than the first message's start plus
         * its route's latency: the same two sent at 50 and 30 us */
        for (int i = 0; i < lv.nres; i++) {
            load[i] = 0;
            first[i] = INFINITY;
        }
        tt_net_charge(&lv, lh[0], lh[4], m, 50e-6, load, first);
        tt_net_charge(&lv, lh[0], lh[5], m, 30e-6, load, first);
        lt = tt_net_load_time(&lv, load, first, NULL);
        TAP_OK(fabs(lt - (31e-6 + 2 * m / 10e9)) < 1e-12,
               "sent at 50 and 30 us: the earliest start counts, 30 + 1 + 200 us (%.2f)", lt * 1e6);
        free(load);
        free(first);
        tt_net_free(&lv);
    }
    free(lh);
    TAP_DONE();
}
