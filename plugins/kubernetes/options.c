/*
 * kubernetes: open() — the entry's options, checked and copied.  Nothing
 * here contacts the API server or reads credentials: those are read on
 * every resolve (tokens rotate, kubeconfigs change).
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "../common/options.h"

static int read_jobs(const struct popts *o, struct k8s_conf *conf)
{
	const muster_cfg *node = o->host->cfg_get(o->root, "jobs");
	size_t count, i;

	if (node == NULL) {
		/* TF's default mapping. */
		conf->jobs = calloc(1, sizeof(*conf->jobs));
		if (conf->jobs == NULL)
			return popt_nomem(o, NULL);
		conf->njobs = 1;
		conf->jobs[0].name = strdup("worker");
		conf->jobs[0].selectors = calloc(1, sizeof(char *));
		if (conf->jobs[0].name == NULL || conf->jobs[0].selectors == NULL ||
		    (conf->jobs[0].selectors[0] = strdup("job-name=tensorflow")) == NULL)
			return popt_nomem(o, NULL);
		conf->jobs[0].nselectors = 1;
		return 0;
	}
	if (o->host->cfg_type(node) != MUSTER_CFG_GROUP) {
		o->host->open_error(o->pc, node,
		                    "jobs must be a group of job = [\"label selector\", ...], not %s",
		                    popt_kind(o->host, node));
		return -1;
	}
	count = o->host->cfg_count(node);
	if (count == 0) {
		o->host->open_error(o->pc, node, "jobs must name at least one job");
		return -1;
	}
	if ((conf->jobs = calloc(count, sizeof(*conf->jobs))) == NULL)
		return popt_nomem(o, node);
	for (i = 0; i < count; i++) {
		const muster_cfg *el = o->host->cfg_at(node, i);
		char what[160];

		conf->njobs = i + 1;
		if ((conf->jobs[i].name = strdup(o->host->cfg_name(el))) == NULL)
			return popt_nomem(o, el);
		snprintf(what, sizeof(what), "jobs.%s", conf->jobs[i].name);
		if (popt_string_list(o, el, what, &conf->jobs[i].selectors, &conf->jobs[i].nselectors) < 0)
			return -1;
		if (conf->jobs[i].nselectors > K8S_MAX_SELECTORS) {
			o->host->open_error(o->pc, el, "%s: at most %d label selectors", what,
			                    K8S_MAX_SELECTORS);
			return -1;
		}
	}
	return 0;
}

static const char *const default_kinds[][4] = {
	{ "GPU", "nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915" },
	{ "TPU", "google.com/tpu", NULL, NULL },
};

static int read_accelerators(const struct popts *o, struct k8s_conf *conf)
{
	const muster_cfg *node = o->host->cfg_get(o->root, "accelerators");
	size_t count, i, j;

	if (node == NULL) {
		count = sizeof(default_kinds) / sizeof(default_kinds[0]);
		if ((conf->kinds = calloc(count, sizeof(*conf->kinds))) == NULL)
			return popt_nomem(o, NULL);
		for (i = 0; i < count; i++) {
			struct k8s_accel_kind *k = &conf->kinds[i];

			conf->nkinds = i + 1;
			if ((k->kind = strdup(default_kinds[i][0])) == NULL ||
			    (k->resources = calloc(3, sizeof(char *))) == NULL)
				return popt_nomem(o, NULL);
			for (j = 1; j < 4 && default_kinds[i][j] != NULL; j++) {
				if ((k->resources[j - 1] = strdup(default_kinds[i][j])) == NULL)
					return popt_nomem(o, NULL);
				k->nresources = j;
			}
			conf->nresources += k->nresources;
		}
		return 0;
	}
	/* accelerators = { GPU = ["nvidia.com/gpu"]; TPU = "google.com/tpu"; };
	 * keyed by kind because libconfig names cannot hold '/' or '.'. */
	if (o->host->cfg_type(node) != MUSTER_CFG_GROUP) {
		o->host->open_error(o->pc, node,
		                    "accelerators must be a group of KIND = [\"resource name\", ...], "
		                    "not %s",
		                    popt_kind(o->host, node));
		return -1;
	}
	count = o->host->cfg_count(node);
	if (count == 0)
		return 0; /* no accelerators reported */
	if (count > K8S_MAX_KINDS) {
		o->host->open_error(o->pc, node, "accelerators: at most %d kinds", K8S_MAX_KINDS);
		return -1;
	}
	if ((conf->kinds = calloc(count, sizeof(*conf->kinds))) == NULL)
		return popt_nomem(o, node);
	for (i = 0; i < count; i++) {
		const muster_cfg *el = o->host->cfg_at(node, i);
		char what[160];

		conf->nkinds = i + 1;
		if ((conf->kinds[i].kind = strdup(o->host->cfg_name(el))) == NULL)
			return popt_nomem(o, el);
		snprintf(what, sizeof(what), "accelerators.%s", conf->kinds[i].kind);
		if (popt_string_list(o, el, what, &conf->kinds[i].resources, &conf->kinds[i].nresources) < 0)
			return -1;
		conf->nresources += conf->kinds[i].nresources;
	}
	return 0;
}

void k8s_conf_free(struct k8s_conf *conf)
{
	size_t i, j;

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
		for (j = 0; j < conf->jobs[i].nselectors; j++)
			free(conf->jobs[i].selectors[j]);
		free(conf->jobs[i].selectors);
	}
	free(conf->jobs);
	free(conf->namespace);
	free(conf->index_label);
	free(conf->port_name);
	free(conf->self_pod);
	free(conf->cluster_domain);
	for (i = 0; i < conf->nkinds; i++) {
		free(conf->kinds[i].kind);
		for (j = 0; j < conf->kinds[i].nresources; j++)
			free(conf->kinds[i].resources[j]);
		free(conf->kinds[i].resources);
	}
	free(conf->kinds);
	free(conf->rpc_layer);
	free(conf);
}

static const char *const order_names[] = { "natural", "name", "label", NULL };
static const char *const address_names[] = { "pod_ip", "host_ip", "kubeflow", NULL };

/* The explicit connection options hang together. */
static int check_explicit(const struct popts *o, const struct k8s_conf *conf)
{
	static const char *const needs_server[] = { "token", "token_file", "ca_file",
		                                    "client_cert", "client_key",
		                                    "insecure_skip_tls_verify", NULL };
	size_t i;

	if (conf->server == NULL) {
		for (i = 0; needs_server[i] != NULL; i++)
			if (o->host->cfg_get(o->root, needs_server[i]) != NULL) {
				o->host->open_error(o->pc, o->host->cfg_get(o->root, needs_server[i]),
				                    "%s needs server: it applies to an explicitly "
				                    "configured API server",
				                    needs_server[i]);
				return -1;
			}
		return 0;
	}
	if (strncmp(conf->server, "https://", 8) != 0 && strncmp(conf->server, "http://", 7) != 0) {
		o->host->open_error(o->pc, o->host->cfg_get(o->root, "server"),
		                    "server must be an https:// or http:// URL, not \"%s\"",
		                    conf->server);
		return -1;
	}
	if (conf->token != NULL && conf->token_file != NULL) {
		o->host->open_error(o->pc, o->host->cfg_get(o->root, "token_file"),
		                    "token and token_file exclude each other");
		return -1;
	}
	if ((conf->client_cert == NULL) != (conf->client_key == NULL)) {
		o->host->open_error(o->pc,
		                    o->host->cfg_get(o->root, conf->client_cert ? "client_cert"
		                                                                : "client_key"),
		                    "client_cert and client_key go together");
		return -1;
	}
	return 0;
}

int k8s_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	struct popts o = { host, pc, NULL };
	struct k8s_conf *conf;
	int choice, has_port = 0, has_order;

	if (host->abi_major != MUSTER_PLUGIN_ABI_MAJOR) {
		host->open_error(pc, NULL, "host speaks plugin ABI %u, this plugin %d",
		                 (unsigned)host->abi_major, MUSTER_PLUGIN_ABI_MAJOR);
		return -1;
	}
	if ((conf = calloc(1, sizeof(*conf))) == NULL) {
		host->open_error(pc, NULL, "out of memory");
		return -1;
	}
	conf->pc = pc;
	conf->limit = 500;
	conf->max_pages = 10000;
	conf->port = 8470; /* TF's tf_server_port */
	o.root = host->cfg_root(pc);

	if (popt_string(&o, "server", 0, &conf->server) < 0 ||
	    popt_string(&o, "token", 0, &conf->token) < 0 ||
	    popt_string(&o, "token_file", 0, &conf->token_file) < 0 ||
	    popt_string(&o, "ca_file", 0, &conf->ca_file) < 0 ||
	    popt_string(&o, "client_cert", 0, &conf->client_cert) < 0 ||
	    popt_string(&o, "client_key", 0, &conf->client_key) < 0 ||
	    popt_bool(&o, "insecure_skip_tls_verify", &conf->insecure) < 0 ||
	    popt_string(&o, "kubeconfig", 0, &conf->kubeconfig) < 0 ||
	    popt_string(&o, "context", 0, &conf->context) < 0 ||
	    popt_string(&o, "serviceaccount_dir", 0, &conf->sa_dir) < 0 ||
	    check_explicit(&o, conf) < 0)
		goto fail;
	if (conf->server != NULL) {
		size_t n = strlen(conf->server);

		while (n > 0 && conf->server[n - 1] == '/')
			conf->server[--n] = '\0';
	}
	if (read_jobs(&o, conf) < 0 ||
	    popt_string(&o, "namespace", 0, &conf->namespace) < 0 ||
	    popt_bool(&o, "all_namespaces", &conf->all_namespaces) < 0 ||
	    popt_int(&o, "limit", 0, 1000000, &conf->limit) < 0 ||
	    popt_int(&o, "max_pages", 1, 1000000, &conf->max_pages) < 0 ||
	    popt_int(&o, "wait_ms", 0, 86400000, &conf->wait_ms) < 0)
		goto fail;
	if (conf->all_namespaces && conf->namespace != NULL) {
		host->open_error(pc, host->cfg_get(o.root, "all_namespaces"),
		                 "all_namespaces and namespace exclude each other");
		goto fail;
	}

	choice = 0;
	if (popt_choice(&o, "address", address_names, &choice) < 0)
		goto fail;
	conf->address = (enum k8s_address)choice;
	if (conf->address == K8S_ADDR_KUBEFLOW) {
		/* The operator's port: the container port named tfjob-port, 2222
		 * when there is none. */
		conf->port = 2222;
		if ((conf->port_name = strdup("tfjob-port")) == NULL) {
			popt_nomem(&o, NULL);
			goto fail;
		}
	}
	if ((has_port = popt_int(&o, "port", 1, 65535, &conf->port)) < 0)
		goto fail;
	{
		char *name = NULL;

		switch (popt_string(&o, "port_name", 0, &name)) {
		case -1:
			goto fail;
		case 1:
			free(conf->port_name);
			conf->port_name = name;
			break;
		default:
			break;
		}
	}

	choice = 0;
	if ((has_order = popt_choice(&o, "order", order_names, &choice)) < 0)
		goto fail;
	conf->order = (enum k8s_order)choice;
	if (popt_string(&o, "index_label", 0, &conf->index_label) < 0)
		goto fail;
	if (conf->index_label != NULL && !has_order)
		conf->order = K8S_ORDER_LABEL;
	if (conf->index_label != NULL && conf->order != K8S_ORDER_LABEL) {
		host->open_error(pc, host->cfg_get(o.root, "index_label"),
		                 "index_label applies to order = \"label\" only");
		goto fail;
	}
	if (conf->order == K8S_ORDER_LABEL && conf->index_label == NULL &&
	    conf->address != K8S_ADDR_KUBEFLOW) {
		host->open_error(pc, host->cfg_get(o.root, "order"),
		                 "order = \"label\" needs index_label, e.g. "
		                 "\"training.kubeflow.org/replica-index\"");
		goto fail;
	}
	/* Kubeflow addresses: the operator's index label orders by default, so
	 * the ClusterSpec equals the one the operator writes into TF_CONFIG. */
	if (conf->address == K8S_ADDR_KUBEFLOW && !has_order)
		conf->order = K8S_ORDER_LABEL;

	if (popt_string(&o, "self_pod", 0, &conf->self_pod) < 0 ||
	    popt_string(&o, "cluster_domain", 1, &conf->cluster_domain) < 0 ||
	    read_accelerators(&o, conf) < 0 ||
	    popt_string(&o, "rpc_layer", 1, &conf->rpc_layer) < 0)
		goto fail;
	if (conf->rpc_layer == NULL && (conf->rpc_layer = strdup("grpc")) == NULL) {
		popt_nomem(&o, NULL);
		goto fail;
	}
	(void)has_port;
	*state = conf;
	return 0;
fail:
	k8s_conf_free(conf);
	return -1;
}
