/* The last line of a check that fails: its reason into the caller's
 * buffer, and -1 back, so that
 *
 *     if (n == 0)
 *             return reason_fail(why, whylen, "line %zu is empty", line);
 *
 * is the whole of it.  A function whose reasons go into a buffer of its
 * own names it once:
 *
 *     #define fail(b, ...) reason_fail((b)->reason, sizeof((b)->reason), __VA_ARGS__)
 */
#ifndef MUSTER_LIB_REASON_H
#define MUSTER_LIB_REASON_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into `why` (cut to `size`; nothing when why is NULL or size 0)
 * and returns -1. */
int reason_fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int reason_vfail(char *why, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
