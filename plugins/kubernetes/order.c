/*
 * kubernetes: the order of tasks inside a job.
 *
 *   name     TF's: per selector (selectors in the listed order), pods sorted
 *            by name as plain strings (worker-10 before worker-2);
 *   natural  the default: the same, but digit runs compare as numbers, so
 *            worker-10 follows worker-9;
 *   label    the index label gives each task's index; gaps make a sparse
 *            job; a missing or repeated index is an error naming the pods.
 * Ties (one name in two namespaces, all_namespaces) go by namespace.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "plugins/common/natural.h"

static int ns_cmp(const struct k8s_podvec *v, const struct k8s_pod *a, const struct k8s_pod *b)
{
	const char *an = k8s_str(v, a->ns), *bn = k8s_str(v, b->ns);

	return strcmp(an ? an : "", bn ? bn : "");
}

static int by_name(const void *pa, const void *pb, void *vv)
{
	const struct k8s_pod *a = pa, *b = pb;
	const struct k8s_podvec *v = vv;
	int c;

	if (a->selector != b->selector)
		return a->selector < b->selector ? -1 : 1;
	c = strcmp(k8s_str(v, a->name), k8s_str(v, b->name));
	return c != 0 ? c : ns_cmp(v, a, b);
}

static int by_natural(const void *pa, const void *pb, void *vv)
{
	const struct k8s_pod *a = pa, *b = pb;
	const struct k8s_podvec *v = vv;
	int c;

	if (a->selector != b->selector)
		return a->selector < b->selector ? -1 : 1;
	c = natural_cmp(k8s_str(v, a->name), k8s_str(v, b->name));
	return c != 0 ? c : ns_cmp(v, a, b);
}

static int by_label(const void *pa, const void *pb, void *vv)
{
	const struct k8s_pod *a = pa, *b = pb;
	const struct k8s_podvec *v = vv;
	int c;

	if (a->label_index != b->label_index)
		return a->label_index < b->label_index ? -1 : 1;
	c = strcmp(k8s_str(v, a->name), k8s_str(v, b->name));
	return c != 0 ? c : ns_cmp(v, a, b);
}

/* Pages come in etcd's key order, which often is the order wanted (by
 * name, one namespace): one pass then spares the sort. */
static void sort(struct k8s_podvec *v, int (*cmp)(const void *, const void *, void *))
{
	size_t i;

	for (i = 1; i < v->n; i++)
		if (cmp(&v->pods[i - 1], &v->pods[i], v) > 0) {
			qsort_r(v->pods, v->n, sizeof(*v->pods), cmp, v);
			return;
		}
}

muster_status k8s_order(struct k8s_run *run, const struct k8s_job *job, struct k8s_podvec *v)
{
	const char *lab = run->conf->index_label != NULL ? run->conf->index_label
	                                                 : "training.kubeflow.org/replica-index";
	size_t i;

	if (v->n == 0)
		return MUSTER_STATUS_SUCCESS; /* qsort(NULL, 0) is undefined */
	switch (run->conf->order) {
	case K8S_ORDER_NAME:
		sort(v, by_name);
		break;
	case K8S_ORDER_NATURAL:
		sort(v, by_natural);
		break;
	case K8S_ORDER_LABEL:
		for (i = 0; i < v->n; i++) {
			const struct k8s_pod *p = &v->pods[i];

			if (p->label_bad != 0)
				return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
				                     "job %s: pod %s: label %s is \"%.40s\", not "
				                     "a task index", job->name, k8s_str(v, p->name),
				                     lab, k8s_str(v, p->label_bad));
			if (p->label_index < 0)
				return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
				                     "job %s: pod %s has no label %s (order = "
				                     "\"label\")", job->name, k8s_str(v, p->name),
				                     lab);
		}
		sort(v, by_label);
		for (i = 1; i < v->n; i++)
			if (v->pods[i].label_index == v->pods[i - 1].label_index)
				return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
				                     "job %s: pods %s and %s both have %s=%ld",
				                     job->name, k8s_str(v, v->pods[i - 1].name),
				                     k8s_str(v, v->pods[i].name), lab,
				                     (long)v->pods[i].label_index);
		for (i = 0; i < v->n; i++)
			v->pods[i].index = v->pods[i].label_index;
		return MUSTER_STATUS_SUCCESS;
	}
	for (i = 0; i < v->n; i++)
		v->pods[i].index = (long)i;
	return MUSTER_STATUS_SUCCESS;
}
