/* The configuration's YAML document (library-only): a compact tree read
 * from libyaml's events, and the loader that holds it with the
 * configuration being filled and the place of the first failure.  Every
 * failure is "FILE:LINE:COLUMN: expected ...", positions 1-based.  The
 * readers' helpers are in yaml_node.h.
 *
 * The tree: 24 bytes a node, scalars in one text arena.  Lists of plain
 * integers inside the topology (a leaf, a group) are packed: their values
 * go to an int arena, 4 bytes an item and no node, since a topology of P
 * processes has ~(levels + 5) P of them.  An error about a packed item
 * finds its position by parsing the file again up to that event (errors
 * only). */
#ifndef TB_CONFIG_YAML_TREE_H
#define TB_CONFIG_YAML_TREE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

struct tb_config;

#define TB_YAML_FORMAT1_TOPOLOGY                                                                                     \
    "expected a topology of format 2 ('topobcast: 2'); format 1 (one mapping per leaf, a P x P distance matrix) "     \
    "is not read: re-run topobcast-probe, or 'topobcast-probe --analyze' on its saved measurements, then "            \
    "topobcast-tuner"

enum { Y_SCALAR = 1, Y_LIST, Y_MAP, Y_INTS };

typedef struct tb_ynode {
    uint32_t line, col; /* 0-based, from libyaml's start mark */
    uint32_t len;       /* scalar: bytes; list: items; mapping: 2 x pairs; ints: items */
    uint32_t first;     /* scalar: offset in text; list/mapping: offset in kids; ints: offset in ints */
    uint32_t ev;        /* index of the event that started it (ints: item i is event ev + 1 + i) */
    unsigned char type;
} tb_ynode;

typedef struct tb_ytree {
    tb_ynode *nodes;
    size_t nnodes, ncap;
    uint32_t *kids; /* children of each collection, contiguous; mapping: key, value, key ... */
    size_t nkids, kcap;
    char *text;     /* scalars, each NUL-terminated */
    size_t ntext, tcap;
    int32_t *ints;  /* items of packed integer lists */
    size_t nints, icap;
} tb_ytree;

typedef struct tb_yaml_loader {
    tb_ytree t;
    const char *name; /* file name for messages */
    const char *data; /* the text, to find positions again */
    size_t len;
    char *err;
    size_t errlen;
    struct tb_config *cfg; /* what the readers fill (config.h) */
} tb_yaml_loader;

/* \brief The failure at a libyaml mark, from a va_list (tb_yaml_vfail_at) or
 * arguments: L->err = "NAME:LINE:COLUMN: msg"
 * (control characters of msg replaced).
 * \return -1. */
int tb_yaml_fail_at(tb_yaml_loader *L, const yaml_mark_t *m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int tb_yaml_vfail_at(tb_yaml_loader *L, const yaml_mark_t *m, const char *fmt, va_list ap);
/* \brief Reads data into L->t; *root receives the root node or -1 for an
 * empty stream.  Refuses aliases, several documents, nesting deeper than
 * 64, and a format-1 topology before its leaves are read.
 * \return 0, or -1 with the message in L->err. */
int tb_yaml_read_tree(tb_yaml_loader *L, const char *data, size_t len, long *root);
/* \brief Releases the tree.
 * \return nothing. */
void tb_yaml_tree_free(tb_ytree *t);

#endif
