/*
 * gce: open() — the entry's options, checked and copied.  Nothing here
 * contacts a server or reads credentials: those are read on resolve.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "../common/options.h"

/* Names the Compute API accepts: [a-z]([-a-z0-9]*[a-z0-9])?, at most 63. */
static int valid_name(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 63 || !(s[0] >= 'a' && s[0] <= 'z') || s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

/* "group" or "zone/group". */
static int read_group(const struct popts *o, const muster_cfg *el, const char *what,
                      struct gce_group *g)
{
	const char *s, *slash;

	if (popt_node_string(o, el, what, 0, &s) < 0)
		return -1;
	slash = strchr(s, '/');
	if (slash != NULL) {
		if ((g->zone = strndup(s, (size_t)(slash - s))) == NULL ||
		    (g->name = strdup(slash + 1)) == NULL)
			return popt_nomem(o, el);
	} else if ((g->name = strdup(s)) == NULL)
		return popt_nomem(o, el);
	if (!valid_name(g->name) || (g->zone != NULL && !valid_name(g->zone))) {
		o->host->open_error(o->pc, el,
		                    "%s: \"%s\" is not an instance group name (\"GROUP\" or "
		                    "\"ZONE/GROUP\", lower-case letters, digits and '-')",
		                    what, s);
		return -1;
	}
	return 0;
}

static int read_jobs(const struct popts *o, struct gce_conf *conf)
{
	const muster_cfg *node = o->host->cfg_get(o->root, "jobs");
	size_t count, i, k;

	if (node == NULL) {
		o->host->open_error(o->pc, NULL,
		                    "jobs is required: jobs = { worker = [\"instance-group\", ...]; };");
		return -1;
	}
	if (o->host->cfg_type(node) != MUSTER_CFG_GROUP) {
		o->host->open_error(o->pc, node,
		                    "jobs must be a group of job = [\"instance group\", ...], not %s",
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
		struct gce_job *job = &conf->jobs[i];
		int type = o->host->cfg_type(el);
		char what[160];
		size_t n;

		conf->njobs = i + 1;
		if ((job->name = strdup(o->host->cfg_name(el))) == NULL)
			return popt_nomem(o, el);
		snprintf(what, sizeof(what), "jobs.%s", job->name);
		if (type == MUSTER_CFG_STRING) {
			if ((job->groups = calloc(1, sizeof(*job->groups))) == NULL)
				return popt_nomem(o, el);
			job->ngroups = 1;
			if (read_group(o, el, what, &job->groups[0]) < 0)
				return -1;
			continue;
		}
		if (type != MUSTER_CFG_ARRAY && type != MUSTER_CFG_LIST) {
			o->host->open_error(o->pc, el, "%s must be a list of instance groups, not %s",
			                    what, popt_kind(o->host, el));
			return -1;
		}
		n = o->host->cfg_count(el);
		if (n == 0) {
			o->host->open_error(o->pc, el, "%s must not be empty", what);
			return -1;
		}
		if ((job->groups = calloc(n, sizeof(*job->groups))) == NULL)
			return popt_nomem(o, el);
		for (k = 0; k < n; k++) {
			job->ngroups = k + 1;
			if (read_group(o, o->host->cfg_at(el, k), what, &job->groups[k]) < 0)
				return -1;
		}
	}
	return 0;
}

void gce_conf_free(struct gce_conf *conf)
{
	size_t i, k;

	if (conf == NULL)
		return;
	for (i = 0; i < conf->njobs; i++) {
		for (k = 0; k < conf->jobs[i].ngroups; k++) {
			free(conf->jobs[i].groups[k].zone);
			free(conf->jobs[i].groups[k].name);
		}
		free(conf->jobs[i].groups);
		free(conf->jobs[i].name);
	}
	free(conf->jobs);
	free(conf->project);
	free(conf->zone);
	free(conf->rpc_layer);
	free(conf->endpoint);
	free(conf->access_token_file);
	free(conf->credentials_file);
	free(conf->dmi_path);
	free(conf->self_instance);
	pthread_mutex_destroy(&conf->cache.lock);
	if (conf->cache.token != NULL) {
		memset(conf->cache.token, 0, strlen(conf->cache.token));
		free(conf->cache.token);
	}
	free(conf->cache.token_source);
	free(conf->cache.project);
	free(conf->cache.zone);
	free(conf->cache.self);
	free(conf);
}

static const char *const order_names[] = { "natural", "name", "ip", NULL };
static const char *const address_names[] = { "internal", "external", NULL };

int gce_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	struct popts o = { host, pc, NULL };
	struct gce_conf *conf;
	int choice;

	if (host->abi_major != MUSTER_PLUGIN_ABI_MAJOR) {
		host->open_error(pc, NULL, "host speaks plugin ABI %u, this plugin %d",
		                 (unsigned)host->abi_major, MUSTER_PLUGIN_ABI_MAJOR);
		return -1;
	}
	if ((conf = calloc(1, sizeof(*conf))) == NULL) {
		host->open_error(pc, NULL, "out of memory");
		return -1;
	}
	if (pthread_mutex_init(&conf->cache.lock, NULL) != 0) {
		free(conf);
		host->open_error(pc, NULL, "cannot create a mutex");
		return -1;
	}
	conf->pc = pc;
	conf->port = 8470; /* TF's tf_server_port */
	conf->metadata_timeout_ms = 1000;
	conf->page_size = 500; /* the Compute API's maximum */
	conf->retries = 3;
	o.root = host->cfg_root(pc);

	if (read_jobs(&o, conf) < 0 || popt_string(&o, "project", 0, &conf->project) < 0 ||
	    popt_string(&o, "zone", 0, &conf->zone) < 0 ||
	    popt_int(&o, "port", 1, 65535, &conf->port) < 0 ||
	    popt_string(&o, "rpc_layer", 1, &conf->rpc_layer) < 0 ||
	    popt_int(&o, "interface", 0, 63, &conf->interface) < 0 ||
	    popt_string(&o, "compute_endpoint", 0, &conf->endpoint) < 0 ||
	    popt_string(&o, "access_token_file", 0, &conf->access_token_file) < 0 ||
	    popt_string(&o, "credentials_file", 0, &conf->credentials_file) < 0 ||
	    popt_string(&o, "dmi_product_name", 0, &conf->dmi_path) < 0 ||
	    popt_string(&o, "self_instance", 0, &conf->self_instance) < 0 ||
	    popt_int(&o, "metadata_timeout_ms", 1, 60000, &conf->metadata_timeout_ms) < 0 ||
	    popt_int(&o, "page_size", 1, 500, &conf->page_size) < 0 ||
	    popt_int(&o, "retries", 0, 10, &conf->retries) < 0)
		goto fail;
	choice = 0;
	if (popt_choice(&o, "order", order_names, &choice) < 0)
		goto fail;
	conf->order = (enum gce_order)choice;
	choice = 0;
	if (popt_choice(&o, "address", address_names, &choice) < 0)
		goto fail;
	conf->address = (enum gce_address)choice;
	if (conf->zone != NULL && !valid_name(conf->zone)) {
		host->open_error(pc, host->cfg_get(o.root, "zone"), "zone \"%s\" is not a zone name",
		                 conf->zone);
		goto fail;
	}
	if (conf->endpoint != NULL) {
		size_t n = strlen(conf->endpoint);

		if (strncmp(conf->endpoint, "https://", 8) != 0 &&
		    strncmp(conf->endpoint, "http://", 7) != 0) {
			host->open_error(pc, host->cfg_get(o.root, "compute_endpoint"),
			                 "compute_endpoint must be an https:// or http:// URL, not \"%s\"",
			                 conf->endpoint);
			goto fail;
		}
		while (n > 0 && conf->endpoint[n - 1] == '/')
			conf->endpoint[--n] = '\0';
	} else if ((conf->endpoint = strdup(GCE_DEFAULT_ENDPOINT)) == NULL)
		goto popt_nomem;
	if (conf->rpc_layer == NULL && (conf->rpc_layer = strdup("grpc")) == NULL)
		goto popt_nomem;
	if (conf->dmi_path == NULL && (conf->dmi_path = strdup(GCE_DEFAULT_DMI)) == NULL)
		goto popt_nomem;
	*state = conf;
	return 0;
popt_nomem:
	popt_nomem(&o, NULL);
fail:
	gce_conf_free(conf);
	return -1;
}
