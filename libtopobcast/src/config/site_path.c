/* The configuration's path: TOPOBCAST_CONFIG, or the site file of the
 * installation (site_path.h). */
#define _GNU_SOURCE /* dladdr */
#include "config/site_path.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TB_SITE_CONFIG_REL
#define TB_SITE_CONFIG_REL "../etc/topobcast/site.yaml"
#endif
#ifndef TB_SITE_CONFIG_ABS
#define TB_SITE_CONFIG_ABS "/usr/local/etc/topobcast/site.yaml"
#endif

/* The site file beside the shared library that holds this function, or
 * the built-in absolute path when this code is part of an executable. */
static const char *site_file(void)
{
    static __thread char buf[PATH_MAX];
    Dl_info info;
    if (TB_SITE_CONFIG_REL[0] != '/' && dladdr((void *)site_file, &info) && info.dli_fname &&
        strstr(info.dli_fname, "libtopobcast.so")) {
        const char *slash = strrchr(info.dli_fname, '/');
        int dir = slash ? (int)(slash - info.dli_fname) : 0;
        if (snprintf(buf, sizeof buf, "%.*s%s%s", dir, info.dli_fname, slash ? "/" : "", TB_SITE_CONFIG_REL) <
            (int)sizeof buf)
            return buf;
    }
    return TB_SITE_CONFIG_ABS;
}

const char *tb_config_path(int *site)
{
    const char *env = getenv("TOPOBCAST_CONFIG");
    *site = 0;
    if (env)
        return *env ? env : NULL;
    static __thread char real[PATH_MAX];
    const char *path = site_file();
    if (access(path, F_OK) != 0)
        return NULL;
    *site = 1;
    return realpath(path, real) ? real : path; /* PREFIX/etc/..., not PREFIX/lib/../etc/... */
}
