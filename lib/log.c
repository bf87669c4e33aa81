#include <config.h>

#include "log.h"

#include <errno.h>
#include <stdio.h>

void log_msgv(const struct logger *lg, int level, const char *prefix, const char *fmt,
              va_list ap)
{
	if (!lg || !lg->fn || level > lg->level)
		return;
	/* Logging must not disturb errno for the code around it. */
	int saved = errno;
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s", prefix ? prefix : "");
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	lg->fn(level, line, lg->data);
	errno = saved;
}

void log_msg(const struct logger *lg, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_msgv(lg, level, NULL, fmt, ap);
	va_end(ap);
}
