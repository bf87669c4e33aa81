/*
 * The sagemaker cluster, as TensorFlow's SageMakerClusterResolver builds
 * it: every host in job `worker`, sorted as strings (algo-1, algo-10,
 * algo-2), at "host:port"; this task is the current host's position.  The
 * master follows TF_CONFIG's rule, as that resolver does: none for a
 * cluster of one task, and no rpc_layer unless the entry gives one.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sagemaker.h"
#include "lib/address.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

muster_status sm_build(const muster_host *host, muster_call *call, const struct sm_conf *conf,
                       struct sm_hosts *h, const char *hosts_src, const char *current_src)
{
	char address[300], why[300];
	long self = -1;

	if (h->n > 1)
		qsort(h->names, h->n, sizeof(*h->names), by_name);
	for (size_t i = 0; i < h->n && self < 0; i++)
		if (strcmp(h->names[i], h->current) == 0)
			self = (long)i;
	if (self < 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s \"%.64s\" is not one of the %zu hosts of %s", current_src,
		                     h->current, h->n, hosts_src);
	if (host->add_job(call, "worker") != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (size_t i = 0; i < h->n; i++) {
		if ((size_t)snprintf(address, sizeof(address), "%s:%ld", h->names[i], conf->port) >=
		    sizeof(address))
			return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
			                     "%s: host name \"%.64s...\" is too long", hosts_src,
			                     h->names[i]);
		if (address_check(address, why, sizeof(why)) != 0)
			return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
			                     "%s: %s", hosts_src, why);
		if (host->add_task(call, "worker", (long)i, address) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	if (host->set_task(call, "worker", self) != 0 ||
	    (conf->rpc_layer != NULL && host->set_rpc_layer(call, conf->rpc_layer) != 0) ||
	    host->set_master_rule(call, MUSTER_MASTER_TF_CONFIG) != 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}
