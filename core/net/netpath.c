/* The network path to a launch's peers: muster_netpath_*().  Each host is
 * looked up (lookup.c, bounded), its first address routed by the kernel
 * (route.c), and one interface chosen when every peer that is not this
 * machine is reached through the same one. */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lookup.h"
#include "netpath.h"
#include "route.h"

struct peer {
	muster_netpeer pub;
	char address[INET6_ADDRSTRLEN];
	char ifname[IF_NAMESIZE];
	char source[INET6_ADDRSTRLEN];
	char problem[192];
};

struct muster_netpath {
	size_t n;
	struct peer *peer;
	char *hosts; /* the hosts' copies, back to back */
	int chosen;  /* 0 or MUSTER_ENOENT: muster_netpath_interface()'s answer */
	char ifname[IF_NAMESIZE];
	char source[INET6_ADDRSTRLEN];
	char why[320];
};

static void numeric(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	const void *a = ss->ss_family == AF_INET
	                        ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
	                        : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	if (inet_ntop(ss->ss_family, a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
}

static int is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

static void fill_peer(struct peer *p, const struct lookup_answer *a, int route_fd,
                      unsigned seq, int route_errno)
{
	struct route_answer r;

	if (a->status != LOOKUP_OK) {
		p->pub.status = a->status == LOOKUP_NONAME ? MUSTER_ENOENT : MUSTER_EUNAVAIL;
		snprintf(p->problem, sizeof(p->problem), "%s", a->reason);
		return;
	}
	numeric(&a->addr, p->address, sizeof(p->address));
	p->pub.address = p->address;
	p->pub.address_count = a->naddrs;
	if (is_loopback(&a->addr))
		p->pub.flags |= MUSTER_NETPEER_LOOPBACK;
	if (route_fd < 0) {
		p->pub.status = MUSTER_EUNAVAIL;
		snprintf(p->problem, sizeof(p->problem), "cannot ask the kernel for routes: %s",
		         strerror(route_errno));
		return;
	}
	route_get(route_fd, seq, (const struct sockaddr *)&a->addr, &r);
	if (r.error != 0) {
		p->pub.status = MUSTER_EUNAVAIL;
		snprintf(p->problem, sizeof(p->problem), "no route to %s from here: %s", p->address,
		         r.reason);
		return;
	}
	memcpy(p->ifname, r.ifname, sizeof(p->ifname));
	numeric(&r.source, p->source, sizeof(p->source));
	p->pub.ifname = p->ifname;
	p->pub.source = p->source;
	if (r.local)
		p->pub.flags |= MUSTER_NETPEER_LOCAL;
}

/* One interface for every peer (hosts from `from` on) that is not this
 * machine, or why not. */
static void choose(struct muster_netpath *np, size_t from)
{
	const struct peer *first = NULL;
	size_t remote = 0;

	np->chosen = MUSTER_ENOENT;
	for (size_t i = from; i < np->n; i++) {
		const struct peer *p = &np->peer[i];
		if (p->pub.status != MUSTER_OK) {
			snprintf(np->why, sizeof(np->why), "%s: %s", p->pub.host, p->problem);
			return;
		}
		if (p->pub.flags & MUSTER_NETPEER_LOCAL)
			continue;
		if (first != NULL && strcmp(first->ifname, p->ifname) != 0) {
			snprintf(np->why, sizeof(np->why),
			         "the peers are reached through different interfaces: %s through %s, "
			         "%s through %s", first->pub.host, first->ifname, p->pub.host, p->ifname);
			return;
		}
		if (first == NULL)
			first = p;
		remote++;
	}
	if (first == NULL) {
		snprintf(np->why, sizeof(np->why), "%s",
		         np->n == from ? "there are no peers" : "every peer is this machine");
		return;
	}
	np->chosen = MUSTER_OK;
	memcpy(np->ifname, first->ifname, sizeof(np->ifname));
	memcpy(np->source, first->source, sizeof(np->source));
	if (remote == 1)
		snprintf(np->why, sizeof(np->why), "the kernel routes %s (%s) through %s, from %s",
		         first->pub.host, first->address, first->ifname, first->source);
	else
		snprintf(np->why, sizeof(np->why),
		         "the kernel routes all %zu peers through %s (%s from %s)", remote,
		         first->ifname, first->pub.host, first->source);
}

static int copy_hosts(struct muster_netpath *np, const char *const *hosts, size_t n)
{
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += strlen(hosts[i]) + 1;
	if ((np->hosts = malloc(bytes ? bytes : 1)) == NULL)
		return -1;
	char *p = np->hosts;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(hosts[i]) + 1;
		np->peer[i].pub.host = memcpy(p, hosts[i], len);
		p += len;
	}
	return 0;
}

int netpath_probe_peers(muster_netpath **out, const char *const *hosts, size_t n, size_t from,
                        long timeout_ms, muster_error *err)
{
	struct muster_netpath *np;
	struct lookup_answer *answers;

	if (out == NULL || (n > 0 && hosts == NULL))
		return error_set(err, MUSTER_EINVAL, "muster_netpath_probe: NULL argument");
	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (hosts[i] == NULL || hosts[i][0] == '\0')
			return error_set(err, MUSTER_EINVAL, "muster_netpath_probe: host %zu is %s", i,
			                 hosts[i] ? "empty" : "NULL");
	np = calloc(1, sizeof(*np));
	answers = calloc(n ? n : 1, sizeof(*answers));
	if (np == NULL || answers == NULL || (np->peer = calloc(n ? n : 1, sizeof(*np->peer))) == NULL ||
	    copy_hosts(np, hosts, n) != 0 || lookup_names(answers, hosts, n, timeout_ms) != 0) {
		free(answers);
		muster_netpath_free(np);
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	np->n = n;
	int fd = route_open(), route_errno = errno;
	for (size_t i = 0; i < n; i++)
		fill_peer(&np->peer[i], &answers[i], fd, (unsigned)i + 1, route_errno);
	if (fd >= 0)
		close(fd);
	free(answers);
	for (size_t i = 0; i < n; i++)
		if (np->peer[i].pub.status != MUSTER_OK)
			np->peer[i].pub.problem = np->peer[i].problem;
	choose(np, from);
	*out = np;
	return 0;
}

MUSTER_API int muster_netpath_probe(muster_netpath **out, const char *const *hosts, size_t n,
                                    long timeout_ms, muster_error *err)
{
	return netpath_probe_peers(out, hosts, n, 0, timeout_ms, err);
}

MUSTER_API size_t muster_netpath_count(const muster_netpath *path)
{
	return path ? path->n : 0;
}

MUSTER_API const muster_netpeer *muster_netpath_peer(const muster_netpath *path, size_t i)
{
	return path && i < path->n ? &path->peer[i].pub : NULL;
}

MUSTER_API int muster_netpath_interface(const muster_netpath *path, const char **ifname,
                                        const char **source, const char **why)
{
	if (path == NULL)
		return MUSTER_EINVAL;
	if (ifname)
		*ifname = path->chosen == MUSTER_OK ? path->ifname : NULL;
	if (source)
		*source = path->chosen == MUSTER_OK ? path->source : NULL;
	if (why)
		*why = path->why;
	return path->chosen;
}

MUSTER_API void muster_netpath_free(muster_netpath *path)
{
	if (path == NULL)
		return;
	free(path->peer);
	free(path->hosts);
	free(path);
}
