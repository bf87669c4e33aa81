#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "watchhost.h"

void watch_host_copy(muster_host *dst, const muster_host *host)
{
	size_t n = host->struct_size < sizeof(*dst) ? host->struct_size : sizeof(*dst);

	memset(dst, 0, sizeof(*dst));
	memcpy(dst, host, n);
}

int watch_stopping(const muster_host *host, const muster_watcher *w, int wait_ms)
{
	struct pollfd p = { host->watch_stop_fd(w), POLLIN, 0 };
	int n;

	while ((n = poll(&p, 1, wait_ms)) < 0 && errno == EINTR) {
	}
	return n > 0;
}
