#include "config.h"

#include <string.h>

#include "watchhost.h"

void watch_host_copy(muster_host *dst, const muster_host *host)
{
	size_t n = host->struct_size < sizeof(*dst) ? host->struct_size : sizeof(*dst);

	memset(dst, 0, sizeof(*dst));
	memcpy(dst, host, n);
}
