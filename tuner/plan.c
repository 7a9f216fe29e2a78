/* The tuning plan: what to time per (communicator, size); see plan.h. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "price.h"
#include "progress.h"

static int family_allowed(const char *algs, tb_alg_id id)
{
    if (!algs || id == TB_ALG_DEFAULT)
        return 1;
    const char *name = tb_alg_name(id);
    size_t nl = strlen(name);
    for (const char *p = algs; *p;) {
        size_t len = strcspn(p, ",");
        if (len == nl && !strncmp(p, name, nl))
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

typedef struct pred_rec {
    int idx;
    double t, replay; /* prediction; its replay alone orders equal ones */
} pred_rec;

/* By prediction, then by replay: where a shared link's bound decides the
 * prediction, candidates that differ only in segment size or fan-out tie
 * on it, and the replay tells which of them keeps the ranks busier. */
static int cmp_pred(const void *a, const void *b)
{
    const pred_rec *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->replay > y->replay) - (x->replay < y->replay);
}

/* The timed set of an item from the distinct candidates pr[0..np) (ordered
 * by prediction) and default (l->v[def], def < 0: none): default first,
 * then those pruning keeps (all with --exhaustive, it->pruned marking the
 * kept): at most max_timed of each class (0: no cap), and unless strict
 * (--site: a budget) the best predicted of every other family too.
 * Returns 0 or -1 out of memory. */
static int prune(const tn_opts *o, int max_timed, int strict, const tn_costs *costs, const tn_cand_list *l,
                 const pred_rec *pr, int np, int def, tn_item *it)
{
    int cap = np + 1;
    it->spec = malloc(sizeof *it->spec * (size_t)cap);
    it->pred = malloc(sizeof *it->pred * (size_t)cap);
    it->pruned = malloc((size_t)cap);
    if (!it->spec || !it->pred || !it->pruned)
        return -1;
    it->ntime = it->nprune = 0;
    if (def >= 0) {
        snprintf(it->spec[0], TN_CAND_TEXT, "%s", l->v[def].text);
        it->pred[0] = -1;
        it->pruned[0] = 1;
        it->ntime = it->nprune = 1;
    }
    /* the best prediction without and with feeds: each class is pruned
     * against its own, as their model errors are their own (a feeds plan
     * predicted too low would push the winner without feeds outside the
     * factor of it) */
    double best[2] = {-1.0, -1.0};
    for (int k = 0; k < np; k++) {
        const int fed = l->v[pr[k].idx].spec.feeds > 1;
        if (pr[k].t >= 0 && best[fed] < 0)
            best[fed] = pr[k].t;
    }
    /* kept so far, without and with feeds: each class has its own
     * --max-timed slots too (FRAM-like, P=512, 8 MiB: feeds predicted
     * 2013 us and measured 2810 us filled all three slots and kept out the
     * interpipe without feeds predicted 2349 us and measured 2591 us;
     * ARM1-like, 96 ranks, 1 MiB: the feeds plans tie on the NUMA memory's
     * bound, 1163 us, and the first of them by replay, four chains,
     * measured 1475 us where the third measured 1184 us) */
    int kept[2] = {0, 0};
    /* families with a candidate kept: an algorithm, and apart from it its
     * plans with feeds */
    char fam_kept[TB_ALG_COUNT][2] = {{0}};
    for (int k = 0; k < np; k++) {
        double t = pr[k].t;
        const tb_alg_spec *sp = &l->v[pr[k].idx].spec;
        const int fed = sp->feeds > 1;
        char *fam = &fam_kept[sp->id][fed];
        const int first = !*fam;
        int keep = !costs || (t >= 0 && t <= o->factor * best[fed]);
        /* Up to TN_ALL_FAMILIES_UPTO bytes the best predicted of every
         * algorithm is timed, within the factor or not: latency-bound
         * messages are where the model's per-hop costs err most, across
         * families (FRAM-like, P=512, 1 KiB: knomial predicted 7.1 us,
         * measured 15.3 us, the same as MPI_Bcast; magpie2, predicted
         * outside the factor, measured 11.0 us), and where a timing is
         * cheapest. */
        if (!keep && !strict && costs && t >= 0 && first && it->bytes <= TN_ALL_FAMILIES_UPTO)
            keep = 1;
        /* Past the cap, the best predicted of each other algorithm within
         * the factor is still timed: the model's error differs by family
         * (at 4 KiB on P=512, unsegmented trees measure 2-4x their
         * prediction, a segmented interpipe 1.4x), so its order across
         * families is the least trustworthy part. */
        if (keep && max_timed > 0 && kept[fed] >= max_timed && (!first || strict))
            keep = 0;
        if (keep)
            *fam = 1;
        kept[fed] += keep;
        it->nprune += keep;
        if (!keep && !o->exhaustive)
            continue;
        snprintf(it->spec[it->ntime], TN_CAND_TEXT, "%s", l->v[pr[k].idx].text);
        it->pred[it->ntime] = t;
        it->pruned[it->ntime] = (char)keep;
        it->ntime++;
    }
    return 0;
}

/* Rank 0: candidates, predictions and the timed set for one item.
 * Candidates that run exactly the same schedule as an earlier one (a
 * k-nomial tree with k >= P is flat, every tree is one edge at P = 2 ...)
 * are timed once, under the first name generated. */
static int plan_one(const tn_opts *o, const tn_costs *costs, const tn_comm *ci, tn_item *it, const tn_cand_grid *grid)
{
    tn_cand_list l = {0};
    if (tn_cand_generate(grid, ci->hier, ci->size, it->bytes, &l) < 0)
        return -1;
    int n = 0;
    for (int i = 0; i < l.n; i++) /* family filter, in place */
        if (family_allowed(o->algs, l.v[i].spec.id))
            l.v[n++] = l.v[i];
    l.n = n;
    pred_rec *pr = malloc(sizeof *pr * (size_t)(n ? n : 1));
    double *tm = malloc(sizeof *tm * (size_t)(n ? n : 1)), *rp = malloc(sizeof *rp * (size_t)(n ? n : 1));
    char *dup = calloc((size_t)(n ? n : 1), 1);
    tn_price_memo memo = {0};
    int rc = -1, np = 0, ns = 0, def = -1;
    if (!pr || !tm || !rp || !dup || tn_price_memo_init(&memo, n) != 0)
        goto out;
    it->best_pred = -1;
    for (int i = 0; i < n; i++) {
        if (l.v[i].spec.id == TB_ALG_DEFAULT) {
            def = i;
            continue;
        }
        char err[256];
        rp[i] = 0;
        int seen = tn_price(costs, ci, &l.v[i].spec, it->bytes, &memo, &tm[i], &rp[i], err, sizeof err);
        if (seen < 0) {
            if (o->verbose)
                fprintf(stderr, "tuner: %s on %d processes: %s\n", l.v[i].text, ci->size, err);
            dup[i] = 1; /* cannot be built or replayed: not a candidate here */
            continue;
        }
        ns++;
        dup[i] = (char)seen; /* an earlier candidate runs this schedule */
    }
    it->ndistinct = 0;
    for (int i = 0; i < n; i++) {
        if (i == def || dup[i])
            continue;
        it->ndistinct++;
        double t = tm[i];
        pr[np++] = (pred_rec){i, t, rp[i]};
        if (t >= 0 && (it->best_pred < 0 || t < it->best_pred)) {
            it->best_pred = t;
            snprintf(it->best_pred_spec, sizeof it->best_pred_spec, "%s", l.v[i].text);
        }
    }
    it->ncand = ns + (def >= 0);
    it->ndistinct += def >= 0;
    qsort(pr, (size_t)np, sizeof *pr, cmp_pred);
    /* --site, --top: the K best predicted, a budget (tn_opts_site_top) */
    if (o->site || o->top)
        rc = prune(o, o->site ? tn_opts_site_top(o, ci->size) : o->top, 1, costs, &l, pr, np, def, it);
    else
        rc = prune(o, o->max_timed, 0, costs, &l, pr, np, def, it);
out:
    tn_price_memo_free(&memo);
    free(pr), free(tm), free(rp), free(dup);
    tn_cand_list_free(&l);
    return rc;
}

/* Rank 0: candidates, predictions and timed sets of every item. */
void tn_plan_all(tn_run *T)
{
    const tn_opts *o = &T->o;
    tn_cand_grid grid;
    tn_cand_grid_default(&grid);
    grid.send_variants = o->send_variants;
    grid.max_segments = o->max_segments;
    tn_progress pp;
    tn_progress_start(&pp, T->nitems, 1);
    const double t0 = tn_progress_now();
    for (int c = 0, k = 0; c < T->ncomm; c++)
        for (int s = 0; s < o->nsizes; s++, k++) {
            tn_item *it = &T->items[k];
            it->ci = c;
            it->bytes = o->sizes[s];
            /* --algorithms without shm leaves it out as a base too */
            grid.shm = T->comms[c].shm && family_allowed(o->algs, TB_ALG_SHM);
            if (plan_one(o, T->have_costs ? &T->costs : NULL, &T->comms[c], it, &grid) != 0) {
                fprintf(stderr, "topobcast-tuner: out of memory while planning\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            T->total_cand += it->ncand;
            T->total_distinct += it->ndistinct;
            T->total_prune += it->nprune;
            char what[96];
            snprintf(what, sizeof what, "modelling: %s (%d processes), %zu B, %d candidates", T->comms[c].label,
                     T->comms[c].size, o->sizes[s], it->ncand);
            tn_progress_add(&pp, 1, what);
        }
    tn_progress_finish(&pp);
    T->plan_seconds = tn_progress_now() - t0;
    printf("# candidates: %ld (exhaustive), %ld distinct schedules; within %.2fx of the best prediction "
           "(feeds=F plans of theirs) + default: %ld%s\n",
           T->total_cand, T->total_distinct, o->factor, T->total_prune,
           o->exhaustive ? "; --exhaustive: timing all distinct" : "");
    fflush(stdout);
}

/* --dry-run's listing. */
void tn_plan_print(const tn_run *T)
{
    for (int k = 0; k < T->nitems; k++) {
        const tn_item *it = &T->items[k];
        printf("%s P=%d %zu B: %d candidates, %d distinct, %d to time; best predicted %.2f us: %s\n",
               T->comms[it->ci].label, T->comms[it->ci].size, it->bytes, it->ncand, it->ndistinct, it->ntime, it->best_pred * 1e6,
               it->best_pred_spec);
        for (int j = 0; T->o.verbose && j < it->ntime; j++)
            printf("    %10.2f us  %s\n", it->pred[j] * 1e6, it->spec[j]);
    }
}
