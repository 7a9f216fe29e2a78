/* The configuration file itself: a regular file, opened without blocking,
 * read whole up to TOPOBCAST_CONFIG_MAX_BYTES. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

size_t tb_config_max_bytes(int *bad)
{
    const char *v = getenv("TOPOBCAST_CONFIG_MAX_BYTES");
    size_t max;
    int unset = !v || !*v, wrong = !unset && (tb_parse_size(v, &max) != 0 || max == 0);
    if (bad)
        *bad = wrong;
    return unset || wrong ? TB_CONFIG_MAX_BYTES_DEFAULT : max;
}

int tb_config_check_size(const char *path, unsigned long long size, size_t max, char *err, size_t errlen)
{
    if (size <= max)
        return 0;
    snprintf(err, errlen, "%s: expected at most %zu bytes (TOPOBCAST_CONFIG_MAX_BYTES), the file has %llu", path, max,
             size);
    return -1;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

char *tb_config_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *data = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: expected a regular file, this is %s", path, file_kind(st.st_mode));
    } else if (tb_config_check_size(path, (unsigned long long)st.st_size, max, err, errlen) != 0) {
        /* err says why */
    } else if (!(data = malloc((size_t)st.st_size + 1))) {
        snprintf(err, errlen, "%s: out of memory reading %lld bytes", path, (long long)st.st_size);
    } else {
        size_t cap = (size_t)st.st_size + 1, n = 0;
        for (;;) {
            ssize_t got = read(fd, data + n, cap - n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                snprintf(err, errlen, "%s: expected a readable file: %s", path, strerror(errno));
                free(data), data = NULL;
                break;
            }
            n += (size_t)got;
            if (got == 0)
                break;
            if (n == cap) { /* grew since fstat */
                if (n > max) {
                    snprintf(err, errlen, "%s: expected at most %zu bytes (TOPOBCAST_CONFIG_MAX_BYTES); it grew "
                             "while being read", path, max);
                    free(data), data = NULL;
                    break;
                }
                char *bigger = realloc(data, cap = cap * 2 > max + 1 ? max + 1 : cap * 2);
                if (!bigger) {
                    snprintf(err, errlen, "%s: out of memory", path);
                    free(data), data = NULL;
                    break;
                }
                data = bigger;
            }
        }
        *len = n;
        if (data)
            data[n] = 0;
    }
    close(fd);
    return data;
}
