/* The config file and its drop-ins, watched through their directories:
 * editors and `sed -i` replace a file by rename, which a watch on the file
 * itself would lose. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "watch.h"

#define DIR_EVENTS                                                                         \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)

static void add_dropins(struct config_files *cf)
{
	size_t len = strlen(cf->dir) + strlen(cf->dropins) + 2;
	char *path = malloc(len);
	if (!path)
		return;
	snprintf(path, len, "%s/%s", cf->dir, cf->dropins);
	/* Absent until someone makes it: the parent's watch sees that. */
	cf->dropin_wd = inotify_add_watch(cf->fd, path, DIR_EVENTS | IN_ONLYDIR);
	free(path);
}

int config_files_watch(struct config_files *cf, const char *path)
{
	memset(cf, 0, sizeof(*cf));
	cf->dropin_wd = -1;
	const char *slash = strrchr(path, '/');
	cf->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	cf->base = strdup(slash ? slash + 1 : path);
	size_t blen = cf->base ? strlen(cf->base) : 0;
	if ((cf->dropins = malloc(blen + 3)))
		snprintf(cf->dropins, blen + 3, "%s.d", cf->base ? cf->base : "");
	if (!cf->dir || !cf->base || !cf->dropins ||
	    (cf->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		cf->fd = -1;
		return -1;
	}
	if (inotify_add_watch(cf->fd, cf->dir, DIR_EVENTS | IN_ONLYDIR) < 0)
		return -1;
	add_dropins(cf);
	return 0;
}

static int is_conf(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

int config_files_changed(struct config_files *cf)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;
	ssize_t got;
	while ((got = read(cf->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + got;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			const char *name = ev->len ? ev->name : "";
			if (ev->mask & IN_Q_OVERFLOW) {
				/* Events were lost, maybe the drop-in directory's
				 * creation among them: re-read everything, and watch
				 * the directory again (the same watch if it still is). */
				changed = 1;
				add_dropins(cf);
			} else if (ev->wd == cf->dropin_wd) {
				changed |= is_conf(name) || (ev->mask & (IN_IGNORED | IN_DELETE_SELF));
				if (ev->mask & IN_IGNORED)
					cf->dropin_wd = -1;
			} else if (strcmp(name, cf->base) == 0) {
				changed = 1;
			} else if (strcmp(name, cf->dropins) == 0) {
				changed = 1;
				if (cf->dropin_wd < 0)
					add_dropins(cf);
			}
		}
	}
	return changed;
}

void config_files_release(struct config_files *cf)
{
	if (cf->fd >= 0)
		close(cf->fd);
	free(cf->dir);
	free(cf->base);
	free(cf->dropins);
	memset(cf, 0, sizeof(*cf));
	cf->fd = -1;
}
