/* Growable arrays: room for `need` items, the capacity doubling, so that
 * adding n items one at a time costs O(n) copies in all.
 *
 *     struct item *items = NULL;
 *     size_t n = 0, cap = 0;
 *     if (vec_reserve(&items, &cap, n + 1, sizeof(*items)) < 0)
 *             return nomem();
 *     items[n++] = next;
 */
#ifndef MUSTER_LIB_VEC_H
#define MUSTER_LIB_VEC_H

#include <stddef.h>

/* `array` is the address of the array's pointer (any object type), `cap`
 * its capacity in items of `size` bytes.  When need > *cap, the array grows
 * to the first doubling of *cap (1 when 0) that holds `need`.  0, or -1
 * when out of memory or past SIZE_MAX bytes, the array then unchanged. */
int vec_reserve(void *array, size_t *cap, size_t need, size_t size);

#endif
