/*
 * pbs: the cluster of a PBS (OpenPBS, PBS Pro, Torque) job, as
 * TensorFlow's PBSClusterResolver reads it: the hosts from PBS_NODEFILE,
 * this task's rank from PBS_TASKNUM, else OMPI_COMM_WORLD_RANK (mpirun
 * inside the job).  Every variable looked up, and the node file, is
 * noted for --explain.
 *
 * Answers:
 *   notfound  PBS_NODEFILE is not set: not a PBS job
 *   unavail   no rank, a bad rank, a node file that is empty, missing,
 *             unreadable or larger than 16 MiB, a bad host line, jobs that
 *             do not add up to the slots, more GPUs than a node has
 *
 * Nothing but the environment and the node file is read; resolve() keeps
 * its state in locals, so one state serves many threads.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "pbs.h"
#include "plugins/common/hostfile.h"

static muster_status read_task(struct noted *n, struct pbs_task *task)
{
	static const char *const names[] = { "PBS_TASKNUM", "OMPI_COMM_WORLD_RANK", NULL };
	const char *which;
	int rc = env_int_first(&n->env, names, 0, LAYOUT_MAX_TASKS - 1, &task->rank, &which);

	if (rc <= 0) {
		n->host->fail(n->call,
		              rc == 0 ? "no rank: %s (start the tasks with pbsdsh or mpirun)" : "%s",
		              n->env.why);
		return MUSTER_STATUS_UNAVAIL;
	}
	task->job_id = env_str(&n->env, "PBS_JOBID");
	if (task->job_id != NULL && task->job_id[0] == '\0')
		task->job_id = NULL;
	return MUSTER_STATUS_SUCCESS;
}

static muster_status pbs_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct pbs_conf *conf = state;
	struct noted n;
	struct pbs_task task;
	const char *path;
	char source[300], why[300];
	char *data = NULL;
	size_t len = 0;
	muster_status st;

	noted_init(&n, host, call);
	if ((path = env_str(&n.env, "PBS_NODEFILE")) == NULL)
		return plugin_answer(host, call, MUSTER_STATUS_NOTFOUND,
		                     "PBS_NODEFILE is not set: not a PBS job");
	if ((st = read_task(&n, &task)) != MUSTER_STATUS_SUCCESS)
		return st;
	if (conf->fixed.nhosts > 0)
		return pbs_build(&n, conf, NULL, 0, NULL, &task);
	if (path[0] == '\0')
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "PBS_NODEFILE is empty: no node file");
	snprintf(source, sizeof(source), "PBS_NODEFILE %.256s", path);
	if (hostfile_read(path, PBS_MAX_NODEFILE, &data, &len, why, sizeof(why)) != 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "%s: %s", source, why);
	muster_plugin_note_input(host, call, path, data);
	st = pbs_build(&n, conf, data, len, source, &task);
	free(data);
	return st;
}

static const muster_plugin pbs_plugin = {
	MUSTER_PLUGIN_HEADER,
	NOTED_PLUGIN_FLAGS,
	"pbs",
	PACKAGE_VERSION,
	pbs_open,
	pbs_resolve,
	pbs_close,
};

MUSTER_PLUGIN_DEFINE(pbs_plugin)
