/* Finding what a subreaper keeps: /proc read with bare system calls, as
 * the keeper runs this in a process forked from a muster run that may
 * have threads (no malloc, no stdio, no locale). */
#include <config.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run.h"

/* What getdents64 fills its buffer with. */
struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* The decimal number at *s, which moves past it; -1 when none is there. */
static long number(const char **s)
{
	long v = -1;
	for (; **s >= '0' && **s <= '9'; (*s)++)
		v = (v < 0 ? 0 : v * 10) + (**s - '0');
	return v;
}

/* The parent and process group of `pid` (a /proc entry's name), from
 * /proc/PID/stat: "PID (COMM) STATE PPID PGRP ...", COMM being anything
 * up to the last ')'.  0, or -1 when it is gone or not a process. */
static int parent_and_group(const char *pid, long *ppid, long *pgrp)
{
	char path[64] = "/proc/", buf[512];
	size_t len = strlen(pid);
	int fd;
	ssize_t got;

	if (len > sizeof(path) - sizeof("/proc//stat"))
		return -1;
	memcpy(path + 6, pid, len);
	memcpy(path + 6 + len, "/stat", sizeof("/stat"));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	const char *s = strrchr(buf, ')');
	if (s == NULL || strlen(s) < 4)
		return -1;
	s += 4; /* ") S " */
	*ppid = number(&s);
	if (*s++ != ' ')
		return -1;
	*pgrp = number(&s);
	return *ppid < 0 || *pgrp < 0 ? -1 : 0;
}

int run_kill_under(pid_t group)
{
	union {
		struct dirent64_raw d;
		char bytes[4096];
	} buf;
	long self = getpid(), got;
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, dir, buf.bytes, sizeof(buf.bytes))) > 0) {
		for (long at = 0; at < got;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf.bytes + at);
			const char *name = d->name;
			long pid = number(&name), ppid, pgrp;
			at += d->reclen;
			if (pid <= 0 || *name != '\0' || pid == self ||
			    parent_and_group(d->name, &ppid, &pgrp) < 0)
				continue;
			if (ppid == self || (group > 0 && pgrp == group))
				kill((pid_t)pid, SIGKILL);
		}
	}
	close(dir);
	return got < 0 ? -1 : 0;
}
