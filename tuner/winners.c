/* Winner picking and the pruning check; see winners.h. */
#include "winners.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "topology.h"

int tn_winners_pick(tn_run *T, tn_table *t, tn_prune_check *pc)
{
    const tn_opts *o = &T->o;
    t->ncomm = T->ncomm;
    t->comm = calloc((size_t)T->ncomm, sizeof *t->comm);
    char (*win)[TN_CAND_TEXT] = malloc(sizeof *win * (size_t)o->nsizes);
    if (!t->comm || !win) {
        free(win);
        return -1;
    }
    FILE *mcsv = NULL;
    if (o->model_csv) {
        if (!(mcsv = fopen(o->model_csv, "w")))
            fprintf(stderr, "topobcast-tuner: cannot write %s: %s\n", o->model_csv, strerror(errno));
        else
            fprintf(mcsv, "shape,comm,bytes,predicted_us,measured_us,kept,spec\n");
    }
    int rc = 0;
    for (int c = 0; c < T->ncomm && rc == 0; c++) {
        tn_table_comm *tc = &t->comm[c];
        snprintf(tc->label, sizeof tc->label, "%s", T->comms[c].label);
        tc->shape = T->comms[c].shape;
        tc->measured = T->comms[c].size;
        char shape[256];
        tb_shape_format(&tc->shape, tn_shape_config(), shape, sizeof shape);
        printf("\ncommunicator %s of %d processes (%s):\n", tc->label, tc->measured, shape);
        printf("%10s %11s %11s %8s %9s  %s\n", "size", "default_us", "chosen_us", "speedup", "timed/all",
               o->verbose ? "chosen (model's pick)" : "chosen");
        const char *prev = NULL;
        for (int s = 0; s < o->nsizes; s++) {
            tn_item *it = &T->items[c * o->nsizes + s];
            const tn_result **recs = malloc(sizeof *recs * (size_t)(it->ntime ? it->ntime : 1));
            const tn_result **kept = malloc(sizeof *kept * (size_t)(it->ntime ? it->ntime : 1));
            if (!recs || !kept) {
                free(recs);
                free(kept);
                rc = -1;
                break;
            }
            int n = 0, nk = 0;
            const tn_result *def = NULL;
            for (int j = 0; j < it->ntime; j++) {
                /* this run's model, also for results resumed from the partial file */
                if (it->pred[j] >= 0)
                    tn_results_set_predicted(&T->rs, c + 1, it->bytes, it->spec[j], it->pred[j]);
                const tn_result *r = tn_results_find(&T->rs, c + 1, it->bytes, it->spec[j]);
                if (!r)
                    continue;
                if (mcsv && r->status == TN_RES_OK)
                    fprintf(mcsv, "%s,%d,%zu,%.6g,%.6g,%d,\"%s\"\n", T->comms[c].label, T->comms[c].size, it->bytes,
                            it->pred[j] >= 0 ? it->pred[j] * 1e6 : NAN, tn_result_score(r) * 1e6, it->pruned[j],
                            it->spec[j]);
                recs[n++] = r;
                if (it->pruned[j])
                    kept[nk++] = r;
                if (!strcmp(r->spec, "default"))
                    def = r;
            }
            int w = tn_table_pick(recs, n, prev, o->tie);
            snprintf(win[s], TN_CAND_TEXT, "%s", w >= 0 ? recs[w]->spec : "default");
            prev = w >= 0 ? recs[w]->spec : NULL;
            if (o->exhaustive) {
                int pw = tn_table_pick(kept, nk, NULL, o->tie), aw = tn_table_pick(recs, n, NULL, o->tie);
                if (pw >= 0 && aw >= 0) {
                    double ratio = tn_result_score(kept[pw]) / tn_result_score(recs[aw]);
                    pc->cases++;
                    /* distinct specs here are distinct schedules; one that
                     * measured exactly the winner's time is as good */
                    int same = !strcmp(kept[pw]->spec, recs[aw]->spec) || ratio <= 1.0 + 1e-9;
                    pc->same += same;
                    pc->tied += !same && ratio <= 1.0 + o->tie;
                    pc->logsum += log(ratio);
                    if (ratio > pc->worst)
                        pc->worst = ratio;
                    if (!same && o->verbose)
                        printf("    pruning would pick %s (%.2f us, %.3fx)\n", kept[pw]->spec,
                               tn_result_score(kept[pw]) * 1e6, ratio);
                }
            }
            double td = def ? tn_result_score(def) : -1, tw = w >= 0 ? tn_result_score(recs[w]) : -1;
            printf("%10zu %11.2f %11.2f %8.3f %4d/%-4d  %s%s%s%s\n", it->bytes, td * 1e6, tw * 1e6,
                   td > 0 && tw > 0 ? td / tw : 0.0, n, it->ncand, win[s], o->verbose ? "  (" : "",
                   o->verbose ? it->best_pred_spec : "", o->verbose ? ")" : "");
            free(recs);
            free(kept);
        }
        if (rc == 0 && tn_table_merge(o->sizes, (const char (*)[TN_CAND_TEXT])win, o->nsizes, tc) != 0)
            rc = -1;
    }
    free(win);
    if (mcsv && tt_out_close(mcsv, o->model_csv, "topobcast-tuner") != 0)
        T->lost_writes = 1;
    return rc;
}
