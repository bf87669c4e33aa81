#include <config.h>

#include <errno.h>
#include <poll.h>
#include <syslog.h>

#include "watchhost.h"

muster_call *watch_call_open(const muster_host *host, muster_plugin_ctx *pc, long budget_ms,
                             void (*failed)(void *data, const char *reason), void *data)
{
	muster_call *call;

	if (!MUSTER_HOST_HAS(host, watch_call_end)) {
		host->log(pc, LOG_WARNING, "watch: the host speaks plugin ABI %u.%u; watching needs 1.6",
		          (unsigned)host->abi_major, (unsigned)host->abi_minor);
		return NULL;
	}
	if ((call = host->watch_call_begin(pc, budget_ms, failed, data)) == NULL)
		host->log(pc, LOG_WARNING, "watch: out of memory");
	return call;
}

int watch_stopping(const muster_host *host, const muster_watcher *w, int wait_ms)
{
	struct pollfd p = { host->watch_stop_fd(w), POLLIN, 0 };
	int n;

	while ((n = poll(&p, 1, wait_ms)) < 0 && errno == EINTR) {
	}
	return n > 0;
}
