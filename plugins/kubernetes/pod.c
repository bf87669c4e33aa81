/*
 * kubernetes: one item of a PodList into a compact pod record.
 *
 * podlist.c hands over the fields as the stream meets them; what the answer
 * needs — name, namespace, phase, the chosen IP, the labels that order or
 * name tasks, the named port, the accelerator counts — is kept for the
 * item, and at its end copied into the listing's data behind one
 * fixed-size record.  Checks that depend on more than one field (limits
 * before requests, a label and its fallback, the port's name and number)
 * wait for the end of the object that holds them, so the answer does not
 * depend on the order of the fields.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"

const char *const k8s_kubeflow_labels[K8S_LAB_CONF] = {
	"training.kubeflow.org/job-name",      "tf-job-name",
	"training.kubeflow.org/replica-type",  "replica-type",
	"training.kubeflow.org/replica-index", "replica-index",
};

int k8s_item_init(struct k8s_item *it, const struct k8s_conf *conf)
{
	size_t n = conf->nresources;

	memset(it, 0, sizeof(*it));
	it->conf = conf;
	pbuf_init(&it->str, K8S_MAX_PAGE);
	if (n == 0)
		return 0;
	it->sum = calloc(4 * n, sizeof(long));
	it->limits = calloc(2 * n, sizeof(struct k8s_qty));
	if (it->sum == NULL || it->limits == NULL)
		return -1;
	it->sidecars = it->sum + n;
	it->init_max = it->sum + 2 * n;
	it->one = it->sum + 3 * n;
	it->requests = it->limits + n;
	return 0;
}

void k8s_item_free(struct k8s_item *it)
{
	pbuf_free(&it->str);
	free(it->sum);
	free(it->limits);
	memset(it, 0, sizeof(*it));
}

void k8s_item_begin(struct k8s_item *it)
{
	size_t n = it->conf->nresources;

	pbuf_reset(&it->str);
	it->name = it->ns = it->phase = it->ip = it->cname = 0;
	memset(it->label, 0, sizeof(it->label));
	memset(it->label_kind, 0, sizeof(it->label_kind));
	it->terminating = 0;
	if (n > 0)
		memset(it->sum, 0, 3 * n * sizeof(long));
	it->port = -1;
	it->port_done = 0;
	it->err_set = 0;
}

int k8s_item_string(struct k8s_item *it, size_t *field, const char *s, size_t len)
{
	size_t at = it->str.len;

	if (pbuf_append(&it->str, s, len) < 0 || pbuf_append(&it->str, "", 1) < 0)
		return -1;
	*field = at + 1;
	return 0;
}

static const char *str(const struct k8s_item *it, size_t field)
{
	return field != 0 ? it->str.data + field - 1 : NULL;
}

void k8s_item_bad(struct k8s_item *it, int named, const char *fmt, ...)
{
	va_list ap;

	if (it->err_set)
		return; /* the first one is the one to fix */
	va_start(ap, fmt);
	vsnprintf(it->err, sizeof(it->err), fmt, ap);
	va_end(ap);
	it->err_set = 1;
	it->err_named = named;
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

void k8s_item_container_begin(struct k8s_item *it, int init)
{
	size_t n = it->conf->nresources;

	it->init = init;
	it->always = 0;
	it->cname = 0;
	if (n > 0)
		memset(it->limits, 0, 2 * n * sizeof(struct k8s_qty));
}

/* Extended resources must be whole numbers: "8" or 8.  Judged when read,
 * reported only if it is the one counted (limits before requests). */
void k8s_item_quantity(struct k8s_item *it, int limits, size_t r, const char *kind, int isnum,
                       double num, const char *s, size_t len)
{
	struct k8s_qty *q = limits ? &it->limits[r] : &it->requests[r];
	char text[64];

	if (q->state != 0)
		return; /* a repeated key: the first counts */
	q->state = 2;
	if (kind != NULL) {
		snprintf(q->why, sizeof(q->why), "is %s; expected a quantity", kind);
		return;
	}
	if (isnum) {
		if (num < 0 || num > 1e9 || num != (double)(long)num) {
			snprintf(q->why, sizeof(q->why), "is %g, not a whole number", num);
			return;
		}
		q->v = (long)num;
		q->state = 1;
		return;
	}
	memcpy(text, s, len > 40 ? 40 : len);
	text[len > 40 ? 40 : len] = '\0';
	q->v = len <= 9 && memchr(s, '\0', len) == NULL ? parse_index(text) : -1;
	if (q->v < 0) {
		snprintf(q->why, sizeof(q->why), "is \"%.40s\", not a whole number", text);
		return;
	}
	q->state = 1;
}

/*
 * Kubernetes' effective request per resource: the larger of the app
 * containers' sum and what each init container needs while it runs.
 * Sidecars (init containers with restartPolicy Always) keep running: they
 * add to the app sum and to every init container started after them.
 */
void k8s_item_container_end(struct k8s_item *it)
{
	const struct k8s_conf *conf = it->conf;
	size_t k, r, i = 0;

	for (k = 0; k < conf->nkinds; k++)
		for (r = 0; r < conf->kinds[k].nresources; r++, i++) {
			const struct k8s_qty *q = it->limits[i].state ? &it->limits[i] : &it->requests[i];

			it->one[i] = q->state == 1 ? q->v : 0;
			if (q->state == 2)
				k8s_item_bad(it, 1, "container %s: %s %s",
				             it->cname ? str(it, it->cname) : "?",
				             conf->kinds[k].resources[r], q->why);
		}
	for (i = 0; i < conf->nresources; i++) {
		long need;

		if (!it->init) {
			it->sum[i] += it->one[i];
			continue;
		}
		if (it->always) {
			it->sum[i] += it->one[i];
			it->sidecars[i] += it->one[i];
			need = it->sidecars[i];
		} else {
			need = it->one[i] + it->sidecars[i];
		}
		if (need > it->init_max[i])
			it->init_max[i] = need;
	}
}

/* The first port named port_name (in the app containers) decides. */
void k8s_item_port_end(struct k8s_item *it)
{
	if (!it->pname_match || it->port_done)
		return;
	it->port_done = 1;
	if (it->cport_kind != NULL && strcmp(it->cport_kind, "a number") != 0) {
		k8s_item_bad(it, 1, "spec.containers[].ports[].containerPort is %s; expected a number",
		             it->cport_kind);
		return;
	}
	if (it->cport_kind == NULL || it->cport < 1 || it->cport > 65535) {
		k8s_item_bad(it, 1, "port %s has no valid containerPort", it->conf->port_name);
		return;
	}
	it->port = (long)it->cport;
}

/* A label and its fallback (the training operator's old names). */
static const char *label(struct k8s_item *it, int l, int fallback)
{
	for (; l >= 0; l = fallback, fallback = -1) {
		if (it->label_kind[l] != NULL) {
			k8s_item_bad(it, 1, "metadata.labels.%s is %s; expected a string",
			             l < K8S_LAB_CONF ? k8s_kubeflow_labels[l] : it->conf->index_label, it->label_kind[l]);
			return NULL;
		}
		if (it->label[l] != 0)
			return str(it, it->label[l]);
	}
	return NULL;
}

/* Copies of the item's strings in the listing's data, packed end to end;
 * the phase and namespace of a job's pods are nearly always one string,
 * kept once (`prev`: the last pod's). */
static k8s_ref keep(struct k8s_podvec *out, const char *s, k8s_ref prev, int *nomem)
{
	size_t at = out->data.len;

	if (s == NULL)
		return 0;
	if (prev != 0 && strcmp(s, k8s_str(out, prev)) == 0)
		return prev;
	if (pbuf_append(&out->data, s, strlen(s) + 1) < 0) {
		*nomem = 1;
		return 0;
	}
	return (k8s_ref)(at + 1);
}

int k8s_item_kind_counts(struct k8s_item *it, long *counts)
{
	const struct k8s_conf *conf = it->conf;
	size_t k, r, i;

	for (i = 0; i < conf->nresources; i++)
		if (it->init_max[i] > it->sum[i])
			it->sum[i] = it->init_max[i];
	for (k = 0, i = 0; k < conf->nkinds; k++) {
		long n = 0;

		for (r = 0; r < conf->kinds[k].nresources; r++, i++)
			n += it->sum[i];
		if (n > K8S_MAX_INDEX) {
			k8s_item_bad(it, 1, "%ld %s accelerators: more than a task can have", n,
			             conf->kinds[k].kind);
			return -1;
		}
		counts[k] = n;
	}
	return 0;
}

/* The effective request summed per accelerator kind, as int32 counts in
 * the listing's data (aligned); 0 when all are 0, -1 after k8s_item_bad
 * when a kind passes what a task count can hold, -2 out of memory. */
static int keep_counts(struct k8s_item *it, struct k8s_podvec *out, k8s_ref *ref)
{
	const struct k8s_conf *conf = it->conf;
	static const char pad[sizeof(int32_t)];
	int32_t counts[K8S_MAX_KINDS];
	long n[K8S_MAX_KINDS];
	size_t k, at;
	int any = 0;

	*ref = 0;
	if (k8s_item_kind_counts(it, n) < 0)
		return -1;
	for (k = 0; k < conf->nkinds; k++) {
		counts[k] = (int32_t)n[k];
		any |= n[k] != 0;
	}
	if (!any)
		return 0;
	if (pbuf_append(&out->data, pad, (sizeof(int32_t) - out->data.len % sizeof(int32_t)) %
	                                     sizeof(int32_t)) < 0)
		return -2;
	at = out->data.len;
	if (pbuf_append(&out->data, counts, conf->nkinds * sizeof(int32_t)) < 0)
		return -2;
	*ref = (k8s_ref)(at + 1);
	return 0;
}

int k8s_item_end(struct k8s_item *it, size_t selector, struct k8s_podvec *out)
{
	const struct k8s_conf *conf = it->conf;
	const struct k8s_pod *last = out->n > 0 ? &out->pods[out->n - 1] : NULL;
	size_t mark = out->data.len;
	const char *name = str(it, it->name), *kf_job = NULL, *kf_type = NULL, *kf_index = NULL,
	           *lab = NULL;
	struct k8s_pod p;
	int rc, nomem = 0;

	if (it->err_set && !it->err_named)
		return -1;
	if (name == NULL || name[0] == '\0') {
		it->err_set = 0;
		k8s_item_bad(it, 0, "metadata.name is missing");
		return -1;
	}
	if (conf->address == K8S_ADDR_KUBEFLOW) {
		kf_job = label(it, K8S_LAB_KF_JOB, K8S_LAB_TF_JOB);
		kf_type = label(it, K8S_LAB_KF_TYPE, K8S_LAB_TYPE);
		kf_index = label(it, K8S_LAB_KF_INDEX, K8S_LAB_INDEX);
	}
	if (conf->index_label != NULL)
		lab = label(it, K8S_LAB_CONF, -1);
	if (it->err_set)
		return -1;
	memset(&p, 0, sizeof(p));
	p.kf_index = kf_index != NULL ? (int32_t)parse_index(kf_index) : -1;
	if (conf->address == K8S_ADDR_KUBEFLOW && (kf_job == NULL || kf_type == NULL || p.kf_index < 0)) {
		k8s_item_bad(it, 1, "address = \"kubeflow\" needs the training operator's labels "
		                    "training.kubeflow.org/job-name, replica-type and replica-index "
		                    "(or tf-job-name, replica-type, replica-index)");
		return -1;
	}
	p.label_index = lab != NULL ? (int32_t)parse_index(lab) : -1;
	if (conf->order == K8S_ORDER_LABEL && conf->index_label == NULL)
		p.label_index = p.kf_index;
	p.port = (int32_t)it->port;
	p.terminating = (uint8_t)it->terminating;
	p.selector = (uint16_t)selector;
	p.index = -1;

	if (out->data.max == 0)
		pbuf_init(&out->data, K8S_MAX_DATA);
	if ((rc = keep_counts(it, out, &p.counts)) < 0)
		return rc;
	p.name = keep(out, name, 0, &nomem);
	p.ns = keep(out, str(it, it->ns), last ? last->ns : 0, &nomem);
	p.phase = keep(out, str(it, it->phase), last ? last->phase : 0, &nomem);
	p.ip = keep(out, str(it, it->ip), 0, &nomem);
	p.kf_job = keep(out, kf_job, last ? last->kf_job : 0, &nomem);
	p.kf_type = keep(out, kf_type, last ? last->kf_type : 0, &nomem);
	p.label_bad = lab != NULL && p.label_index < 0 ? keep(out, lab, 0, &nomem) : 0;

	if (!nomem && out->n == out->cap) {
		size_t cap = out->cap ? out->cap + out->cap / 2 : 64;
		struct k8s_pod *q = realloc(out->pods, cap * sizeof(*q));

		if (q != NULL) {
			out->pods = q;
			out->cap = cap;
		}
		nomem = q == NULL;
	}
	if (nomem) {
		out->data.len = mark; /* nothing of the pod stays */
		return -2;
	}
	out->pods[out->n++] = p;
	return 0;
}

void k8s_podvec_free(struct k8s_podvec *v)
{
	free(v->pods);
	pbuf_free(&v->data);
	memset(v, 0, sizeof(*v));
}
