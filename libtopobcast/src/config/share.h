/* The one reader of TOPOBCAST_CONFIG (share.c): at MPI_Init, world
 * rank 0 reads the file and every process receives its bytes through
 * PMPI_Bcast, so that P processes never open it at once. */
#ifndef TB_CONFIG_SHARE_H
#define TB_CONFIG_SHARE_H

#include <stddef.h>

/* What this process received at MPI_Init. */
typedef struct tb_config_shared {
    int is_error;  /* 1: rank 0 could not read it; data is its message */
    char *path;    /* rank 0's TOPOBCAST_CONFIG */
    char *data;    /* the file's bytes (NUL-terminated), or the message */
    size_t len;
} tb_config_shared;

/* \brief Collective over MPI_COMM_WORLD, called right after PMPI_Init on
 * every process: world rank 0 reads path (its TOPOBCAST_CONFIG; NULL: it
 * has none, or the library is disabled there) as tb_config_load would
 * (regular file, TOPOBCAST_CONFIG_MAX_BYTES), then broadcasts the path and
 * the bytes (or its error message) on MPI_COMM_WORLD, before any call of
 * the application's (so no collective of the application's can match
 * them; no context id taken).  Every process keeps what it
 * received when keep is 1 (tb_config_share_take hands it over), else drops
 * it.  Each collective call is the same on every process whatever its own
 * environment, so none can hang.
 * \return nothing; an MPI failure leaves nothing shared (each process then
 * reads the file itself). */
void tb_config_share_at_init(const char *path, int keep);
/* \brief Hands over what MPI_Init shared, if it was for path (this
 * process's TOPOBCAST_CONFIG, compared as text): *out then owns path and
 * data (release with tb_config_shared_free).  Thread-safe; once.
 * \return 1 if handed over, 0 if nothing was shared for this path (no
 * init hook ran, rank 0 had no or another path, already taken). */
int tb_config_share_take(const char *path, tb_config_shared *out);
/* \brief Frees what tb_config_share_take handed over and zeroes *s.
 * \return nothing. */
void tb_config_shared_free(tb_config_shared *s);

#endif
