/*
 * The lsf cluster: one job `worker`, rank r in the r-th compute slot (the
 * packed placement jsrun and mpirun use by default), a host's k-th task
 * listening on port_base + k.
 *
 * Rank, size and local rank come from jsrun (JSM_NAMESPACE_*), else from
 * mpirun (OMPI_COMM_WORLD_*).  A size below the slots uses the first
 * slots; above them is an error naming both numbers.  A local rank that
 * disagrees with the slot the rank was given means the ranks were not
 * placed in rank-file order, and the cluster would be wrong: unavail.
 * The tasks are processes, the compute hosts in the order the rank file
 * (or LSB_MCPU_HOSTS) first names them, the job LSB_JOBID.
 */
#include <config.h>

#include <stdio.h>

#include "lsf.h"
#include "plugins/common/layout.h"

/* The first n slots of s. */
static int first_slots(const struct slots *s, long n, struct slots *out)
{
	for (size_t i = 0; i < s->nhosts && n > 0; i++) {
		long take = s->hosts[i].tasks < n ? s->hosts[i].tasks : n;
		if (slots_add(out, s->hosts[i].name, take, LAYOUT_MAX_TASKS) < 0)
			return -1;
		n -= take;
	}
	return 0;
}

muster_status lsf_build(struct noted *n, const struct lsf_conf *conf, const struct slots *s,
                        const char *source, const char *job_id)
{
	const muster_host *host = n->host;
	muster_call *call = n->call;
	static const char *const ranks[] = { "JSM_NAMESPACE_RANK", "OMPI_COMM_WORLD_RANK", NULL };
	static const char *const sizes[] = { "JSM_NAMESPACE_SIZE", "OMPI_COMM_WORLD_SIZE", NULL };
	static const char *const locals[] = { "JSM_NAMESPACE_LOCAL_RANK",
	                                      "OMPI_COMM_WORLD_LOCAL_RANK", NULL };
	const char *rank_var = NULL, *size_var = NULL, *local_var = NULL;
	long rank = 0, size = s->total, local = 0;
	struct slots used;
	struct layout_job all;
	struct layout l = { .source = source, .jobs = &all, .njobs = 1,
	                    .port_base = conf->port_base, .rpc_layer = conf->rpc_layer,
	                    .job_id = job_id };
	struct env_reader *env = &n->env;
	muster_status st;
	size_t node;
	long slot = -1;
	int rc;

	rc = env_int_first(env, ranks, 0, LAYOUT_MAX_TASKS - 1, &rank, &rank_var);
	if (rc <= 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     rc == 0 ? "no rank: %s (start the tasks with jsrun or mpirun)"
		                             : "%s",
		                     env->why);
	if (env_int_first(env, sizes, 1, LAYOUT_MAX_TASKS, &size, &size_var) < 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "%s", env->why);
	if (size > s->total)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is %ld but %s has %ld compute slots", size_var, size,
		                     source, s->total);
	if (rank >= size)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is %ld, outside the %ld tasks (%s)", rank_var, rank, size,
		                     size_var != NULL ? size_var : source);
	slots_init(&used);
	if (first_slots(s, size, &used) != 0) {
		slots_free(&used);
		host->fail(call, "out of memory");
		return MUSTER_STATUS_UNAVAIL;
	}
	rc = env_int_first(env, locals, 0, LAYOUT_MAX_TASKS - 1, &local, &local_var);
	if (rc < 0)
		host->fail(call, "%s", env->why);
	if (rc > 0 && (slots_place(&used, 0, NULL, rank, &node, &slot) != 0 || local != slot)) {
		host->fail(call, "%s is %ld but rank %ld has slot %ld of its host in %s: the ranks "
		           "are not placed in rank-file order", local_var, local, rank, slot, source);
		rc = -1;
	}
	st = MUSTER_STATUS_UNAVAIL;
	if (rc >= 0) {
		all.name = "worker";
		all.count = used.total;
		l.rank = rank;
		st = layout_build(host, call, &l, &used);
	}
	slots_free(&used);
	return st;
}
