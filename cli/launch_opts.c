/* The options env, hostfile and run share: --for, --task, --jobs,
 * --nproc-per-node. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_launch_init(struct cli_launch *cl, const char *command)
{
	muster_launch init = MUSTER_LAUNCH_INIT;

	cl->l = init;
	cl->command = command;
	cl->task = NULL;
	cl->type = NULL;
	cl->nproc = NULL;
	cl->no_ifname = 0;
	cl->doctor = 0;
}

/* A positive decimal count, at most `max`; 0 when it is not one. */
long cli_parse_count(const char *s, long max)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > max)
		return 0;
	return v;
}

/* Milliseconds from 0 to `max`; -1 (usage message printed) when `arg` is
 * not that.  `opt` names the option in the message: "run: --settle-ms". */
long cli_parse_ms(const char *opt, const char *arg, long max)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 0 || v > max) {
		cli_usage_error("%s wants 0 to %ld, not '%s'", opt, max, arg);
		return -1;
	}
	return v;
}

int cli_launch_option(struct cli_launch *cl, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_FOR:
		cl->l.framework = arg;
		return 0;
	case CLI_OPT_TASK:
		cl->task = arg;
		return 0;
	case CLI_OPT_JOBS:
		cl->l.jobs = arg;
		return 0;
	case CLI_OPT_NPROC:
		cl->nproc = arg;
		return 0;
	default:
		return -1;
	}
}

/* The GPUs this machine shows (MUSTER_SYSROOT and the visible-devices
 * variables applied). */
static int local_gpus(long *count)
{
	muster_error err = { 0, "" };
	muster_devices *d = NULL;
	const char *kind;
	int rc = muster_local_devices(&d, NULL, &err);

	if (rc != 0)
		return cli_fail(rc, &err);
	*count = 0;
	for (size_t i = 0; muster_devices_at(d, i, &kind, NULL, NULL) == 0; i++)
		if (strcmp(kind, "GPU") == 0)
			++*count;
	muster_devices_free(d);
	return 0;
}

/* `name` is one of the space-separated `names`. */
static int one_of(const char *name, const char *names)
{
	size_t n = strlen(name);
	for (const char *p = names; (p = strstr(p, name)) != NULL; p += n)
		if ((p == names || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

int cli_launch_finish(struct cli_launch *cl, const char *frameworks)
{
	int rc;

	if (cl->l.framework == NULL)
		return cli_usage_error("%s: --for FRAMEWORK is required (%s)", cl->command, frameworks);
	if (cl->l.framework[0] == '\0' || !one_of(cl->l.framework, frameworks))
		return cli_usage_error("%s: unknown framework '%s' (%s)", cl->command,
		                       cl->l.framework, frameworks);
	if (cl->task != NULL && (rc = cli_parse_task(cl->task, &cl->type, &cl->l.task_id)) != 0)
		return rc;
	cl->l.task_type = cl->type;
	if (cl->nproc == NULL)
		return 0;
	if (strcmp(cl->nproc, "gpu") == 0) {
		/* Each unit's GPUs as its backend reports them; this machine's
		 * count stands in for a unit the backend gives none for. */
		cl->l.nproc_per_node = MUSTER_NPROC_GPU;
		return local_gpus(&cl->l.local_gpus);
	}
	cl->l.nproc_per_node = cli_parse_count(cl->nproc, MUSTER_NPROC_PER_NODE_MAX);
	if (cl->l.nproc_per_node == 0)
		return cli_usage_error("%s: --nproc-per-node '%s': expected a count from 1 to "
		                       "%ld or 'gpu'", cl->command, cl->nproc,
		                       MUSTER_NPROC_PER_NODE_MAX);
	return 0;
}

int cli_launch_plan(muster_plan **plan, const muster_result *res, const struct cli_launch *cl,
                    const struct cli_global *g)
{
	muster_error err = { 0, "" };
	int rc = muster_launch_plan(plan, res, &cl->l, &err);

	if (rc != 0)
		return cli_fail(rc, &err);
	const char *note = muster_plan_note(*plan);
	if (note != NULL && g->verbosity >= 0) {
		char line[300];
		snprintf(line, sizeof(line), "%s: %s", cl->command, note);
		cli_log(MUSTER_LOG_NOTICE, line, NULL);
	}
	return 0;
}

int cli_plan_own_count(const muster_plan *plan, long *n)
{
	muster_error err = { 0, "" };
	char **env = NULL;
	int rc;

	if ((*n = muster_plan_nproc(plan)) > 0)
		return 0;
	/* No own task: the environment's error says which and why. */
	rc = muster_plan_env(&env, plan, 0, NULL, &err);
	muster_free(env);
	return cli_fail(rc != 0 ? rc : MUSTER_ENOENT, &err);
}

void cli_launch_free(struct cli_launch *cl)
{
	free(cl->type);
	cl->type = NULL;
}
