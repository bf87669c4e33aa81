/* The network half of a launch's environment: the interface through which
 * this node reaches its peers, handed to gloo, NCCL, TensorPipe and Open
 * MPI, and the master's address where the master's own name is a loopback
 * address here (Debian's installer maps the machine's name to 127.0.1.1,
 * and gloo then listens out of the peers' reach). */
#ifndef MUSTER_CORE_NET_NETENV_H
#define MUSTER_CORE_NET_NETENV_H

#include <stddef.h>

#include <muster/muster.h>

/* The most peers the master's node probes: a large cluster's interface is
 * decided by this many nodes, spread over its node list. */
#define NETENV_MAX_PEERS 64

struct net_env {
	muster_netpath *path; /* the master's host first, then the peers */
	const char *ifname;   /* the interface chosen, in path; NULL: none */
	const char *source;   /* its address */
	const char *loopback; /* on the master's node: the loopback address its
	                         name resolves to here (in path), else NULL */
	char note[640];       /* what was chosen, or why nothing was, to be said */
};

/* Probes the peers of node `self` among `hosts`, the nodes' hosts in node
 * order (node 0 is the master's; an IPv6 address may be in brackets): on
 * the master's node the other nodes (NETENV_MAX_PEERS of them at most),
 * elsewhere the master, within `timeout_ms`.  0, or MUSTER_ENOMEM. */
int net_env_probe(struct net_env *ne, const char *const *hosts, size_t nhosts, size_t self,
                  long timeout_ms, muster_error *err);
/* `ne` as turned off: no probe, `why` said instead. */
void net_env_off(struct net_env *ne, const char *why);
void net_env_free(struct net_env *ne);

/* Sets a variable of the environment being built: `replace_only`, only
 * one it already holds. */
typedef void (*net_env_set_fn)(void *ctx, const char *name, const char *value, int replace_only);

/* The variables of `framework` ("pytorch", "jax") for the interface
 * chosen, each unless this process's environment already has it (the
 * user's word), and on the master's node with a loopback name, its
 * address (MASTER_ADDR, PET_MASTER_ADDR, JAX_COORDINATOR_ADDRESS with
 * `master_port`).  Nothing when `ne` is NULL or chose nothing. */
void net_env_put(const struct net_env *ne, const char *framework, int master_port,
                 net_env_set_fn set, void *ctx);

#endif
