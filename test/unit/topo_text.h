/* Topology files as text for the unit tests of the configuration's
 * topologies: an input made from a good one by one edit (each malformed or
 * varied file), and a topology written by the library's writer and read
 * back by its loader (what the probe does with every file it writes). */
#ifndef TB_TEST_TOPO_TEXT_H
#define TB_TEST_TOPO_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* text with the first `from` replaced by `to` (malloc'd); aborts when text
 * has no `from` (a test that edits nothing would test nothing). */
static inline char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        printf("# test bug: '%s' not found\n", from);
        abort();
    }
    char *out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), to);
    strcat(out, at + strlen(from));
    return out;
}

/* t written (the topology block after "topobcast: 2") and loaded back into
 * *cfg as file "site.yaml"; 0, or -1 with the loader's message in err. */
static inline int round_trip(const tb_topology *t, tb_config *cfg, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return -1;
    fputs("topobcast: 2\n", mem);
    int rc = tb_topology_write(mem, t);
    fclose(mem);
    if (rc == 0)
        rc = tb_config_load_buffer(buf, len, "site.yaml", cfg, err, errlen);
    free(buf);
    return rc;
}

#endif
