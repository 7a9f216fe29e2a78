/* Trees, exchange steps and hierarchies as text, for the unit tests of the
 * builders (test_trees.c, test_plans.c, test_hier_trees.c).
 *
 * Each builder's header comment shows a small example as the text these
 * functions print; builder_example() reads that block from the source file
 * and the tests compare it with the rendering of the tree or exchange the
 * builder actually makes, so the comment cannot drift from the code.
 * Tests run from the repository root (test/run_tests.sh). */
#ifndef TB_TREE_TEXT_H
#define TB_TREE_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"
#include "tap.h"

/* Not every test uses every helper. */
#define TT_HELPER static __attribute__((unused))

/* A growing string (aborts on allocation failure: tests only). */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

TT_HELPER void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
TT_HELPER void text_add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* Blocks [lo, hi) as "b" or "lo..hi-1" ("" when empty). */
TT_HELPER void text_range(text *t, tb_blocks b)
{
    if (b.hi - b.lo == 1)
        text_add(t, "%d", b.lo);
    else if (b.hi > b.lo)
        text_add(t, "%d..%d", b.lo, b.hi - 1);
}

/* Rounds until everyone has the message if each send takes one round and a
 * parent sends to its children one after the other, in send order. */
TT_HELPER int tree_rounds(const tb_tree *t, int r, int start)
{
    int worst = start;
    const int *c = tb_tree_children(t, r);
    for (int i = 0; i < tb_tree_nchildren(t, r); i++) {
        int f = tree_rounds(t, c[i], start + i + 1);
        if (f > worst)
            worst = f;
    }
    return worst;
}

/* The finalized tree t as lines "parent -> children in send order", parents
 * in the order they receive (breadth first from the root), each child with
 * its blocks in brackets when the message has more than one block; then
 * "depth D, rounds R" (tree_rounds).  Appended to out. */
TT_HELPER void tree_text(text *out, const tb_tree *t)
{
    int *queue = malloc(sizeof(int) * (size_t)t->size);
    int head = 0, tail = 0;
    queue[tail++] = t->root;
    while (head < tail) {
        int p = queue[head++];
        const int *c = tb_tree_children(t, p);
        if (tb_tree_nchildren(t, p) == 0)
            continue;
        text_add(out, "%d ->", p);
        for (int i = 0; i < tb_tree_nchildren(t, p); i++) {
            text_add(out, " %d", c[i]);
            if (t->nblocks > 1) {
                text_add(out, "[");
                text_range(out, (tb_blocks){t->blk_lo[c[i]], t->blk_hi[c[i]]});
                text_add(out, "]");
            }
            if (tail < t->size)
                queue[tail++] = c[i];
        }
        text_add(out, "\n");
    }
    free(queue);
    text_add(out, "depth %d, rounds %d", tb_tree_depth(t), tree_rounds(t, t->root, 0));
}

/* The exchange steps of every rank of p, one line per step:
 * "step s: a->b [blocks], ..." for each rank a that sends in that step, in
 * rank order (receives are the matching sends).  Appended to out. */
TT_HELPER void steps_text(text *out, const tb_plan *p)
{
    int P = p->tree.size, most = 0;
    tb_xchg_step **st = calloc((size_t)P, sizeof *st);
    int *n = calloc((size_t)P, sizeof *n);
    for (int r = 0; r < P; r++) {
        n[r] = tb_plan_xchg_steps(p, r, &st[r]);
        if (n[r] > most)
            most = n[r];
    }
    for (int s = 0; s < most; s++) {
        text_add(out, "%sstep %d:", s ? "\n" : "", s + 1);
        const char *sep = " ";
        for (int r = 0; r < P; r++) {
            if (s >= n[r] || st[r][s].send_peer < 0)
                continue;
            text_add(out, "%s%d->%d [", sep, r, st[r][s].send_peer);
            for (int k = 0, any = 0; k < 2; k++)
                if (st[r][s].send[k].hi > st[r][s].send[k].lo) {
                    text_add(out, "%s", any++ ? "," : "");
                    text_range(out, st[r][s].send[k]);
                }
            text_add(out, "]");
            sep = ", ";
        }
    }
    for (int r = 0; r < P; r++)
        free(st[r]);
    free(st);
    free(n);
}

/* The levels of h, coarsest first: "name {ranks} {ranks} ..." per level,
 * groups by id, ranks ascending, separated by "; ".  Appended to out. */
TT_HELPER void hier_text(text *out, const tb_hier *h)
{
    for (int l = 0; l < h->nlevels; l++) {
        text_add(out, "%s%s", l ? "; " : "", h->level_name[l]);
        for (int g = 0; g < h->ngroups[l]; g++) {
            const char *sep = " {";
            for (int r = 0; r < h->size; r++)
                if (h->group[l][r] == g) {
                    text_add(out, "%s%d", sep, r);
                    sep = " ";
                }
            text_add(out, "}");
        }
    }
}

/* The example block of the header comment of path: after the first line
 * that starts " * Example" (and the rest of its sentence), the lines
 * " *   TEXT" up to the first line that is not one; their TEXT joined by
 * '\n', malloc'd, or NULL. */
TT_HELPER char *builder_example(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char line[512];
    text out = {0};
    int seen = 0; /* the " * Example" line */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        int block = strncmp(line, " *   ", 5) == 0;
        if (!seen)
            seen = strncmp(line, " * Example", 10) == 0;
        else if (block)
            text_add(&out, "%s%s", out.len ? "\n" : "", line + 5);
        else if (out.len)
            break;
    }
    fclose(f);
    return out.s;
}

/* One check: the example in path's header comment is exactly `got`. */
TT_HELPER void check_example(const char *path, const char *got)
{
    char *want = builder_example(path);
    int ok = want && got && strcmp(want, got) == 0;
    TAP_OK(ok, "example in the header comment of %s matches what the builder makes", path);
    if (!ok)
        printf("#   comment:\n%s\n#   builder:\n%s\n", want ? want : "(no example block)", got ? got : "(nothing)");
    free(want);
}

enum { EXAMPLE_TREE = 1, EXAMPLE_STEPS = 2 };

/* Builds spec_text for P ranks from root (over h, which may be NULL) and
 * checks the example of path against "SPEC, P = N, root R[, LEVELS]", then
 * the tree (what & EXAMPLE_TREE) and the exchange steps (what &
 * EXAMPLE_STEPS), one per line. */
TT_HELPER void check_plan_example(const char *path, const char *spec_text, int P, int root, const tb_hier *h, int what)
{
    tb_alg_spec spec;
    tb_plan p;
    char err[256];
    if (tb_alg_spec_parse(spec_text, &spec, err, sizeof err) != 0 ||
        tb_plan_build(&p, P, root, &spec, h, err, sizeof err) != 0) {
        TAP_OK(0, "example of %s: %s builds (%s)", path, spec_text, err);
        return;
    }
    text t = {0};
    text_add(&t, "%s, P = %d, root %d", spec_text, P, root);
    if (h && h->nlevels > 0) {
        text_add(&t, ", ");
        hier_text(&t, h);
    }
    if (what & EXAMPLE_TREE) {
        text_add(&t, "\n");
        tree_text(&t, &p.tree);
    }
    if (what & EXAMPLE_STEPS) {
        text_add(&t, "\n");
        steps_text(&t, &p);
    }
    check_example(path, t.s);
    free(t.s);
    tb_plan_free(&p);
}

/* Same shape: size, root, parents and children in send order. */
TT_HELPER int same_tree(const tb_tree *a, const tb_tree *b)
{
    if (a->size != b->size || a->root != b->root || a->nedges != b->nedges)
        return 0;
    for (int r = 0; r < a->size; r++) {
        if (a->parent[r] != b->parent[r] || tb_tree_nchildren(a, r) != tb_tree_nchildren(b, r))
            return 0;
        for (int i = 0; i < tb_tree_nchildren(a, r); i++)
            if (tb_tree_children(a, r)[i] != tb_tree_children(b, r)[i])
                return 0;
    }
    return 1;
}

#endif
