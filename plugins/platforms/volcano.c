/*
 * A Volcano Job's pod, docs/platforms.md §8.
 *
 * Members: the svc plugin's VC_<TASK>_HOSTS (comma list in index order,
 * "<job>-<task>-<i>.<job>"; <TASK> the task's name upper-cased, '-' as
 * '_') with VC_<TASK>_NUM its count, or, without them, its files
 * /etc/volcano/<task>.host (one host a line).  Each task is a job of the
 * answer, named as Volcano names the task (lower case, '-').  Detect: any
 * of those, or the env plugin's VC_TASK_INDEX / VK_TASK_INDEX alone, which
 * is unavail (the members need the svc plugin).
 *
 * Own task: the pod's host name (gethostname()) against the first label
 * of every host; VC_TASK_INDEX, when set, must agree.
 *
 * Order: the task holding MASTER_ADDR (the pytorch plugin's master) first,
 * then the others by name — so the launch numbers the pods as Volcano's
 * pytorch plugin does (master 0, worker i at i + 1), which RANK, when
 * set, must match.  Port: MASTER_PORT (the pytorch plugin's), else the
 * entry's port.
 */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "platforms.h"

#define VOLCANO_DIR "/etc/volcano"
#define MAX_TASKS 64 /* task kinds in one Volcano job */

extern char **environ;

struct task {
	char name[64];        /* Volcano's task name */
	struct env_list hosts;
};

struct job {
	struct task task[MAX_TASKS];
	size_t n;
};

static void job_free(struct job *j)
{
	for (size_t i = 0; i < j->n; i++)
		env_list_free(&j->task[i].hosts);
}

/* "VC_MY_TASK" (the part between VC_ and _HOSTS) as Volcano names it. */
static void task_name(char *out, size_t size, const char *upper, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < size; i++)
		out[i] = upper[i] == '_' ? '-' : (char)tolower((unsigned char)upper[i]);
	out[i] = '\0';
}

static struct task *add_task(struct pf_run *run, struct job *j)
{
	if (j->n == MAX_TASKS) {
		run->host->fail(run->call, "more than %d Volcano tasks", MAX_TASKS);
		return NULL;
	}
	return &j->task[j->n++];
}

/* Every VC_<TASK>_HOSTS, checked against its VC_<TASK>_NUM: 0, or -1 after
 * fail(). */
static int from_variables(struct pf_run *run, struct job *j)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *eq = strchr(*e, '='), *end = eq ? eq - 6 : NULL;
		char var[128], num[128];
		struct task *t;
		long count;

		if (strncmp(*e, "VC_", 3) != 0 || eq == NULL || end <= *e + 3 ||
		    strncmp(end, "_HOSTS", 6) != 0 || (size_t)(eq - *e) >= sizeof(var))
			continue;
		snprintf(var, sizeof(var), "%.*s", (int)(eq - *e), *e);
		snprintf(num, sizeof(num), "%.*s_NUM", (int)(end - *e), *e);
		if ((t = add_task(run, j)) == NULL)
			return -1;
		task_name(t->name, sizeof(t->name), *e + 3, (size_t)(end - *e - 3));
		if (env_hosts(&run->env, var, ",", PF_MAX_TASKS, &t->hosts) <= 0 ||
		    env_int(&run->env, num, 0, PF_MAX_TASKS, &count) < 0) {
			run->host->fail(run->call, "%s", run->env.why);
			return -1;
		}
		if (env_str(&run->env, num) != NULL && (size_t)count != t->hosts.n) {
			run->host->fail(run->call, "%s is %ld but %s lists %zu hosts", num, count, var,
			                t->hosts.n);
			return -1;
		}
	}
	return 0;
}

/* The svc plugin's files, when its variables are not there. */
static int from_files(struct pf_run *run, struct job *j)
{
	DIR *d = opendir(VOLCANO_DIR);
	struct dirent *de;
	int rc = 0;

	while (d != NULL && rc == 0 && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char path[320], *text = NULL;
		struct task *t;
		size_t len;

		if (n <= 5 || strcmp(de->d_name + n - 5, ".host") != 0 || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", VOLCANO_DIR, de->d_name);
		if ((t = add_task(run, j)) == NULL || pf_read_file(run, path, NULL, &text, &len) < 0) {
			rc = -1;
			break;
		}
		task_name(t->name, sizeof(t->name), de->d_name, n - 5);
		/* The reader's list rules, on the file's lines. */
		rc = env_hosts_text(&run->env, path, text, "\n", PF_MAX_TASKS, &t->hosts);
		free(text);
		if (rc < 0)
			run->host->fail(run->call, "%s", run->env.why);
		rc = rc < 0 ? -1 : 0;
	}
	if (d != NULL)
		closedir(d);
	return rc;
}

/* Volcano's pytorch plugin's order: its master task (holding `master`)
 * first, its worker task ("worker" by default) next, the others by name. */
static int rank_of(const struct task *t, const char *master)
{
	for (size_t k = 0; master != NULL && k < t->hosts.n; k++)
		if (strcmp(t->hosts.items[k], master) == 0)
			return 0;
	return strcmp(t->name, "worker") == 0 ? 1 : 2;
}

static void order(struct job *j, const char *master)
{
	/* Insertion sort: a handful of tasks. */
	for (size_t i = 1; i < j->n; i++)
		for (size_t k = i; k > 0; k--) {
			struct task *a = &j->task[k - 1], *b = &j->task[k], t;
			int ra = rank_of(a, master), rb = rank_of(b, master);

			if (ra < rb || (ra == rb && strcmp(a->name, b->name) <= 0))
				break;
			t = *a;
			*a = *b;
			*b = t;
		}
}

/* Whether the first labels of `a` and `b` are equal. */
static int same_label(const char *a, const char *b)
{
	size_t n = strcspn(a, ".");

	return n == strcspn(b, ".") && strncmp(a, b, n) == 0;
}

static muster_status build(struct pf_run *run, struct job *j, const char *self, long port)
{
	struct env_reader *env = &run->env;
	static const char *const index_vars[] = { "VC_TASK_INDEX", "VK_TASK_INDEX", NULL };
	const char *own = NULL, *which;
	long own_index = -1, rank = 0, given;

	for (size_t i = 0; i < j->n; i++) {
		struct task *t = &j->task[i];

		if (pf_add_hosts(run, t->name, (const char *const *)t->hosts.items, t->hosts.n,
		                 port) != 0)
			return MUSTER_STATUS_UNAVAIL;
		for (size_t k = 0; k < t->hosts.n && own == NULL; k++)
			if (same_label(t->hosts.items[k], self)) {
				own = t->name;
				own_index = (long)k;
				rank += i == 0 ? 0 : (long)k; /* every master pod is rank 0 in Volcano's */
			}
		if (own == NULL)
			rank += (long)t->hosts.n;
	}
	if (own == NULL)
		return pf_unavail(run, "this pod's host name %s is none of its Volcano tasks' hosts",
		                  self);
	switch (env_int_first(env, index_vars, 0, PF_MAX_TASKS, &given, &which)) {
	case -1:
		return pf_env_failed(run);
	case 1:
		if (given != own_index)
			return pf_unavail(run, "%s is %ld, but this pod (%s) is host %ld of task %s",
			                  which, given, self, own_index, own);
	}
	switch (env_int(env, "RANK", 0, PF_MAX_TASKS, &given)) {
	case -1:
		return pf_env_failed(run);
	case 1:
		if (given != rank)
			return pf_unavail(run, "RANK is %ld, but with the master task first this pod "
			                       "(%s) is rank %ld", given, self, rank);
	}
	return pf_finish(run, own, own_index, MUSTER_PLACEMENT_NODES);
}

muster_status pf_volcano(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	struct job j = { .n = 0 };
	const char *master = NULL;
	char self[256];
	long port = run->port;
	muster_status st;

	if (from_variables(run, &j) != 0 || (j.n == 0 && from_files(run, &j) != 0)) {
		job_free(&j);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (j.n == 0) {
		if (env_str(env, "VC_TASK_INDEX") == NULL && env_str(env, "VK_TASK_INDEX") == NULL)
			return pf_notfound(run, "no VC_<TASK>_HOSTS, %s/*.host nor VC_TASK_INDEX: not a "
			                        "Volcano job's pod", VOLCANO_DIR);
		return pf_unavail(run, "VC_TASK_INDEX is set but no task's hosts are (VC_<TASK>_HOSTS, "
		                       "%s/<task>.host): the job's members need Volcano's svc plugin",
		                  VOLCANO_DIR);
	}
	if (env_host(env, "MASTER_ADDR", &master) < 0 ||
	    env_int(env, "MASTER_PORT", 1, 65535, &port) < 0) {
		job_free(&j);
		return pf_env_failed(run);
	}
	order(&j, master);
	st = pf_hostname(run, self, sizeof(self)) == 0 ? build(run, &j, self, port)
	                                                : MUSTER_STATUS_UNAVAIL;
	job_free(&j);
	return st;
}
