/* The network half of a launch's environment: net_env_*(). */
#include <config.h>

#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "lib/env.h"
#include "lib/error.h"
#include "netenv.h"
#include "netpath.h"

/* A host as a lookup takes it: an IPv6 address without its brackets. */
static const char *bare(const char *host, char *buf, size_t size)
{
	size_t len = strlen(host);
	if (len < 2 || host[0] != '[' || host[len - 1] != ']' || len - 1 > size)
		return host;
	memcpy(buf, host + 1, len - 2);
	buf[len - 2] = '\0';
	return buf;
}

/* The hosts to probe into `out` (the master's first, then the peers);
 * their count.  `bufs` holds the bare copies. */
static size_t probe_list(const char **out, char (*bufs)[64], const char *const *hosts,
                         size_t nhosts, size_t self)
{
	size_t n = 0;

	out[n] = bare(hosts[0], bufs[n], sizeof(bufs[0]));
	n++;
	if (self != 0)
		return n;
	size_t others = nhosts - 1, take = others < NETENV_MAX_PEERS ? others : NETENV_MAX_PEERS;
	for (size_t k = 0; k < take; k++) {
		const char *h = hosts[1 + k * others / take];
		/* A placeholder (a member whose platform keeps its address to
		 * itself, lib/address.h) never resolves: no lookup for it. */
		if (strcmp(h, hosts[0]) != 0 && !address_is_placeholder(h)) {
			out[n] = bare(h, bufs[n], sizeof(bufs[0]));
			n++;
		}
	}
	return n;
}

static void describe(struct net_env *ne, size_t self, const char *why)
{
	const muster_netpeer *master = muster_netpath_peer(ne->path, 0);
	int n = 0;

	if (ne->ifname == NULL) {
		snprintf(ne->note, sizeof(ne->note), "no interface variable: %s", why);
		return;
	}
	n = snprintf(ne->note, sizeof(ne->note), "interface %s: %s", ne->ifname, why);
	if (self == 0 && master->status == MUSTER_OK && (master->flags & MUSTER_NETPEER_LOOPBACK)) {
		ne->loopback = master->address;
		snprintf(ne->note + n, sizeof(ne->note) - (size_t)n,
		         "; the master's address is %s (%s's), not %s, which %s resolves to here",
		         ne->source, ne->ifname, ne->loopback, master->host);
	}
}

int net_env_probe(struct net_env *ne, const char *const *hosts, size_t nhosts, size_t self,
                  long timeout_ms, muster_error *err)
{
	const char *list[NETENV_MAX_PEERS + 1];
	char bufs[NETENV_MAX_PEERS + 1][64];
	const char *why;
	int rc;

	memset(ne, 0, sizeof(*ne));
	if (nhosts == 0)
		return error_set(err, MUSTER_EINVAL, "net_env_probe: no nodes");
	size_t n = probe_list(list, bufs, hosts, nhosts, self);
	/* On the master's node the master's own host decides nothing (it is
	 * this machine); elsewhere it is the one peer. */
	rc = netpath_probe_peers(&ne->path, list, n, self == 0 ? 1 : 0, timeout_ms, err);
	if (rc != 0)
		return rc;
	muster_netpath_interface(ne->path, &ne->ifname, &ne->source, &why);
	describe(ne, self, why);
	return 0;
}

void net_env_off(struct net_env *ne, const char *why)
{
	memset(ne, 0, sizeof(*ne));
	snprintf(ne->note, sizeof(ne->note), "no interface variable: %s", why);
}

void net_env_free(struct net_env *ne)
{
	if (ne != NULL)
		muster_netpath_free(ne->path);
}

/* Sets `name` unless the user did; `also` (NULL: none) is another name
 * whose being set rules it out too. */
static void set_unset(net_env_set_fn set, void *ctx, const char *name, const char *also,
                      const char *value)
{
	if (env_get(name) == NULL && (also == NULL || env_get(also) == NULL))
		set(ctx, name, value, 0);
}

void net_env_put(const struct net_env *ne, const char *framework, int master_port,
                 net_env_set_fn set, void *ctx)
{
	char exact[IF_NAMESIZE + 1];
	int torch = strcmp(framework, "pytorch") == 0;

	if (ne == NULL || ne->ifname == NULL)
		return;
	if (torch) {
		set_unset(set, ctx, "GLOO_SOCKET_IFNAME", NULL, ne->ifname);
		set_unset(set, ctx, "TP_SOCKET_IFNAME", NULL, ne->ifname);
	}
	/* NCCL takes a prefix ("eth" is eth0, eth1, ...) unless '=' asks for
	 * the exact name. */
	snprintf(exact, sizeof(exact), "=%s", ne->ifname);
	set_unset(set, ctx, "NCCL_SOCKET_IFNAME", NULL, exact);
	/* Open MPI refuses an include list beside an exclude list. */
	set_unset(set, ctx, "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_btl_tcp_if_exclude", ne->ifname);
	set_unset(set, ctx, "OMPI_MCA_oob_tcp_if_include", "OMPI_MCA_oob_tcp_if_exclude", ne->ifname);
	if (ne->loopback == NULL)
		return;
	if (torch) {
		set(ctx, "MASTER_ADDR", ne->source, 1);
		set(ctx, "PET_MASTER_ADDR", ne->source, 1);
	} else {
		char coordinator[80];
		int v6 = strchr(ne->source, ':') != NULL;
		snprintf(coordinator, sizeof(coordinator), "%s%s%s:%d", v6 ? "[" : "", ne->source,
		         v6 ? "]" : "", master_port);
		set(ctx, "JAX_COORDINATOR_ADDRESS", coordinator, 1);
	}
}
