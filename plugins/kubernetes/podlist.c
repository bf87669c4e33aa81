/*
 * kubernetes: one page of a PodList into compact pod records.
 *
 * Only what the answer needs is kept — name, namespace, phase, the chosen
 * IP, the labels that order or name tasks, the named port and the
 * accelerator counts — so memory follows the page size, not the cluster
 * size.  Every field is type-checked: a wrong type is an error that names
 * the item and the field, never a crash.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "k8s.h"

struct page {
	struct k8s_run *run;
	const char *what;      /* the request, for messages */
	size_t item;           /* items[item] being read */
	const char *pod;       /* its name once known */
};

static const char *json_kind(const cJSON *j)
{
	if (cJSON_IsString(j)) return "a string";
	if (cJSON_IsNumber(j)) return "a number";
	if (cJSON_IsObject(j)) return "an object";
	if (cJSON_IsArray(j)) return "an array";
	if (cJSON_IsBool(j)) return "a boolean";
	if (cJSON_IsNull(j)) return "null";
	return "invalid";
}

static muster_status bad(struct page *pg, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(2, 3);

static muster_status bad(struct page *pg, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pg->pod != NULL)
		pg->run->host->fail(pg->run->call, "%s: items[%zu] (pod %s): %s", pg->what, pg->item,
		                    pg->pod, msg);
	else
		pg->run->host->fail(pg->run->call, "%s: items[%zu]: %s", pg->what, pg->item, msg);
	return MUSTER_STATUS_UNAVAIL;
}

/* Member `key` of `obj` when it has type `want` (cJSON_String, ...);
 * absent and null give NULL with *st untouched; another type sets *st. */
static const cJSON *member(struct page *pg, const cJSON *obj, const char *key, int want,
                           const char *path, muster_status *st)
{
	const cJSON *m = obj != NULL ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	if (m == NULL || cJSON_IsNull(m))
		return NULL;
	if ((m->type & 0xff) != want) {
		if (*st == MUSTER_STATUS_SUCCESS)
			*st = bad(pg, "%s%s is %s; expected %s", path, key, json_kind(m),
			          want == cJSON_String   ? "a string"
			          : want == cJSON_Object ? "an object"
			          : want == cJSON_Array  ? "an array"
			                                 : "a number");
		return NULL;
	}
	return m;
}

static const char *member_string(struct page *pg, const cJSON *obj, const char *key,
                                 const char *path, muster_status *st)
{
	const cJSON *m = member(pg, obj, key, cJSON_String, path, st);

	return m != NULL ? m->valuestring : NULL;
}

/* A whole, non-negative number from a string of digits; -1 otherwise. */
static long parse_index(const char *s)
{
	long v = 0;

	if (s == NULL || *s == '\0' || strlen(s) > 10)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= K8S_MAX_INDEX ? v : -1;
}

/* A resource quantity that must be a whole number (extended resources
 * are): "8" or 8.  -1 after bad() otherwise. */
static long quantity(struct page *pg, const cJSON *q, const char *container, const char *res)
{
	long v;

	if (cJSON_IsNumber(q)) {
		if (q->valuedouble < 0 || q->valuedouble > 1e9 ||
		    q->valuedouble != (double)(long)q->valuedouble) {
			bad(pg, "container %s: %s is %g, not a whole number", container, res,
			    q->valuedouble);
			return -1;
		}
		return (long)q->valuedouble;
	}
	if (!cJSON_IsString(q)) {
		bad(pg, "container %s: %s is %s; expected a quantity", container, res, json_kind(q));
		return -1;
	}
	v = strlen(q->valuestring) <= 9 ? parse_index(q->valuestring) : -1;
	if (v < 0) {
		bad(pg, "container %s: %s is \"%.40s\", not a whole number", container, res,
		    q->valuestring);
		return -1;
	}
	return v;
}

/* The accelerator resources of one container, limits else requests. */
static muster_status container_counts(struct page *pg, const cJSON *c, const char *path,
                                      long *out)
{
	const struct k8s_conf *conf = pg->run->conf;
	muster_status st = MUSTER_STATUS_SUCCESS;
	const cJSON *res = member(pg, c, "resources", cJSON_Object, path, &st);
	const cJSON *limits = member(pg, res, "limits", cJSON_Object, path, &st);
	const cJSON *requests = member(pg, res, "requests", cJSON_Object, path, &st);
	const char *name = member_string(pg, c, "name", path, &st);
	size_t k, r, i = 0;

	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	for (k = 0; k < conf->nkinds; k++)
		for (r = 0; r < conf->kinds[k].nresources; r++, i++) {
			const char *rn = conf->kinds[k].resources[r];
			const cJSON *q = limits ? cJSON_GetObjectItemCaseSensitive(limits, rn) : NULL;

			if (q == NULL && requests != NULL)
				q = cJSON_GetObjectItemCaseSensitive(requests, rn);
			out[i] = 0;
			if (q != NULL && (out[i] = quantity(pg, q, name ? name : "?", rn)) < 0)
				return MUSTER_STATUS_UNAVAIL;
		}
	return MUSTER_STATUS_SUCCESS;
}

/*
 * Kubernetes' effective request per resource: the larger of the app
 * containers' sum and what each init container needs while it runs.
 * Sidecars (init containers with restartPolicy Always) keep running: they
 * add to the app sum and to every init container started after them.
 */
static muster_status accel_counts(struct page *pg, const cJSON *spec, long **counts)
{
	size_t n = pg->run->conf->nresources, i, j;
	muster_status st = MUSTER_STATUS_SUCCESS;
	const cJSON *app = member(pg, spec, "containers", cJSON_Array, "spec.", &st);
	const cJSON *init = member(pg, spec, "initContainers", cJSON_Array, "spec.", &st);
	long *sum, *sidecars, *init_max, *one;
	int any = 0;

	*counts = NULL;
	if (st != MUSTER_STATUS_SUCCESS || n == 0)
		return st;
	if ((sum = calloc(4 * n, sizeof(long))) == NULL)
		return k8s_nomem(pg->run);
	sidecars = sum + n;
	init_max = sum + 2 * n;
	one = sum + 3 * n;
	for (j = 0; app != NULL && j < (size_t)cJSON_GetArraySize(app); j++) {
		const cJSON *c = cJSON_GetArrayItem(app, (int)j);

		if (!cJSON_IsObject(c)) {
			st = bad(pg, "spec.containers[%zu] is %s; expected an object", j, json_kind(c));
			goto out;
		}
		if ((st = container_counts(pg, c, "spec.containers[].", one)) != 0)
			goto out;
		for (i = 0; i < n; i++)
			sum[i] += one[i];
	}
	for (j = 0; init != NULL && j < (size_t)cJSON_GetArraySize(init); j++) {
		const cJSON *c = cJSON_GetArrayItem(init, (int)j);
		const char *policy;

		if (!cJSON_IsObject(c)) {
			st = bad(pg, "spec.initContainers[%zu] is %s; expected an object", j,
			         json_kind(c));
			goto out;
		}
		if ((st = container_counts(pg, c, "spec.initContainers[].", one)) != 0)
			goto out;
		policy = member_string(pg, c, "restartPolicy", "spec.initContainers[].", &st);
		if (st != MUSTER_STATUS_SUCCESS)
			goto out;
		for (i = 0; i < n; i++) {
			long need;

			if (policy != NULL && strcmp(policy, "Always") == 0) {
				sum[i] += one[i];
				sidecars[i] += one[i];
				need = sidecars[i];
			} else {
				need = one[i] + sidecars[i];
			}
			if (need > init_max[i])
				init_max[i] = need;
		}
	}
	for (i = 0; i < n; i++) {
		if (init_max[i] > sum[i])
			sum[i] = init_max[i];
		any |= sum[i] != 0;
	}
	if (any) {
		/* Kept: shrink to the n counts. */
		long *keep = malloc(n * sizeof(long));

		if (keep == NULL) {
			st = k8s_nomem(pg->run);
			goto out;
		}
		memcpy(keep, sum, n * sizeof(long));
		*counts = keep;
	}
out:
	free(sum);
	return st;
}

/* The containerPort named `name` in the app containers; -1: none. */
static long named_port(struct page *pg, const cJSON *spec, const char *name, muster_status *st)
{
	const cJSON *app = member(pg, spec, "containers", cJSON_Array, "spec.", st);
	const cJSON *c, *p;

	cJSON_ArrayForEach(c, app)
	{
		const cJSON *ports = member(pg, c, "ports", cJSON_Array, "spec.containers[].", st);

		cJSON_ArrayForEach(p, ports)
		{
			const char *n = member_string(pg, p, "name", "spec.containers[].ports[].", st);
			const cJSON *cp;

			if (n == NULL || strcmp(n, name) != 0)
				continue;
			cp = member(pg, p, "containerPort", cJSON_Number, "spec.containers[].ports[].", st);
			if (cp == NULL || cp->valuedouble < 1 || cp->valuedouble > 65535) {
				if (*st == MUSTER_STATUS_SUCCESS)
					*st = bad(pg, "port %s has no valid containerPort", name);
				return -1;
			}
			return (long)cp->valuedouble;
		}
	}
	return -1;
}

static const char *label(struct page *pg, const cJSON *labels, const char *key, muster_status *st)
{
	return member_string(pg, labels, key, "metadata.labels.", st);
}

static muster_status one_pod(struct page *pg, const cJSON *item, size_t selector,
                             struct k8s_podvec *out)
{
	const struct k8s_conf *conf = pg->run->conf;
	muster_status st = MUSTER_STATUS_SUCCESS;
	const cJSON *meta, *spec, *status, *labels;
	const char *name, *ns, *phase, *ip = NULL, *kf_job = NULL, *kf_type = NULL,
	                                  *kf_index = NULL, *lab = NULL;
	const char *src[7];
	size_t len[7], total = 0, i;
	struct k8s_pod p;
	char *block, *w;

	memset(&p, 0, sizeof(p));
	if (!cJSON_IsObject(item))
		return bad(pg, "is %s; expected a pod object", json_kind(item));
	meta = member(pg, item, "metadata", cJSON_Object, "", &st);
	spec = member(pg, item, "spec", cJSON_Object, "", &st);
	status = member(pg, item, "status", cJSON_Object, "", &st);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	name = member_string(pg, meta, "name", "metadata.", &st);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	if (name == NULL || name[0] == '\0')
		return bad(pg, "metadata.name is missing");
	pg->pod = name;
	ns = member_string(pg, meta, "namespace", "metadata.", &st);
	labels = member(pg, meta, "labels", cJSON_Object, "metadata.", &st);
	p.terminating = member_string(pg, meta, "deletionTimestamp", "metadata.", &st) != NULL;
	phase = member_string(pg, status, "phase", "status.", &st);
	if (conf->address == K8S_ADDR_HOST_IP)
		ip = member_string(pg, status, "hostIP", "status.", &st);
	else if (conf->address == K8S_ADDR_POD_IP)
		ip = member_string(pg, status, "podIP", "status.", &st);
	if (conf->address == K8S_ADDR_KUBEFLOW) {
		kf_job = label(pg, labels, "training.kubeflow.org/job-name", &st);
		if (kf_job == NULL)
			kf_job = label(pg, labels, "tf-job-name", &st);
		kf_type = label(pg, labels, "training.kubeflow.org/replica-type", &st);
		if (kf_type == NULL)
			kf_type = label(pg, labels, "replica-type", &st);
		kf_index = label(pg, labels, "training.kubeflow.org/replica-index", &st);
		if (kf_index == NULL)
			kf_index = label(pg, labels, "replica-index", &st);
	}
	if (conf->index_label != NULL)
		lab = label(pg, labels, conf->index_label, &st);
	p.port = conf->port_name != NULL ? named_port(pg, spec, conf->port_name, &st) : -1;
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	p.kf_index = kf_index != NULL ? parse_index(kf_index) : -1;
	if (conf->address == K8S_ADDR_KUBEFLOW && (kf_job == NULL || kf_type == NULL || p.kf_index < 0))
		return bad(pg, "address = \"kubeflow\" needs the training operator's labels "
		               "training.kubeflow.org/job-name, replica-type and replica-index "
		               "(or tf-job-name, replica-type, replica-index)");
	p.label_index = lab != NULL ? parse_index(lab) : -1;
	if (conf->order == K8S_ORDER_LABEL && conf->index_label == NULL)
		p.label_index = p.kf_index;
	if ((st = accel_counts(pg, spec, &p.counts)) != MUSTER_STATUS_SUCCESS)
		return st;

	/* All strings of the pod in one block. */
	src[0] = name;
	src[1] = ns;
	src[2] = phase;
	src[3] = ip;
	src[4] = kf_job;
	src[5] = kf_type;
	src[6] = lab != NULL && p.label_index < 0 ? lab : NULL;
	for (i = 0; i < 7; i++) {
		len[i] = src[i] != NULL ? strlen(src[i]) + 1 : 0;
		total += len[i];
	}
	if ((block = malloc(total)) == NULL) {
		free(p.counts);
		return k8s_nomem(pg->run);
	}
	w = block;
	for (i = 0; i < 7; i++)
		if (src[i] != NULL) {
			memcpy(w, src[i], len[i]);
			src[i] = w;
			w += len[i];
		}
	p.name = block;
	p.ns = src[1];
	p.phase = src[2];
	p.ip = src[3];
	p.kf_job = src[4];
	p.kf_type = src[5];
	p.label_bad = src[6];
	p.selector = selector;
	p.index = -1;

	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 64;
		struct k8s_pod *q = realloc(out->pods, cap * sizeof(*q));

		if (q == NULL) {
			k8s_pod_free(&p);
			return k8s_nomem(pg->run);
		}
		out->pods = q;
		out->cap = cap;
	}
	out->pods[out->n++] = p;
	return MUSTER_STATUS_SUCCESS;
}

void k8s_pod_free(struct k8s_pod *p)
{
	free(p->name);
	free(p->counts);
	memset(p, 0, sizeof(*p));
}

void k8s_podvec_free(struct k8s_podvec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		k8s_pod_free(&v->pods[i]);
	free(v->pods);
	memset(v, 0, sizeof(*v));
}

muster_status k8s_podlist_parse(struct k8s_run *run, const char *what, struct k8s_buf *body,
                                size_t selector, struct k8s_podvec *out, char **cont)
{
	struct page pg = { run, what, 0, NULL };
	muster_status st = MUSTER_STATUS_SUCCESS;
	const char *end = NULL;
	const cJSON *items, *meta, *item;
	const char *kind, *c;
	cJSON *root;

	*cont = NULL;
	if (body->data == NULL || body->len == 0) {
		run->host->fail(run->call, "%s: the answer is empty; expected a PodList", what);
		return MUSTER_STATUS_UNAVAIL;
	}
	root = cJSON_ParseWithLengthOpts(body->data, body->len, &end, 0);
	if (root == NULL) {
		size_t at = end != NULL && end >= body->data ? (size_t)(end - body->data) : 0;

		run->host->fail(run->call, "%s: the answer is not valid JSON (error at byte %zu of %zu)",
		                what, at, body->len);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (!cJSON_IsObject(root)) {
		run->host->fail(run->call, "%s: the answer is %s; expected a PodList object", what,
		                json_kind(root));
		cJSON_Delete(root);
		return MUSTER_STATUS_UNAVAIL;
	}
	kind = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "kind"))
	           ? cJSON_GetObjectItemCaseSensitive(root, "kind")->valuestring
	           : NULL;
	if (kind != NULL && strcmp(kind, "PodList") != 0) {
		run->host->fail(run->call, "%s: the answer is a %.40s; expected a PodList", what, kind);
		cJSON_Delete(root);
		return MUSTER_STATUS_UNAVAIL;
	}
	items = cJSON_GetObjectItemCaseSensitive(root, "items");
	meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
	if (items != NULL && !cJSON_IsNull(items) && !cJSON_IsArray(items)) {
		run->host->fail(run->call, "%s: items is %s; expected an array", what,
		                json_kind(items));
		st = MUSTER_STATUS_UNAVAIL;
	} else if (items == NULL) {
		run->host->fail(run->call, "%s: the answer has no items; expected a PodList", what);
		st = MUSTER_STATUS_UNAVAIL;
	} else if (meta != NULL && !cJSON_IsNull(meta) && !cJSON_IsObject(meta)) {
		run->host->fail(run->call, "%s: metadata is %s; expected an object", what,
		                json_kind(meta));
		st = MUSTER_STATUS_UNAVAIL;
	}
	cJSON_ArrayForEach(item, items)
	{
		if (st != MUSTER_STATUS_SUCCESS)
			break;
		pg.pod = NULL;
		st = one_pod(&pg, item, selector, out);
		pg.item++;
	}
	if (st == MUSTER_STATUS_SUCCESS) {
		const cJSON *cj = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "continue")
		                                       : NULL;

		if (cj != NULL && !cJSON_IsNull(cj) && !cJSON_IsString(cj)) {
			run->host->fail(run->call, "%s: metadata.continue is %s; expected a string", what,
			                json_kind(cj));
			st = MUSTER_STATUS_UNAVAIL;
		} else if (cj != NULL && (c = cJSON_GetStringValue(cj)) != NULL && c[0] != '\0' &&
		           (*cont = strdup(c)) == NULL) {
			st = k8s_nomem(run);
		}
	}
	cJSON_Delete(root);
	return st;
}
