/*
 * tf_config: from the parsed TF_CONFIG to the result builder.
 *
 * What TFConfigClusterResolver takes from TF_CONFIG:
 *   cluster          job -> list of addresses (dense) or {"index": address}
 *                    (sparse); no key gives an empty spec.  Kubeflow's
 *                    dynamic-worker form once used "sparseCluster" instead,
 *                    read when "cluster" is absent.
 *   task.type        str() of the value: a string, or an integer written
 *                    in decimal (123456 -> "123456")
 *   task.index       int() of the value: an integral number or a string
 *                    such as "1"
 *   rpc_layer        the master's scheme; "" means none
 *   session_master   returned verbatim by master()
 *   environment      not read by TF's resolver, but Kubeflow writes
 *                    "cloud" and Estimator reads it; muster reports it
 *                    (a deliberate difference) unless overridden.
 *
 * Values TF reads are checked, and a wrong type is an error with the place
 * in the document (TF would raise, or later misbehave).  Where muster is
 * stricter or differs on purpose:
 *   - "ps": null is a job with no tasks (Kubeflow writes it for a TFJob
 *     without PS; TF raises TypeError);
 *   - task.index must be integral and non-negative (Python's int() would
 *     truncate 1.5 and accept -1); task.type must be a string or an
 *     integer (Python would also print floats, booleans and null);
 *   - a sparse job naming one index twice ("1" and "01", or "1" twice) is
 *     an error (Python's dict silently keeps the last);
 *   - a non-string "environment" is ignored with a warning.
 * As in Python, duplicate keys elsewhere keep the last value, and a job
 * named twice keeps its first position with its last value.  Overrides
 * from the config win, each on its own, and what they replace is not read
 * at all (as TF reads lazily): a broken task.index does not matter when
 * task_id is configured.
 */
#include <config.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tf_config.h"
#include "lib/quote.h"

#define TFC_LOG_WARNING 4 /* syslog's numbering, as the host's */

/* Integers a double holds exactly (2^53): a larger task.type number has
 * already lost its digits in cJSON. */
#define TFC_EXACT_DOUBLE 9007199254740992.0

struct member_ref {
	const char *name;
	size_t pos;
	const cJSON *item;
};

struct task_ref {
	long index;
	size_t pos;
	const char *key;
	const char *address;
};

/* Bad input: the reason, prefixed with where the JSON came from. */
static muster_status fail(const struct tfc_run *run, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(2, 3);
static muster_status fail(const struct tfc_run *run, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	run->host->fail(run->call, "%s: %s", run->src, msg);
	return MUSTER_STATUS_UNAVAIL;
}

/* A builder call failed: the core has recorded why. */
static muster_status builder_failed(void)
{
	return MUSTER_STATUS_UNAVAIL;
}

/* cluster.worker, or cluster["odd name"] for names that need quoting. */
static void job_path(char *buf, size_t size, const char *cluster_key, const char *job)
{
	size_t i, n = strlen(job);
	int plain = n > 0 && n <= 64;

	for (i = 0; plain && i < n; i++) {
		char c = job[i];

		plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		        c == '_' || c == '-';
	}
	if (plain) {
		snprintf(buf, size, "%s.%s", cluster_key, job);
	} else {
		char quoted[80];

		quote_text(quoted, sizeof(quoted), job, n);
		snprintf(buf, size, "%s[%s]", cluster_key, quoted);
	}
}

static int cmp_member(const void *a, const void *b)
{
	const struct member_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_position(const void *a, const void *b)
{
	const struct member_ref *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_ref *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_hash(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Whether two of the n members may share a name: equal neighbours among
 * their sorted hashes (FNV-1a).  Sorting integers is much cheaper than
 * sorting names, and stays O(n log n) whatever the names are.  -1 when
 * out of memory. */
static int may_repeat(const cJSON *object, size_t n)
{
	uint64_t *hashes = malloc(n * sizeof(*hashes));
	const cJSON *c;
	size_t i = 0;
	int found = 0;

	if (hashes == NULL)
		return -1;
	for (c = object->child; c != NULL; c = c->next) {
		uint64_t h = 0xcbf29ce484222325ULL;

		for (const char *p = c->string != NULL ? c->string : ""; *p != '\0'; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		hashes[i++] = h;
	}
	qsort(hashes, n, sizeof(*hashes), cmp_hash);
	for (i = 1; i < n && !found; i++)
		found = hashes[i] == hashes[i - 1];
	free(hashes);
	return found;
}

/*
 * The members of an object with Python's dict semantics: each name once,
 * at the position of its first occurrence, with the value of its last.
 * Sorting keeps this O(n log n) for hostile input.  *out is NULL when the
 * object is empty; -1 when out of memory.
 */
static int unique_members(const cJSON *object, struct member_ref **out, size_t *count)
{
	const cJSON *c;
	struct member_ref *all;
	size_t n = 0, i, m = 0;
	int repeat;

	*out = NULL;
	*count = 0;
	for (c = object->child; c != NULL; c = c->next)
		n++;
	if (n == 0)
		return 0;
	repeat = may_repeat(object, n);
	all = repeat < 0 ? NULL : malloc(n * sizeof(*all));
	if (all == NULL)
		return -1;
	for (c = object->child, i = 0; c != NULL; c = c->next, i++) {
		all[i].name = c->string != NULL ? c->string : "";
		all[i].pos = i;
		all[i].item = c;
	}
	if (!repeat) { /* the usual case: already in order, each name once */
		*out = all;
		*count = n;
		return 0;
	}
	qsort(all, n, sizeof(*all), cmp_member);
	for (i = 0; i < n; i++) {
		size_t j = i;

		while (j + 1 < n && strcmp(all[j + 1].name, all[i].name) == 0)
			j++;
		all[m].name = all[i].name;
		all[m].pos = all[i].pos;
		all[m].item = all[j].item;
		m++;
		i = j;
	}
	qsort(all, m, sizeof(*all), cmp_position);
	*out = all;
	*count = m;
	return 0;
}

static muster_status no_memory(const struct tfc_run *run)
{
	run->host->fail(run->call, "%s: out of memory", run->src);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status add_dense(const struct tfc_run *run, const char *path, const char *job,
                               const cJSON *list)
{
	const cJSON *c;
	long i = 0;

	for (c = list->child; c != NULL; c = c->next, i++) {
		if (!cJSON_IsString(c) || c->valuestring == NULL)
			return fail(run, "%s[%ld] must be a string, not %s", path, i, sjson_kind(c));
		if (run->host->add_task(run->call, job, i, c->valuestring) != 0)
			return builder_failed();
	}
	return MUSTER_STATUS_SUCCESS;
}

static muster_status sparse_key_error(const struct tfc_run *run, const char *path,
                                      const char *key, enum tfc_int_result why)
{
	char quoted[80];

	quote_text(quoted, sizeof(quoted), key, strlen(key));
	switch (why) {
	case TFC_INT_NEGATIVE:
		return fail(run, "%s has key %s: a task index cannot be negative", path, quoted);
	case TFC_INT_RANGE:
		return fail(run, "%s has key %s: a task index cannot exceed 2147483647", path,
		            quoted);
	default:
		return fail(run, "%s has key %s, which is not a task index (an integer)", path,
		            quoted);
	}
}

static muster_status add_sparse(const struct tfc_run *run, const char *path, const char *job,
                                const cJSON *map)
{
	const cJSON *c;
	struct task_ref *tasks = NULL;
	size_t n = 0, i;
	muster_status st = MUSTER_STATUS_SUCCESS;

	for (c = map->child; c != NULL; c = c->next)
		n++;
	if (n == 0)
		return MUSTER_STATUS_SUCCESS;
	tasks = malloc(n * sizeof(*tasks));
	if (tasks == NULL)
		return no_memory(run);
	for (c = map->child, i = 0; c != NULL; c = c->next, i++) {
		const char *key = c->string != NULL ? c->string : "";
		enum tfc_int_result why = tfc_parse_int(key, &tasks[i].index);

		if (why != TFC_INT_OK) {
			st = sparse_key_error(run, path, key, why);
			goto out;
		}
		if (!cJSON_IsString(c) || c->valuestring == NULL) {
			char quoted[80];

			quote_text(quoted, sizeof(quoted), key, strlen(key));
			st = fail(run, "%s[%s] must be a string, not %s", path, quoted, sjson_kind(c));
			goto out;
		}
		tasks[i].pos = i;
		tasks[i].key = key;
		tasks[i].address = c->valuestring;
	}
	qsort(tasks, n, sizeof(*tasks), cmp_task);
	for (i = 0; i + 1 < n; i++) {
		if (tasks[i].index == tasks[i + 1].index) {
			char a[80], b[80];

			quote_text(a, sizeof(a), tasks[i].key, strlen(tasks[i].key));
			quote_text(b, sizeof(b), tasks[i + 1].key, strlen(tasks[i + 1].key));
			st = fail(run, "%s has task index %ld twice (keys %s and %s)", path,
			          tasks[i].index, a, b);
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		if (run->host->add_task(run->call, job, tasks[i].index, tasks[i].address) != 0) {
			st = builder_failed();
			goto out;
		}
	}
out:
	free(tasks);
	return st;
}

static muster_status add_cluster(const struct tfc_run *run, const cJSON *root)
{
	const char *key = "cluster";
	const cJSON *cluster = sjson_member(root, key);
	struct member_ref *jobs;
	size_t n, i;
	muster_status st = MUSTER_STATUS_SUCCESS;

	if (cluster == NULL) {
		key = "sparseCluster"; /* Kubeflow's dynamic workers, 2020-2023 */
		cluster = sjson_member(root, key);
	}
	if (cluster == NULL)
		return MUSTER_STATUS_SUCCESS; /* TF: an empty ClusterSpec */
	if (!cJSON_IsObject(cluster))
		return fail(run, "%s must be an object of jobs, not %s", key, sjson_kind(cluster));
	if (unique_members(cluster, &jobs, &n) != 0)
		return no_memory(run);
	for (i = 0; i < n && st == MUSTER_STATUS_SUCCESS; i++) {
		const cJSON *tasks = jobs[i].item;
		char path[200];

		job_path(path, sizeof(path), key, jobs[i].name);
		if (!cJSON_IsArray(tasks) && !cJSON_IsObject(tasks) && !cJSON_IsNull(tasks)) {
			st = fail(run, "%s must be a list or an object of addresses, not %s", path,
			          sjson_kind(tasks));
			break;
		}
		/* A job with no tasks is kept: [], {} or Kubeflow's null. */
		if (muster_plugin_add_job_sized(run->host, run->call, jobs[i].name,
		                                cJSON_IsNull(tasks) ? 0 : cJSON_GetArraySize(tasks)) != 0) {
			st = builder_failed();
			break;
		}
		if (cJSON_IsArray(tasks))
			st = add_dense(run, path, jobs[i].name, tasks);
		else if (cJSON_IsObject(tasks))
			st = add_sparse(run, path, jobs[i].name, tasks);
	}
	free(jobs);
	return st;
}

static muster_status index_error(const struct tfc_run *run, const char *shown,
                                 enum tfc_int_result why)
{
	switch (why) {
	case TFC_INT_NEGATIVE:
		return fail(run, "task.index %s is negative", shown);
	case TFC_INT_RANGE:
		return fail(run, "task.index %s is above 2147483647", shown);
	default:
		return fail(run, "task.index %s is not an integer", shown);
	}
}

/* The object "task", when a field of it is needed. */
static muster_status task_object(const struct tfc_run *run, const cJSON *root,
                                 const cJSON **task)
{
	*task = sjson_member(root, "task");
	if (*task != NULL && !cJSON_IsObject(*task))
		return fail(run, "task must be an object, not %s", sjson_kind(*task));
	return MUSTER_STATUS_SUCCESS;
}

static muster_status task_type(const struct tfc_run *run, const cJSON *root, char *buf,
                               size_t size, const char **out)
{
	const cJSON *task, *type;
	muster_status st;

	*out = run->conf->task_type;
	if (*out != NULL)
		return MUSTER_STATUS_SUCCESS;
	st = task_object(run, root, &task);
	if (st != MUSTER_STATUS_SUCCESS || task == NULL)
		return st;
	type = sjson_member(task, "type");
	if (type == NULL)
		return MUSTER_STATUS_SUCCESS;
	if (cJSON_IsString(type) && type->valuestring != NULL) {
		if (type->valuestring[0] == '\0')
			return fail(run, "task.type is empty; it names a job of the cluster");
		*out = type->valuestring;
		return MUSTER_STATUS_SUCCESS;
	}
	if (cJSON_IsNumber(type)) {
		double d = type->valuedouble;

		/* str(123456) is "123456": the job names such a task uses. */
		if (d >= -TFC_EXACT_DOUBLE && d <= TFC_EXACT_DOUBLE && d == (double)(long long)d) {
			snprintf(buf, size, "%lld", (long long)d);
			*out = buf;
			return MUSTER_STATUS_SUCCESS;
		}
		snprintf(buf, size, "%.17g", d);
		return fail(run, "task.type %s is a number but not an integer", buf);
	}
	return fail(run, "task.type must be a string or an integer, not %s", sjson_kind(type));
}

static muster_status task_index(const struct tfc_run *run, const cJSON *root, long *out)
{
	const cJSON *task, *index;
	enum tfc_int_result why;
	muster_status st;
	char shown[80];

	*out = run->conf->task_id;
	if (*out >= 0)
		return MUSTER_STATUS_SUCCESS;
	st = task_object(run, root, &task);
	if (st != MUSTER_STATUS_SUCCESS || task == NULL)
		return st;
	index = sjson_member(task, "index");
	if (index == NULL)
		return MUSTER_STATUS_SUCCESS;
	if (cJSON_IsNumber(index)) {
		why = tfc_number_index(index->valuedouble, out);
		snprintf(shown, sizeof(shown), "%.17g", index->valuedouble);
	} else if (cJSON_IsString(index) && index->valuestring != NULL) {
		why = tfc_parse_int(index->valuestring, out); /* int("1") */
		quote_text(shown, sizeof(shown), index->valuestring, strlen(index->valuestring));
	} else {
		return fail(run, "task.index must be an integer, not %s", sjson_kind(index));
	}
	if (why != TFC_INT_OK) {
		*out = -1;
		return index_error(run, shown, why);
	}
	return MUSTER_STATUS_SUCCESS;
}

/* A top-level string TF reads: absent and null mean not given. */
static muster_status top_string(const struct tfc_run *run, const cJSON *root, const char *key,
                                const char **out)
{
	const cJSON *item = sjson_member(root, key);

	*out = NULL;
	if (item == NULL || cJSON_IsNull(item))
		return MUSTER_STATUS_SUCCESS;
	if (!cJSON_IsString(item) || item->valuestring == NULL)
		return fail(run, "%s must be a string, not %s", key, sjson_kind(item));
	*out = item->valuestring;
	return MUSTER_STATUS_SUCCESS;
}

static const char *environment(const struct tfc_run *run, const cJSON *root)
{
	const cJSON *item;

	if (run->conf->environment != NULL)
		return run->conf->environment;
	item = sjson_member(root, "environment");
	if (item == NULL || cJSON_IsNull(item))
		return NULL;
	if (cJSON_IsString(item) && item->valuestring != NULL)
		return item->valuestring;
	run->host->log(run->conf->pc, TFC_LOG_WARNING,
	               "%s: ignoring environment: it is %s, not a string", run->src, sjson_kind(item));
	return NULL;
}

/* Whether the job's tasks (a list, an object of indices or null) have
 * task `index`. */
static int job_has(const cJSON *tasks, long index)
{
	const cJSON *c;
	long i = 0;

	if (cJSON_IsArray(tasks)) {
		for (c = tasks->child; c != NULL && i < index; c = c->next)
			i++;
		return c != NULL;
	}
	for (c = cJSON_IsObject(tasks) ? tasks->child : NULL; c != NULL; c = c->next)
		if (c->string != NULL && tfc_parse_int(c->string, &i) == TFC_INT_OK && i == index)
			return 1;
	return 0;
}

/* The own task, when its type is a job of the cluster, must be one of its
 * tasks: TF raises "No task with index N in job" (an evaluator outside the
 * cluster is fine). */
static muster_status own_task_listed(const struct tfc_run *run, const cJSON *root,
                                     const char *type, long index)
{
	const char *key = "cluster";
	const cJSON *cluster = sjson_member(root, key), *tasks;
	char path[200];

	if (cluster == NULL)
		cluster = sjson_member(root, key = "sparseCluster");
	if (type == NULL || index < 0 || cluster == NULL ||
	    (tasks = sjson_member(cluster, type)) == NULL || job_has(tasks, index))
		return MUSTER_STATUS_SUCCESS;
	job_path(path, sizeof(path), key, type);
	return fail(run, "%s %ld is not a task of job '%s' (%s has %d task%s)",
	            run->conf->task_id >= 0 ? "the entry's task_id" : "task.index", index, type,
	            path, cJSON_GetArraySize(tasks), cJSON_GetArraySize(tasks) == 1 ? "" : "s");
}

muster_status tfc_build(const struct tfc_run *run, const cJSON *root)
{
	const muster_host *host = run->host;
	char type_buf[64];
	const char *type, *rpc_layer, *master, *env;
	long index;
	muster_status st;

	st = add_cluster(run, root);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;

	st = task_type(run, root, type_buf, sizeof(type_buf), &type);
	if (st == MUSTER_STATUS_SUCCESS)
		st = task_index(run, root, &index);
	if (st == MUSTER_STATUS_SUCCESS)
		st = own_task_listed(run, root, type, index);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	if ((type != NULL || index >= 0) && host->set_task(run->call, type, index) != 0)
		return builder_failed();

	rpc_layer = run->conf->rpc_layer;
	if (rpc_layer == NULL) {
		st = top_string(run, root, "rpc_layer", &rpc_layer);
		if (st != MUSTER_STATUS_SUCCESS)
			return st;
	}
	if (rpc_layer != NULL && host->set_rpc_layer(run->call, rpc_layer) != 0)
		return builder_failed();

	env = environment(run, root);
	if (env != NULL && host->set_environment(run->call, env) != 0)
		return builder_failed();

	st = top_string(run, root, "session_master", &master);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	if (master != NULL && host->set_master(run->call, master) != 0)
		return builder_failed();
	if (host->set_master_rule(run->call, MUSTER_MASTER_TF_CONFIG) != 0)
		return builder_failed();
	return MUSTER_STATUS_SUCCESS;
}
