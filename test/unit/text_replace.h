/* A test input made from another by one edit: the unit tests of the
 * configuration's topologies derive each malformed or varied file from a
 * good one. */
#ifndef TB_TEST_TEXT_REPLACE_H
#define TB_TEST_TEXT_REPLACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#endif
