/* The machine of the bound and of the model's resource term; see
 * machine.h. */
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "platform.h"

void tn_machine_free(tn_machine *m)
{
    if (!m->view)
        tt_net_free(&m->net);
    free(m->host_of);
    memset(m, 0, sizeof *m);
}

int tn_machine_from_platform(tn_machine *m, const char *xml, const char *hostfile, const int *world, int P, char *err,
                             size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (P < 1) {
        snprintf(err, errlen, "machine: %d ranks", P);
        return -1;
    }
    if (tt_platform_read(xml, &m->net, err, errlen) != 0)
        return -1;
    /* the hostfile's line k places world rank k: read up to the last member */
    int lines = P;
    for (int i = 0; world && i < P; i++)
        lines = world[i] >= lines ? world[i] + 1 : lines;
    int *line_host = NULL;
    if (tt_hostfile_read(hostfile, &m->net, lines, world ? &line_host : &m->host_of, err, errlen) != 0) {
        tn_machine_free(m);
        return -1;
    }
    if (world) {
        m->host_of = malloc(sizeof *m->host_of * (size_t)P);
        for (int i = 0; m->host_of && i < P; i++)
            m->host_of[i] = line_host[world[i]];
        free(line_host);
        if (!m->host_of) {
            snprintf(err, errlen, "machine: out of memory");
            tn_machine_free(m);
            return -1;
        }
    }
    m->P = P;
    snprintf(m->source, sizeof m->source, "platform %s, hostfile %s", xml, hostfile);
    return 0;
}

int tn_machine_from_costs(tn_machine *m, const tn_costs *c, const int *world, const tb_hier *h, const double *fanout,
                          int P, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    int outside = 0;
    for (int i = 0; world && i < P; i++)
        outside |= world[i] < 0 || world[i] >= c->nprocs;
    if (P < 1 || P > c->nprocs || outside || (h && h->size != P)) {
        snprintf(err, errlen, "machine: %d ranks, costs of %d, levels of %d", P, c->nprocs, h ? h->size : P);
        return -1;
    }
    int nl = h ? h->nlevels : 0;
    double *bw = calloc((size_t)c->ncurves, sizeof *bw);
    double agg[TB_MAX_LEVELS + 2], lat[TB_MAX_LEVELS + 2];
    if (!bw || nl > TB_MAX_LEVELS) {
        free(bw);
        snprintf(err, errlen, "machine: %s", bw ? "too many levels" : "out of memory");
        return -1;
    }
    for (int k = 0; k < c->ncurves; k++)
        bw[k] = tn_costs_bandwidth(c, k);
    for (int l = 0; l <= nl; l++) {
        agg[l] = 0;
        lat[l] = INFINITY;
    }
    double cpu = INFINITY;
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++) {
            if (a == b)
                continue;
            int wa = world ? world[a] : a, wb = world ? world[b] : b;
            int cls = tn_costs_pair_class(h, a, b), k = tn_costs_curve(c, wa, wb);
            if (bw[k] > agg[cls])
                agg[cls] = bw[k];
            if (c->L[k] < lat[cls])
                lat[cls] = c->L[k];
            tn_edge_cost z;
            tn_costs_edge(c, wa, wb, 0, &z);
            double o = fmin(z.g, fmin(z.os, z.orv));
            if (o < cpu)
                cpu = o;
        }
    free(bw);
    size_t off = 0;
    off += (size_t)snprintf(m->source, sizeof m->source, "measured:");
    for (int l = 0; l <= nl; l++) {
        if (!isfinite(lat[l]))
            lat[l] = 0;
        double f = fanout && fanout[l] > 1 ? fanout[l] : 1;
        agg[l] *= f;
        if (off < sizeof m->source)
            off += (size_t)snprintf(m->source + off, sizeof m->source - off, " %s%s %.3g GB/s (x%.2f)",
                                    l < nl ? "other " : nl ? "same " : "", nl ? h->level_name[l < nl ? l : nl - 1] : "all",
                                    agg[l] / 1e9, f);
    }
    if (tt_net_from_levels(&m->net, P, nl, nl ? h->group : NULL, agg, lat, &m->host_of) != 0) {
        snprintf(err, errlen, "machine: out of memory");
        return -1;
    }
    m->net.send_cpu = isfinite(cpu) ? cpu : 0;
    m->P = P;
    return 0;
}

int tn_machine_view(const tn_machine *whole, const int *world, int P, tn_machine *out)
{
    memset(out, 0, sizeof *out);
    if (P < 1)
        return -1;
    for (int i = 0; i < P; i++)
        if (world[i] < 0 || world[i] >= whole->P)
            return -1;
    out->host_of = malloc(sizeof *out->host_of * (size_t)P);
    if (!out->host_of)
        return -1;
    for (int i = 0; i < P; i++)
        out->host_of[i] = whole->host_of[world[i]];
    out->net = whole->net;
    out->view = 1;
    out->P = P;
    snprintf(out->source, sizeof out->source, "%s", whole->source);
    return 0;
}

int tn_machine_bounds(const tn_machine *m, int P, int all_roots, const size_t *sizes, int n, double *seconds,
                      char (*what)[256], char *err, size_t errlen)
{
    if (P < 1 || P > m->P) {
        snprintf(err, errlen, "bound: %d ranks, the machine places %d", P, m->P);
        return -1;
    }
    tt_bound b;
    if (tt_bound_prepare(&m->net, m->host_of, P, all_roots ? -1 : 0, &b, err, errlen) != 0)
        return -1;
    for (int k = 0; k < n; k++) {
        seconds[k] = tt_bound_time(&b, (double)sizes[k], NULL);
        if (what)
            tt_bound_describe(&b, (double)sizes[k], what[k], sizeof what[k]);
    }
    tt_bound_free(&b);
    return 0;
}
