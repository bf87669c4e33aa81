/*
 * The complete QINFO list into the result, as TensorFlowOnSpark builds its
 * ClusterSpec: registrations sorted by executor id, each appended
 * as "host:port" to its job's list (so a task's index is its position, not
 * the task_index field), jobs in order of first appearance.
 *
 * Self identity is our executor id's place in that spec; it must agree with
 * the template we registered with, or the executors do not share one
 * template (num_ps, master_node, eval_node) and the cluster is wrong for
 * someone.  Master rule: MUSTER_MASTER_TASK, as the resolvers that know
 * their own task (Kubernetes, Slurm): master() is this task's address with
 * "grpc://" unless told otherwise.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spark.h"

static muster_status missing_after_done(struct spark_run *run, const pv *list)
{
	int64_t missing[SPARK_MISSING_SHOWN];
	size_t n = res_qinfo_missing(list, run->conf->tmpl.cluster_size, missing, 1);

	if (n == 0)
		return MUSTER_STATUS_SUCCESS;
	run->host->fail(run->call, "the server says the reservations are complete but %zu of "
	                           "%lld executors are missing (executor id %lld first): does the "
	                           "server's size match cluster_size?",
	                n, (long long)run->conf->tmpl.cluster_size, (long long)missing[0]);
	return MUSTER_STATUS_UNAVAIL;
}

static int find_self(const struct res_cluster *c, int64_t executor_id, size_t *job, size_t *task)
{
	size_t j, t;

	for (j = 0; j < c->njobs; j++)
		for (t = 0; t < c->jobs[j].ntasks; t++)
			if (c->jobs[j].executor_ids[t] == executor_id) {
				*job = j;
				*task = t;
				return 0;
			}
	return -1;
}

static muster_status check_self(struct spark_run *run, const struct res_cluster *c, size_t *job,
                                size_t *task)
{
	const char *want_job = NULL;
	int64_t want_index = -1;
	char why[200];

	if (find_self(c, run->executor_id, job, task) != 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "executor %lld is not in the server's list",
		                     (long long)run->executor_id);
	if (res_template_role(&run->conf->tmpl, run->executor_id, &want_job, &want_index, why,
	                      sizeof(why)) != 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "template: %s", why);
	if (strcmp(want_job, c->jobs[*job].name) != 0 || want_index != (int64_t)*task)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "executor %lld is %.40s:%zu in the reserved cluster but "
		                     "%s:%lld by this entry's template: do all executors use the "
		                     "same cluster_size, num_ps, master_node and eval_node?",
		                     (long long)run->executor_id, c->jobs[*job].name, *task,
		                     want_job, (long long)want_index);
	return MUSTER_STATUS_SUCCESS;
}

muster_status spark_build(struct spark_run *run, const pv *list)
{
	const muster_host *host = run->host;
	struct res_cluster c = { 0, NULL };
	char why[300];
	size_t j, t, self_job = 0, self_task = 0;
	muster_status st;

	if (res_cluster_from_qinfo(list, &c, why, sizeof(why)) != 0)
		return plugin_answer(host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "the reservations do not make a cluster: %s", why);
	st = missing_after_done(run, list);
	if (st == MUSTER_STATUS_SUCCESS)
		st = check_self(run, &c, &self_job, &self_task);
	for (j = 0; st == MUSTER_STATUS_SUCCESS && j < c.njobs; j++) {
		if (host->add_job(run->call, c.jobs[j].name) != 0)
			st = MUSTER_STATUS_UNAVAIL;
		for (t = 0; st == MUSTER_STATUS_SUCCESS && t < c.jobs[j].ntasks; t++)
			if (host->add_task(run->call, c.jobs[j].name, (long)t, c.jobs[j].addrs[t]) != 0)
				st = MUSTER_STATUS_UNAVAIL;
	}
	if (st == MUSTER_STATUS_SUCCESS &&
	    (host->set_task(run->call, c.jobs[self_job].name, (long)self_task) != 0 ||
	     (run->conf->rpc_layer[0] != '\0' &&
	      host->set_rpc_layer(run->call, run->conf->rpc_layer) != 0) ||
	     host->set_master_rule(run->call, MUSTER_MASTER_TASK) != 0))
		st = MUSTER_STATUS_UNAVAIL;
	res_cluster_free(&c);
	return st;
}

/* One registered executor as its template's task; 0, or -1 when the
 * builder refused it. */
static int partial_task(struct spark_run *run, const struct res_node *n, const char *job,
                        int64_t index)
{
	size_t len = strlen(n->host) + 10;
	char buf[320], *addr = len <= sizeof(buf) ? buf : malloc(len);
	int v6 = strchr(n->host, ':') != NULL, rc;

	if (addr == NULL)
		return -1;
	/* As the ClusterSpec writes it: an IPv6 host in brackets. */
	snprintf(addr, len, v6 ? "[%s]:%lld" : "%s:%lld", n->host, (long long)n->port);
	rc = run->host->add_task(run->call, job, (long)index, addr);
	if (addr != buf)
		free(addr);
	return rc;
}

void spark_partial(struct spark_run *run, const pv *list)
{
	const struct spark_conf *conf = run->conf;
	int64_t size = conf->tmpl.cluster_size, id, index;
	bool *seen = calloc((size_t)size, sizeof(*seen));
	const char *job;
	struct res_node n;
	char label[32];
	size_t i;

	if (seen == NULL)
		return;
	for (i = 0; i < pv_len(list); i++) {
		if (res_node_from_pv(pv_seq_at(list, i), &n, NULL, 0) != 0 || n.executor_id < 0 ||
		    n.executor_id >= size || seen[n.executor_id] ||
		    res_template_role(&conf->tmpl, n.executor_id, &job, &index, NULL, 0) != 0)
			continue;
		seen[n.executor_id] = true;
		if (partial_task(run, &n, job, index) != 0)
			goto done;
	}
	for (id = 0; id < size; id++) {
		if (seen[id] || res_template_role(&conf->tmpl, id, &job, &index, NULL, 0) != 0)
			continue;
		snprintf(label, sizeof(label), "executor %lld", (long long)id);
		if (muster_plugin_add_pending(run->host, run->call, job, (long)index, label,
		                              "not registered") != 0)
			break;
	}
	if (res_template_role(&conf->tmpl, run->executor_id, &job, &index, NULL, 0) == 0)
		run->host->set_task(run->call, job, (long)index);
done:
	free(seen);
}
