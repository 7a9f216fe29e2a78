/* Whether two paths name one file: what the tools check before writing an
 * output over one of their own inputs. */
#include <string.h>
#include <sys/stat.h>

#include "topology.h"

int tt_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b)
        return 0;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(a, b) == 0;
}
