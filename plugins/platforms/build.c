/*
 * The shapes of a platform's answer.  Hosts come checked from the reader
 * (env_host, env_hosts) or derived from a checked one; the host checks
 * every address again and refuses what it would not print.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "platforms.h"

const char *pf_host_form(char *buf, size_t size, const char *host)
{
	if (strchr(host, ':') == NULL || host[0] == '[')
		return host;
	snprintf(buf, size, "[%s]", host);
	return buf;
}

int pf_add_hosts(struct pf_run *run, const char *job, const char *const *hosts, size_t n,
                 long port)
{
	char address[320], form[300];

	if (muster_plugin_add_job_sized(run->host, run->call, job, (long)n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		snprintf(address, sizeof(address), "%s:%ld", pf_host_form(form, sizeof(form), hosts[i]),
		         port);
		if (run->host->add_task(run->call, job, (long)i, address) != 0)
			return -1;
	}
	return 0;
}

void pf_placeholder(char *buf, size_t size, const char *stem, long n)
{
	snprintf(buf, size, "%s-%ld.unknown.invalid", stem, n);
}

void pf_name_split(struct pf_name *n, const char *host)
{
	n->host = host;
	n->label = strcspn(host, ".");
}

int pf_label_ends(const struct pf_name *n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n->label > k && memcmp(n->host + n->label - k, suffix, k) == 0;
}

void pf_name_derive(char *buf, size_t size, const struct pf_name *n, size_t keep,
                    const char *middle, long i)
{
	snprintf(buf, size, "%.*s%s%ld%s", (int)keep, n->host, middle, i, n->host + n->label);
}

/* The k-th port from `first`, wrapping past 65535 to 1024: a node's
 * processes need distinct ports, and the master's own must stay first. */
static long nth_port(long first, long k)
{
	long p = first + k;

	return p <= 65535 ? p : 1024 + (p - 65536) % (65536 - 1024);
}

muster_status pf_add_processes(struct pf_run *run, const struct pf_procs *p)
{
	const muster_host *h = run->host;
	long nodes = p->world / p->per_node;
	char host[96], master[300];

	if (muster_plugin_add_job_sized(h, run->call, "worker", p->world) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long node = 0; node < nodes; node++) {
		const char *name = pf_host_form(master, sizeof(master), p->master_host);

		if (node > 0) {
			pf_placeholder(host, sizeof(host), p->stem, node);
			name = host;
		}
		if (p->master_port + p->per_node - 1 <= 65535) {
			if (h->add_task_range(run->call, "worker", node * p->per_node, p->per_node, name,
			                      p->master_port) != 0)
				return MUSTER_STATUS_UNAVAIL;
			continue;
		}
		for (long k = 0; k < p->per_node; k++) {
			char address[320];

			snprintf(address, sizeof(address), "%s:%ld", name, nth_port(p->master_port, k));
			if (h->add_task(run->call, "worker", node * p->per_node + k, address) != 0)
				return MUSTER_STATUS_UNAVAIL;
		}
	}
	return pf_finish(run, "worker", p->rank, MUSTER_PLACEMENT_PROCESSES);
}

muster_status pf_finish(struct pf_run *run, const char *job, long index, int placement)
{
	const muster_host *h = run->host;
	const char *layer = run->conf->rpc_layer;

	if ((job != NULL && h->set_task(run->call, job, index) != 0) ||
	    (layer != NULL && layer[0] != '\0' && h->set_rpc_layer(run->call, layer) != 0) ||
	    h->set_master_rule(run->call, MUSTER_MASTER_TASK) != 0 ||
	    muster_plugin_set_placement(h, run->call, placement) != 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

int pf_job_id(struct pf_run *run, const char *id)
{
	return muster_plugin_set_job_id(run->host, run->call, id);
}
