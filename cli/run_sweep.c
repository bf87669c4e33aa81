/* Ending what a subreaper keeps: found in /proc, read with bare system
 * calls, as the keeper runs this in a process forked from a muster run
 * that may have threads (no malloc, no stdio, no locale). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* SIGKILL to every process whose parent is the caller and, with group >
 * 0, to every other one in process group `group`; how many took it (a
 * zombie does: it is there to reap), -1 when /proc cannot be read. */
static int kill_under(pid_t group)
{
	union {
		struct dirent64_raw d;
		char bytes[4096];
	} buf;
	long self = getpid(), got;
	int killed = 0, dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

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
			if ((ppid == self || (group > 0 && pgrp == group)) &&
			    kill((pid_t)pid, SIGKILL) == 0)
				killed++;
		}
	}
	close(dir);
	return got < 0 ? -1 : killed;
}

/* How long ending the job may go on without a process to reap: what is
 * killed dies within it, unless the kernel holds it (it dies later). */
#define IDLE_ROUNDS 10
#define ROUND_MS 100

int run_end_under(pid_t group, int sfd, void (*reaped)(pid_t, int, void *), void *data)
{
	struct signalfd_siginfo si;
	int idle = 0;

	for (;;) {
		/* No child, no descendant (a subreaper's orphans are its
		 * children): nothing to look for in /proc. */
		siginfo_t any;
		if (waitid(P_ALL, 0, &any, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD)
			return 0;
		int killed = kill_under(group);
		if (killed <= 0 || idle == IDLE_ROUNDS)
			return killed < 0 ? -1 : 0;
		/* A SIGCHLD, or a round later: a process dying out of the
		 * group may have handed its children to the caller. */
		struct pollfd fd = { .fd = sfd, .events = POLLIN };
		poll(&fd, 1, ROUND_MS);
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		pid_t pid;
		int st;
		idle++;
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			reaped(pid, st, data);
			idle = 0;
		}
	}
}
