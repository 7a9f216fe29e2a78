/* The plain-text summary on stdout: what a user reads in the terminal (or
 * a batch job's log) without opening the page -- the hierarchy as an
 * indented tree, the accuracy against the ground truth, and the best
 * speedups of the tuned library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void print_tree(FILE *out, const tbr_summary *s)
{
    const tb_topology *t = s->topo;
    const tbr_tree *tr = s->tree;
    fprintf(out, "hierarchy (%d level%s, coarsest first):", t->nlevels, t->nlevels == 1 ? "" : "s");
    for (int l = 0; l < t->nlevels; l++)
        fprintf(out, " %s%s(%d)", l ? "> " : "", t->level_name[l], t->ngroups[l]);
    fputc('\n', out);
    int *ordinal = calloc((size_t)t->nlevels + 1, sizeof *ordinal);
    char runs[256], hosts[512];
    for (int k = 0; k < tr->nnodes; k++) {
        const tbr_tnode *nd = &tr->node[k];
        int depth = nd->level + 1;
        tbr_rank_runs(nd->members, nd->nmembers, runs, sizeof runs);
        if (strlen(runs) > 60)
            snprintf(runs + 57, sizeof runs - 57, "...");
        tbr_tree_hosts(t, nd, 4, hosts, sizeof hosts);
        if (nd->level < 0)
            fprintf(out, "  job: %d ranks\n", nd->nmembers);
        else
            fprintf(out, "  %*s%s %d: %d rank%s [%s] on %s\n", 2 * depth, "", t->level_name[nd->level],
                    ordinal ? ordinal[depth] : 0, nd->nmembers, nd->nmembers == 1 ? "" : "s", runs, hosts);
        if (ordinal)
            ordinal[depth]++;
    }
    free(ordinal);
}

static void print_accuracy(FILE *out, const tbr_summary *s)
{
    const tbr_accuracy *a = s->acc;
    if (!a || a->ntruth == 0) {
        fprintf(out, "accuracy: no ground truth recorded\n");
        return;
    }
    fprintf(out, "accuracy against the ground truth (seed thesis eq. 3.7-3.9):\n");
    fprintf(out, "  %-12s %6s  %-14s %8s %6s\n", "truth", "groups", "best level", "accuracy", "ARI");
    for (int k = 0; k < a->ntruth; k++) {
        int l = a->best[k];
        fprintf(out, "  %-12s %6d  %-14s %8.3f %6.3f\n", a->truth[k], a->truth_groups[k],
                a->nlevels > 0 ? s->topo->level_name[l] : "-", a->nlevels > 0 ? a->acc[k][l] : 0,
                a->nlevels > 0 ? a->ari[k][l] : 0);
    }
}

/* Against default: for each communicator shape the geometric mean and the
 * lowest first (what a user can count on), then every size with the
 * algorithm and the spread of the comparison's rounds; never led by the
 * best case. */
static void print_speedups(FILE *out, const tbr_summary *s)
{
    const tbr_compare *c = s->compare;
    if (!c || c->n == 0) {
        fprintf(out, "speedup: no --compare CSV given\n");
        return;
    }
    fprintf(out, "speedup against default (tuner --compare: default time / topobcast time; the rounds' lowest-highest):\n");
    char bytes[16];
    for (int k = 0; k < c->nshape; k++) {
        tbr_speedups sp = tbr_compare_speedups(c, k);
        tbr_fmt_bytes(sp.lowest_bytes, bytes, sizeof bytes);
        fprintf(out, "  %s%s%d processes: geometric mean %.3fx over %d sizes (%.3fx over 64K-8M); lowest %.3fx at %s\n",
                c->shape[k].label, c->shape[k].label[0] ? ", " : "", c->shape[k].nprocs, sp.geomean, sp.n,
                sp.geomean_mid, sp.lowest, bytes);
        for (int i = 0; i < c->n; i++) {
            const tbr_compare_row *r = &c->row[i];
            if (r->shape != k)
                continue;
            tbr_fmt_bytes(r->bytes, bytes, sizeof bytes);
            char spread[40] = "";
            if (!isnan(r->speedup_lo))
                snprintf(spread, sizeof spread, " (%.2f-%.2f)", r->speedup_lo, r->speedup_hi);
            fprintf(out, "    %8s  %6.3fx%-14s %9.2f -> %9.2f us  %s\n", bytes, r->speedup, spread, r->default_us,
                    r->topobcast_us, r->alg);
        }
    }
}

void tbr_summary_print(FILE *out, const tbr_summary *s)
{
    int nh = s->topo->nhosts;
    fprintf(out, "topobcast-report: %d ranks on %d host%s, %s measurements of %d pair%s\n", s->meas->n, nh,
            nh == 1 ? "" : "s", s->meas->opt.mode == TT_MODE_LOGGP ? "LogGP" : "PLogP", s->meas->npairs,
            s->meas->npairs == 1 ? "" : "s");
    print_tree(out, s);
    print_accuracy(out, s);
    if (s->table)
        fprintf(out, "selection table: %d rules\n", s->table->nrules);
    print_speedups(out, s);
    if (s->report_path)
        fprintf(out, "report: %s\n", s->report_path);
}
