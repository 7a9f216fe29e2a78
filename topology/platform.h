/* topology/platform.h: a SimGrid platform file and an smpirun hostfile as
 * the machine of the lower bound (bound.h).
 *
 * Read: one zone with Floyd or Full routing holding hosts, routers, links
 * and explicit routes (what test/platforms/mkplatforms.py writes).  Links
 * become resources: a SHARED link one (both directions share it), a
 * SPLITDUPLEX link two ("ID UP", "ID DOWN"), a FATPIPE link one without an
 * aggregate limit (each flow gets its bandwidth).  Routes between hosts are
 * those SimGrid 3.32 computes: Floyd-Warshall over the declared routes, a
 * route's cost its number of links, ties to the lower netpoint id (hosts and
 * routers numbered in the order of the file), the reverse of a symmetrical
 * route in reverse order with UP and DOWN swapped; a host without a route to
 * itself gets SimGrid's loopback, taken as unlimited.  A route's latency is
 * the sum of its links'.  Anything else (clusters, nested zones, bypass
 * routes ...) is refused with a message, never guessed. */
#ifndef TT_PLATFORM_H
#define TT_PLATFORM_H

#include <stddef.h>

#include "bound.h"

/* \brief Parses the platform XML in text (name labels messages) into n.
 * \return 0 with n filled (tt_net_free), or -1 with a message in err and n
 *         empty: malformed XML, an unknown unit, a link or netpoint that
 *         does not exist, unsupported elements or routing, no host. */
int tt_platform_parse(const char *text, const char *name, tt_net *n, char *err, size_t errlen);

/* \brief Reads the platform file path into n (tt_platform_parse).
 * \return 0, or -1 with a message in err (also when the file cannot be
 *         read). */
int tt_platform_read(const char *path, tt_net *n, char *err, size_t errlen);

/* \brief The whole of a text file, NUL-terminated.
 * \return the text (malloc'd: the caller frees it), or NULL with a message
 *         naming the file in err (unreadable, empty, out of memory). */
char *tt_read_text(const char *path, char *err, size_t errlen);

/* \brief The hosts of the first P ranks of an smpirun hostfile (one host
 *        per line, or "host:count"; blank lines and '#' comments skipped)
 *        as host ids of n.
 * \return 0 with *host_of (malloc'd, P entries), or -1 with a message in
 *         err: unreadable file, a host n does not have, fewer than P
 *         ranks. */
int tt_hostfile_read(const char *path, const tt_net *n, int P, int **host_of, char *err, size_t errlen);

#endif
