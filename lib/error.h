/* Filling a caller's muster_error: the only way details leave the library
 * (libmuster's core and its reservation server). */
#ifndef MUSTER_LIB_ERROR_H
#define MUSTER_LIB_ERROR_H

#include <muster/muster.h>

/* Sets err (when not NULL) and returns code, so callers can
 * `return error_set(err, MUSTER_EINVAL, "...")`. */
int error_set(muster_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void error_clear(muster_error *err);

#endif
