#include "run/datatype.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/compat.h"

/* True when count elements of t are one gap-free run of bytes in the same
 * order as their type signature, so the user buffer can be sent as is.
 * Only named types and contiguous/dup constructors of them qualify: other
 * constructors may permute bytes, which would break ranks that receive with a
 * different datatype of the same signature. */
static int is_contiguous(MPI_Datatype t)
{
    MPI_Count size, lb, extent, tlb, textent;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent_x(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(t, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    if (size != extent || size != textent || lb != tlb)
        return 0;
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    if (combiner == MPI_COMBINER_NAMED)
        return 1;
    if ((combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) || nd != 1 || ni > 1 || na > 0)
        return 0;
    int ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype inner;
    if (PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, &inner) != MPI_SUCCESS)
        return 0;
    int ok = is_contiguous(inner);
    int ini, ina, ind, icomb;
    if (PMPI_Type_get_envelope(inner, &ini, &ina, &ind, &icomb) == MPI_SUCCESS && icomb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&inner);
    return ok;
}

TB_TLS tb_type_slot tb_type_cache[TB_TYPE_SLOTS];

size_t tb_named_type_size_slow(MPI_Datatype type)
{
    /* A predefined type's handle names the same type until MPI_Finalize, so
     * its size can be cached by handle; a derived type's handle can be freed
     * and reused, so derived types are never cached. */
    static __thread unsigned next;
    size_t hit = tb_named_type_size(type);
    if (hit)
        return hit;
    int ni, na, nd, combiner;
    MPI_Count size;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    unsigned slot = next++ % TB_TYPE_SLOTS;
    tb_type_cache[slot].type = type;
    tb_type_cache[slot].size = (size_t)size;
    return (size_t)size;
}

int tb_msg_init(tb_msg *m, void *buf, MPI_Count count, MPI_Datatype type)
{
    m->user = buf;
    m->count = count;
    m->type = type;
    m->image = NULL;
    m->packed = 0;
    MPI_Count size;
    int rc = PMPI_Type_size_x(type, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count > 0 && (size < 0 || (uint64_t)size > SIZE_MAX / (uint64_t)count))
        return MPI_ERR_COUNT;
    m->bytes = (size_t)count * (size_t)size;
    return MPI_SUCCESS;
}

int tb_msg_prepare(tb_msg *m, int is_root, MPI_Comm comm)
{
    if (m->bytes == 0)
        return MPI_SUCCESS;
    if (is_contiguous(m->type)) {
        MPI_Count tlb, textent;
        PMPI_Type_get_true_extent_x(m->type, &tlb, &textent);
        m->image = (char *)m->user + tlb;
        return MPI_SUCCESS;
    }
    m->image = malloc(m->bytes);
    if (!m->image)
        return MPI_ERR_NO_MEM;
    m->packed = 1;
    if (!is_root)
        return MPI_SUCCESS;
    return tb_pack(m->user, m->count, m->type, m->image, m->bytes, NULL, comm);
}

int tb_msg_finish(tb_msg *m, int is_root, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    if (m->packed) {
        if (!is_root)
            rc = tb_unpack(m->image, m->bytes, m->user, m->count, m->type, comm);
        free(m->image);
    }
    m->image = NULL;
    m->packed = 0;
    return rc;
}
