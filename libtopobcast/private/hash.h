/* FNV-1a, 64 bit: the one hash of the library and the tools (settings
 * agreement, configuration and spec hashes, the tuner's memo keys and plan
 * signatures).  Tiny, and equal bytes hash equal on every rank. */
#ifndef TB_HASH_H
#define TB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TB_FNV_BASIS 14695981039346656037ULL
#define TB_FNV_PRIME 1099511628211ULL

/* \brief Continues hash h over len bytes (start with TB_FNV_BASIS).
 * \return the new hash. */
static inline uint64_t tb_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * TB_FNV_PRIME;
    return h;
}

/* \brief Continues h over a NUL-terminated string (without the NUL).
 * \return the new hash. */
static inline uint64_t tb_hash_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * TB_FNV_PRIME;
    return h;
}

/* \brief Continues h over v's 8 bytes, least significant first (the same
 * on every host, whatever its byte order).
 * \return the new hash. */
static inline uint64_t tb_hash_u64(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * TB_FNV_PRIME;
    return h;
}

/* \brief The two hashes a host is known by: of its whole name (*full) and
 * of its short name, up to the first '.' (*shrt; "n1" for "n1.cluster"),
 * so that ranks can be matched onto a topology's hosts without sending
 * names (config/README.md, "How a job is mapped").
 * \return nothing. */
static inline void tb_hash_host(const char *name, uint64_t *full, uint64_t *shrt)
{
    uint64_t h = TB_FNV_BASIS, s = 0;
    const unsigned char *p = (const unsigned char *)name;
    for (; *p; p++) {
        if (*p == '.' && !s)
            s = h;
        h = (h ^ *p) * TB_FNV_PRIME;
    }
    *full = h;
    *shrt = s ? s : h;
}

#endif
