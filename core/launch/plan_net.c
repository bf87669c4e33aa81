/* The plan's network path: muster_plan_probe_network() probes the peers
 * whose routes decide this node's interface (core/net/netenv.c), and
 * muster_plan_env() then adds the interface's variables. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "launch.h"
#include "lib/error.h"
#include "net/netenv.h"

void plan_net_free(struct muster_plan *p)
{
	net_env_free(p->net);
	free(p->net);
	p->net = NULL;
}

MUSTER_API int muster_plan_probe_network(muster_plan *p, long timeout_ms, muster_error *err)
{
	size_t n;
	const char **hosts;
	int rc;

	if (!p)
		return error_set(err, MUSTER_EINVAL, "muster_plan_probe_network: NULL argument");
	plan_net_free(p);
	/* TensorFlow's processes reach each other at the cluster's addresses,
	 * and a plan without its own unit has no node to probe from. */
	if (p->tensorflow || p->self == SIZE_MAX)
		return 0;
	if (!(p->net = calloc(1, sizeof(*p->net))))
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	if (p->r->no_interface) {
		net_env_off(p->net, "choose_interface is false in the configuration");
		return 0;
	}
	n = muster_plan_node_count(p);
	if (n == 0 || !(hosts = malloc(n * sizeof(*hosts)))) {
		plan_net_free(p);
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = muster_plan_node_at(p, i, &hosts[i], NULL);
	if (rc != 0)
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	else
		rc = net_env_probe(p->net, hosts, n, p->self_node, timeout_ms, err);
	free(hosts);
	if (rc != 0)
		plan_net_free(p);
	return rc;
}

MUSTER_API const muster_netpath *muster_plan_netpath(const muster_plan *p)
{
	return p && p->net ? p->net->path : NULL;
}

MUSTER_API const char *muster_plan_network_note(const muster_plan *p)
{
	return p && p->net ? p->net->note : NULL;
}
