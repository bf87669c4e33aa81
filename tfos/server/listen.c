/* Binding the server's socket: a host (or every IPv4 interface, as
 * TensorFlowOnSpark does) and a port, or the first free port of a range. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/error.h"
#include "server.h"

int reserve_set_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return 0;
}

/* One port: a socket bound and listening, or -1 with errno. */
static int bind_one(const char *host, int port, int *bound_port)
{
	struct addrinfo hints, *ai = NULL, *p;
	char service[16];
	int fd = -1, saved = EADDRNOTAVAIL, rc;

	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	/* No host: all IPv4 interfaces, as the reference's ('', port). */
	hints.ai_family = host == NULL ? AF_INET : AF_UNSPEC;
	snprintf(service, sizeof service, "%d", port);
	rc = getaddrinfo(host, service, &hints, &ai);
	if (rc != 0) {
		errno = rc == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
		return -1;
	}
	for (p = ai; p != NULL; p = p->ai_next) {
		int one = 1;
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;

		fd = socket(p->ai_family, p->ai_socktype, p->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		/* A backlog as large as the system allows: a thousand executors
		 * may connect within one scheduling tick. */
		if (reserve_set_nonblocking(fd) == 0 && bind(fd, p->ai_addr, p->ai_addrlen) == 0 &&
		    listen(fd, SOMAXCONN) == 0 &&
		    getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
			*bound_port = ss.ss_family == AF_INET6
			                      ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
			                      : ntohs(((struct sockaddr_in *)&ss)->sin_port);
			break;
		}
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		errno = saved;
	return fd;
}

int reserve_listen(const char *host, int port_min, int port_max, int *fd_out, int *port_out,
                   muster_error *err)
{
	int port, saved = 0;

	if (host != NULL && host[0] == '\0')
		host = NULL;
	for (port = port_min; port <= port_max; port++) {
		int fd = bind_one(host, port, port_out);

		if (fd >= 0) {
			*fd_out = fd;
			return 0;
		}
		saved = errno;
	}
	if (port_min == port_max)
		return error_set(err, MUSTER_EUNAVAIL, "reserve: cannot listen on %s port %d: %s",
		                 host != NULL ? host : "0.0.0.0", port_min, strerror(saved));
	return error_set(err, MUSTER_EUNAVAIL,
	                 "reserve: cannot listen on %s on any port from %d to %d (last: %s)",
	                 host != NULL ? host : "0.0.0.0", port_min, port_max, strerror(saved));
}
