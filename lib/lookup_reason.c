#include <config.h>

#include "lookup_reason.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>

void lookup_reason(char *why, size_t size, int rc, int saved)
{
	switch (rc) {
	case EAI_NONAME:
#ifdef EAI_NODATA
	case EAI_NODATA:
#endif
		snprintf(why, size, "no such name");
		break;
	case EAI_AGAIN:
		snprintf(why, size, "the resolver did not answer (temporary failure)");
		break;
	case EAI_FAIL:
		snprintf(why, size, "the resolver failed");
		break;
	case EAI_SYSTEM:
		snprintf(why, size, "name lookup failed: %s", strerror(saved));
		break;
	default:
		snprintf(why, size, "name lookup failed: %s", gai_strerror(rc));
	}
}
