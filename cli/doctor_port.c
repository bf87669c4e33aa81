/* muster doctor: on the master's node, the master port must be free for
 * rank 0's store or coordinator to listen on.  A port that is taken is
 * reported with what holds it, when this process can see it: the socket
 * from /proc/net/tcp{,6} (its inode and owner), the process from the
 * /proc/PID/fd links that name that inode. */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "doctor.h"

#define TCP_LISTEN 0x0A

/* A socket on `port` in this network namespace: its inode and owner,
 * listening ones first.  0 when none is listed. */
static int find_socket(int port, unsigned long *inode, unsigned *uid)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	int found = 0;

	for (size_t t = 0; t < 2; t++) {
		FILE *f = fopen(tables[t], "re");
		char line[512];
		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			unsigned lport, state, u;
			unsigned long ino;
			if (sscanf(line, " %*s %*[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %u %*s %lu", &lport,
			           &state, &u, &ino) != 4 || (int)lport != port || ino == 0)
				continue;
			if (!found || state == TCP_LISTEN) {
				*inode = ino;
				*uid = u;
				found = state == TCP_LISTEN ? 2 : 1;
			}
			if (found == 2)
				break;
		}
		fclose(f);
		if (found == 2)
			break;
	}
	return found != 0;
}

/* The process with a descriptor on socket `inode`: its pid and command
 * name; 0 when none that this process may look into has one. */
static long find_holder(unsigned long inode, char *comm, size_t size)
{
	char want[48], path[64], link[64];
	DIR *proc = opendir("/proc");
	struct dirent *de;
	long pid = 0;

	if (proc == NULL)
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (pid == 0 && (de = readdir(proc)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", de->d_name);
		DIR *fds = opendir(path);
		struct dirent *fe;
		if (fds == NULL)
			continue; /* another user's: not ours to see */
		while ((fe = readdir(fds)) != NULL) {
			char fdpath[128];
			snprintf(fdpath, sizeof(fdpath), "%s/%s", path, fe->d_name);
			ssize_t n = readlink(fdpath, link, sizeof(link) - 1);
			if (n > 0 && (link[n] = '\0', strcmp(link, want) == 0)) {
				pid = strtol(de->d_name, NULL, 10);
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	if (pid != 0) {
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		FILE *f = fopen(path, "re");
		if (f == NULL || fgets(comm, (int)size, f) == NULL)
			snprintf(comm, size, "?");
		comm[strcspn(comm, "\n")] = '\0';
		if (f != NULL)
			fclose(f);
	}
	return pid;
}

/* Binds the port on every address, as rank 0's listener will (and with
 * SO_REUSEADDR, as PyTorch's store does, so that a TIME_WAIT is no
 * conflict).  0 or the errno. */
static int try_bind(int port)
{
	int one = 1, zero = 0, error = 0;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
	                           .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                          .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr *a = (struct sockaddr *)&a6;
	socklen_t len = sizeof(a6);

	if (fd >= 0) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	} else { /* no IPv6 here */
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		a = (struct sockaddr *)&a4;
		len = sizeof(a4);
	}
	if (fd < 0)
		return errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, a, len) != 0)
		error = errno;
	close(fd);
	return error;
}

void doctor_check_port(struct doctor_rows *r, const struct doctor_launch *dl)
{
	char subject[32], comm[64], fix[256];
	unsigned long inode;
	unsigned uid;
	int error;

	if (dl->self != 0 || dl->master_port <= 0)
		return;
	snprintf(subject, sizeof(subject), "port %d", dl->master_port);
	error = try_bind(dl->master_port);
	if (error == 0) {
		doctor_add(r, DOCTOR_OK, "port", subject, NULL,
		           "free on this node (the master's): rank 0 can listen on it");
		return;
	}
	snprintf(fix, sizeof(fix), "choose another master port (MUSTER_MASTER_PORT)");
	if (error != EADDRINUSE) {
		doctor_add(r, DOCTOR_PROBLEM, "port", subject, fix, "cannot be bound here: %s",
		           strerror(error));
		return;
	}
	if (!find_socket(dl->master_port, &inode, &uid)) {
		doctor_add(r, DOCTOR_PROBLEM, "port", subject, fix,
		           "in use (no socket of this network namespace lists it)");
		return;
	}
	long pid = find_holder(inode, comm, sizeof(comm));
	if (pid == 0) {
		doctor_add(r, DOCTOR_PROBLEM, "port", subject, fix,
		           "in use by a socket of uid %u whose process muster cannot see", uid);
		return;
	}
	snprintf(fix, sizeof(fix), "stop process %ld (%s), or choose another master port "
	         "(MUSTER_MASTER_PORT)", pid, comm);
	doctor_add(r, DOCTOR_PROBLEM, "port", subject, fix, "in use by process %ld (%s, uid %u)",
	           pid, comm, uid);
}
