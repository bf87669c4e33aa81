/*
 * kubernetes: the training cluster from the Kubernetes API — TF's
 * KubernetesClusterResolver, done better.
 *
 * Options (the entry's `config` group; muster.conf(5) has the long form):
 *   mode        "selectors" (default: the pods the jobs' label selectors
 *               choose) or "indexed_job" (this pod's Indexed Job or JobSet,
 *               indexed.c)
 *   connection  server, token | token_file, ca_file, client_cert +
 *               client_key, insecure_skip_tls_verify; else kubeconfig
 *               (+ context); else in-cluster (serviceaccount_dir)
 *   query       jobs = { JOB = ["selector", ...]; }  (TF's mapping; default
 *               { worker = ["job-name=tensorflow"]; }), namespace,
 *               all_namespaces, limit (page size, 500), wait_ms
 *   order       "natural" (default), "name" (TF's), "label" + index_label
 *   address     "pod_ip" (default), "host_ip" (TF's), "kubeflow";
 *               port (8470), port_name, cluster_domain
 *   identity    self_pod (else $POD_NAME, $HOSTNAME, the host name)
 *   accelerators = { GPU = ["nvidia.com/gpu", ...]; TPU = [...]; }
 *   rpc_layer   (default "grpc", as TF)
 *
 * Answers: notfound when no API server is configured or reachable by
 * convention (not in a pod, no kubeconfig); unavail on any failure
 * (HTTP errors carry the API's own Status message); tryagain while a
 * selected pod is not Running (after waiting up to wait_ms); success with
 * dense jobs (sparse only with order = "label" and gaps), self identity and
 * accelerators.
 *
 * Watch: watch.c follows the API's watch streams of the same selectors;
 * without it the core would poll.
 *
 * Thread safety: resolve() keeps everything — credentials, the curl
 * handle, the pods — in locals of the call; the state is read-only after
 * open().  So one state serves many threads: MUSTER_PLUGIN_THREADSAFE.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "lib/clock.h"

/* NULL when every job has pods and every pod is ready; else what is
 * missing, in `msg`, and the counts. */
static const char *readiness(const struct k8s_run *run, const struct k8s_podvec *jobs,
                             char *msg, size_t size, size_t *ready, size_t *total)
{
	const struct k8s_conf *conf = run->conf;
	const char *first = NULL;
	char why[64];
	size_t j, i;

	*ready = *total = 0;
	msg[0] = '\0';
	for (j = 0; j < conf->njobs; j++) {
		if (jobs[j].n == 0 && first == NULL) {
			const struct k8s_job *job = &conf->jobs[j];

			snprintf(msg, size, "no pod of job %s yet (no pod matches \"%s\"%s)", job->name,
			         job->selectors[0], job->nselectors > 1 ? " or its other selectors" : "");
			first = msg;
		}
		for (i = 0; i < jobs[j].n; i++) {
			const struct k8s_pod *p = &jobs[j].pods[i];
			const char *w = k8s_not_ready(run, &jobs[j], p, why, sizeof(why));

			(*total)++;
			if (w == NULL) {
				(*ready)++;
				continue;
			}
			if (first == NULL) {
				snprintf(msg, size, "%s: %s", k8s_str(&jobs[j], p->name), w);
				first = msg;
			}
		}
	}
	return first;
}

static void free_jobs(struct k8s_podvec *jobs, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		k8s_podvec_free(&jobs[j]);
}

static muster_status k8s_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct k8s_conf *conf = state;
	struct k8s_run run = { .host = host, .call = call, .conf = conf };
	struct k8s_podvec *jobs = NULL;
	struct backoff backoff = { 200, 2000 };
	long long start = clock_now_ms();
	long list_ms = 0;
	muster_status st;
	size_t j;

	if (conf->mode == K8S_MODE_INDEXED_JOB) {
		st = k8s_indexed_resolve(&run);
		k8s_http_cleanup(&run);
		k8s_conn_clear(&run.conn);
		return st;
	}
	st = k8s_connect(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = k8s_http_setup(&run);
	if (st == MUSTER_STATUS_SUCCESS && (jobs = calloc(conf->njobs, sizeof(*jobs))) == NULL)
		st = k8s_nomem(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		host->log(conf->pc, MUSTER_LOG_DEBUG, "API server %s (from %s)", run.conn.server,
		          run.conn.source);

	while (st == MUSTER_STATUS_SUCCESS) {
		char msg[400];
		size_t ready, total;
		long long t0 = clock_now_ms();
		long waited, left;

		for (j = 0; j < conf->njobs && st == MUSTER_STATUS_SUCCESS; j++) {
			st = k8s_list_job(&run, &conf->jobs[j], &jobs[j]);
			if (st == MUSTER_STATUS_SUCCESS)
				st = k8s_order(&run, &conf->jobs[j], &jobs[j]);
		}
		/* The pages and parser are as large as a page: gone before
		 * the answer is built from every pod. */
		k8s_list_free(&run);
		if (st != MUSTER_STATUS_SUCCESS)
			break;
		list_ms = (long)(clock_now_ms() - t0);
		if (readiness(&run, jobs, msg, sizeof(msg), &ready, &total) == NULL) {
			host->log(conf->pc, MUSTER_LOG_DEBUG, "%zu pods, %ld requests, %ld ms", total,
			          run.requests, (long)(clock_now_ms() - start));
			st = k8s_build(&run, jobs, 0);
			break;
		}
		waited = (long)(clock_now_ms() - start);
		left = host->remaining_ms(call);
		if (conf->wait_ms > waited) {
			long margin = 2 * list_ms > 100 ? 2 * list_ms : 100;
			long pause = backoff_step(&backoff);

			/* Wait only as long as another listing still fits in the
			 * entry's budget: tryagain in time beats unavail too late. */
			if (pause > conf->wait_ms - waited)
				pause = conf->wait_ms - waited;
			if (pause > left - margin)
				pause = left - margin;
			if (pause >= 20) {
				host->log(conf->pc, MUSTER_LOG_NOTICE, "%zu/%zu running; waiting for %s", ready,
				          total, msg);
				free_jobs(jobs, conf->njobs);
				clock_sleep_ms(pause);
				continue;
			}
		}
		/* What is ready and what is not, for `muster status`: built
		 * before fail(), whose reason a refused builder call would take. */
		k8s_build(&run, jobs, 1);
		host->fail(call, "%zu/%zu pods running; waiting for %s%s", ready, total, msg,
		           conf->wait_ms > 0 ? " (gave up waiting)" : "");
		st = MUSTER_STATUS_TRYAGAIN;
	}
	if (jobs != NULL)
		free_jobs(jobs, conf->njobs);
	free(jobs);
	k8s_list_free(&run);
	k8s_http_cleanup(&run);
	k8s_conn_clear(&run.conn);
	return st;
}

static const muster_plugin k8s_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE,
	"kubernetes",
	PACKAGE_VERSION,
	k8s_open,
	k8s_resolve,
	k8s_close,
	k8s_watch,
};

MUSTER_PLUGIN_DEFINE(k8s_plugin)
