/* Minimal test reporting: one "ok"/"not ok" line per check, counted by
 * test/run_tests.sh. */
#ifndef TB_TAP_H
#define TB_TAP_H
#include <stdio.h>

static int tap_failures;

#define TAP_OK(cond, ...)                                                  \
    do {                                                                   \
        int tap_c_ = (cond);                                               \
        printf("%s ", tap_c_ ? "ok" : "not ok");                           \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
        if (!tap_c_) {                                                     \
            tap_failures++;                                                \
            printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                  \
    } while (0)

#define TAP_DONE() return tap_failures ? 1 : 0
#endif
