/*
 * kubernetes, mode = "indexed_job": the members of this pod's Indexed Job,
 * or of the JobSet that Job belongs to (docs/platforms.md §5, §6).
 *
 * From the environment, what the Job controller gives every pod:
 * JOB_COMPLETION_INDEX (unset: notfound, not an Indexed Job's pod) and the
 * host name <job>-<index>, which names the Job.  A plain Indexed Job's
 * environment holds no member count, so the rest comes from the API,
 * through the connection every mode uses:
 *   GET /apis/batch/v1/namespaces/NS/jobs/JOB
 * gives spec.completions (the members: <job>-0 ... <job>-(completions-1),
 * each at <job>-<i>.<subdomain>, the template's subdomain), which must all
 * run at once (spec.parallelism), and the JobSet labels when a JobSet made
 * the Job; then
 *   GET /apis/batch/v1/namespaces/NS/jobs?labelSelector=jobset.sigs.k8s.io/jobset-name=SET
 * (paged) gives every Job of the JobSet: one muster job per replicated job,
 * its Jobs in job-index order, each Job's pods in completion-index order.
 * A JobSet whose Jobs are not all created yet is tryagain.
 *
 * The answer: placement nodes (a pod is where `muster run` starts its
 * processes), port `port` (2222) on every member, the own task, the pods'
 * accelerators from the Job's pod template, and a job id (the Job's or
 * JobSet's uid) from which a launch derives its master port.
 *
 * watch(): members change only with the Jobs (a JobSet restarting
 * recreates them), so the Jobs are read again every K8S_INDEXED_POLL_MS
 * and a change is reported.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "k8s.h"
#include "lib/vec.h"
#include "plugins/common/answer.h"
#include "plugins/common/noted.h"
#include "plugins/common/watchhost.h"

#define K8S_INDEXED_POLL_MS 10000 /* watch(): how often the Jobs are read again */
#define K8S_INDEXED_LOOKUP_MS 10000 /* watch(): each reading's budget */

/* What the environment says about this pod. */
struct self {
	long index;     /* JOB_COMPLETION_INDEX */
	char host[256]; /* gethostname() */
	char job[256];  /* the Job's name: the host name's first label less "-<index>" */
};

/* What the API says: this pod's Job and, for a JobSet, all its Jobs
 * (this pod's among them), ordered by replicated job, then job index. */
struct view {
	struct k8s_jobspec own;
	struct k8s_jobspec *jobs;
	size_t n, cap;
	/* Replicated jobs as runs of `jobs`, in the order their jobs are
	 * answered: start of each run, its Job count. */
	size_t *group, *group_n, ngroups;
};

static void view_free(struct view *v)
{
	k8s_jobspec_free(&v->own);
	for (size_t i = 0; i < v->n; i++)
		k8s_jobspec_free(&v->jobs[i]);
	free(v->jobs);
	free(v->group);
	free(v->group_n);
	memset(v, 0, sizeof(*v));
}

#define answer(run, st, ...) plugin_answer((run)->host, (run)->call, st, __VA_ARGS__)

/* JOB_COMPLETION_INDEX and the host name the Job controller gave. */
static muster_status identity(struct k8s_run *run, struct self *s)
{
	struct noted vars;
	char suffix[32];
	size_t label, n;
	int rc;

	noted_init(&vars, run->host, run->call);
	rc = env_int(&vars.env, "JOB_COMPLETION_INDEX", 0, K8S_MAX_INDEX, &s->index);
	if (rc == 0)
		return answer(run, MUSTER_STATUS_NOTFOUND,
		              "JOB_COMPLETION_INDEX is not set: not a pod of an Indexed Job");
	if (rc < 0)
		return answer(run, MUSTER_STATUS_UNAVAIL, "%s", vars.env.why);
	if (gethostname(s->host, sizeof(s->host)) != 0)
		return answer(run, MUSTER_STATUS_UNAVAIL, "gethostname failed: %s", strerror(errno));
	s->host[sizeof(s->host) - 1] = '\0';
	muster_plugin_note_input(run->host, run->call, "gethostname()", s->host);
	/* With setHostnameAsFQDN the host name is the whole DNS name. */
	label = strcspn(s->host, ".");
	n = (size_t)snprintf(suffix, sizeof(suffix), "-%ld", s->index);
	if (label <= n || memcmp(s->host + label - n, suffix, n) != 0)
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "the host name \"%s\" is not <job>%s: the Job controller names the pod "
		              "of completion index %ld so (JOB_COMPLETION_INDEX=%ld)",
		              s->host, suffix, s->index, s->index);
	snprintf(s->job, sizeof(s->job), "%.*s", (int)(label - n), s->host);
	return MUSTER_STATUS_SUCCESS;
}

/* An answer's bytes as JSON; NULL after fail() naming `what`. */
static cJSON *parse(struct k8s_run *run, const char *what, const struct pbuf *b)
{
	cJSON *root = b->len > 0 ? cJSON_ParseWithLength(b->data, b->len) : NULL;

	if (root == NULL)
		run->host->fail(run->call, "%s: the answer is not JSON", what);
	return root;
}

/* The rules every Job of the answer keeps: Indexed, sized, all its pods
 * at once, named under a subdomain. */
static muster_status check_job(struct k8s_run *run, const struct k8s_jobspec *j)
{
	if (j->indexed == 0)
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "Job %s is not an Indexed Job (spec.completionMode is not \"Indexed\")",
		              j->name);
	if (j->completions < 1)
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "Job %s has %s spec.completions: an Indexed Job's pods are numbered "
		              "below it", j->name, j->completions < 0 ? "no" : "0 as its");
	if (j->parallelism < j->completions)
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "Job %s runs at most %ld of its %ld pods at once (spec.parallelism): "
		              "they cannot all be members of one training job",
		              j->name, j->parallelism, j->completions);
	if (j->subdomain == NULL || j->subdomain[0] == '\0')
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "Job %s gives its pods no subdomain (spec.template.spec.subdomain): "
		              "their names %s-<index> resolve only under a headless Service named "
		              "there", j->name, j->name);
	return MUSTER_STATUS_SUCCESS;
}

/* GET this pod's Job. */
static muster_status get_own(struct k8s_run *run, const struct self *s, struct view *v)
{
	char *ens = curl_easy_escape(run->curl, k8s_namespace(run), 0);
	char *ejob = curl_easy_escape(run->curl, s->job, 0);
	char *path = ens && ejob ? plugin_asprintf("/apis/batch/v1/namespaces/%s/jobs/%s", ens,
	                                           ejob)
	                         : NULL;
	char hint[400], why[400], what[400], note_value[400];
	struct pbuf b = { 0 };
	cJSON *root = NULL;
	muster_status st;
	long code;
	int rc;

	curl_free(ens);
	curl_free(ejob);
	if (path == NULL)
		return k8s_nomem(run);
	snprintf(hint, sizeof(hint),
	         " (the Job %s of this pod, named by its host name %s: muster reads its size "
	         "there, which needs get on jobs in API group batch)", s->job, s->host);
	run->hint = hint;
	snprintf(what, sizeof(what), "GET %s%s", run->conn.server, path);
	st = k8s_http_get_buf(run, path, &b, &code);
	run->hint = NULL;
	if (st == MUSTER_STATUS_SUCCESS && code != 200)
		st = answer(run, MUSTER_STATUS_UNAVAIL, "%s: HTTP %ld", what, code);
	if (st == MUSTER_STATUS_SUCCESS && (root = parse(run, what, &b)) == NULL)
		st = MUSTER_STATUS_UNAVAIL;
	if (st == MUSTER_STATUS_SUCCESS &&
	    (rc = k8s_jobspec_read(run->conf, root, &v->own, why, sizeof(why))) != 0)
		st = rc == -2 ? k8s_nomem(run) : answer(run, MUSTER_STATUS_UNAVAIL, "%s", why);
	if (st == MUSTER_STATUS_SUCCESS) {
		snprintf(note_value, sizeof(note_value), "completions %ld, parallelism %ld, subdomain %s%s%s",
		         v->own.completions, v->own.parallelism,
		         v->own.subdomain ? v->own.subdomain : "(none)", v->own.jobset ? ", JobSet " : "",
		         v->own.jobset ? v->own.jobset : "");
		snprintf(what, sizeof(what), "Job %s/%s", k8s_namespace(run), s->job);
		muster_plugin_note_input(run->host, run->call, what, note_value);
	}
	cJSON_Delete(root);
	pbuf_free(&b);
	free(path);
	return st;
}

/* One page of the JobSet's Jobs appended to v->jobs; *cont the next
 * page's token (NULL: the last page). */
static muster_status jobs_page(struct k8s_run *run, const char *what, const struct pbuf *b,
                               struct view *v, char **cont)
{
	const cJSON *items, *list, *item, *meta, *c;
	char why[400];
	cJSON *root = parse(run, what, b);
	muster_status st = MUSTER_STATUS_SUCCESS;

	*cont = NULL;
	if (root == NULL)
		return MUSTER_STATUS_UNAVAIL;
	items = cJSON_GetObjectItemCaseSensitive(root, "items");
	meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
	c = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "continue") : NULL;
	if (!cJSON_IsArray(items) && !cJSON_IsNull(items) && items != NULL)
		st = answer(run, MUSTER_STATUS_UNAVAIL, "%s: items is not an array", what);
	else if (c != NULL && !cJSON_IsString(c) && !cJSON_IsNull(c))
		st = answer(run, MUSTER_STATUS_UNAVAIL, "%s: metadata.continue is not a string", what);
	else if (cJSON_IsString(c) && c->valuestring[0] != '\0' &&
	         (*cont = strdup(c->valuestring)) == NULL)
		st = k8s_nomem(run);
	list = cJSON_IsArray(items) ? items : NULL;
	cJSON_ArrayForEach(item, list)
	{
		struct k8s_jobspec j;
		int rc;

		if (st != MUSTER_STATUS_SUCCESS)
			break;
		if ((rc = k8s_jobspec_read(run->conf, item, &j, why, sizeof(why))) != 0) {
			k8s_jobspec_free(&j);
			st = rc == -2 ? k8s_nomem(run) : answer(run, MUSTER_STATUS_UNAVAIL, "%s", why);
			break;
		}
		/* Jobs on their way out (a restart) and those of an earlier
		 * JobSet of the same name are no members. */
		if (j.deleting || (j.jobset_uid && v->own.jobset_uid &&
		                   strcmp(j.jobset_uid, v->own.jobset_uid) != 0)) {
			k8s_jobspec_free(&j);
			continue;
		}
		if (vec_reserve(&v->jobs, &v->cap, v->n + 1, sizeof(*v->jobs)) < 0) {
			k8s_jobspec_free(&j);
			st = k8s_nomem(run);
			break;
		}
		v->jobs[v->n++] = j;
	}
	if (st != MUSTER_STATUS_SUCCESS) {
		free(*cont);
		*cont = NULL;
	}
	cJSON_Delete(root);
	return st;
}

/* Every Job of this pod's JobSet, all pages; a listing whose continue
 * token expired (410 Gone) starts again, as list.c does. */
static muster_status list_jobset(struct k8s_run *run, struct view *v)
{
	char *ens = curl_easy_escape(run->curl, k8s_namespace(run), 0);
	char *sel = plugin_asprintf("jobset.sigs.k8s.io/jobset-name=%s", v->own.jobset);
	char *esel = sel ? curl_easy_escape(run->curl, sel, 0) : NULL;
	char hint[300], limit[32] = "";
	struct k8s_tokens followed = { 0 };
	muster_status st = MUSTER_STATUS_SUCCESS;
	char *cont = NULL;
	long page = 0, restarts = 0;

	if (ens == NULL || esel == NULL)
		st = k8s_nomem(run);
	if (run->conf->limit > 0)
		snprintf(limit, sizeof(limit), "&limit=%ld", run->conf->limit);
	snprintf(hint, sizeof(hint),
	         " (the Jobs of JobSet %s: muster lists them for its members, which needs list "
	         "on jobs in API group batch)", v->own.jobset);
	while (st == MUSTER_STATUS_SUCCESS) {
		char *econt = cont ? curl_easy_escape(run->curl, cont, 0) : NULL;
		char *path = plugin_asprintf("/apis/batch/v1/namespaces/%s/jobs?labelSelector=%s%s%s%s",
		                             ens, esel, limit, econt ? "&continue=" : "",
		                             econt ? econt : "");
		char what[300];
		struct pbuf b = { 0 };
		long code = 0;

		curl_free(econt);
		if (path == NULL || (cont != NULL && econt == NULL)) {
			free(path);
			st = k8s_nomem(run);
			break;
		}
		snprintf(what, sizeof(what), "JobSet %s's Jobs, page %ld", v->own.jobset, page + 1);
		run->hint = hint;
		st = k8s_http_get_buf(run, path, &b, &code);
		run->hint = NULL;
		free(path);
		free(cont);
		cont = NULL;
		if (st == MUSTER_STATUS_SUCCESS && code == 410) {
			/* The token expired: the whole listing again. */
			if (++restarts > K8S_MAX_RESTARTS)
				st = answer(run, MUSTER_STATUS_UNAVAIL,
				            "%s: the continue token expired %d times (410 Gone)", what,
				            K8S_MAX_RESTARTS);
			for (size_t i = 0; i < v->n; i++)
				k8s_jobspec_free(&v->jobs[i]);
			v->n = page = 0;
			k8s_tokens_clear(&followed);
			pbuf_free(&b);
			continue;
		}
		if (st == MUSTER_STATUS_SUCCESS)
			st = jobs_page(run, what, &b, v, &cont);
		pbuf_free(&b);
		page++;
		if (st != MUSTER_STATUS_SUCCESS || cont == NULL)
			break;
		if (page >= run->conf->max_pages)
			st = answer(run, MUSTER_STATUS_UNAVAIL, "%s: more than max_pages (%ld) pages",
			            what, run->conf->max_pages);
		else if (k8s_tokens_add(&followed, cont) == 0)
			st = answer(run, MUSTER_STATUS_UNAVAIL,
			            "%s: the API server repeats a continue token: a listing that never "
			            "ends", what);
	}
	free(cont);
	k8s_tokens_clear(&followed);
	curl_free(ens);
	curl_free(esel);
	free(sel);
	return st;
}

/* Jobs by replicated job, then job index. */
static int by_rjob(const void *a, const void *b)
{
	const struct k8s_jobspec *x = a, *y = b;
	int c = strcmp(x->rjob ? x->rjob : "", y->rjob ? y->rjob : "");

	return c != 0 ? c : (x->job_index > y->job_index) - (x->job_index < y->job_index);
}

/* The lowest job-global-index of a group's Jobs (-1 unknown: last). */
static long group_key(const struct view *v, size_t g)
{
	long low = -1;

	for (size_t i = v->group[g]; i < v->group[g] + v->group_n[g]; i++)
		if (v->jobs[i].global_index >= 0 && (low < 0 || v->jobs[i].global_index < low))
			low = v->jobs[i].global_index;
	return low;
}

/* Replicated jobs in the JobSet's order: by their Jobs' job-global-index
 * where the controller writes it, else by name. */
static void order_groups(struct view *v)
{
	for (size_t a = 1; a < v->ngroups; a++)
		for (size_t b = a; b > 0; b--) {
			long kb = group_key(v, b), ka = group_key(v, b - 1);
			size_t t;

			if (!(kb >= 0 && (ka < 0 || kb < ka)))
				break;
			t = v->group[b], v->group[b] = v->group[b - 1], v->group[b - 1] = t;
			t = v->group_n[b], v->group_n[b] = v->group_n[b - 1], v->group_n[b - 1] = t;
		}
}

/* The JobSet's Jobs as replicated jobs, each complete: job-index 0 to
 * replicas - 1, once each. */
static muster_status arrange(struct k8s_run *run, struct view *v)
{
	const char *set = v->own.jobset;
	muster_status st;

	qsort(v->jobs, v->n, sizeof(*v->jobs), by_rjob);
	if ((v->group = calloc(v->n ? v->n : 1, sizeof(*v->group))) == NULL ||
	    (v->group_n = calloc(v->n ? v->n : 1, sizeof(*v->group_n))) == NULL)
		return k8s_nomem(run);
	for (size_t i = 0; i < v->n; i++) {
		const struct k8s_jobspec *j = &v->jobs[i], *first;
		size_t g;

		if (j->rjob == NULL || j->job_index < 0 || j->replicas < 1)
			return answer(run, MUSTER_STATUS_UNAVAIL,
			              "Job %s of JobSet %s lacks the labels "
			              "jobset.sigs.k8s.io/replicatedjob-name, job-index and "
			              "replicatedjob-replicas (a whole number from 1) that the JobSet "
			              "controller puts on its Jobs", j->name, set);
		if (i == 0 || strcmp(j->rjob, v->jobs[i - 1].rjob) != 0) {
			v->group[v->ngroups] = i;
			v->group_n[v->ngroups++] = 0;
		}
		g = v->ngroups - 1;
		first = &v->jobs[v->group[g]];
		if (j->replicas != first->replicas)
			return answer(run, MUSTER_STATUS_UNAVAIL,
			              "JobSet %s: Jobs %s and %s of replicated job %s disagree on its "
			              "replicas (%ld, %ld)", set, first->name, j->name, j->rjob,
			              first->replicas, j->replicas);
		if (j->job_index >= j->replicas)
			return answer(run, MUSTER_STATUS_UNAVAIL,
			              "JobSet %s: Job %s has job-index %ld, not below its replicated "
			              "job's %ld replicas", set, j->name, j->job_index, j->replicas);
		if (j->job_index < (long)v->group_n[g])
			return answer(run, MUSTER_STATUS_TRYAGAIN,
			              "JobSet %s: replicated job %s has two Jobs with job-index %ld (a "
			              "restart under way?)", set, j->rjob, j->job_index);
		if (j->job_index > (long)v->group_n[g])
			return answer(run, MUSTER_STATUS_TRYAGAIN,
			              "JobSet %s: replicated job %s has no Job with job-index %zu yet",
			              set, j->rjob, v->group_n[g]);
		if ((st = check_job(run, j)) != MUSTER_STATUS_SUCCESS)
			return st;
		v->group_n[g]++;
	}
	for (size_t g = 0; g < v->ngroups; g++) {
		const struct k8s_jobspec *first = &v->jobs[v->group[g]];

		if ((long)v->group_n[g] < first->replicas)
			return answer(run, MUSTER_STATUS_TRYAGAIN,
			              "JobSet %s: replicated job %s has %zu of its %ld Jobs yet", set,
			              first->rjob, v->group_n[g], first->replicas);
	}
	order_groups(v);
	return MUSTER_STATUS_SUCCESS;
}

/* Everything the answer needs, from the API. */
static muster_status lookup(struct k8s_run *run, const struct self *s, struct view *v)
{
	muster_status st = k8s_connect(run);

	if (st == MUSTER_STATUS_NOTFOUND)
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "JOB_COMPLETION_INDEX=%ld: this is a pod of an Indexed Job, whose size "
		              "only the API server knows, and none is in reach (no server setting, no "
		              "kubeconfig, KUBERNETES_SERVICE_HOST not set)", s->index);
	if (st == MUSTER_STATUS_SUCCESS)
		st = k8s_http_setup(run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = get_own(run, s, v);
	if (st == MUSTER_STATUS_SUCCESS && strcmp(v->own.name, s->job) != 0)
		st = answer(run, MUSTER_STATUS_UNAVAIL, "the API server answered Job %s for Job %s",
		            v->own.name, s->job);
	if (st == MUSTER_STATUS_SUCCESS)
		st = check_job(run, &v->own);
	if (st == MUSTER_STATUS_SUCCESS && s->index >= v->own.completions)
		st = answer(run, MUSTER_STATUS_UNAVAIL,
		            "JOB_COMPLETION_INDEX=%ld is not below Job %s's spec.completions (%ld)",
		            s->index, s->job, v->own.completions);
	if (st != MUSTER_STATUS_SUCCESS || v->own.jobset == NULL)
		return st;
	if (v->own.rjob == NULL || v->own.job_index < 0)
		return answer(run, MUSTER_STATUS_UNAVAIL,
		              "Job %s is JobSet %s's but lacks its labels "
		              "jobset.sigs.k8s.io/replicatedjob-name and job-index",
		              s->job, v->own.jobset);
	if ((st = list_jobset(run, v)) == MUSTER_STATUS_SUCCESS)
		st = arrange(run, v);
	return st;
}

/* A JobSet's coordinator (label jobset.sigs.k8s.io/coordinator, "<pod
 * host name>.<subdomain>") leads: its replicated job goes first, and it
 * must be that job's first pod, which a launch makes rank 0. */
static muster_status coordinator_first(struct k8s_run *run, struct view *v)
{
	const char *c = v->own.coordinator;

	if (c == NULL)
		return MUSTER_STATUS_SUCCESS;
	for (size_t g = 0; g < v->ngroups; g++)
		for (size_t i = v->group[g]; i < v->group[g] + v->group_n[g]; i++) {
			const struct k8s_jobspec *j = &v->jobs[i];
			size_t n = strlen(j->name);
			char *end;
			long p;

			if (strncmp(c, j->name, n) != 0 || c[n] != '-' || c[n + 1] < '0' ||
			    c[n + 1] > '9')
				continue;
			p = strtol(c + n + 1, &end, 10);
			if (*end != '.' || strcmp(end + 1, j->subdomain) != 0)
				continue;
			if (i != v->group[g] || p != 0)
				return answer(run, MUSTER_STATUS_UNAVAIL,
				              "JobSet %s's coordinator %s is not the first pod of replicated "
				              "job %s, which a launch makes rank 0", v->own.jobset, c, j->rjob);
			for (size_t t; g > 0; g--) {
				t = v->group[g], v->group[g] = v->group[g - 1], v->group[g - 1] = t;
				t = v->group_n[g], v->group_n[g] = v->group_n[g - 1], v->group_n[g - 1] = t;
			}
			return MUSTER_STATUS_SUCCESS;
		}
	return answer(run, MUSTER_STATUS_UNAVAIL,
	              "JobSet %s's coordinator %s (label jobset.sigs.k8s.io/coordinator) is none of "
	              "its pods", v->own.jobset, c);
}

/* One Job's pods as tasks first ... of `job`; 0, or -1 as the builder. */
static int add_pods(struct k8s_run *run, const char *job, long first,
                    const struct k8s_jobspec *j)
{
	const struct k8s_conf *conf = run->conf;
	const muster_host *h = run->host;
	char address[600];

	for (long p = 0; p < j->completions; p++) {
		snprintf(address, sizeof(address), "%s-%ld.%s:%ld", j->name, p, j->subdomain,
		         conf->port);
		if (h->add_task(run->call, job, first + p, address) < 0)
			return -1;
		for (size_t k = 0; k < conf->nkinds; k++)
			if (j->accel[k] > 0 && h->add_accelerator(run->call, job, first + p,
			                                          conf->kinds[k].kind, j->accel[k]) < 0)
				return -1;
	}
	return 0;
}

static muster_status build(struct k8s_run *run, const struct self *s, struct view *v)
{
	const muster_host *h = run->host;
	const char *own_job = "worker", *id;
	long own_task = s->index;
	char fallback[600];
	int found = 0;
	muster_status st;

	if (v->own.jobset == NULL) {
		if (muster_plugin_add_job_sized(h, run->call, "worker", v->own.completions) < 0 ||
		    add_pods(run, "worker", 0, &v->own) < 0)
			return MUSTER_STATUS_UNAVAIL;
		id = v->own.uid;
		snprintf(fallback, sizeof(fallback), "%s/%s", k8s_namespace(run), v->own.name);
	} else {
		if ((st = coordinator_first(run, v)) != MUSTER_STATUS_SUCCESS)
			return st;
		for (size_t g = 0; g < v->ngroups; g++) {
			const struct k8s_jobspec *first = &v->jobs[v->group[g]];
			long total = 0;

			for (size_t i = v->group[g]; i < v->group[g] + v->group_n[g]; i++)
				total += v->jobs[i].completions;
			if (muster_plugin_add_job_sized(h, run->call, first->rjob, total) < 0)
				return MUSTER_STATUS_UNAVAIL;
			total = 0;
			for (size_t i = v->group[g]; i < v->group[g] + v->group_n[g]; i++) {
				if (!found && strcmp(v->jobs[i].name, v->own.name) == 0) {
					found = 1;
					own_job = first->rjob;
					own_task = total + s->index;
				}
				if (add_pods(run, first->rjob, total, &v->jobs[i]) < 0)
					return MUSTER_STATUS_UNAVAIL;
				total += v->jobs[i].completions;
			}
		}
		if (!found)
			return answer(run, MUSTER_STATUS_TRYAGAIN,
			              "JobSet %s lists no Job %s (this pod's) yet", v->own.jobset,
			              v->own.name);
		id = v->own.jobset_uid;
		snprintf(fallback, sizeof(fallback), "%s/%s", k8s_namespace(run), v->own.jobset);
	}
	if (h->set_task(run->call, own_job, own_task) < 0 ||
	    h->set_rpc_layer(run->call, run->conf->rpc_layer) < 0 ||
	    h->set_master_rule(run->call, MUSTER_MASTER_TASK) < 0 ||
	    muster_plugin_set_placement(h, run->call, MUSTER_PLACEMENT_NODES) < 0 ||
	    muster_plugin_set_job_id(h, run->call, id != NULL && id[0] ? id : fallback) < 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

muster_status k8s_indexed_resolve(struct k8s_run *run)
{
	struct self s;
	struct view v;
	muster_status st;

	memset(&v, 0, sizeof(v));
	if ((st = identity(run, &s)) == MUSTER_STATUS_SUCCESS &&
	    (st = lookup(run, &s, &v)) == MUSTER_STATUS_SUCCESS)
		st = build(run, &s, &v);
	view_free(&v);
	return st;
}

/* watch(): the Jobs read again every K8S_INDEXED_POLL_MS, a change in
 * what the answer is built from (or in why there is none) reported. */
struct indexed_watch {
	char reason[1024]; /* the last reading's failure, "" when none */
};

static void watch_failed(void *data, const char *reason)
{
	struct indexed_watch *iw = data;

	snprintf(iw->reason, sizeof(iw->reason), "%s", reason);
}

static void digest_job(struct pbuf *b, const struct k8s_jobspec *j, size_t nkinds)
{
	char line[1200];
	int n = snprintf(line, sizeof(line), "%s %s %ld %ld %d %s %s %s %s %ld %ld %ld",
	                 j->name, j->uid ? j->uid : "-", j->completions, j->parallelism, j->indexed,
	                 j->subdomain ? j->subdomain : "-", j->rjob ? j->rjob : "-",
	                 j->jobset_uid ? j->jobset_uid : "-", j->coordinator ? j->coordinator : "-",
	                 j->job_index, j->replicas, j->global_index);

	pbuf_append(b, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : strlen(line));
	for (size_t k = 0; k < nkinds; k++) {
		n = snprintf(line, sizeof(line), " %ld", j->accel[k]);
		pbuf_append(b, line, (size_t)n);
	}
	pbuf_append(b, "\n", 1);
}

/* What one reading gave, as text to compare with the last. */
static void digest(struct pbuf *b, const struct k8s_conf *conf, muster_status st,
                   const char *reason, const struct view *v)
{
	char head[1100];
	int n = snprintf(head, sizeof(head), "%d %s\n", (int)st, reason);

	pbuf_append(b, head, n > 0 && (size_t)n < sizeof(head) ? (size_t)n : strlen(head));
	if (v->own.name != NULL)
		digest_job(b, &v->own, conf->nkinds);
	for (size_t i = 0; i < v->n; i++)
		digest_job(b, &v->jobs[i], conf->nkinds);
}

int k8s_indexed_watch(const struct k8s_conf *conf, const muster_host *host,
                      muster_plugin_ctx *pc, muster_watcher *w)
{
	struct indexed_watch iw = { "" };
	struct pbuf last, now;
	muster_call *call = watch_call_open(host, pc, K8S_INDEXED_LOOKUP_MS, watch_failed, &iw);
	int first = 1;

	if (call == NULL)
		return -1;
	pbuf_init(&last, K8S_MAX_PAGE);
	do {
		struct k8s_run run = { .host = host, .call = call, .conf = conf };
		struct self s;
		struct view v = { 0 };
		muster_status st;

		iw.reason[0] = '\0';
		if ((st = identity(&run, &s)) == MUSTER_STATUS_SUCCESS)
			st = lookup(&run, &s, &v);
		pbuf_init(&now, K8S_MAX_PAGE);
		digest(&now, conf, st, iw.reason, &v);
		view_free(&v);
		k8s_http_cleanup(&run);
		k8s_conn_clear(&run.conn);
		if (first)
			host->watch_armed(w);
		else if (now.len != last.len || (now.len > 0 && memcmp(now.data, last.data, now.len) != 0))
			host->watch_changed(w);
		first = 0;
		pbuf_free(&last);
		last = now;
	} while (!watch_stopping(host, w, K8S_INDEXED_POLL_MS));
	pbuf_free(&last);
	host->watch_call_end(call);
	return 0;
}
