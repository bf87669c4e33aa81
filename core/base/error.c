/* muster.h's small functions: the text of an error code, the version, free. */
#include <config.h>

#include <stdlib.h>

#include <muster/muster.h>

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
