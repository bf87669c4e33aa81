/*
 * A node of an AWS Batch multi-node parallel job, docs/platforms.md §10.
 *
 * Detect: AWS_BATCH_JOB_NODE_INDEX, AWS_BATCH_JOB_NUM_NODES and
 * AWS_BATCH_JOB_MAIN_NODE_INDEX (any without the others: unavail).  A
 * child node (index other than the main's) must have
 * AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS; the main node has none
 * and is its own host name.
 *
 * AWS publishes only the main node's address.  The answer keeps every
 * node's place: the main node first (it is the master, rank 0), then the
 * others in index order, each at a placeholder "aws-batch-node-<index>.unknown.invalid"
 * — so env and run, which need only the master and the ranks, work, and
 * resolve, tf-config and hostfile say which addresses are unknown.  Node
 * rank = AWS_BATCH_JOB_NODE_INDEX when the main node is 0 (the default).
 * Port: the entry's; job id: AWS_BATCH_JOB_ID without its "#<node>".
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "platforms.h"

static const char *const batch_vars[] = { "AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES",
                                          "AWS_BATCH_JOB_MAIN_NODE_INDEX", NULL };

static muster_status build(struct pf_run *run, const char *main_host, long nodes, long index,
                           long main)
{
	const char *id = env_str(&run->env, "AWS_BATCH_JOB_ID");
	char host[300], address[320], job[300];
	long pos = 0;

	if (muster_plugin_add_job_sized(run->host, run->call, "worker", nodes) != 0)
		return MUSTER_STATUS_UNAVAIL;
	snprintf(address, sizeof(address), "%s:%ld", pf_host_form(host, sizeof(host), main_host),
	         run->port);
	if (run->host->add_task(run->call, "worker", pos++, address) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long i = 0; i < nodes; i++) {
		if (i == main)
			continue;
		pf_placeholder(host, sizeof(host), "aws-batch-node", i);
		snprintf(address, sizeof(address), "%s:%ld", host, run->port);
		if (run->host->add_task(run->call, "worker", pos++, address) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	if (id != NULL && id[0] != '\0' && id[0] != '#') {
		snprintf(job, sizeof(job), "%.*s", (int)strcspn(id, "#"), id);
		if (pf_job_id(run, job) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	return pf_finish(run, "worker", index == main ? 0 : index < main ? index + 1 : index,
	                 MUSTER_PLACEMENT_NODES);
}

muster_status pf_aws_batch(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	const char *missing, *main_host;
	long nodes, index, main;
	char self[256];

	if (pf_which(run, batch_vars, &missing) == 0)
		return pf_notfound(run, "AWS_BATCH_JOB_NODE_INDEX is not set: not a node of an AWS "
		                        "Batch multi-node parallel job");
	if (missing != NULL)
		return pf_half(run, "AWS Batch (multi-node parallel)", batch_vars, missing);
	if (env_int(env, "AWS_BATCH_JOB_NUM_NODES", 1, PF_MAX_TASKS, &nodes) <= 0 ||
	    env_index(env, "AWS_BATCH_JOB_NODE_INDEX", nodes, "AWS_BATCH_JOB_NUM_NODES", &index) <= 0 ||
	    env_index(env, "AWS_BATCH_JOB_MAIN_NODE_INDEX", nodes, "AWS_BATCH_JOB_NUM_NODES",
	              &main) <= 0)
		return pf_env_failed(run);
	switch (env_host(env, "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", &main_host)) {
	case -1:
		return pf_env_failed(run);
	case 0:
		if (index != main)
			return pf_unavail(run, "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS is not set on "
			                       "node %ld, which is not the main node (%ld): AWS Batch sets "
			                       "it on every other node", index, main);
		if (pf_hostname(run, self, sizeof(self)) != 0)
			return MUSTER_STATUS_UNAVAIL;
		main_host = self;
	}
	return build(run, main_host, nodes, index, main);
}
