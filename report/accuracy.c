/* How well the topology's levels match the ground truth recorded with the
 * measurements (host names, hwloc packages, a truth file): the accuracy of
 * the seed thesis (eq. 3.7-3.9) and the adjusted Rand index, both from the
 * clustering library, for every truth against every level. */
#include <stdio.h>
#include <string.h>

#include "report.h"

int tbr_accuracy_compute(const tb_topology *t, const tt_truthset *ts, tbr_accuracy *a)
{
    memset(a, 0, sizeof *a);
    if (!ts || ts->n != t->nleaves)
        return -1;
    a->nlevels = t->nlevels < TB_MAX_LEVELS ? t->nlevels : TB_MAX_LEVELS;
    a->ntruth = ts->ntruth < TT_MAX_TRUTH ? ts->ntruth : TT_MAX_TRUTH;
    int n = t->nleaves;
    for (int k = 0; k < a->ntruth; k++) {
        snprintf(a->truth[k], sizeof a->truth[k], "%s", ts->name[k]);
        int ng = 0;
        for (int r = 0; r < n; r++) {
            int dup = 0;
            for (int q = 0; q < r && !dup; q++)
                dup = ts->labels[k][q] == ts->labels[k][r];
            ng += !dup;
        }
        a->truth_groups[k] = ng;
        a->best[k] = 0;
        for (int l = 0; l < a->nlevels; l++) {
            a->acc[k][l] = tt_accuracy(t->group[l], ts->labels[k], n);
            a->ari[k][l] = tt_ari(t->group[l], ts->labels[k], n);
            if (a->acc[k][l] > a->acc[k][a->best[k]])
                a->best[k] = l;
        }
    }
    return 0;
}

void tbr_accuracy_html(tbr_buf *b, const char *id, const tb_topology *t, const tbr_accuracy *a)
{
    tbr_puts(b, "<table class=\"acc\"");
    if (id) {
        tbr_puts(b, " id=\"");
        tbr_escape(b, id);
        tbr_puts(b, "\"");
    }
    tbr_puts(b, ">\n<thead><tr><th>ground truth</th><th>groups</th>");
    for (int l = 0; l < a->nlevels; l++) {
        tbr_puts(b, "<th>level <b>");
        tbr_escape(b, t->level_name[l]);
        tbr_printf(b, "</b> (%d)</th>", t->ngroups[l]);
    }
    tbr_puts(b, "</tr></thead>\n<tbody>\n");
    for (int k = 0; k < a->ntruth; k++) {
        tbr_puts(b, "<tr><th>");
        tbr_escape(b, a->truth[k]);
        tbr_printf(b, "</th><td>%d</td>", a->truth_groups[k]);
        for (int l = 0; l < a->nlevels; l++) {
            double acc = a->acc[k][l];
            const char *cls = l == a->best[k] ? (acc >= 0.999 ? "best exact" : "best") : "";
            tbr_printf(b, "<td class=\"%s\">%.3f <small>ARI %.3f</small></td>", cls, acc, a->ari[k][l]);
        }
        tbr_puts(b, "</tr>\n");
    }
    tbr_puts(b, "</tbody></table>\n");
}
