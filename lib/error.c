#include <config.h>

#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int error_set(muster_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

void error_clear(muster_error *err)
{
	if (err) {
		err->code = MUSTER_OK;
		err->message[0] = '\0';
	}
}
