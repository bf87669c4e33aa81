#include <config.h>

#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/reason.h"

#define UNSAFE "; refused as unsafe"


/* Refuses what others than root and this user could replace: `path` is
 * `real` itself or one of its directories. */
static int check_owner_mode(const char *real, const char *path, const struct stat *st,
                            char *why, size_t len)
{
	int is_dir = S_ISDIR(st->st_mode);
	/* In a sticky directory others may add entries but not replace ours. */
	int shared = (st->st_mode & (S_IWGRP | S_IWOTH)) && !(is_dir && (st->st_mode & S_ISVTX));
	const char *where = is_dir ? real : path;
	const char *what = is_dir ? ": directory " : "";
	const char *dir = is_dir ? path : "";
	if (shared)
		return reason_fail(why, len, "%s%s%s is writable by group or others%s" UNSAFE, where, what,
		                   dir, is_dir ? " and not sticky" : "");
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return reason_fail(why, len, "%s%s%s is owned by uid %ld, neither root nor this user" UNSAFE,
		                   where, what, dir, (long)st->st_uid);
	return 0;
}

/* Checks the descriptor just opened for `path`, a directory unless last. */
static int check_opened(int fd, const char *real, const char *path, int last, char *why,
                        size_t len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return reason_fail(why, len, "cannot load %s: %s: %s", real, path, strerror(errno));
	if (last ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))
		return reason_fail(why, len, "cannot load %s: %s is not a %s", real, path,
		                   last ? "regular file" : "directory");
	return check_owner_mode(real, path, &st, why, len);
}

static int open_failed(const char *real, const char *path, char *why, size_t len)
{
	/* realpath() saw no symbolic link here: one was swapped in since. */
	if (errno == ELOOP || errno == ENOTDIR)
		return reason_fail(why, len, "%s: %s was replaced while it was checked" UNSAFE, real, path);
	if (strcmp(real, path) == 0)
		return reason_fail(why, len, "cannot load %s: %s", real, strerror(errno));
	return reason_fail(why, len, "cannot load %s: %s: %s", real, path, strerror(errno));
}

int trust_open(const char *real, char *why, size_t whylen)
{
	char path[PATH_MAX];
	if (real[0] != '/' || (size_t)snprintf(path, sizeof(path), "%s", real) >= sizeof(path))
		return reason_fail(why, whylen, "cannot load %s: not an absolute path", real);
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return open_failed(real, "/", why, whylen);
	if (check_opened(dir, real, "/", 0, why, whylen) < 0) {
		close(dir);
		return -1;
	}
	/* path[0..end of name] is the part opened so far. */
	for (char *name = path + 1;;) {
		char *slash = strchr(name, '/');
		int last = slash == NULL;
		if (!last)
			*slash = '\0';
		int fd = openat(dir, name,
		                last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
		                     : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(dir);
		errno = saved;
		if (fd < 0)
			return open_failed(real, path, why, whylen);
		if (check_opened(fd, real, path, last, why, whylen) < 0) {
			close(fd);
			return -1;
		}
		if (last)
			return fd;
		*slash = '/';
		name = slash + 1;
		dir = fd;
	}
}

int trust_fd_name(int fd, const char *real, char *name, size_t namelen, char *why,
                  size_t whylen)
{
	struct stat opened, named;
	snprintf(name, namelen, "/proc/self/fd/%d", fd);
	if (fstat(fd, &opened) < 0)
		return reason_fail(why, whylen, "cannot load %s: %s", real, strerror(errno));
	/* Without /proc, dlopen() could only reopen the path, which may no
	 * longer be the file checked: no fallback. */
	if (stat(name, &named) < 0 || named.st_dev != opened.st_dev ||
	    named.st_ino != opened.st_ino)
		return reason_fail(why, whylen,
		                   "cannot load %s: /proc/self/fd is unavailable (is /proc mounted?), and "
		                   "a plugin is loaded only through it, so that the file checked is the "
		                   "file loaded; refused",
		                   real);
	return 0;
}
