/* The launch's master port, the one number every process of a launch must
 * agree on without talking: MUSTER_MASTER_PORT, else the config's
 * master_port, else derived from the launcher's job id, else the master
 * task's own port (TensorFlow-style clusters give each task its port). */
#include <config.h>

#include "launch.h"
#include "lib/env.h"
#include "lib/error.h"
#include "lib/job_port.h"

/* A port written in decimal, 1..65535; 0 when `s` is not one. */
static int parse_port(const char *s)
{
	long v;
	return env_parse_int(s, 1, 65535, &v) == 0 ? (int)v : 0;
}

int plan_master_port(const muster_result *r, const char *task_port, int *port, muster_error *err)
{
	const char *env = env_get("MUSTER_MASTER_PORT");
	if (env && *env) {
		if (!(*port = parse_port(env)))
			return error_set(err, MUSTER_ECONFIG,
			                 "MUSTER_MASTER_PORT: '%.64s' is not a port from 1 to 65535", env);
		return 0;
	}
	if (r->master_port > 0)
		*port = (int)r->master_port;
	else if (r->job_id)
		*port = job_port(r->job_id);
	else if (!(*port = parse_port(task_port)))
		return error_set(err, MUSTER_ENOENT, "the master task's port '%s' is not a port",
		                 task_port);
	return 0;
}
