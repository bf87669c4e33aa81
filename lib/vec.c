#include <config.h>

#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int vec_reserve(void *array, size_t *cap, size_t need, size_t size)
{
	void *items;
	size_t ncap;

	if (need <= *cap)
		return 0;
	for (ncap = *cap ? *cap : 1; ncap < need; ncap *= 2)
		if (ncap > SIZE_MAX / 2 / size)
			return -1;
	/* The pointer is copied in and out as bytes: `array` may point to a
	 * `struct job *` as well as a `void *`. */
	memcpy(&items, array, sizeof(items));
	items = realloc(items, ncap * size);
	if (items == NULL)
		return -1;
	memcpy(array, &items, sizeof(items));
	*cap = ncap;
	return 0;
}
