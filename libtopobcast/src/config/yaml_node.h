/* The YAML document's nodes as the configuration readers see them
 * (library-only): messages at a node or at a packed item, node access,
 * scalars, and mappings with a fixed set of keys.  Each failure returns -1
 * so that a reader can `return tb_yaml_fail(...)`. */
#ifndef TB_CONFIG_YAML_NODE_H
#define TB_CONFIG_YAML_NODE_H

#include "config/yaml_tree.h"

/* A mapping with a fixed set of keys: tb_yaml_take_fields fills key_node
 * and val of each key present, refuses unknown and repeated keys, and
 * requires the required ones. */
typedef struct tb_yaml_field {
    const char *key;
    int required;
    tb_ynode *key_node, *val;
} tb_yaml_field;

/* ---- messages: each returns -1 ---- */
/* At a node. */
int tb_yaml_fail(tb_yaml_loader *L, const tb_ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* At item i of a list, packed or not. */
int tb_yaml_fail_item(tb_yaml_loader *L, const tb_ynode *list, int i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A node's line, 1-based. */
unsigned long tb_yaml_line_of(const tb_ynode *n);
/* A scalar's text made safe for a one-line message into buf (control
 * characters replaced, long values cut), or what kind of node it is. */
const char *tb_yaml_shown(const tb_yaml_loader *L, const tb_ynode *n, char *buf, size_t cap);
/* "a scalar", "a list", "a mapping". */
const char *tb_yaml_kind(const tb_ynode *n);

/* ---- nodes ---- */
/* A scalar's text (NUL-terminated). */
const char *tb_yaml_sval(const tb_yaml_loader *L, const tb_ynode *n);
int tb_yaml_is_list(const tb_ynode *n);
int tb_yaml_seq_len(const tb_ynode *n);
/* Item i of a list that is not packed (packed items are not nodes). */
tb_ynode *tb_yaml_seq_item(tb_yaml_loader *L, const tb_ynode *n, int i);
/* \return 0, or -1 with the message "expected WHAT (a list), got ...". */
int tb_yaml_expect_list(tb_yaml_loader *L, const tb_ynode *n, const char *what);
/* \return 0 once every key of map is one of f's, each once, the required
 * ones present; else -1 with the message. */
int tb_yaml_take_fields(tb_yaml_loader *L, const tb_ynode *map, tb_yaml_field *f, int nf, const char *what);

/* ---- scalars: 0 and *out, or -1 with "expected WHAT ..., got ..." ---- */
int tb_yaml_scalar(tb_yaml_loader *L, const tb_ynode *n, const char *what, const char **out);
/* An integer from lo to hi. */
int tb_yaml_get_int(tb_yaml_loader *L, const tb_ynode *n, long lo, long hi, const char *what, int *out);
/* A name of 1 to cap - 1 characters: letters, digits, '_' and '-' when
 * level_syntax, else printable characters without spaces. */
int tb_yaml_get_name(tb_yaml_loader *L, const tb_ynode *n, const char *what, int level_syntax, char *dst, size_t cap);
/* A finite number >= 0. */
int tb_yaml_get_number(tb_yaml_loader *L, const tb_ynode *n, const char *what, double *out);
/* Item i of a list (packed or not) as an integer from lo to hi. */
int tb_yaml_list_int(tb_yaml_loader *L, const tb_ynode *list, int i, long lo, long hi, const char *what, int *out);
/* Item i of a group: a member (WHAT: "a leaf rank", "a host index" ...)
 * from 0 to max, or a range "A-B" of them (A <= B), into [*lo, *hi]. */
int tb_yaml_list_ranks(tb_yaml_loader *L, const tb_ynode *list, int i, int max, const char *what, int *lo, int *hi);

#endif
