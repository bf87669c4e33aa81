#include <config.h>

#include "layout.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "lib/address.h"

/* Ports port_base .. port_base + count - 1 stay within 65535; 0, or -1
 * after fail() naming the host's first task past it. */
static int check_ports(const muster_host *host, muster_call *call, const struct layout *l,
                       const char *name, long count)
{
	long k = 65536 - l->port_base; /* port_base is 1 to 65535 */

	if (count <= k)
		return 0;
	host->fail(call, "%s: host %.64s needs port %ld (port_base %ld + %ld), past 65535",
	           l->source, name, l->port_base + k, l->port_base, k);
	return -1;
}

/* "host:port" of the host's k-th task into buf, checked; 0, or -1 after
 * fail(). */
static int format_address(const muster_host *host, muster_call *call, const struct layout *l,
                          const char *name, long k, char *buf, size_t size)
{
	char why[300];

	if (check_ports(host, call, l, name, k + 1) != 0)
		return -1;
	if ((size_t)snprintf(buf, size, "%s:%ld", name, l->port_base + k) >= size) {
		host->fail(call, "%s: host name \"%.64s...\" is too long", l->source, name);
		return -1;
	}
	if (address_check(buf, why, sizeof(why)) != 0) {
		host->fail(call, "%s: %s", l->source, why);
		return -1;
	}
	return 0;
}

/* The GPUs of a host's k-th task, gpus_per_task of them: ordinals
 * k*gpus_per_task onwards (the slice TensorFlow writes into its
 * CUDA_VISIBLE_DEVICES), each mapped through l->gpu_ids when given, or
 * only their count (gpu_counts_only, or a host older than ABI 1.2).  0, or
 * -1 after fail(). */
static int add_gpu_slice(const muster_host *host, muster_call *call, const struct layout *l,
                         const char *job, long index, long k)
{
	int one[64] = { 0 }, *ids; /* zeroed: gcc cannot tell that the loop fills it */
	size_t n = (size_t)l->gpus_per_task;
	int rc;

	if (l->gpu_counts_only || !MUSTER_HOST_HAS(host, add_accelerator_ids))
		return host->add_accelerator(call, job, index, "GPU", l->gpus_per_task);
	ids = n <= 64 ? one : malloc(n * sizeof(*ids));
	if (ids == NULL) {
		host->fail(call, "out of memory");
		return -1;
	}
	for (size_t m = 0; m < n; m++) {
		long ordinal = k * l->gpus_per_task + (long)m;

		ids[m] = l->gpu_ids != NULL ? l->gpu_ids[ordinal] : (int)ordinal;
	}
	rc = host->add_accelerator_ids(call, job, index, "GPU", ids, n);
	if (ids != one)
		free(ids);
	return rc;
}

/* The ids of every task together stay within LAYOUT_MAX_GPU_IDS (and so
 * within an int); 0, or -1 after fail() ("GPU"). */
static int check_gpus(const muster_host *host, muster_call *call, const struct layout *l,
                      long tasks)
{
	if (l->gpus_per_task > 0 && tasks > LAYOUT_MAX_GPU_IDS / l->gpus_per_task) {
		host->fail(call, "%ld tasks with %ld GPUs each pass %ld GPU ids (%s)", tasks,
		           l->gpus_per_task, LAYOUT_MAX_GPU_IDS,
		           l->gpu_source != NULL ? l->gpu_source : l->source);
		return -1;
	}
	return 0;
}

/* The hosts as the scheduler orders them: l->node_order, else the slots'. */
static int set_node_order(const muster_host *host, muster_call *call, const struct layout *l,
                          const struct slots *s)
{
	const char **order;
	int rc;

	if (l->node_order != NULL)
		return muster_plugin_set_node_order(host, call, l->node_order, l->nnode_order);
	order = malloc((s->nhosts ? s->nhosts : 1) * sizeof(*order));
	if (order == NULL) {
		host->fail(call, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->nhosts; i++)
		order[i] = s->hosts[i].name;
	rc = muster_plugin_set_node_order(host, call, order, s->nhosts);
	free(order);
	return rc;
}

static muster_status finish(const muster_host *host, muster_call *call, const struct layout *l,
                            const struct slots *s, const char *job, long index)
{
	if (host->set_task(call, job, index) != 0 ||
	    (l->rpc_layer != NULL && l->rpc_layer[0] != '\0' &&
	     host->set_rpc_layer(call, l->rpc_layer) != 0) ||
	    host->set_master_rule(call, MUSTER_MASTER_TASK) != 0 ||
	    muster_plugin_set_placement(host, call, MUSTER_PLACEMENT_PROCESSES) != 0 ||
	    set_node_order(host, call, l, s) != 0 ||
	    (l->job_id != NULL && muster_plugin_set_job_id(host, call, l->job_id) != 0))
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

/* The jobs' tasks against the slots, and the rank among them: 0, or -1
 * after fail(). */
static int check_counts(const muster_host *host, muster_call *call, const struct layout *l,
                        const struct slots *s)
{
	long requested = 0;

	for (size_t j = 0; j < l->njobs; j++)
		requested += l->jobs[j].count;
	if (requested != s->total) {
		host->fail(call, "Requested %ld tasks but only %ld were assigned. (the jobs option "
		           "against the slots of %s)", requested, s->total, l->source);
		return -1;
	}
	if (l->rank < 0 || l->rank >= s->total) {
		host->fail(call, "rank %ld is outside the %ld tasks of %s", l->rank, s->total,
		           l->source);
		return -1;
	}
	return check_gpus(host, call, l, s->total);
}

/* One run of `tasks` ranks from `pos` on, on host `name` from its k-th
 * task, cut where a job ends; *j and *start follow the job of `pos`.  0,
 * or -1 after fail().  The host checks each range's address; when it
 * refuses one, the address is checked here again, so that the reason
 * names where a bad host name came from (checking every host here first
 * doubled the work of a 4,096-node resolve). */
static int add_run(const muster_host *host, muster_call *call, const struct layout *l,
                   const char *name, long k, long tasks, long pos, size_t *j, long *start)
{
	char address[300];

	while (tasks > 0) {
		while (pos >= *start + l->jobs[*j].count)
			*start += l->jobs[(*j)++].count;
		const char *job = l->jobs[*j].name;
		long left = *start + l->jobs[*j].count - pos;
		long run = tasks < left ? tasks : left;

		if (host->add_task_range(call, job, pos - *start, run, name, l->port_base + k) != 0) {
			format_address(host, call, l, name, k, address, sizeof(address));
			return -1;
		}
		for (long m = 0; l->gpus_per_task > 0 && m < run; m++)
			if (add_gpu_slice(host, call, l, job, pos - *start + m, k + m) != 0)
				return -1;
		k += run;
		pos += run;
		tasks -= run;
	}
	return 0;
}

muster_status layout_build(const muster_host *host, muster_call *call, const struct layout *l,
                           const struct slots *s)
{
	struct slots_deal d;
	long start = 0, pos = 0, first, count;
	size_t j, h;
	const char *self_job = NULL;
	long self_index = -1;
	int rc = 0;

	if (check_counts(host, call, l, s) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (j = 0; j < l->njobs; j++) {
		if (muster_plugin_add_job_sized(host, call, l->jobs[j].name, l->jobs[j].count) != 0)
			return MUSTER_STATUS_UNAVAIL;
		if (l->rank >= start && l->rank < start + l->jobs[j].count) {
			self_job = l->jobs[j].name;
			self_index = l->rank - start;
		}
		start += l->jobs[j].count;
	}
	for (h = 0; h < s->nhosts; h++)
		if (check_ports(host, call, l, s->hosts[h].name, s->hosts[h].tasks) != 0)
			return MUSTER_STATUS_UNAVAIL;
	if (slots_deal_init(&d, s, l->plane, l->rank_host) != 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "out of memory");
	j = 0;
	start = 0;
	while (rc == 0 && slots_deal_next(&d, &h, &first, &count) == 1) {
		rc = add_run(host, call, l, s->hosts[h].name, first, count, pos, &j, &start);
		pos += count;
	}
	slots_deal_free(&d);
	if (rc != 0)
		return MUSTER_STATUS_UNAVAIL;
	return finish(host, call, l, s, self_job, self_index);
}

long layout_gpus_per_task(const muster_host *host, muster_call *call, long gpus_per_node,
                          long gpus_per_task, long max_tasks_per_host)
{
	if (gpus_per_task < 0 && gpus_per_node >= 0)
		gpus_per_task = max_tasks_per_host > 0 ? gpus_per_node / max_tasks_per_host : 0;
	if (gpus_per_task < 0)
		return 0;
	if (gpus_per_node >= 0 && max_tasks_per_host * gpus_per_task > gpus_per_node) {
		host->fail(call, "Requested more GPUs per node than available. (%ld tasks on one "
		           "host with gpus_per_task %ld need %ld GPUs, gpus_per_node is %ld)",
		           max_tasks_per_host, gpus_per_task, max_tasks_per_host * gpus_per_task,
		           gpus_per_node);
		return -1;
	}
	return gpus_per_task;
}

long layout_most_tasks(const struct slots *s)
{
	long most = 0;

	for (size_t i = 0; i < s->nhosts; i++)
		if (s->hosts[i].tasks > most)
			most = s->hosts[i].tasks;
	return most;
}
