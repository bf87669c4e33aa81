#include "config.h"

#include "error.h"

#include <stdio.h>
#include <stdlib.h>

MUSTER_API const char *muster_strerror(int code)
{
	switch (code) {
	case MUSTER_OK: return "success";
	case MUSTER_ENOMEM: return "out of memory";
	case MUSTER_EINVAL: return "invalid argument";
	case MUSTER_ECONFIG: return "invalid configuration";
	case MUSTER_EPLUGIN: return "plugin could not be loaded";
	case MUSTER_EABI: return "plugin built for another ABI";
	case MUSTER_ENOTFOUND: return "no backend recognised this environment";
	case MUSTER_EUNAVAIL: return "backend unavailable";
	case MUSTER_ETRYAGAIN: return "cluster not ready, try again";
	case MUSTER_ENOENT: return "no such job or task";
	case MUSTER_ECONFLICT: return "merged backends disagree";
	default: return "unknown error";
	}
}

MUSTER_API const char *muster_version(void)
{
	return MUSTER_VERSION;
}

MUSTER_API void muster_free(void *p)
{
	free(p);
}

int error_setv(muster_error *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
	}
	return code;
}

int error_set(muster_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void error_clear(muster_error *err)
{
	if (err) {
		err->code = MUSTER_OK;
		err->message[0] = '\0';
	}
}
