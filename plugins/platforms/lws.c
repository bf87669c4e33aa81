/*
 * A LeaderWorkerSet pod, docs/platforms.md §7: one group of pods, the
 * leader first.
 *
 * Detect: LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX, which LWS
 * adds to every container together (any without the others: unavail).
 *
 * Members: the leader, LWS_LEADER_ADDRESS ("<lws>-<group>.<subdomain>.<ns>"),
 * is task 0; worker i is "<lws>-<group>-<i>" under the same subdomain, as
 * LWS names the pods of a group.  Own task LWS_WORKER_INDEX.  Groups are
 * independent replicas: nothing links them, and each is its own cluster.
 * LWS names no port: the entry's port, and the leader's pod name as the
 * job id, from which the launch derives the group's master port.
 */
#include <config.h>

#include <stdio.h>

#include "platforms.h"

static const char *const lws_vars[] = { "LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE",
                                        "LWS_WORKER_INDEX", NULL };

muster_status pf_lws(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	const char *leader, *missing;
	long size, index;
	struct pf_name name;
	char host[300], address[320], pod[80];

	if (pf_which(run, lws_vars, &missing) == 0)
		return pf_notfound(run, "LWS_LEADER_ADDRESS is not set: not a LeaderWorkerSet pod");
	if (missing != NULL)
		return pf_half(run, "LeaderWorkerSet", lws_vars, missing);
	if (env_host(env, "LWS_LEADER_ADDRESS", &leader) <= 0 ||
	    env_int(env, "LWS_GROUP_SIZE", 1, PF_MAX_TASKS, &size) <= 0 ||
	    env_index(env, "LWS_WORKER_INDEX", size, "LWS_GROUP_SIZE", &index) <= 0)
		return pf_env_failed(run);
	pf_name_split(&name, leader);
	if (muster_plugin_add_job_sized(run->host, run->call, "worker", size) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long i = 0; i < size; i++) {
		if (i == 0)
			snprintf(host, sizeof(host), "%s", leader);
		else
			pf_name_derive(host, sizeof(host), &name, name.label, "-", i);
		snprintf(address, sizeof(address), "%s:%ld", host, run->port);
		if (run->host->add_task(run->call, "worker", i, address) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	snprintf(pod, sizeof(pod), "%.*s", (int)name.label, leader);
	if (pf_job_id(run, pod) != 0)
		return MUSTER_STATUS_UNAVAIL;
	return pf_finish(run, "worker", index, MUSTER_PLACEMENT_NODES);
}
