/* SLURM_STEP_TASKS_PER_NODE: "2(x3),1" is 2, 2, 2, 1.  Items are exactly
 * N or N(xK), digits only, as TensorFlow's parser accepts them. */
#include <config.h>

#include "hostlist.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_COUNT 1000000 /* tasks on one node; far above any real node */

/* Digits at *p into *v (at most `max`); -1 when there are none or too many. */
static int digits(const char **p, unsigned long max, unsigned long *v)
{
	const char *s = *p;
	*v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		*v = *v * 10 + (unsigned long)(*s - '0');
		if (*v > max)
			return -1;
	}
	*p = s;
	return 0;
}

int tasks_per_node_expand(const char *list, size_t max, long **counts, size_t *n, char *why,
                          size_t whylen)
{
	const char *p = list;
	size_t cap = 0;

	*counts = NULL;
	*n = 0;
	for (;;) {
		const char *item = p;
		unsigned long count, times = 1;
		if (digits(&p, MAX_COUNT, &count) < 0) {
			snprintf(why, whylen, "item %zu ('%.20s') is not N or N(xK) with N at most %d",
			         *n + 1, item, MAX_COUNT);
			goto fail;
		}
		if (p[0] == '(') {
			p++;
			if (*p++ != 'x' || digits(&p, max, &times) < 0 || *p++ != ')') {
				snprintf(why, whylen, "item '%.20s' is not N(xK) with K at most %zu", item,
				         max);
				goto fail;
			}
		}
		if (*p != ',' && *p != '\0') {
			snprintf(why, whylen, "unexpected '%c' after '%.*s'", *p, (int)(p - item), item);
			goto fail;
		}
		if (times > max - *n) {
			snprintf(why, whylen, "more than %zu nodes", max);
			goto fail;
		}
		if (*n + times > cap) {
			size_t more = cap ? cap : 16;
			while (more < *n + times)
				more *= 2;
			long *grown = realloc(*counts, more * sizeof(*grown));
			if (!grown) {
				snprintf(why, whylen, "out of memory");
				goto fail;
			}
			*counts = grown;
			cap = more;
		}
		for (unsigned long i = 0; i < times; i++)
			(*counts)[(*n)++] = (long)count;
		if (*p++ == '\0')
			return 0;
	}
fail:
	free(*counts);
	*counts = NULL;
	*n = 0;
	return -1;
}
