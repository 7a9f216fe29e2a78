/* The probe's analysis half on synthetic measurements: levels found and
 * named from ground truth, the save file round trip (exact, so --analyze
 * reproduces a run), the topology YAML accepted by the library's loader,
 * and fast mode's extension by group membership. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topology.h"
#include "config.h"
#include "tap.h"

/* 2 hosts x 2 sockets x 2 cores: same socket 0.5 us, other socket 1 us,
 * other host 3 us (t(0)), with a little deterministic jitter. */
#define N 8
static double base_time(int i, int j)
{
    if (i / 4 != j / 4)
        return 3e-6;
    return i / 2 == j / 2 ? 0.5e-6 : 1e-6;
}

static void make_meas(tt_meas *m, const int *measured)
{
    memset(m, 0, sizeof *m);
    tt_meas_opts_default(&m->opt);
    m->n = N;
    m->rank = calloc(N, sizeof *m->rank);
    for (int r = 0; r < N; r++) {
        snprintf(m->rank[r].host, sizeof m->rank[r].host, "node%d", r / 4);
        m->rank[r].pu = m->rank[r].core = r % 4;
        m->rank[r].package = m->rank[r].numa = (r % 4) / 2;
        m->rank[r].world_rank = r;
        m->rank[r].group = r / 4;
        m->rank[r].measured = measured ? measured[r] : 1;
    }
    m->pair = calloc(N * (N - 1) / 2, sizeof *m->pair);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            if (i / 4 != j / 4 && measured && !(measured[i] && measured[j]))
                continue;
            tt_pair_rec *p = &m->pair[m->npairs++];
            double b = base_time(i, j) * (1 + 0.01 * ((i * 7 + j * 3) % 5) / 5.0);
            p->i = i;
            p->j = j;
            p->L = b / 2;
            p->nsizes = 3;
            p->s = calloc(3, sizeof *p->s);
            double ms[3] = {0, 1024, 65536};
            for (int k = 0; k < 3; k++) {
                tt_size_rec *s = &p->s[k];
                s->m = ms[k];
                s->o_s = s->o_r = b / 4 + ms[k] * 1e-11;
                s->g = b / 4 + ms[k] * 1e-10;
                s->rtt = 2 * (p->L + s->g);
                s->gsat = k < 2 ? 32 : 0;
                for (int q = 0; q < 3; q++)
                    for (int x = 0; x < 5; x++)
                        s->q[q][x] = s->rtt * (1 + 0.01 * x);
            }
        }
    m->nrounds = 12;
    m->elapsed = 1.25;
    m->wtime_overhead = 3e-8;
}

static char *topo_text(const tt_meas *m, const tt_analysis *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tt_topo_write(f, m, a, 1);
    fclose(f);
    return buf;
}

/* Loads a topology text with the library's loader (through a file).
 * Returns tb_config_load's result. */
static int load_text(const char *text, tb_config *cfg, char *err, size_t errlen)
{
    char path[] = "/tmp/test_probe_topoXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    fputs(text, f);
    fclose(f);
    int rc = tb_config_load(path, cfg, err, errlen);
    remove(path);
    return rc;
}

static int level_of(const tt_analysis *a, const char *name)
{
    for (int l = 0; l < a->h.nlevels; l++)
        if (strcmp(a->h.name[l], name) == 0)
            return l;
    return -1;
}

int main(void)
{
    char err[512] = "";
    tt_meas m;
    make_meas(&m, NULL);
    tt_truthset truth;
    TAP_OK(tt_truth_build(&m, NULL, &truth, err, sizeof err) == 0, "ground truth from identities");
    TAP_OK(truth.ntruth == 2 && !strcmp(truth.name[0], "node") && !strcmp(truth.name[1], "socket"),
           "truths: node and socket (numa equals socket and is left out): %d", truth.ntruth);

    tt_analysis_opts o;
    tt_analysis_opts_default(&o);
    tt_analysis a;
    TAP_OK(tt_analyze(&m, &o, &truth, &a, err, sizeof err) == 0, "analysis runs%s%s", err[0] ? ": " : "", err);
    TAP_OK(a.h.nlevels == 2 && level_of(&a, "node") == 0 && level_of(&a, "socket") == 1,
           "two levels found and named node, socket (%d: %s ...)", a.h.nlevels, a.h.name[0]);
    TAP_OK(a.h.nclusters[0] == 2 && a.h.nclusters[1] == 4, "2 nodes, 4 sockets");
    TAP_OK(tt_accuracy(a.h.labels[1], truth.labels[1], N) == 1.0, "socket level exact");

    /* save round trip: exact */
    FILE *f = tmpfile();
    TAP_OK(tt_save_write(&m, f) == 0, "save written");
    rewind(f);
    tt_meas r;
    int rc = tt_save_read(f, "tmp", &r, err, sizeof err);
    fclose(f);
    TAP_OK(rc == 0, "save read back (%s)", rc ? err : "ok");
    int same = rc == 0 && r.n == m.n && r.npairs == m.npairs && r.nrounds == m.nrounds && r.elapsed == m.elapsed;
    for (int p = 0; same && p < m.npairs; p++) {
        same &= r.pair[p].i == m.pair[p].i && r.pair[p].j == m.pair[p].j && r.pair[p].L == m.pair[p].L &&
                r.pair[p].nsizes == m.pair[p].nsizes;
        for (int k = 0; same && k < m.pair[p].nsizes; k++) {
            const tt_size_rec *x = &m.pair[p].s[k], *y = &r.pair[p].s[k];
            same &= x->m == y->m && x->rtt == y->rtt && x->o_s == y->o_s && x->o_r == y->o_r && x->g == y->g &&
                    x->gsat == y->gsat;
        }
    }
    for (int k = 0; same && k < N; k++)
        same &= !strcmp(r.rank[k].host, m.rank[k].host) && r.rank[k].pu == m.rank[k].pu &&
                r.rank[k].package == m.rank[k].package && r.rank[k].group == m.rank[k].group;
    TAP_OK(same, "every value used by the analysis survives the save file exactly");
    tt_analysis a2;
    tt_analyze(&r, &o, &truth, &a2, err, sizeof err);
    char *t1 = topo_text(&m, &a), *t2 = topo_text(&r, &a2);
    TAP_OK(strcmp(t1, t2) == 0, "the saved run gives the identical topology file");

    /* broken save files are rejected with a position */
    const char *bad = "topobcast-probe-measurements 1\nmode plogp\nnprocs 2\nfoo\n";
    f = fmemopen((void *)bad, strlen(bad), "r");
    tt_meas b;
    TAP_OK(tt_save_read(f, "bad.txt", &b, err, sizeof err) != 0 && strstr(err, "bad.txt:4:"),
           "a broken save file is rejected at its line (%s)", err);
    fclose(f);

    /* by path: a file loads as from the stream; a directory or a device is
     * refused before anything is read (/dev/zero would never end) */
    char path[] = "/tmp/tb_save_loadXXXXXX";
    int fdp = mkstemp(path);
    FILE *pf = fdp >= 0 ? fdopen(fdp, "w") : NULL;
    TAP_OK(pf && tt_save_write(&m, pf) == 0 && fclose(pf) == 0, "save written to %s", path);
    tt_meas l;
    rc = tt_save_load(path, &l, err, sizeof err);
    TAP_OK(rc == 0 && l.n == m.n && l.npairs == m.npairs, "tt_save_load reads it (%s)", rc ? err : "ok");
    if (rc == 0)
        tt_meas_free(&l);
    unlink(path);
    TAP_OK(tt_save_load("/tmp", &l, err, sizeof err) != 0 && strstr(err, "this is a directory"),
           "a directory is refused (%s)", err);
    TAP_OK(tt_save_load("/dev/zero", &l, err, sizeof err) != 0 && strstr(err, "a device or socket"),
           "/dev/zero is refused unread (%s)", err);
    TAP_OK(tt_save_load("/nonexistent/m.txt", &l, err, sizeof err) != 0 && strstr(err, "No such file"),
           "a missing file says so (%s)", err);

    /* the YAML loads with the library's loader and says the same */
    tb_config cfg;
    rc = load_text(t1, &cfg, err, sizeof err);
    TAP_OK(rc == 0, "tb_config_load accepts the topology (%s)", rc ? err : "ok");
    if (rc == 0) {
        const tb_topology *t = &cfg.topo;
        int ok = cfg.has_topology && t->nlevels == 2 && !strcmp(t->level_name[0], "node") &&
                 !strcmp(t->level_name[1], "socket") && t->nleaves == N && t->nhosts == 2 && t->dist.given;
        for (int x = 0; ok && x < N; x++)
            ok &= t->group[0][x] == x / 4 && t->group[1][x] == x / 2 && t->leaves[x].pu == x % 4;
        /* classes: the median of each class's pairs */
        ok &= fabs(t->dist.level[0] - base_time(0, 4) * 1e6) < 0.02 && fabs(t->dist.level[1] - base_time(0, 2) * 1e6) < 0.02 &&
              fabs(t->dist.within - base_time(0, 1) * 1e6) < 0.02;
        TAP_OK(ok, "loaded topology: levels, groups, leaves and distance classes (us) as analysed");
        tb_config_free(&cfg);
    }
    free(t1);
    free(t2);
    tt_analysis_free(&a2);
    tt_meas_free(&r);

    /* fast mode: one measured rank per host; the others stand in by
     * their closest measured rank in the host */
    int measured[N] = {0, 0, 1, 0, 0, 1, 0, 0};
    tt_meas fm;
    make_meas(&fm, measured);
    TAP_OK(fm.npairs == 12 + 1, "fast: 12 intra-host pairs and 1 inter-host pair measured (%d)", fm.npairs);
    tt_analysis fa;
    rc = tt_analyze(&fm, &o, &truth, &fa, err, sizeof err);
    TAP_OK(rc == 0 && fa.extended == 15, "fast: 15 pairs extended (%d; %s)", fa.extended, rc ? err : "ok");
    TAP_OK(rc == 0 && fa.rep[0] == 2 && fa.rep[3] == 2 && fa.rep[7] == 5 && fa.rep[5] == 5,
           "fast: representatives are measured ranks of the same host");
    TAP_OK(rc == 0 && fa.h.nlevels == 2 && level_of(&fa, "node") == 0 && level_of(&fa, "socket") == 1 &&
               tt_accuracy(fa.h.labels[1], truth.labels[1], N) == 1.0,
           "fast: the same levels as the full measurement");
    TAP_OK(rc == 0 && fa.T[1 * N + 6] == fa.T[2 * N + 5], "fast: pair (1,6) takes the time of (2,5)");
    tt_analysis_free(&fa);

    /* without any measured rank in a host nothing can stand in */
    for (int x = 0; x < N; x++)
        fm.rank[x].measured = x < 4;
    rc = tt_analyze(&fm, &o, &truth, &fa, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "not measured"), "fast: unmeasured pairs with no stand-in are an error (%s)", err);
    tt_meas_free(&fm);

    /* sample mode: rank 2 swept its host and the other host's pivot 5;
     * within the sockets one pair each; the rest by minimax paths */
    tt_meas sm;
    make_meas(&sm, NULL);
    sm.opt.sample = 1;
    static const int keep[][2] = {{0, 2}, {1, 2}, {2, 3}, {2, 5}, {4, 5}, {5, 6}, {5, 7}, {0, 1}, {6, 7}};
    int w = 0;
    for (int p = 0; p < sm.npairs; p++) {
        int k = 0, nk = (int)(sizeof keep / sizeof keep[0]);
        while (k < nk && !(keep[k][0] == sm.pair[p].i && keep[k][1] == sm.pair[p].j))
            k++;
        if (k < nk)
            sm.pair[w++] = sm.pair[p];
        else
            tt_pair_rec_free(&sm.pair[p]);
    }
    sm.npairs = w;
    for (int x = 0; x < N; x++)
        sm.rank[x].measured = x == 2 || x == 5;
    rc = tt_analyze(&sm, &o, &truth, &fa, err, sizeof err);
    TAP_OK(rc == 0 && fa.extended == 28 - 9, "sample: 19 pairs completed (%d; %s)", rc ? -1 : fa.extended,
           rc ? err : "ok");
    TAP_OK(rc == 0 && fa.h.nlevels == 2 && level_of(&fa, "node") == 0 && level_of(&fa, "socket") == 1 &&
               tt_accuracy(fa.h.labels[1], truth.labels[1], N) == 1.0,
           "sample: the same levels as the full measurement");
    double t25, t02, t01;
    tt_pair_rec_time(&sm.pair[4], 0, TT_INTERP_PIECEWISE, &t25); /* (2, 5) */
    tt_pair_rec_time(&sm.pair[0], 0, TT_INTERP_PIECEWISE, &t01); /* (0, 1) */
    tt_pair_rec_time(&sm.pair[1], 0, TT_INTERP_PIECEWISE, &t02); /* (0, 2) */
    TAP_OK(rc == 0 && fa.T[0 * N + 7] == t25 && fa.T[3 * N + 4] == t25,
           "sample: (0,7) and (3,4) take the one pair between the hosts");
    TAP_OK(rc == 0 && fa.T[1 * N + 3] == (t01 > t02 ? t01 : t02) && fa.rep[0] == 2 && fa.rep[6] == 5,
           "sample: (1,3) takes the largest time of its best path; ranks stand for by their measured rank");
    /* the classes are medians of the measured pairs only: the socket
     * class of (0,2), (1,2), (5,6), (5,7) (1.002, 1.006, 1.006, 1.002 us)
     * is their middle two's mean, where the 8 pairs of the completed
     * matrix (paths take the least: (0,3), (1,3), (4,7) at 1.002 us) would
     * give 1.002 us */
    double t12;
    tt_pair_rec_time(&sm.pair[2], 0, TT_INTERP_PIECEWISE, &t12); /* (1, 2) */
    char *ts = rc == 0 ? topo_text(&sm, &fa) : NULL;
    int lrc = ts ? load_text(ts, &cfg, err, sizeof err) : -1;
    TAP_OK(lrc == 0 && cfg.topo.dist.given && fabs(cfg.topo.dist.level[0] - t25 * 1e6) < 1e-4 &&
               fabs(cfg.topo.dist.level[1] - 0.5 * (t02 + t12) * 1e6) < 1e-4 &&
               fabs(cfg.topo.dist.level[1] - t02 * 1e6) > 1e-3 && fabs(cfg.topo.dist.within - t01 * 1e6) < 1e-4,
           "sample: distance classes are medians of the measured pairs (%s; socket %.6g us, measured %.6g)",
           lrc ? err : "ok", lrc ? -1.0 : cfg.topo.dist.level[1], 0.5 * (t02 + t12) * 1e6);
    if (lrc == 0)
        tb_config_free(&cfg);
    free(ts);
    tt_analysis_free(&fa);
    /* a save file round trip keeps sample=1 */
    f = tmpfile();
    tt_save_write(&sm, f);
    rewind(f);
    rc = tt_save_read(f, "tmp", &r, err, sizeof err);
    fclose(f);
    TAP_OK(rc == 0 && r.opt.sample == 1 && r.npairs == 9, "sample: the save file keeps sample=1");
    if (rc == 0)
        tt_meas_free(&r);
    /* without the pair between the hosts no path joins them */
    tt_pair_rec_free(&sm.pair[4]);
    sm.pair[4] = sm.pair[--sm.npairs];
    rc = tt_analyze(&sm, &o, &truth, &fa, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "ranks 0 and 4 are joined by no measured pairs"), "sample: hosts no pair joins are an error (%s)",
           err);
    tt_meas_free(&sm);

    /* hosts closer than the measurements tell apart (every pair 1 us, a
     * host per 2 ranks): the hosts are the one level; with the levels
     * found (the base machine) nothing is added */
    {
        tt_meas hm;
        make_meas(&hm, NULL);
        for (int r = 0; r < N; r++)
            snprintf(hm.rank[r].host, sizeof hm.rank[r].host, "h%d", r / 2);
        for (int k = 0; k < hm.npairs; k++)
            for (int z = 0; z < hm.pair[k].nsizes; z++) {
                tt_size_rec *sz = &hm.pair[k].s[z];
                hm.pair[k].L = 0.5e-6;
                sz->o_s = sz->o_r = sz->g = 0.25e-6 + sz->m * 1e-10;
                sz->rtt = 2 * (hm.pair[k].L + sz->g);
                for (int q = 0; q < 3; q++)
                    for (int x = 0; x < 5; x++)
                        sz->q[q][x] = sz->rtt;
            }
        tt_analysis ha;
        rc = tt_analyze(&hm, &o, NULL, &ha, err, sizeof err);
        TAP_OK(rc == 0 && ha.h.nlevels == 1 && ha.h.nclusters[0] == 4 && !strcmp(ha.h.name[0], "node") &&
                   ha.h.labels[0][0] == ha.h.labels[0][1] && ha.h.labels[0][1] != ha.h.labels[0][2] &&
                   strstr(ha.desc, "hosts the finest level"),
               "hosts no latency separates are the finest level, named node (%d levels)", rc == 0 ? ha.h.nlevels : -1);
        if (rc == 0)
            tt_analysis_free(&ha);
        tt_meas_free(&hm);
        TAP_OK(!strstr(a.desc, "hosts the finest level") && a.h.nlevels == 2,
               "hosts the measurements separate: no level added (%d levels)", a.h.nlevels);
    }

    /* truth file: an extra coarse level, and a bad line */
    char tpath[] = "/tmp/test_probe_truthXXXXXX";
    int fd = mkstemp(tpath);
    f = fdopen(fd, "w");
    fprintf(f, "# host truths\nnode0 island=a rack=r1\nnode1 island=a rack=r2\nother island=b rack=r3\n");
    fclose(f);
    tt_truthset t2s;
    rc = tt_truth_build(&m, tpath, &t2s, err, sizeof err);
    TAP_OK(rc == 0 && t2s.ntruth == 4 && !strcmp(t2s.name[0], "island") && t2s.labels[0][7] == 0 &&
               t2s.labels[1][7] == 1,
           "truth file adds island and rack (%d truths; %s)", t2s.ntruth, rc ? err : "ok");
    if (rc == 0)
        tt_truth_free(&t2s);
    f = fopen(tpath, "w");
    fprintf(f, "node0 island\n");
    fclose(f);
    rc = tt_truth_build(&m, tpath, &t2s, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, ":1:"), "a truth line without name=value is rejected (%s)", err);
    f = fopen(tpath, "w");
    fprintf(f, "node0 island=a\n");
    fclose(f);
    rc = tt_truth_build(&m, tpath, &t2s, err, sizeof err);
    TAP_OK(rc != 0 && strstr(err, "node1"), "a host missing from the truth file is reported (%s)", err);
    remove(tpath);

    tt_analysis_free(&a);
    tt_truth_free(&truth);
    tt_meas_free(&m);
    TAP_DONE();
}
