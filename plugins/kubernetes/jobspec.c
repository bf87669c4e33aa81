/*
 * kubernetes: one batch/v1 Job object, as mode = "indexed_job" needs it —
 * its size (spec.completions, spec.parallelism, spec.completionMode), the
 * subdomain its pods' names resolve under (spec.template.spec.subdomain),
 * the labels a JobSet puts on its Jobs, and a pod's accelerators from the
 * template's containers, counted as pod.c counts a running pod's.
 *
 * The object comes from the API server, so every field is checked for its
 * kind and range; an error names the Job and the field.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "k8s.h"
#include "lib/strict_json.h"

#define JOBSET "jobset.sigs.k8s.io/"

struct reading {
	const struct k8s_conf *conf;
	struct k8s_jobspec *out;
	char *why;
	size_t size;
};

static int bad(struct reading *r, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(2, 3);
static int bad(struct reading *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->why, r->size, "Job %s: %s", r->out->name ? r->out->name : "(unnamed)", what);
	return -1;
}

/* The member `key` of `obj` when it is of the kind `is` checks; NULL when
 * absent (or null, as the API writes an unset pointer); -1 when there but
 * of another kind, after bad(). */
static int member(struct reading *r, const cJSON *obj, const char *path, const char *key,
                  cJSON_bool (*is)(const cJSON *), const char *want, const cJSON **out)
{
	const cJSON *v = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!is(v))
		return bad(r, "%s%s is %s; expected %s", path, key, sjson_kind(v), want);
	*out = v;
	return 0;
}

/* A string member, copied into *out (NULL when absent). */
static int string_member(struct reading *r, const cJSON *obj, const char *path, const char *key,
                         char **out)
{
	const cJSON *v;

	if (member(r, obj, path, key, cJSON_IsString, "a string", &v) < 0)
		return -1;
	if (v != NULL && (*out = strdup(v->valuestring)) == NULL)
		return -2;
	return 0;
}

/* A count: a whole number from 0 to K8S_MAX_INDEX; -1 when absent. */
static int count_member(struct reading *r, const cJSON *obj, const char *path, const char *key,
                        long *out)
{
	const cJSON *v;

	*out = -1;
	if (member(r, obj, path, key, cJSON_IsNumber, "a number", &v) < 0)
		return -1;
	if (v == NULL)
		return 0;
	if (v->valuedouble < 0 || v->valuedouble > K8S_MAX_INDEX ||
	    v->valuedouble != (double)(long)v->valuedouble)
		return bad(r, "%s%s is %g; expected a whole number from 0 to %ld", path, key,
		           v->valuedouble, K8S_MAX_INDEX);
	*out = (long)v->valuedouble;
	return 0;
}

/* A JobSet label holding a number ("3"); -1 when absent. */
static int label_count(struct reading *r, const cJSON *labels, const char *key, long *out)
{
	const cJSON *v;
	char *end;

	*out = -1;
	if (member(r, labels, "metadata.labels.", key, cJSON_IsString, "a string", &v) < 0)
		return -1;
	if (v == NULL)
		return 0;
	if (v->valuestring[0] < '0' || v->valuestring[0] > '9' ||
	    (*out = strtol(v->valuestring, &end, 10)) > K8S_MAX_INDEX || *end != '\0')
		return bad(r, "metadata.labels.%s is \"%.40s\", not a whole number", key,
		           v->valuestring);
	return 0;
}

/* One container's accelerator requests into the item (pod.c's counting). */
static int container(struct reading *r, struct k8s_item *it, const cJSON *c, int init)
{
	const struct k8s_conf *conf = r->conf;
	const cJSON *name, *res, *policy, *lists[2];
	size_t k, n, i = 0;

	k8s_item_container_begin(it, init);
	if (member(r, c, "containers[].", "name", cJSON_IsString, "a string", &name) < 0 ||
	    member(r, c, "containers[].", "restartPolicy", cJSON_IsString, "a string", &policy) < 0 ||
	    member(r, c, "containers[].", "resources", cJSON_IsObject, "an object", &res) < 0 ||
	    member(r, res, "resources.", "limits", cJSON_IsObject, "an object", &lists[0]) < 0 ||
	    member(r, res, "resources.", "requests", cJSON_IsObject, "an object", &lists[1]) < 0)
		return -1;
	if (name != NULL &&
	    k8s_item_string(it, &it->cname, name->valuestring, strlen(name->valuestring)) < 0)
		return -2;
	it->always = policy != NULL && strcmp(policy->valuestring, "Always") == 0;
	for (k = 0; k < conf->nkinds; k++)
		for (n = 0; n < conf->kinds[k].nresources; n++, i++)
			for (int l = 0; l < 2; l++) {
				const cJSON *q = lists[l] ? cJSON_GetObjectItemCaseSensitive(
				                                    lists[l], conf->kinds[k].resources[n])
				                          : NULL;

				if (q == NULL)
					continue;
				if (cJSON_IsString(q))
					k8s_item_quantity(it, l == 0, i, NULL, 0, 0, q->valuestring,
					                  strlen(q->valuestring));
				else
					k8s_item_quantity(it, l == 0, i, cJSON_IsNumber(q) ? NULL : sjson_kind(q),
					                  cJSON_IsNumber(q), q->valuedouble, NULL, 0);
			}
	k8s_item_container_end(it);
	return 0;
}

/* A pod's accelerators, per kind, from the template's containers. */
static int accelerators(struct reading *r, const cJSON *pod)
{
	static const char *const lists[] = { "initContainers", "containers" };
	struct k8s_item it;
	int rc = 0;

	if (r->conf->nkinds == 0)
		return 0;
	if (k8s_item_init(&it, r->conf) != 0) {
		k8s_item_free(&it);
		return -2;
	}
	k8s_item_begin(&it);
	for (int l = 0; l < 2 && rc == 0; l++) {
		const cJSON *list, *c;

		rc = member(r, pod, "spec.template.spec.", lists[l], cJSON_IsArray, "an array", &list);
		cJSON_ArrayForEach(c, list)
		{
			if (rc != 0)
				break;
			if (!cJSON_IsObject(c))
				rc = bad(r, "spec.template.spec.%s[] holds %s; expected objects", lists[l],
				         sjson_kind(c));
			else
				rc = container(r, &it, c, l == 0);
		}
	}
	if (rc == 0 && !it.err_set)
		k8s_item_kind_counts(&it, r->out->accel);
	if (rc == 0 && it.err_set)
		rc = bad(r, "spec.template.spec: %s", it.err);
	k8s_item_free(&it);
	return rc;
}

/* The spec: size, completion mode, the template's subdomain and
 * accelerators. */
static int spec(struct reading *r, const cJSON *job)
{
	struct k8s_jobspec *out = r->out;
	const cJSON *spec, *mode, *tmpl, *pod;
	int rc;

	if (member(r, job, "", "spec", cJSON_IsObject, "an object", &spec) < 0)
		return -1;
	if (spec == NULL)
		return bad(r, "the object has no spec");
	if (count_member(r, spec, "spec.", "completions", &out->completions) < 0 ||
	    count_member(r, spec, "spec.", "parallelism", &out->parallelism) < 0 ||
	    member(r, spec, "spec.", "completionMode", cJSON_IsString, "a string", &mode) < 0 ||
	    member(r, spec, "spec.", "template", cJSON_IsObject, "an object", &tmpl) < 0 ||
	    member(r, tmpl, "spec.template.", "spec", cJSON_IsObject, "an object", &pod) < 0)
		return -1;
	/* An API server before 1.21 knows no completion mode and drops it. */
	out->indexed = mode == NULL ? -1 : strcmp(mode->valuestring, "Indexed") == 0;
	if (out->parallelism < 0)
		out->parallelism = 1; /* the API's default */
	if ((rc = string_member(r, pod, "spec.template.spec.", "subdomain", &out->subdomain)) < 0)
		return rc;
	return accelerators(r, pod);
}

/* metadata: name, uid, deletion, a JobSet's labels. */
static int metadata(struct reading *r, const cJSON *job)
{
	struct k8s_jobspec *out = r->out;
	const cJSON *meta, *labels, *deleting;
	int rc;

	if (member(r, job, "", "metadata", cJSON_IsObject, "an object", &meta) < 0)
		return -1;
	if ((rc = string_member(r, meta, "metadata.", "name", &out->name)) < 0)
		return rc;
	if (out->name == NULL || out->name[0] == '\0')
		return bad(r, "metadata.name is missing");
	if ((rc = string_member(r, meta, "metadata.", "uid", &out->uid)) < 0 ||
	    member(r, meta, "metadata.", "deletionTimestamp", cJSON_IsString, "a string",
	           &deleting) < 0 ||
	    member(r, meta, "metadata.", "labels", cJSON_IsObject, "an object", &labels) < 0)
		return rc < 0 ? rc : -1;
	out->deleting = deleting != NULL;
	if ((rc = string_member(r, labels, "metadata.labels.", JOBSET "jobset-name",
	                        &out->jobset)) < 0 ||
	    (rc = string_member(r, labels, "metadata.labels.", JOBSET "jobset-uid",
	                        &out->jobset_uid)) < 0 ||
	    (rc = string_member(r, labels, "metadata.labels.", JOBSET "replicatedjob-name",
	                        &out->rjob)) < 0 ||
	    (rc = string_member(r, labels, "metadata.labels.", JOBSET "coordinator",
	                        &out->coordinator)) < 0)
		return rc;
	if (label_count(r, labels, JOBSET "job-index", &out->job_index) < 0 ||
	    label_count(r, labels, JOBSET "replicatedjob-replicas", &out->replicas) < 0 ||
	    label_count(r, labels, JOBSET "job-global-index", &out->global_index) < 0)
		return -1;
	return 0;
}

int k8s_jobspec_read(const struct k8s_conf *conf, const cJSON *job, struct k8s_jobspec *out,
                     char *why, size_t size)
{
	struct reading r = { conf, out, why, size };
	int rc;

	memset(out, 0, sizeof(*out));
	out->completions = out->parallelism = -1;
	out->job_index = out->replicas = out->global_index = -1;
	if (!cJSON_IsObject(job)) {
		snprintf(why, size, "a Job is %s; expected an object", sjson_kind(job));
		return -1;
	}
	if ((rc = metadata(&r, job)) == 0)
		rc = spec(&r, job);
	if (rc == -2)
		snprintf(why, size, "out of memory");
	return rc;
}

void k8s_jobspec_free(struct k8s_jobspec *j)
{
	free(j->name);
	free(j->uid);
	free(j->subdomain);
	free(j->jobset);
	free(j->jobset_uid);
	free(j->rjob);
	free(j->coordinator);
	memset(j, 0, sizeof(*j));
}
