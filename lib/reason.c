#include <config.h>

#include "reason.h"

#include <stdio.h>

int reason_vfail(char *why, size_t size, const char *fmt, va_list ap)
{
	if (why != NULL && size > 0)
		vsnprintf(why, size, fmt, ap);
	return -1;
}

int reason_fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	reason_vfail(why, size, fmt, ap);
	va_end(ap);
	return -1;
}
