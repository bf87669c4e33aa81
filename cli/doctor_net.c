/* muster doctor: the network.  Every peer's name as this node resolves
 * it, the interface muster env and run choose, and a TCP connection to
 * each peer, all at once (the library's lookups run in parallel, the
 * connections are non-blocking and polled together) and within the
 * timeout: the lookups within half of it, the connections within the
 * rest.  A refused connection is a host that answers with nothing
 * listening yet: fine before the job starts. */
#include <config.h>

#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "doctor.h"
#include "lib/clock.h"
#include "lib/env.h"

static const char *own_host(const struct doctor_launch *dl)
{
	return dl->node[dl->self].host;
}

/* The cluster itself names the host as this machine's loopback. */
static int named_loopback(const char *host)
{
	return strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
	       strcmp(host, "::1") == 0;
}

static void name_row(struct doctor_rows *r, const struct doctor_launch *dl,
                     const muster_netpeer *p, const char *chosen)
{
	int self = strcmp(p->host, own_host(dl)) == 0;
	char subject[300], more[48] = "";

	snprintf(subject, sizeof(subject), "%s%s", p->host, self ? " (this node)" : "");
	if (p->status == MUSTER_ENOENT) {
		doctor_add(r, DOCTOR_PROBLEM, "name", subject,
		           "add it to DNS or /etc/hosts here, or name the node by its address",
		           "does not resolve here: %s", p->problem);
		return;
	}
	if (p->address == NULL) {
		doctor_add(r, DOCTOR_PROBLEM, "name", subject,
		           "check the resolvers of /etc/resolv.conf, or raise --timeout",
		           "%s", p->problem);
		return;
	}
	if (p->address_count > 1)
		snprintf(more, sizeof(more), " (and %zu more)", p->address_count - 1);
	if (!(p->flags & MUSTER_NETPEER_LOOPBACK) || named_loopback(p->host)) {
		doctor_add(r, DOCTOR_OK, "name", subject, NULL, "resolves to %s%s", p->address, more);
	} else if (!self) {
		doctor_add(r, DOCTOR_PROBLEM, "name", subject,
		           "map the name to the node's address on the network in /etc/hosts or DNS",
		           "resolves here to %s, a loopback address, but it is another node: "
		           "connections to it would stay on this machine", p->address);
	} else if (chosen != NULL) {
		int master = dl->self == 0 && strcmp(p->host, dl->master_host) == 0;
		doctor_add(r, DOCTOR_NOTE, "name", subject, NULL,
		           "resolves here to %s, a loopback address; %s", p->address,
		           master ? "MASTER_ADDR becomes this node's address on the chosen interface"
		                  : "the interface variables keep gloo and NCCL off it");
	} else if (dl->nhosts > 1) {
		doctor_add(r, DOCTOR_PROBLEM, "name", subject,
		           "map the name to this node's address on the network in /etc/hosts",
		           "resolves here to %s, a loopback address, and no interface is chosen: "
		           "gloo would listen on loopback, out of the peers' reach", p->address);
	} else {
		doctor_add(r, DOCTOR_OK, "name", subject, NULL, "resolves to %s%s (one machine)",
		           p->address, more);
	}
}

/* GLOO_SOCKET_IFNAME, when the user set it, against the choice. */
static void user_ifname_row(struct doctor_rows *r, const char *chosen)
{
	const char *gloo = env_get("GLOO_SOCKET_IFNAME");
	size_t len = chosen ? strlen(chosen) : 0;

	if (gloo == NULL || chosen == NULL)
		return;
	for (const char *p = gloo; *p != '\0'; p += strcspn(p, ","), p += *p == ',') {
		if (strncmp(p, chosen, len) == 0 && (p[len] == ',' || p[len] == '\0')) {
			doctor_add(r, DOCTOR_OK, "interface", "GLOO_SOCKET_IFNAME", NULL,
			           "set by you, and names %s", chosen);
			return;
		}
	}
	doctor_add(r, DOCTOR_PROBLEM, "interface", "GLOO_SOCKET_IFNAME",
	           "unset it (muster sets it), or route the peers through the interface it names",
	           "set by you to '%s', but the peers are reached through %s", gloo, chosen);
}

/* Every peer is this machine: nothing to choose. */
static int all_local(const muster_netpath *path)
{
	for (size_t i = 0; i < muster_netpath_count(path); i++) {
		const muster_netpeer *p = muster_netpath_peer(path, i);
		if (p->status != MUSTER_OK || !(p->flags & MUSTER_NETPEER_LOCAL))
			return 0;
	}
	return 1;
}

/* The plan's probe of the peers that decide the interface, as env and run
 * make it, beside the probe of all the hosts: each within the lookup
 * time.  A plan probed already (run --doctor) is not probed again. */
struct env_probe {
	muster_plan *plan;
	long lookup_ms;
	muster_error err;
};

static void *env_probe_run(void *arg)
{
	struct env_probe *e = arg;

	if (muster_plan_network_note(e->plan) == NULL)
		muster_plan_probe_network(e->plan, e->lookup_ms, &e->err);
	return NULL;
}

/* The interface row; `chosen` gets its name ("" when none). */
static void interface_rows(struct doctor_rows *r, const struct env_probe *e,
                           char chosen[IF_NAMESIZE])
{
	const muster_netpath *path = muster_plan_netpath(e->plan);
	const char *note = muster_plan_network_note(e->plan), *ifname, *why;

	chosen[0] = '\0';
	if (note == NULL) {
		doctor_add(r, DOCTOR_PROBLEM, "interface", "-", NULL, "cannot probe: %s",
		           e->err.message[0] ? e->err.message : "a launch without this node's task");
		return;
	}
	if (path == NULL) { /* turned off */
		doctor_add(r, DOCTOR_OK, "interface", "-", NULL, "%s", note);
	} else if (muster_netpath_interface(path, &ifname, NULL, &why) == MUSTER_OK) {
		snprintf(chosen, IF_NAMESIZE, "%s", ifname);
		doctor_add(r, DOCTOR_OK, "interface", ifname, NULL, "%s", why);
	} else if (all_local(path)) {
		doctor_add(r, DOCTOR_OK, "interface", "-", NULL, "none needed: %s", why);
	} else {
		doctor_add(r, DOCTOR_PROBLEM, "interface", "-",
		           "fix the names or routes of the peers, or set GLOO_SOCKET_IFNAME and "
		           "NCCL_SOCKET_IFNAME yourself",
		           "none chosen, so gloo and NCCL pick one themselves: %s", why);
	}
	user_ifname_row(r, chosen[0] ? chosen : NULL);
}

/* Connections in flight at once, at most: whatever the number of nodes,
 * and a quarter of the descriptors this process may open. */
#define REACH_IN_FLIGHT 256

static size_t in_flight_max(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 4 >= REACH_IN_FLIGHT)
		return REACH_IN_FLIGHT;
	return rl.rlim_cur / 4 > 4 ? (size_t)(rl.rlim_cur / 4) : 4;
}

struct reach {
	const muster_netpeer *peer;
	int fd;
	int error; /* 0: connected; -1: pending; -2: not started */
};

static void reach_start(struct reach *c, int port)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	                          .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char service[8];

	snprintf(service, sizeof(service), "%d", port);
	c->error = -1;
	if (getaddrinfo(c->peer->address, service, &hints, &ai) != 0) {
		c->error = EINVAL;
		return;
	}
	c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		c->error = errno;
	else if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
		c->error = 0;
	else if (errno != EINPROGRESS)
		c->error = errno;
	freeaddrinfo(ai);
	if (c->error != -1 && c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
}

/* Connects to the peers of `c` not started yet, in_flight_max() at a
 * time, until each is decided or time is up (those still pending then
 * keep -1, those never started -2). */
static void reach_all(struct reach *c, size_t n, int port, long long deadline)
{
	struct pollfd fds[REACH_IN_FLIGHT];
	size_t who[REACH_IN_FLIGHT], next = 0, k = 0, most = in_flight_max();

	for (;;) {
		/* The pending ones stay in fds[0..k); new ones fill the rest. */
		for (; next < n && k < most; next++) {
			if (c[next].error != -2)
				continue;
			reach_start(&c[next], port);
			if (c[next].error == -1) {
				fds[k] = (struct pollfd){ .fd = c[next].fd, .events = POLLOUT };
				who[k++] = next;
			}
		}
		long left = clock_ms_until(deadline);
		if (k == 0 || left == 0 || poll(fds, k, (int)left) <= 0)
			break;
		size_t kept = 0;
		for (size_t j = 0; j < k; j++) {
			struct reach *r = &c[who[j]];
			int e = 0;
			socklen_t len = sizeof(e);
			if (fds[j].revents == 0) {
				fds[kept] = fds[j];
				who[kept++] = who[j];
				continue;
			}
			getsockopt(r->fd, SOL_SOCKET, SO_ERROR, &e, &len);
			r->error = e;
			close(r->fd);
			r->fd = -1;
		}
		k = kept;
	}
}

static void reach_row(struct doctor_rows *r, const struct reach *c, int port, long timeout_ms,
                      const char *chosen)
{
	const muster_netpeer *p = c->peer;

	if (p->status != MUSTER_OK) {
		doctor_add(r, DOCTOR_PROBLEM, "reach", p->host,
		           "add a route to it (ip route), or name the node by an address this node "
		           "reaches", "%s", p->problem);
		return;
	}
	if (chosen != NULL && strcmp(p->ifname, chosen) != 0) {
		char fix[256];
		snprintf(fix, sizeof(fix), "route %s through %s (ip route add %s dev %s), or name the "
		         "node by an address on %s's network", p->address, chosen, p->address, chosen,
		         chosen);
		doctor_add(r, DOCTOR_PROBLEM, "reach", p->host, fix,
		           "routed through %s, not %s (the interface chosen): gloo and NCCL would not "
		           "reach it", p->ifname, chosen);
		return;
	}
	switch (c->error) {
	case 0:
		doctor_add(r, DOCTOR_OK, "reach", p->host, NULL, "%s port %d accepts connections (via %s)",
		           p->address, port, p->ifname);
		break;
	case ECONNREFUSED:
		doctor_add(r, DOCTOR_OK, "reach", p->host, NULL,
		           "%s answers via %s (port %d refused: nothing listens yet)", p->address,
		           p->ifname, port);
		break;
	case -1:
		doctor_add(r, DOCTOR_PROBLEM, "reach", p->host,
		           "check that the node is up and that no firewall drops TCP between the nodes",
		           "%s port %d: no answer within %ld ms (via %s)", p->address, port, timeout_ms,
		           p->ifname);
		break;
	case -2:
		doctor_add(r, DOCTOR_PROBLEM, "reach", p->host, "raise --timeout",
		           "%s port %d: not tried: the time ran out first", p->address, port);
		break;
	default:
		doctor_add(r, DOCTOR_PROBLEM, "reach", p->host,
		           "check that the node is up and its route from here",
		           "%s port %d: %s (via %s)", p->address, port, strerror(c->error), p->ifname);
		break;
	}
}

static void reach_rows(struct doctor_rows *r, const struct doctor_launch *dl,
                       const muster_netpath *path, long long deadline, long timeout_ms,
                       const char *chosen)
{
	size_t n = muster_netpath_count(path), k = 0;
	struct reach *c = calloc(n ? n : 1, sizeof(*c));

	if (c == NULL) {
		r->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const muster_netpeer *p = muster_netpath_peer(path, i);
		if (p->address == NULL || (p->flags & MUSTER_NETPEER_LOCAL) ||
		    strcmp(p->host, own_host(dl)) == 0)
			continue;
		/* A peer without a route is reported as such, not connected to. */
		c[k++] = (struct reach){ p, -1, p->status == MUSTER_OK ? -2 : 0 };
	}
	reach_all(c, k, dl->master_port, deadline);
	for (size_t i = 0; i < k; i++) {
		reach_row(r, &c[i], dl->master_port, timeout_ms, chosen);
		if (c[i].fd >= 0)
			close(c[i].fd);
	}
	free(c);
}

static int same_address(const muster_netpeer *a, const muster_netpeer *b)
{
	return a->status == MUSTER_OK && b->status == MUSTER_OK && strcmp(a->address, b->address) == 0;
}

/* Two nodes must not hold the same ranks: this node's host must be this
 * machine (else another machine has its identity: a TF_CONFIG copied to
 * every node, a wrong --task), and no two nodes' hosts one machine. */
static void duplicate_rows(struct doctor_rows *r, const struct doctor_launch *dl,
                           const muster_netpath *path)
{
	size_t n = muster_netpath_count(path);
	int found = 0, self_local = 0;

	for (size_t i = 0; i < n; i++) {
		const muster_netpeer *p = muster_netpath_peer(path, i);
		if (strcmp(p->host, own_host(dl)) == 0 && p->status == MUSTER_OK) {
			self_local = (p->flags & MUSTER_NETPEER_LOCAL) != 0;
			if (!self_local) {
				doctor_add(r, DOCTOR_PROBLEM, "duplicates", p->host,
				           "give this node its own task (--task, or its own TF_CONFIG task)",
				           "this node's host by the cluster, but it resolves to %s, which is "
				           "not this machine: that machine's ranks would be taken twice",
				           p->address);
				found = 1;
			}
		}
		for (size_t j = 0; j < i; j++) {
			const muster_netpeer *q = muster_netpath_peer(path, j);
			if (!same_address(p, q) || (p->flags & MUSTER_NETPEER_LOOPBACK))
				continue;
			doctor_add(r, DOCTOR_PROBLEM, "duplicates", p->host,
			           "name each machine once in the cluster",
			           "resolves to %s as %s does: two nodes on one machine would share its "
			           "local ranks and GPUs", p->address, q->host);
			found = 1;
			break;
		}
	}
	if (!found)
		doctor_add(r, DOCTOR_OK, "duplicates", "nodes", NULL, "%sno two nodes' hosts resolve "
		           "to one address", self_local ? "this node's host is this machine, and " : "");
}

void doctor_check_network(struct doctor_rows *r, const struct doctor_launch *dl,
                          muster_plan *plan, long timeout_ms)
{
	/* Name lookups may take half the time, so that one resolver that
	 * never answers leaves the connections the other half. */
	long lookup_ms = timeout_ms / 2 > 0 ? timeout_ms / 2 : 1;
	long long deadline = clock_now_ms() + timeout_ms;
	struct env_probe e = { plan, lookup_ms, { 0, "" } };
	muster_error err = { 0, "" };
	muster_netpath *path = NULL;
	char chosen[IF_NAMESIZE];
	pthread_t thread;
	int threaded = pthread_create(&thread, NULL, env_probe_run, &e) == 0;

	if (!threaded)
		env_probe_run(&e);
	int rc = muster_netpath_probe(&path, dl->host, dl->nhosts, lookup_ms, &err);
	if (threaded)
		pthread_join(thread, NULL);
	interface_rows(r, &e, chosen);
	if (rc != 0) {
		doctor_add(r, DOCTOR_PROBLEM, "name", "-", NULL, "cannot look the peers up: %s",
		           err.message);
		return;
	}
	for (size_t i = 0; i < muster_netpath_count(path); i++)
		name_row(r, dl, muster_netpath_peer(path, i), chosen[0] ? chosen : NULL);
	reach_rows(r, dl, path, deadline, timeout_ms, chosen[0] ? chosen : NULL);
	duplicate_rows(r, dl, path);
	muster_netpath_free(path);
}
