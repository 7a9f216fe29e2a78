#include "run/stats.h"

#include <stdio.h>

enum { N_ALG = TB_ALG_COUNT, N_RULE = TB_STATS_MAX_RULES };
/* layout of the reduced vector */
enum { OFF_CALLS = 0, OFF_BYTES = N_ALG, OFF_RULES = 2 * N_ALG, OFF_FALLBACK = 2 * N_ALG + N_RULE, N_STATS = OFF_FALLBACK + TB_FALLBACK_COUNT };

static unsigned long long counters[N_STATS];

void tb_stats_count(tb_alg_id id, size_t bytes, int rule, int counted)
{
    if (!counted)
        return;
    __atomic_fetch_add(&counters[OFF_CALLS + id], 1ULL, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counters[OFF_BYTES + id], (unsigned long long)bytes, __ATOMIC_RELAXED);
    if (rule >= 0)
        __atomic_fetch_add(&counters[OFF_RULES + (rule < N_RULE ? rule : N_RULE - 1)], 1ULL, __ATOMIC_RELAXED);
}

static char why_text[TB_FALLBACK_COUNT][512];
static const char *const why_label[TB_FALLBACK_COUNT] = {
    "TOPOBCAST_CONFIG could not be loaded",
    "ranks have different settings",
    "the topology does not fit the job",
    "TOPOBCAST_MAX_COMMS private communicators in use",
    "MPI_Ibcast on a communicator or at a size no blocking MPI_Bcast or MPI_Bcast_init has set up yet",
    "TOPOBCAST_ALGORITHM could not be used",
    "broadcasts on intercommunicators: the library's algorithms are for intracommunicators",
    "more than INT_MAX bytes in one call: this MPI (3.1) has no large-count MPI_Pack",
};

void tb_stats_fallback(tb_fallback_why why, int counted)
{
    if (counted)
        __atomic_fetch_add(&counters[OFF_FALLBACK + why], 1ULL, __ATOMIC_RELAXED);
}

void tb_stats_fallback_text(tb_fallback_why why, const char *text)
{
    if (!why_text[why][0])
        snprintf(why_text[why], sizeof why_text[why], "%s", text);
}

void tb_stats_report(int gather, const char *why_not, const int *rule_line, int nrules, const char *source)
{
    unsigned long long local[N_STATS], total[N_STATS];
    for (int i = 0; i < N_STATS; i++)
        local[i] = __atomic_load_n(&counters[i], __ATOMIC_RELAXED);
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (gather) {
        if (PMPI_Reduce(local, total, N_STATS, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return;
    } else {
        for (int i = 0; i < N_STATS; i++)
            total[i] = local[i];
    }
    if (rank != 0)
        return;
    if (!gather)
        fprintf(stderr, "topobcast: stats: counts of world rank 0 only (%s, so the ranks' counts cannot be summed "
                        "safely)\n", why_not);
    for (int a = 0; a < N_ALG; a++)
        if (total[OFF_CALLS + a])
            fprintf(stderr, "topobcast: stats: algorithm=%s calls=%llu bytes=%llu\n", tb_alg_name((tb_alg_id)a),
                    total[OFF_CALLS + a], total[OFF_BYTES + a]);
    for (int r = 0; r < N_RULE; r++)
        if (total[OFF_RULES + r]) {
            int line = (rule_line && r < nrules) ? rule_line[r] : 0;
            /* rules numbered from 1 in file order, as the report numbers
             * them; line 0: a rule of the built-in table, which a file
             * holding only a topology keeps */
            fprintf(stderr, "topobcast: stats: rule=%d%s line=%d source=%s calls=%llu\n", r + 1,
                    r == N_RULE - 1 ? "+" : "", line, !rule_line ? "-" : line ? source : "<built-in>",
                    total[OFF_RULES + r]);
        }
    for (int w = 0; w < TB_FALLBACK_COUNT; w++)
        if (total[OFF_FALLBACK + w])
            fprintf(stderr, "topobcast: stats: fallback calls=%llu (%s; used the MPI library's own broadcast)\n", total[OFF_FALLBACK + w],
                    why_text[w][0] ? why_text[w] : why_label[w]);
    fflush(stderr);
}
