/* Where a site's configuration lives: PREFIX/etc/topobcast/site.yaml of
 * the installation the library was loaded from, used when
 * TOPOBCAST_CONFIG is unset (README, "Per site"). */
#ifndef TB_CONFIG_SITE_PATH_H
#define TB_CONFIG_SITE_PATH_H

/* \brief The configuration a process uses: TOPOBCAST_CONFIG when set (an
 * empty value: none, the built-in table), else the site file when it
 * exists: beside the shared library that holds this code, LIBDIR/
 * TB_SITE_CONFIG_REL (a relocated installation finds its own), or, linked
 * statically, TB_SITE_CONFIG_ABS (the PREFIX the library was built for).
 * Local; the same on every process of one installation.
 * \return the path, or NULL (built-in table); *site = 1 when it is the
 * site file.  Valid until the next call. */
const char *tb_config_path(int *site);

#endif
