/* The host's log callback (libmuster's core and its reservation server);
 * the library is silent without one. */
#ifndef MUSTER_LIB_LOG_H
#define MUSTER_LIB_LOG_H

#include <stdarg.h>

#include <muster/muster.h>

struct logger {
	muster_log_fn fn;
	void *data;
	int level;
};

void log_msg(const struct logger *lg, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_msgv(const struct logger *lg, int level, const char *prefix, const char *fmt,
              va_list ap) __attribute__((format(printf, 4, 0)));

#endif
