/* RUNNING_ON_VALGRIND: nonzero under valgrind (from its header when
 * installed, else 0), for unit tests that scale their largest cases down
 * there. */
#ifndef TB_TEST_ON_VALGRIND_H
#define TB_TEST_ON_VALGRIND_H

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#endif
