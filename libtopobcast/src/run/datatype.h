/* Turning (buffer, count, datatype) into the contiguous byte image the
 * engine moves, and back. */
#ifndef TB_DATATYPE_H
#define TB_DATATYPE_H

#include <mpi.h>

#include "base/compat.h"
#include <stddef.h>

typedef struct tb_msg {
    void *user;       /* the user's buffer */
    MPI_Count count;
    MPI_Datatype type;
    size_t bytes;     /* size of the type signature: same on every rank */
    char *image;      /* contiguous bytes: inside the user buffer, or packed */
    int packed;       /* image is a temporary that needs pack/unpack */
} tb_msg;

/* Sizes of the predefined (named) datatypes a thread used last.  Initial-
 * exec TLS: one load, no __tls_get_addr call, on every broadcast. */
#define TB_TYPE_SLOTS 4
typedef struct tb_type_slot {
    MPI_Datatype type;
    size_t size; /* 0: empty slot */
} tb_type_slot;
extern TB_TLS tb_type_slot tb_type_cache[TB_TYPE_SLOTS];
/* Size in bytes of a predefined (named) datatype if this thread cached it,
 * else 0. */
static inline size_t tb_named_type_size(MPI_Datatype type)
{
    for (int i = 0; i < TB_TYPE_SLOTS; i++)
        if (tb_type_cache[i].size && tb_type_cache[i].type == type)
            return tb_type_cache[i].size;
    return 0;
}
/* The same, looking the type up (and caching it) on a miss; 0 for a derived
 * type or an invalid handle. */
size_t tb_named_type_size_slow(MPI_Datatype type);
/* Describes the message; bytes == 0 is a valid empty message.  Returns an
 * MPI error code (MPI_ERR_COUNT when bytes overflow size_t). */
int tb_msg_init(tb_msg *m, void *buf, MPI_Count count, MPI_Datatype type);
/* Before the engine: allocate the image if needed and pack at the root. */
int tb_msg_prepare(tb_msg *m, int is_root, MPI_Comm comm);
/* After the engine: unpack at non-roots, free the temporary. */
int tb_msg_finish(tb_msg *m, int is_root, MPI_Comm comm);

#endif
