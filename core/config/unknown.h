/* Names nobody knows in the configuration: option keys and plugins. */
#ifndef MUSTER_UNKNOWN_H
#define MUSTER_UNKNOWN_H

#include <stddef.h>

#include <muster/muster.h>

#include "lib/log.h"

struct unknowns {
	const struct logger *lg;
	int strict;
	size_t count;
	char first[sizeof(((muster_error *)0)->message)];
};

void unknowns_init(struct unknowns *u, const struct logger *lg, int strict);

/* Without strict, one warning line, exactly "unknown WHAT 'NAME'
 * (file:line)": the entry goes on without it.  With strict, the same with
 * "did you mean" when `suggestion` is not NULL or "", kept for
 * unknowns_finish() (the first) or logged as an error (the others), so
 * that one check lists them all. */
void unknown_name(struct unknowns *u, const char *what, const char *name, const char *file,
                  int line, const char *suggestion);

/* With strict and any unknown name, a configuration error; else 0. */
int unknowns_finish(const struct unknowns *u, muster_error *err);

#endif
