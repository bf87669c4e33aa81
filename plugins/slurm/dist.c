/*
 * How Slurm dealt a step's tasks onto its nodes (docs/ranks.md 1.3):
 * SLURM_DISTRIBUTION's first level, before any ':' (the levels after it
 * place tasks on sockets and cores, not nodes) or ',' (pack, nopack).
 * Unset, or "*", is block: srun leaves it unset and slurmctld lays out
 * block.  Plane takes its size from "plane=N" or SLURM_DIST_PLANESIZE.
 *
 * An arbitrary step's tasks follow a list the user gave srun, which a
 * task can see only when it was inherited: SLURM_ARBITRARY_NODELIST
 * (sbatch/salloc -m arbitrary export it) or the file SLURM_HOSTFILE names
 * (read as Slurm reads it: slurm_hostfile_parse()).  Task r runs on the
 * r-th host; Slurm reads only as many as the step has tasks, and so does
 * this.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/common/hostfile.h"
#include "slurm.h"

/* The largest SLURM_HOSTFILE read, as the other backends' host files. */
#define SLURM_MAX_HOSTFILE ((size_t)16 << 20)

void slurm_dist_free(struct slurm_dist *dist)
{
	hostlist_free(&dist->list);
	free(dist->rank_hosts);
	free(dist->file);
	dist->rank_hosts = NULL;
	dist->file = NULL;
}

/* `word` (len bytes) is `name`. */
static int is(const char *word, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(word, name, len) == 0;
}

static muster_status plane_size(struct noted *n, const char *value, const char *eq,
                                struct slurm_dist *dist)
{
	struct env_reader *r = &n->env;

	if (eq != NULL) {
		char size[24];
		size_t len = strcspn(eq + 1, ":,");
		int ok = len < sizeof(size);

		if (ok) {
			memcpy(size, eq + 1, len);
			size[len] = '\0';
			ok = env_parse_int(size, 1, LAYOUT_MAX_TASKS, &dist->plane) == 0;
		}
		if (!ok)
			return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL,
			                     "SLURM_DISTRIBUTION \"%.40s\": the plane size must "
			                     "be an integer from 1 to %ld", value,
			                     LAYOUT_MAX_TASKS);
		return MUSTER_STATUS_SUCCESS;
	}
	if (env_int(r, "SLURM_DIST_PLANESIZE", 1, LAYOUT_MAX_TASKS, &dist->plane) <= 0)
		return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_DISTRIBUTION is plane but %s", r->why);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status from_hostfile(struct noted *n, const char *path, long tasks,
                                   struct slurm_dist *dist)
{
	char why[300];
	size_t len;

	snprintf(dist->from, sizeof(dist->from), "SLURM_HOSTFILE %.256s", path);
	if (hostfile_read(path, SLURM_MAX_HOSTFILE, &dist->file, &len, why, sizeof(why)) != 0)
		return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_DISTRIBUTION is arbitrary and "
		                     "SLURM_ARBITRARY_NODELIST is not set, but %s cannot be read: "
		                     "%s", dist->from, why);
	muster_plugin_note_input(n->host, n->call, path, dist->file);
	if (slurm_hostfile_parse(dist->file, len, (size_t)tasks, dist->rank_hosts,
	                         &dist->nrank_hosts, why, sizeof(why)) != 0)
		return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL,
		                     "%s: %s", dist->from, why);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status from_nodelist(struct noted *n, const char *list, long tasks,
                                   struct slurm_dist *dist)
{
	char why[200];

	snprintf(dist->from, sizeof(dist->from), "SLURM_ARBITRARY_NODELIST");
	if (hostlist_expand(list, &dist->list, why, sizeof(why)) != 0)
		return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_ARBITRARY_NODELIST: invalid host list '%.60s%s': %s",
		                     list, strlen(list) > 60 ? "..." : "", why);
	for (size_t i = 0; i < dist->list.n && (long)i < tasks; i++)
		dist->rank_hosts[dist->nrank_hosts++] = dist->list.names[i];
	return MUSTER_STATUS_SUCCESS;
}

static muster_status arbitrary(struct noted *n, long tasks, struct slurm_dist *dist)
{
	const char *list = env_str(&n->env, "SLURM_ARBITRARY_NODELIST");
	const char *path = list == NULL ? env_str(&n->env, "SLURM_HOSTFILE") : NULL;
	muster_status st;

	dist->arbitrary = 1;
	if ((list == NULL || list[0] == '\0') && (path == NULL || path[0] == '\0'))
		return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_DISTRIBUTION is arbitrary but neither "
		                     "SLURM_ARBITRARY_NODELIST nor SLURM_HOSTFILE says where each "
		                     "task runs (a step's own -m arbitrary -w list is not passed "
		                     "to its tasks)");
	dist->rank_hosts = malloc((size_t)(tasks > 0 ? tasks : 1) * sizeof(*dist->rank_hosts));
	if (dist->rank_hosts == NULL)
		return plugin_answer(n->host, n->call, MUSTER_STATUS_UNAVAIL, "out of memory");
	st = list != NULL && list[0] != '\0' ? from_nodelist(n, list, tasks, dist)
	                                     : from_hostfile(n, path, tasks, dist);
	if (st == MUSTER_STATUS_SUCCESS && (long)dist->nrank_hosts < tasks) {
		n->host->fail(n->call, "%s names %zu hosts for the %ld tasks of an arbitrary step "
		              "(one a task)", dist->from, dist->nrank_hosts, tasks);
		st = MUSTER_STATUS_UNAVAIL;
	}
	return st;
}

muster_status slurm_read_dist(struct noted *n, long tasks, struct slurm_dist *dist)
{
	const char *value = env_str(&n->env, "SLURM_DISTRIBUTION");
	const char *eq;
	size_t len;

	dist->plane = 0;
	if (value == NULL || value[0] == '\0') {
		snprintf(dist->text, sizeof(dist->text), "block (the default)");
		return MUSTER_STATUS_SUCCESS;
	}
	snprintf(dist->text, sizeof(dist->text), "SLURM_DISTRIBUTION=%.40s", value);
	len = strcspn(value, ":,=");
	eq = value[len] == '=' ? value + len : NULL;
	if (is(value, len, "block") || is(value, len, "*"))
		return MUSTER_STATUS_SUCCESS;
	if (is(value, len, "cyclic")) {
		dist->plane = 1;
		return MUSTER_STATUS_SUCCESS;
	}
	if (is(value, len, "plane"))
		return plane_size(n, value, eq, dist);
	if (is(value, len, "arbitrary"))
		return arbitrary(n, tasks, dist);
	n->host->fail(n->call, "SLURM_DISTRIBUTION \"%.40s\": the first level must be block, "
	              "cyclic, plane or arbitrary", value);
	return MUSTER_STATUS_UNAVAIL;
}
