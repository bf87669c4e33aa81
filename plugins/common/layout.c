#include "config.h"

#include "layout.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int add_one(const muster_host *host, muster_call *call, const struct layout *l,
                   const char *job, long index, long k, const char *address)
{
	if (host->add_task(call, job, index, address) != 0)
		return -1;
	if (l->gpus_per_task > 0 && add_gpu_slice(host, call, l, job, index, k) != 0)
		return -1;
	return 0;
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

static muster_status finish(const muster_host *host, muster_call *call, const struct layout *l,
                            const char *job, long index)
{
	if (host->set_task(call, job, index) != 0 ||
	    (l->rpc_layer != NULL && l->rpc_layer[0] != '\0' &&
	     host->set_rpc_layer(call, l->rpc_layer) != 0) ||
	    host->set_master_rule(call, MUSTER_MASTER_TASK) != 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

muster_status layout_build(const muster_host *host, muster_call *call, const struct layout *l,
                           const struct slots *s)
{
	char address[300];
	long requested = 0, start = 0, pos = 0;
	size_t j = 0, h;
	const char *self_job = NULL;
	long self_index = -1;

	for (j = 0; j < l->njobs; j++)
		requested += l->jobs[j].count;
	if (requested != s->total) {
		host->fail(call, "Requested %ld tasks but only %ld were assigned. (the jobs option "
		           "against the slots of %s)", requested, s->total, l->source);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (l->rank < 0 || l->rank >= s->total) {
		host->fail(call, "rank %ld is outside the %ld tasks of %s", l->rank, s->total,
		           l->source);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (check_gpus(host, call, l, s->total) != 0)
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
	/* Walk the hosts once, each host's tasks going in as ranges cut where
	 * a job ends.  The host checks each range's address; when it refuses
	 * one, the address is checked here again, so that the reason names
	 * where a bad host name came from (checking every host here first
	 * doubled the work of a 4,096-node resolve). */
	j = 0;
	start = 0;
	for (h = 0; h < s->nhosts; h++) {
		const char *name = s->hosts[h].name;
		long tasks = s->hosts[h].tasks;

		if (check_ports(host, call, l, name, tasks) != 0)
			return MUSTER_STATUS_UNAVAIL;
		for (long k = 0; k < tasks;) {
			while (pos >= start + l->jobs[j].count)
				start += l->jobs[j++].count;
			const char *job = l->jobs[j].name;
			long left = start + l->jobs[j].count - pos;
			long run = tasks - k < left ? tasks - k : left;

			if (host->add_task_range(call, job, pos - start, run, name,
			                         l->port_base + k) != 0) {
				format_address(host, call, l, name, k, address, sizeof(address));
				return MUSTER_STATUS_UNAVAIL;
			}
			for (long m = 0; l->gpus_per_task > 0 && m < run; m++)
				if (add_gpu_slice(host, call, l, job, pos - start + m, k + m) != 0)
					return MUSTER_STATUS_UNAVAIL;
			k += run;
			pos += run;
		}
	}
	return finish(host, call, l, self_job, self_index);
}

muster_status layout_build_ranks(const muster_host *host, muster_call *call,
                                 const struct layout *l, const char *const *rank_hosts,
                                 size_t n)
{
	struct slots s;
	char address[300];
	muster_status st = MUSTER_STATUS_SUCCESS;
	long at;

	if (l->rank < 0 || (size_t)l->rank >= n) {
		host->fail(call, "rank %ld is outside the %zu ranks of %s", l->rank, n, l->source);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (check_gpus(host, call, l, (long)n) != 0)
		return MUSTER_STATUS_UNAVAIL;
	if (muster_plugin_add_job_sized(host, call, "worker", (long)n) != 0)
		return MUSTER_STATUS_UNAVAIL;
	slots_init(&s);
	for (size_t r = 0; r < n && st == MUSTER_STATUS_SUCCESS; r++) {
		at = slots_add(&s, rank_hosts[r], 1, LAYOUT_MAX_TASKS);
		if (at < 0) {
			host->fail(call, "%s: out of memory or more than %ld ranks", l->source,
			           LAYOUT_MAX_TASKS);
			st = MUSTER_STATUS_UNAVAIL;
		} else if (format_address(host, call, l, rank_hosts[r], s.hosts[at].tasks - 1,
		                          address, sizeof(address)) != 0 ||
		           add_one(host, call, l, "worker", (long)r, s.hosts[at].tasks - 1,
		                   address) != 0) {
			st = MUSTER_STATUS_UNAVAIL;
		}
	}
	slots_free(&s);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	return finish(host, call, l, "worker", l->rank);
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
