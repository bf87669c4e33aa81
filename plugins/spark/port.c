/*
 * The TF port this process reserves for its own server.
 *
 * As TensorFlowOnSpark does: TENSORFLOW_PORT when set (nothing bound);
 * otherwise a TCP socket with SO_REUSEADDR bound to port 0 on every
 * interface and never listened on.  While it stays bound, no other process
 * is handed that port as an ephemeral one.  The socket goes to the host
 * (ABI 1.1 hold_port) inside the result; the host releases it right before
 * binding the port itself (muster_result_release_port).  Because the held
 * socket has SO_REUSEADDR and does not listen, a server that binds with
 * SO_REUSEADDR too (gRPC does) can bind even before the release on Linux.
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spark.h"
#include "lib/reason.h"

/* Bind `port` (0: any) on every interface of `family`.  The fd, or -1. */
static int bind_port(int family, long port, long *bound, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_any;
		a->sin6_port = htons((uint16_t)port);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		family = AF_INET;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_ANY);
		a->sin_port = htons((uint16_t)port);
		len = sizeof(*a);
	}
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		*err = errno;
		close(fd);
		return -1;
	}
	*bound = family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
	                            : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

int spark_port_reserve(const struct spark_run *run, int family, struct spark_port *p, char *why,
                       size_t whylen)
{
	int err = 0;

	p->fd = -1;
	p->port = -1;
	if (run->fixed_port > 0) {
		p->port = run->fixed_port;
		return 0;
	}
	p->fd = bind_port(family, 0, &p->port, &err);
	if (p->fd < 0)
		return reason_fail(why, whylen, "cannot reserve a TF port: %s", strerror(err));
	return 0;
}

void spark_port_rebind(const struct spark_run *run, int family, long port, struct spark_port *p)
{
	int err = 0;
	long bound = -1;

	p->fd = -1;
	p->port = port;
	if (run->fixed_port > 0 || port <= 0 || port > 65535)
		return;
	p->fd = bind_port(family, port, &bound, &err);
	if (p->fd < 0)
		SPARK_LOG(run, MUSTER_LOG_DEBUG, "cannot hold the registered port %ld again: %s", port,
		          strerror(err));
}

void spark_port_close(struct spark_port *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

int spark_port_hand_over(const struct spark_run *run, struct spark_port *p)
{
	const muster_host *host = run->host;
	int fd = p->fd;

	if (fd < 0)
		return 0;
	p->fd = -1;
	if (!MUSTER_HOST_HAS(host, hold_port) || host->hold_port == NULL) {
		/* An ABI 1.0 host cannot keep it: free the port now (TFoS's
		 * release_port=True behaviour) rather than leak the socket. */
		SPARK_LOG(run, MUSTER_LOG_INFO, "this host cannot hold the reserved port %ld: released "
		                             "now", p->port);
		close(fd);
		return 0;
	}
	return host->hold_port(run->call, fd, (int)p->port) == 0 ? 0 : -1;
}
