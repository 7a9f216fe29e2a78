/* The one reader of TOPOBCAST_CONFIG (share.h).
 *
 * A configuration of a 65536-process job is a few MB; read by every
 * process at its first broadcast, it made 65536 opens and reads of one
 * file on a shared file system at once.  Instead, inside MPI_Init (where no
 * application message can be in flight), world rank 0 reads it and
 * broadcasts it:
 *
 *   header   3 x int64: kind (none / bytes / error), path length, length
 *   payload  path + bytes (or rank 0's error message), in 64 KiB pieces
 *
 * on MPI_COMM_WORLD itself.  Inside MPI_Init the application has made no
 * call yet, so these collectives come first in every process's order of
 * collectives on MPI_COMM_WORLD and cannot match any of the application's
 * (nor its point-to-point messages, which collectives never match): the
 * library takes neither a context id nor a tag.  (It used a duplicate of
 * MPI_COMM_WORLD, freed at once; under SimGrid SMPI, where every rank is in
 * one process, each duplicate copied the world's group, O(P) per rank.)
 * The header comes from rank 0 alone, so every process makes
 * the same calls whatever its own environment.  Each process still parses
 * the bytes itself (agreement compares each one's hash of them, as before)
 * and still applies its own TOPOBCAST_CONFIG and TOPOBCAST_CONFIG_MAX_BYTES:
 * a process whose path differs from rank 0's reads its own file, as every
 * process did before (settings.c). */
#include "config/share.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/compat.h"
#include "config.h"
#include "base/pmpi.h"

enum { KIND_NONE = 0, KIND_BYTES = 1, KIND_ERROR = 2 };
#define PIECE ((size_t)64 << 10)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tb_config_shared shared;
static int have_shared;

/* Broadcasts n bytes of buf from rank 0 in pieces of the same size on
 * every process.  buf NULL (a process that drops them, or cannot hold
 * them): each piece lands in a scratch area, so the process still takes
 * part in every broadcast. */
static int bcast_bytes(char *buf, size_t n, MPI_Comm comm)
{
    char scratch[PIECE];
    for (size_t at = 0; at < n; at += PIECE) {
        size_t k = n - at < PIECE ? n - at : PIECE;
        int rc = tb_mpi.Bcast(buf ? buf + at : scratch, (int)k, MPI_BYTE, 0, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Rank 0: the header and payload of path. */
static void read_at_root(const char *path, int64_t *hdr, char **payload)
{
    char err[768];
    size_t len = 0, plen = strlen(path);
    *payload = NULL;
    hdr[0] = KIND_ERROR;
    char *data = tb_config_read_file(path, tb_config_max_bytes(NULL), &len, err, sizeof err);
    if (data) {
        hdr[0] = KIND_BYTES;
    } else {
        data = err;
        len = strlen(err);
    }
    *payload = malloc(plen + len + 1);
    if (!*payload) {
        hdr[0] = KIND_NONE; /* every process reads for itself */
    } else {
        memcpy(*payload, path, plen);
        memcpy(*payload + plen, data, len);
        hdr[1] = (int64_t)plen;
        hdr[2] = (int64_t)len;
    }
    if (data != err)
        free(data);
}

void tb_config_share_at_init(const char *path, int keep)
{
    int rank;
    MPI_Comm comm = MPI_COMM_WORLD;
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return;
    /* errors returned, never fatal: a failure means each process reads */
    tb_quiet_errors q;
    tb_quiet_begin(comm, &q);
    int64_t hdr[3] = {KIND_NONE, 0, 0};
    char *payload = NULL;
    if (rank == 0 && path && *path)
        read_at_root(path, hdr, &payload);
    int rc = tb_mpi.Bcast(hdr, 3, MPI_INT64_T, 0, comm);
    if (rc == MPI_SUCCESS && hdr[0] != KIND_NONE) {
        size_t n = (size_t)hdr[1] + (size_t)hdr[2];
        if (rank != 0)
            payload = keep ? malloc(n + 1) : NULL;
        rc = bcast_bytes(payload, n, comm);
    }
    tb_quiet_end(comm, &q);
    if (rc != MPI_SUCCESS || hdr[0] == KIND_NONE || !keep || !payload) {
        free(payload);
        return;
    }
    /* path and data apart, each NUL-terminated */
    size_t plen = (size_t)hdr[1], len = (size_t)hdr[2];
    char *p = malloc(plen + 1);
    if (!p) {
        free(payload);
        return;
    }
    memcpy(p, payload, plen);
    p[plen] = 0;
    memmove(payload, payload + plen, len);
    payload[len] = 0;
    pthread_mutex_lock(&lock);
    tb_config_shared_free(&shared);
    shared = (tb_config_shared){hdr[0] == KIND_ERROR, p, payload, len};
    have_shared = 1;
    pthread_mutex_unlock(&lock);
}

int tb_config_share_take(const char *path, tb_config_shared *out)
{
    int got = 0;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&lock);
    if (have_shared && path && strcmp(path, shared.path) == 0) {
        *out = shared;
        memset(&shared, 0, sizeof shared);
        have_shared = 0;
        got = 1;
    }
    pthread_mutex_unlock(&lock);
    return got;
}

void tb_config_shared_free(tb_config_shared *s)
{
    free(s->path);
    free(s->data);
    memset(s, 0, sizeof *s);
}
