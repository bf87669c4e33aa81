/*
 * gce: open() — the entry's options, checked and copied.  Nothing here
 * contacts a server or reads credentials: those are read on resolve.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "plugins/common/popts.h"

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
static int read_group(const muster_popts *o, const muster_cfg *el, const char *what,
                      struct gce_group *g)
{
	const char *s, *slash;

	if (muster_popt_node_string(o, el, what, 0, &s) < 0)
		return -1;
	slash = strchr(s, '/');
	if (slash != NULL) {
		if ((g->zone = strndup(s, (size_t)(slash - s))) == NULL ||
		    (g->name = strdup(slash + 1)) == NULL)
			return muster_popt_nomem(o, el);
	} else if ((g->name = strdup(s)) == NULL)
		return muster_popt_nomem(o, el);
	if (!valid_name(g->name) || (g->zone != NULL && !valid_name(g->zone)))
		return popt_fail(o, el,
		                 "%s: \"%s\" is not an instance group name (\"GROUP\" or "
		                 "\"ZONE/GROUP\", lower-case letters, digits and '-')", what, s);
	return 0;
}

/* A job's groups: one, or a list. */
static int read_groups(const muster_popts *o, const muster_cfg *el, const char *what, void *entry)
{
	struct gce_job *job = entry;
	int type = o->host->cfg_type(el);
	size_t n = 1, k;

	if (type != MUSTER_CFG_STRING && type != MUSTER_CFG_ARRAY && type != MUSTER_CFG_LIST)
		return popt_fail(o, el,
		                 "%s must be a list of instance groups, not %s", what,
		                 muster_popt_kind(o->host, el));
	if (type != MUSTER_CFG_STRING && (n = o->host->cfg_count(el)) == 0)
		return popt_fail(o, el, "%s must not be empty", what);
	if ((job->groups = calloc(n, sizeof(*job->groups))) == NULL)
		return muster_popt_nomem(o, el);
	for (k = 0; k < n; k++) {
		job->ngroups = k + 1;
		if (read_group(o, type == MUSTER_CFG_STRING ? el : o->host->cfg_at(el, k), what,
		               &job->groups[k]) < 0)
			return -1;
	}
	return 0;
}

static const struct popt_members job_members = {
	.shape = "job = [\"instance group\", ...]", .noun = "job", .min = 1,
	.size = sizeof(struct gce_job), .read = read_groups,
};

static int read_jobs(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct gce_conf *conf = base;

	if (conf->mode == GCE_MODE_TPU_VM)
		return 0; /* check_mode() refuses it */
	if (node == NULL) {
		o->host->open_error(o->pc, NULL,
		                    "jobs is required: jobs = { worker = [\"instance-group\", ...]; };");
		return -1;
	}
	return popt_members(o, node, &job_members, &conf->jobs, &conf->njobs);
}

void gce_close(void *state)
{
	struct gce_conf *conf = state;
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

static const char *const mode_names[] = { "instance_groups", "tpu_vm", NULL };
static const char *const order_names[] = { "natural", "name", "ip", NULL };
static const char *const address_names[] = { "internal", "external", NULL };

static const muster_popt options[] = {
	MUSTER_POPT_CHOICE("mode", struct gce_conf, mode, mode_names, GCE_MODE_INSTANCE_GROUPS),
	MUSTER_POPT_CUSTOM("jobs", read_jobs),
	MUSTER_POPT_STRING("project", struct gce_conf, project, 0, NULL),
	MUSTER_POPT_STRING("zone", struct gce_conf, zone, 0, NULL),
	MUSTER_POPT_INT("port", struct gce_conf, port, 1, 65535, 8470), /* TF's tf_server_port */
	MUSTER_POPT_STRING("rpc_layer", struct gce_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
	MUSTER_POPT_INT("interface", struct gce_conf, interface, 0, 63, 0),
	MUSTER_POPT_STRING("compute_endpoint", struct gce_conf, endpoint, 0, GCE_DEFAULT_ENDPOINT),
	MUSTER_POPT_STRING("access_token_file", struct gce_conf, access_token_file, 0, NULL),
	MUSTER_POPT_STRING("credentials_file", struct gce_conf, credentials_file, 0, NULL),
	MUSTER_POPT_STRING("dmi_product_name", struct gce_conf, dmi_path, 0, GCE_DEFAULT_DMI),
	MUSTER_POPT_STRING("self_instance", struct gce_conf, self_instance, 0, NULL),
	MUSTER_POPT_INT("metadata_timeout_ms", struct gce_conf, metadata_timeout_ms, 1, 60000, 1000),
	/* 500: the Compute API's maximum */
	MUSTER_POPT_INT("page_size", struct gce_conf, page_size, 1, 500, 500),
	MUSTER_POPT_INT("retries", struct gce_conf, retries, 0, 10, 3),
	MUSTER_POPT_CHOICE("order", struct gce_conf, order, order_names, 0),
	MUSTER_POPT_CHOICE("address", struct gce_conf, address, address_names, 0),
};

/* mode = "tpu_vm" reads its slice from the metadata server alone: what
 * names and lists instance groups does not apply; its workers' port is
 * 8482 (JAX's TPU coordinator port) unless `port` says otherwise. */
static int check_mode(const muster_popts *o, struct gce_conf *conf)
{
	static const char *const groups_only[] = { "jobs", "project", "zone", "order", "address",
		                                   "interface", "compute_endpoint",
		                                   "access_token_file", "credentials_file",
		                                   "self_instance", "page_size", NULL };

	if (conf->mode != GCE_MODE_TPU_VM)
		return 0;
	if (popt_refuse(o, groups_only,
	                "mode = \"tpu_vm\", which reads this VM's slice from the metadata "
	                "server") != 0)
		return -1;
	if (o->host->cfg_get(o->group, "port") == NULL)
		conf->port = 8482;
	return 0;
}

static int check_conf(const muster_popts *o, struct gce_conf *conf)
{
	size_t n = strlen(conf->endpoint);

	if (conf->zone != NULL && !valid_name(conf->zone))
		return popt_fail(o, o->host->cfg_get(o->group, "zone"),
		                 "zone \"%s\" is not a zone name", conf->zone);
	if (strncmp(conf->endpoint, "https://", 8) != 0 && strncmp(conf->endpoint, "http://", 7) != 0)
		return popt_fail(o, o->host->cfg_get(o->group, "compute_endpoint"),
		                 "compute_endpoint must be an https:// or http:// URL, not \"%s\"",
		                 conf->endpoint);
	while (n > 0 && conf->endpoint[n - 1] == '/')
		conf->endpoint[--n] = '\0';
	return 0;
}

int gce_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	muster_popts o = { host, pc, host->cfg_root(pc) };
	struct gce_conf *conf;

	if ((conf = muster_plugin_conf_new(host, pc, sizeof(*conf))) == NULL)
		return -1;
	if (pthread_mutex_init(&conf->cache.lock, NULL) != 0) {
		free(conf);
		host->open_error(pc, NULL, "cannot create a mutex");
		return -1;
	}
	conf->pc = pc;
	if (muster_popt_read(&o, options, MUSTER_POPT_COUNT(options), conf) != 0 ||
	    check_mode(&o, conf) != 0 || check_conf(&o, conf) != 0) {
		gce_close(conf);
		return -1;
	}
	*state = conf;
	return 0;
}
