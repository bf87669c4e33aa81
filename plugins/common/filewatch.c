#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "filewatch.h"
#include "watchhost.h"

#define LOG_WARNING 4 /* syslog's numbering, as the host's */
#define EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)

/* Whether a batch of events may concern `base`: it names it, or the queue
 * overflowed and the events that would have named it are lost. */
static int names(const char *buf, ssize_t len, const char *base)
{
	for (const char *p = buf; p < buf + len;) {
		const struct inotify_event *ev = (const struct inotify_event *)p;
		p += sizeof(*ev) + ev->len;
		if ((ev->mask & IN_Q_OVERFLOW) || (ev->len && strcmp(ev->name, base) == 0))
			return 1;
	}
	return 0;
}

int filewatch_run(const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w,
                  const char *path)
{
	if (!path) {
		host->watch_armed(w);
		watch_stopping(host, w, -1);
		return 0;
	}
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	const char *base = slash ? slash + 1 : path;
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (!dir || fd < 0 || inotify_add_watch(fd, dir, EVENTS | IN_ONLYDIR) < 0) {
		host->log(pc, LOG_WARNING, "cannot watch %s: %s", path, strerror(errno));
		free(dir);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	free(dir);
	host->watch_armed(w);
	struct pollfd p[2] = {{host->watch_stop_fd(w), POLLIN, 0}, {fd, POLLIN, 0}};
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN)
			break;
		ssize_t got;
		int hit = 0;
		while ((got = read(fd, buf, sizeof(buf))) > 0)
			hit |= names(buf, got, base);
		if (hit)
			host->watch_changed(w);
	}
	close(fd);
	return 0;
}
