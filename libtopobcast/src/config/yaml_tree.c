/* The configuration file read once through libyaml's event API into a
 * compact tree (yaml_tree.h): 24 bytes a node, scalars in one text arena,
 * the topology's plain integer lists packed 4 bytes an item.  A topology
 * of 65536 processes (3.5 MB of YAML) then loads in ~10 MB; libyaml's
 * document API costs ~170 bytes a node.  Aliases are rejected: nothing in
 * the schema needs them, and an alias can make the document a cyclic or
 * exponentially large graph.  A format-1 per-pair distance matrix is
 * refused as soon as it starts, before its P^2 values are read. */
#include "config/yaml_tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

int tb_yaml_vfail_at(tb_yaml_loader *L, const yaml_mark_t *m, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* user text quoted in the message (a multi-line scalar ...) must not
     * break the one-line warning */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    if (L->err && L->errlen)
        snprintf(L->err, L->errlen, "%s:%lu:%lu: %s", L->name, (unsigned long)m->line + 1,
                 (unsigned long)m->column + 1, msg);
    return -1;
}

int tb_yaml_fail_at(tb_yaml_loader *L, const yaml_mark_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tb_yaml_vfail_at(L, m, fmt, ap);
    va_end(ap);
    return -1;
}


static yaml_mark_t mark_of_offset(const char *data, size_t len, size_t off)
{
    yaml_mark_t m = {0, 0, 0};
    for (size_t i = 0; i < off && i < len; i++) {
        if (data[i] == '\n') {
            m.line++;
            m.column = 0;
        } else {
            m.column++;
        }
    }
    m.index = off;
    return m;
}

static int syntax_error(tb_yaml_loader *L, yaml_parser_t *p, const char *data, size_t len)
{
    const char *problem = p->problem ? p->problem : "unknown problem";
    if (p->error == YAML_MEMORY_ERROR) {
        yaml_mark_t m = {0, 0, 0};
        return tb_yaml_fail_at(L, &m, "expected a file that fits in memory");
    }
    if (p->error == YAML_READER_ERROR) {
        yaml_mark_t m = mark_of_offset(data, len, p->problem_offset);
        return tb_yaml_fail_at(L, &m, "expected valid UTF-8 YAML text: %s", problem);
    }
    if (p->context)
        return tb_yaml_fail_at(L, &p->problem_mark, "expected valid YAML: %s (%s started at %lu:%lu)", problem, p->context,
                       (unsigned long)p->context_mark.line + 1, (unsigned long)p->context_mark.column + 1);
    return tb_yaml_fail_at(L, &p->problem_mark, "expected valid YAML: %s", problem);
}

/* ---- reading: libyaml events into the compact tree --------------------- */

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *b = realloc(*buf, c * elem);
    if (!b)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

void tb_yaml_tree_free(tb_ytree *t)
{
    free(t->nodes);
    free(t->kids);
    free(t->text);
    free(t->ints);
    memset(t, 0, sizeof *t);
}

static long new_node(tb_ytree *t, int type, const yaml_mark_t *m, uint32_t ev)
{
    if (t->nnodes >= UINT32_MAX || grow((void **)&t->nodes, &t->ncap, t->nnodes + 1, sizeof *t->nodes) != 0)
        return -1;
    tb_ynode *n = &t->nodes[t->nnodes];
    memset(n, 0, sizeof *n);
    n->type = (unsigned char)type;
    n->line = m->line > UINT32_MAX ? UINT32_MAX : (uint32_t)m->line;
    n->col = m->column > UINT32_MAX ? UINT32_MAX : (uint32_t)m->column;
    n->ev = ev;
    return (long)t->nnodes++;
}

static long new_scalar(tb_ytree *t, const char *text, size_t n, const yaml_mark_t *m, uint32_t ev)
{
    long id;
    if (n >= UINT32_MAX || t->ntext + n + 1 >= UINT32_MAX || grow((void **)&t->text, &t->tcap, t->ntext + n + 1, 1) != 0 ||
        (id = new_node(t, Y_SCALAR, m, ev)) < 0)
        return -1;
    memcpy(t->text + t->ntext, text, n);
    t->text[t->ntext + n] = 0;
    t->nodes[id].first = (uint32_t)t->ntext;
    t->nodes[id].len = (uint32_t)n;
    t->ntext += n + 1;
    return id;
}

/* A scalar that a packed list can hold: a plain decimal int32 whose text
 * is exactly what printing the value gives back. */
static int plain_int(const char *s, size_t n, int32_t *out)
{
    size_t i = s[0] == '-';
    if (n == i || n - i > 10 || (s[i] == '0' && n - i > 1) || (i && s[1] == '0'))
        return 0;
    long long v = 0;
    for (size_t k = i; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        v = v * 10 + (s[k] - '0');
    }
    v = i ? -v : v;
    if (v < INT32_MIN || v > INT32_MAX)
        return 0;
    *out = (int32_t)v;
    return 1;
}

/* An open collection.  A list directly inside a list, under the top-level
 * 'topology' (a leaf, a group), is packed while its items are plain
 * integers: they wait on the int stack, and become nodes only if another
 * kind of item follows. */
typedef struct frame {
    size_t node, from; /* its node; where its children start on pending */
    size_t ifrom;      /* where its integers start on the int stack */
    int packing, in_topology;
} frame;

typedef struct pending_int {
    int32_t v;
    uint32_t line, col, ev;
} pending_int;

typedef struct reader {
    uint32_t *pending; /* children of open collections */
    size_t npend, pcap;
    frame *frames;
    size_t nframes, fcap;
    pending_int *ipend;
    size_t nipend, ipcap;
} reader;

static int push_child(reader *R, long id)
{
    if (grow((void **)&R->pending, &R->pcap, R->npend + 1, sizeof *R->pending) != 0)
        return -1;
    R->pending[R->npend++] = (uint32_t)id;
    return 0;
}

/* The top frame stops packing: its waiting integers become scalar nodes. */
static int unpack(tb_ytree *t, reader *R)
{
    frame *f = &R->frames[R->nframes - 1];
    if (!f->packing)
        return 0;
    f->packing = 0;
    for (size_t i = f->ifrom; i < R->nipend; i++) {
        char text[16];
        int n = snprintf(text, sizeof text, "%d", (int)R->ipend[i].v);
        yaml_mark_t m = {0, R->ipend[i].line, R->ipend[i].col};
        long id = new_scalar(t, text, (size_t)n, &m, R->ipend[i].ev);
        if (id < 0 || push_child(R, id) != 0)
            return -1;
    }
    R->nipend = f->ifrom;
    return 0;
}

/* The key whose value the top mapping frame is about to receive, or NULL. */
static const char *value_key(const tb_ytree *t, const reader *R)
{
    const frame *f = &R->frames[R->nframes - 1];
    size_t n = R->npend - f->from;
    if (t->nodes[f->node].type != Y_MAP || n % 2 != 1)
        return NULL;
    const tb_ynode *k = &t->nodes[R->pending[R->npend - 1]];
    return k->type == Y_SCALAR ? t->text + k->first : NULL;
}

/* Builds L->t from the event stream; *root receives the root node or -1
 * for an empty stream.  Collections under construction keep their
 * children on `pending`; at their end the children move, contiguous, to
 * kids (or their integers to ints). */
int tb_yaml_read_tree(tb_yaml_loader *L, const char *data, size_t len, long *root)
{
    tb_ytree *t = &L->t;
    yaml_parser_t p;
    yaml_mark_t origin = {0, 0, 0};
    *root = -1;
    if (!yaml_parser_initialize(&p))
        return tb_yaml_fail_at(L, &origin, "expected a file that fits in memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    reader R;
    memset(&R, 0, sizeof R);
    int rc = 0, docs = 0, done = 0, format1 = 0;
    uint32_t nev = 0; /* node events so far: scalars, list and mapping starts */
    while (!done && rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(L, &p, data, len);
            break;
        }
        long id = -2;
        frame *top = R.nframes ? &R.frames[R.nframes - 1] : NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = tb_yaml_fail_at(L, &ev.start_mark, "expected a single YAML document");
            break;
        case YAML_ALIAS_EVENT: {
            char name[48];
            snprintf(name, sizeof name, "%s", (const char *)ev.data.alias.anchor);
            rc = tb_yaml_fail_at(L, &ev.start_mark, "expected no aliases, got '*%s' (anchors and aliases are not supported)",
                         name);
            break;
        }
        case YAML_SCALAR_EVENT: {
            uint32_t e = nev++;
            int32_t v;
            if (top && top->packing &&
                plain_int((const char *)ev.data.scalar.value, ev.data.scalar.length, &v)) {
                if (grow((void **)&R.ipend, &R.ipcap, R.nipend + 1, sizeof *R.ipend) != 0) {
                    rc = tb_yaml_fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                    break;
                }
                R.ipend[R.nipend++] = (pending_int){v, (uint32_t)ev.start_mark.line, (uint32_t)ev.start_mark.column, e};
                break;
            }
            if (R.nframes == 1) { /* 'topobcast: 1' before a topology: refused below */
                const char *key = value_key(t, &R);
                if (key && strcmp(key, "topobcast") == 0)
                    format1 = strcmp((const char *)ev.data.scalar.value, "1") == 0;
            }
            if ((top && unpack(t, &R) != 0) ||
                (id = new_scalar(t, (const char *)ev.data.scalar.value, ev.data.scalar.length, &ev.start_mark, e)) < 0)
                rc = tb_yaml_fail_at(L, &ev.start_mark, "expected a file that fits in memory");
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            uint32_t e = nev++;
            int is_seq = ev.type == YAML_SEQUENCE_START_EVENT;
            /* libyaml's scanner slows down quadratically with flow
             * nesting (200000 '[' took minutes); the schema needs 4 */
            if (R.nframes >= MAX_DEPTH) {
                rc = tb_yaml_fail_at(L, &ev.start_mark, "expected at most %d nested lists or mappings", MAX_DEPTH);
                break;
            }
            const char *key = top ? value_key(t, &R) : NULL;
            int in_topology = top && (top->in_topology || (R.nframes == 1 && key && strcmp(key, "topology") == 0));
            /* a format-1 topology: refused before its leaves are read (the
             * same message parse_root gives when the version comes later) */
            if (format1 && in_topology && R.nframes == 1) {
                rc = tb_yaml_fail_at(L, &ev.start_mark, TB_YAML_FORMAT1_TOPOLOGY);
                break;
            }
            /* a format-1 P x P matrix: refused before its P^2 values cost
             * memory */
            if (is_seq && in_topology && R.nframes == 2 && key && strcmp(key, "distance") == 0) {
                rc = tb_yaml_fail_at(L, &ev.start_mark,
                             "expected the distance classes {unit: us, levels: [...], within: x}; a per-pair distance "
                             "matrix (format 1) is not read: re-run topobcast-probe, or 'topobcast-probe "
                             "--analyze' on its saved measurements");
                break;
            }
            long c = -1;
            if ((top && unpack(t, &R) != 0) ||
                (c = new_node(t, is_seq ? Y_LIST : Y_MAP, &ev.start_mark, e)) < 0 ||
                grow((void **)&R.frames, &R.fcap, R.nframes + 1, sizeof *R.frames) != 0) {
                rc = tb_yaml_fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                break;
            }
            int packing = is_seq && in_topology && t->nodes[top->node].type == Y_LIST;
            R.frames[R.nframes++] = (frame){(size_t)c, R.npend, R.nipend, packing, in_topology};
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            frame f = R.frames[--R.nframes];
            id = (long)f.node;
            tb_ynode *nd = &t->nodes[id];
            if (f.packing && R.nipend > f.ifrom) {
                size_t n = R.nipend - f.ifrom;
                if (t->nints + n >= UINT32_MAX || grow((void **)&t->ints, &t->icap, t->nints + n, sizeof *t->ints) != 0) {
                    rc = tb_yaml_fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                    break;
                }
                for (size_t i = 0; i < n; i++)
                    t->ints[t->nints + i] = R.ipend[f.ifrom + i].v;
                nd->type = Y_INTS;
                nd->first = (uint32_t)t->nints;
                nd->len = (uint32_t)n;
                t->nints += n;
                R.nipend = f.ifrom;
                break;
            }
            size_t n = R.npend - f.from;
            if (t->nkids + n >= UINT32_MAX || grow((void **)&t->kids, &t->kcap, t->nkids + n, sizeof *t->kids) != 0) {
                rc = tb_yaml_fail_at(L, &ev.start_mark, "expected a file that fits in memory");
                break;
            }
            if (n)
                memcpy(t->kids + t->nkids, R.pending + f.from, n * sizeof *R.pending);
            nd->first = (uint32_t)t->nkids;
            nd->len = (uint32_t)n;
            t->nkids += n;
            R.npend = f.from;
            break;
        }
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (rc == 0 && id >= 0) {
            if (R.nframes == 0)
                *root = id; /* a document's only node */
            else if (push_child(&R, id) != 0)
                rc = tb_yaml_fail_at(L, &origin, "expected a file that fits in memory");
        }
    }
    free(R.pending);
    free(R.frames);
    free(R.ipend);
    yaml_parser_delete(&p);
    return rc;
}
