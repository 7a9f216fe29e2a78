/* Growable arrays of the tuner (candidate lists, results, ratios): the
 * capacity doubles when full, so n appends cost O(n) copies in all. */
#ifndef TN_TUNER_ARRAY_H
#define TN_TUNER_ARRAY_H

#include <stdlib.h>

/* \brief Room for element n of the array v, which holds *cap elements of
 *        elem bytes (n <= *cap): v itself while n < *cap, else v grown to
 *        twice *cap elements (first_cap the first time) and *cap updated.
 * \return the array to use from now on, or NULL out of memory (v and *cap
 *         are then unchanged). */
static inline void *tn_array_room(void *v, int n, int *cap, size_t elem, int first_cap)
{
    if (n < *cap)
        return v;
    int ncap = *cap ? *cap * 2 : first_cap;
    void *nv = realloc(v, elem * (size_t)ncap);
    if (nv)
        *cap = ncap;
    return nv;
}

#endif
