/*
 * kubernetes: open() — the entry's options, checked and copied.  Nothing
 * here contacts the API server or reads credentials: those are read on
 * every resolve (tokens rotate, kubeconfigs change).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "plugins/common/popts.h"

static int read_selectors(const muster_popts *o, const muster_cfg *el, const char *what,
                          void *entry)
{
	struct k8s_job *job = entry;

	if (muster_popt_string_list(o, el, what, &job->selectors, &job->nselectors) < 0)
		return -1;
	if (job->nselectors > K8S_MAX_SELECTORS)
		return popt_fail(o, el, "%s: at most %d label selectors", what, K8S_MAX_SELECTORS);
	return 0;
}

static const struct popt_members job_members = {
	.shape = "job = [\"label selector\", ...]", .noun = "job", .min = 1,
	.size = sizeof(struct k8s_job), .read = read_selectors,
};

static int read_jobs(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct k8s_conf *conf = base;

	if (node == NULL) {
		/* TF's default mapping. */
		conf->jobs = calloc(1, sizeof(*conf->jobs));
		if (conf->jobs == NULL)
			return muster_popt_nomem(o, NULL);
		conf->njobs = 1;
		conf->jobs[0].name = strdup("worker");
		conf->jobs[0].selectors = calloc(1, sizeof(char *));
		if (conf->jobs[0].name == NULL || conf->jobs[0].selectors == NULL ||
		    (conf->jobs[0].selectors[0] = strdup("job-name=tensorflow")) == NULL)
			return muster_popt_nomem(o, NULL);
		conf->jobs[0].nselectors = 1;
		return 0;
	}
	return popt_members(o, node, &job_members, &conf->jobs, &conf->njobs);
}

static const char *const default_kinds[][4] = {
	{ "GPU", "nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915" },
	{ "TPU", "google.com/tpu", NULL, NULL },
};

static int read_resources(const muster_popts *o, const muster_cfg *el, const char *what,
                          void *entry)
{
	struct k8s_accel_kind *k = entry;

	return muster_popt_string_list(o, el, what, &k->resources, &k->nresources);
}

/* accelerators = { GPU = ["nvidia.com/gpu"]; TPU = "google.com/tpu"; };
 * keyed by kind because libconfig names cannot hold '/' or '.'; an empty
 * group reports none. */
static const struct popt_members kind_members = {
	.shape = "KIND = [\"resource name\", ...]", .noun = "kind", .max = K8S_MAX_KINDS,
	.size = sizeof(struct k8s_accel_kind), .read = read_resources,
};

static int read_accelerators(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct k8s_conf *conf = base;
	size_t count, i, j;

	if (node == NULL) {
		count = sizeof(default_kinds) / sizeof(default_kinds[0]);
		if ((conf->kinds = calloc(count, sizeof(*conf->kinds))) == NULL)
			return muster_popt_nomem(o, NULL);
		for (i = 0; i < count; i++) {
			struct k8s_accel_kind *k = &conf->kinds[i];

			conf->nkinds = i + 1;
			if ((k->kind = strdup(default_kinds[i][0])) == NULL ||
			    (k->resources = calloc(3, sizeof(char *))) == NULL)
				return muster_popt_nomem(o, NULL);
			for (j = 1; j < 4 && default_kinds[i][j] != NULL; j++) {
				if ((k->resources[j - 1] = strdup(default_kinds[i][j])) == NULL)
					return muster_popt_nomem(o, NULL);
				k->nresources = j;
			}
			conf->nresources += k->nresources;
		}
		return 0;
	}
	if (popt_members(o, node, &kind_members, &conf->kinds, &conf->nkinds) < 0)
		return -1;
	for (i = 0; i < conf->nkinds; i++)
		conf->nresources += conf->kinds[i].nresources;
	return 0;
}

void k8s_close(void *state)
{
	struct k8s_conf *conf = state;
	size_t i;

	if (conf == NULL)
		return;
	free(conf->server);
	free(conf->token);
	free(conf->token_file);
	free(conf->ca_file);
	free(conf->client_cert);
	free(conf->client_key);
	free(conf->kubeconfig);
	free(conf->context);
	free(conf->sa_dir);
	for (i = 0; i < conf->njobs; i++) {
		free(conf->jobs[i].name);
		popt_strings_free(conf->jobs[i].selectors, conf->jobs[i].nselectors);
	}
	free(conf->jobs);
	free(conf->namespace);
	free(conf->index_label);
	free(conf->port_name);
	free(conf->self_pod);
	free(conf->cluster_domain);
	for (i = 0; i < conf->nkinds; i++) {
		free(conf->kinds[i].kind);
		popt_strings_free(conf->kinds[i].resources, conf->kinds[i].nresources);
	}
	free(conf->kinds);
	free(conf->rpc_layer);
	free(conf);
}

static const char *const mode_names[] = { "selectors", "indexed_job", NULL };
static const char *const order_names[] = { "natural", "name", "label", NULL };
static const char *const address_names[] = { "pod_ip", "host_ip", "kubeflow", NULL };

static const muster_popt options[] = {
	MUSTER_POPT_CHOICE("mode", struct k8s_conf, mode, mode_names, K8S_MODE_SELECTORS),
	MUSTER_POPT_STRING("server", struct k8s_conf, server, 0, NULL),
	MUSTER_POPT_STRING("token", struct k8s_conf, token, 0, NULL),
	MUSTER_POPT_STRING("token_file", struct k8s_conf, token_file, 0, NULL),
	MUSTER_POPT_STRING("ca_file", struct k8s_conf, ca_file, 0, NULL),
	MUSTER_POPT_STRING("client_cert", struct k8s_conf, client_cert, 0, NULL),
	MUSTER_POPT_STRING("client_key", struct k8s_conf, client_key, 0, NULL),
	MUSTER_POPT_BOOL("insecure_skip_tls_verify", struct k8s_conf, insecure, 0),
	MUSTER_POPT_STRING("kubeconfig", struct k8s_conf, kubeconfig, 0, NULL),
	MUSTER_POPT_STRING("context", struct k8s_conf, context, 0, NULL),
	MUSTER_POPT_STRING("serviceaccount_dir", struct k8s_conf, sa_dir, 0, NULL),
	MUSTER_POPT_CUSTOM("jobs", read_jobs),
	MUSTER_POPT_STRING("namespace", struct k8s_conf, namespace, 0, NULL),
	MUSTER_POPT_BOOL("all_namespaces", struct k8s_conf, all_namespaces, 0),
	MUSTER_POPT_INT("limit", struct k8s_conf, limit, 0, 1000000, 500),
	MUSTER_POPT_INT("max_pages", struct k8s_conf, max_pages, 1, 1000000, 10000),
	MUSTER_POPT_INT("wait_ms", struct k8s_conf, wait_ms, 0, 86400000, 0),
	MUSTER_POPT_CHOICE("address", struct k8s_conf, address, address_names, K8S_ADDR_POD_IP),
	MUSTER_POPT_INT("port", struct k8s_conf, port, 1, 65535, 8470), /* TF's tf_server_port */
	MUSTER_POPT_STRING("port_name", struct k8s_conf, port_name, 0, NULL),
	MUSTER_POPT_CHOICE("order", struct k8s_conf, order, order_names, K8S_ORDER_NATURAL),
	MUSTER_POPT_STRING("index_label", struct k8s_conf, index_label, 0, NULL),
	MUSTER_POPT_STRING("self_pod", struct k8s_conf, self_pod, 0, NULL),
	MUSTER_POPT_STRING("cluster_domain", struct k8s_conf, cluster_domain, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_CUSTOM("accelerators", read_accelerators),
	MUSTER_POPT_STRING("rpc_layer", struct k8s_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
};

/* The explicit connection options hang together. */
static int check_explicit(const muster_popts *o, struct k8s_conf *conf)
{
	static const char *const needs_server[] = { "token", "token_file", "ca_file",
		                                    "client_cert", "client_key",
		                                    "insecure_skip_tls_verify", NULL };
	size_t i, n;

	if (conf->server == NULL) {
		for (i = 0; needs_server[i] != NULL; i++)
			if (o->host->cfg_get(o->group, needs_server[i]) != NULL)
				return popt_fail(o, o->host->cfg_get(o->group, needs_server[i]),
				                 "%s needs server: it applies to an explicitly "
				                 "configured API server", needs_server[i]);
		return 0;
	}
	if (strncmp(conf->server, "https://", 8) != 0 && strncmp(conf->server, "http://", 7) != 0)
		return popt_fail(o, o->host->cfg_get(o->group, "server"),
		                 "server must be an https:// or http:// URL, not \"%s\"",
		                 conf->server);
	if (conf->token != NULL && conf->token_file != NULL)
		return popt_fail(o, o->host->cfg_get(o->group, "token_file"),
		                 "token and token_file exclude each other");
	if ((conf->client_cert == NULL) != (conf->client_key == NULL)) {
		o->host->open_error(o->pc,
		                    o->host->cfg_get(o->group, conf->client_cert ? "client_cert"
		                                                                 : "client_key"),
		                    "client_cert and client_key go together");
		return -1;
	}
	for (n = strlen(conf->server); n > 0 && conf->server[n - 1] == '/';)
		conf->server[--n] = '\0';
	return 0;
}

/* The rules between the query and address options. */
static int check_query(const muster_popts *o, struct k8s_conf *conf)
{
	const muster_host *host = o->host;
	int has_order = host->cfg_get(o->group, "order") != NULL;

	if (conf->all_namespaces && conf->namespace != NULL)
		return popt_fail(o, host->cfg_get(o->group, "all_namespaces"),
		                 "all_namespaces and namespace exclude each other");
	if (conf->address == K8S_ADDR_KUBEFLOW) {
		/* The operator's port: the container port named tfjob-port, 2222
		 * when there is none. */
		if (host->cfg_get(o->group, "port") == NULL)
			conf->port = 2222;
		if (conf->port_name == NULL && muster_popt_copy(o, NULL, "tfjob-port",
		                                                &conf->port_name) != 0)
			return -1;
	}
	if (conf->index_label != NULL && !has_order)
		conf->order = K8S_ORDER_LABEL;
	if (conf->index_label != NULL && conf->order != K8S_ORDER_LABEL)
		return popt_fail(o, host->cfg_get(o->group, "index_label"),
		                 "index_label applies to order = \"label\" only");
	if (conf->order == K8S_ORDER_LABEL && conf->index_label == NULL &&
	    conf->address != K8S_ADDR_KUBEFLOW)
		return popt_fail(o, host->cfg_get(o->group, "order"),
		                 "order = \"label\" needs index_label, e.g. "
		                 "\"training.kubeflow.org/replica-index\"");
	/* Kubeflow addresses: the operator's index label orders by default, so
	 * the ClusterSpec equals the one the operator writes into TF_CONFIG. */
	if (conf->address == K8S_ADDR_KUBEFLOW && !has_order)
		conf->order = K8S_ORDER_LABEL;
	return 0;
}

/* mode = "indexed_job" finds its members itself: the options that choose
 * and place pods by selector do not apply; its members' port is 2222
 * unless `port` says otherwise. */
static int check_mode(const muster_popts *o, struct k8s_conf *conf)
{
	static const char *const selector_only[] = { "jobs", "all_namespaces", "wait_ms",
		                                     "order", "index_label", "address",
		                                     "port_name", "self_pod", "cluster_domain",
		                                     NULL };

	if (conf->mode != K8S_MODE_INDEXED_JOB)
		return 0;
	if (popt_refuse(o, selector_only,
	                "mode = \"indexed_job\", which finds the pods of this pod's own Job") != 0)
		return -1;
	if (o->host->cfg_get(o->group, "port") == NULL)
		conf->port = 2222;
	return 0;
}

static int check_conf(const muster_popts *o, void *state)
{
	struct k8s_conf *conf = state;

	conf->pc = o->pc;
	if (check_explicit(o, conf) != 0 || check_mode(o, conf) != 0)
		return -1;
	return check_query(o, conf);
}

int k8s_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	*state = muster_plugin_conf_read(host, pc, sizeof(struct k8s_conf), options,
	                                 MUSTER_POPT_COUNT(options), check_conf, k8s_close);
	return *state != NULL ? 0 : -1;
}
