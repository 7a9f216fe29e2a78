/* The noise of the clustering tests (test_cluster*.c): xorshift64
 * (Marsaglia 2003), seeded by each test so that every run draws the same
 * numbers on every machine. */
#ifndef TEST_CLUSTER_RNG_H
#define TEST_CLUSTER_RNG_H

#include <stdint.h>

/* Uniform double in [0, 1) from *state, which it advances. */
static inline double xorshift_unit(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) / 9007199254740992.0;
}

#endif
