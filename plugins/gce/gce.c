/*
 * gce: the training cluster from Google Compute Engine instance groups —
 * TF's GCEClusterResolver, done better:
 * several jobs and groups in one entry, project and zone from the metadata
 * server, O(pages) requests instead of 1 + N, numeric-aware name order,
 * accelerators, and the own task from the metadata server's instance name.
 *
 * Options (the entry's `config` group; muster.conf(5) has the long form):
 *   mode  "instance_groups" (default) or "tpu_vm" (this TPU VM's slice from
 *         the metadata server, tpu.c)
 *   jobs = { worker = ["group-a", "us-east1-b/group-b"]; ps = "ps-group"; }
 *   project, zone            default: the metadata server's
 *   port (8470), rpc_layer ("grpc")
 *   address ("internal" | "external"), interface (0)
 *   order ("natural" | "name" | "ip", TF's)
 *   access_token_file, credentials_file   (see auth.c for the order)
 *   compute_endpoint, dmi_product_name, self_instance,
 *   metadata_timeout_ms (1000), page_size (500), retries (3)
 * $GCE_METADATA_HOST redirects the metadata server.
 *
 * Requests per resolve: project/zone/own name from the metadata server
 * (first resolve only: cached), a token (cached until shortly before it
 * expires), one listInstances per group and page, one instances.list per
 * zone and page.
 *
 * Thread safety: everything of a resolve lives in its locals; what the
 * state caches (token, metadata answers) is under its mutex.  So:
 * MUSTER_PLUGIN_THREADSAFE.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "lib/clock.h"
#include "lib/vec.h"

/* The distinct zones of all members, in first-seen order. */
static muster_status member_zones(struct gce_run *run, const struct gce_membervec *jobs,
                                  char ***out, size_t *n)
{
	size_t j, i, z, cap = 0;
	char **v = NULL;

	*n = 0;
	for (j = 0; j < run->conf->njobs; j++)
		for (i = 0; i < jobs[j].n; i++) {
			const char *zone = jobs[j].v[i].zone;

			for (z = 0; z < *n && strcmp(v[z], zone) != 0; z++)
				;
			if (z < *n)
				continue;
			if (vec_reserve(&v, &cap, *n + 1, sizeof(*v)) < 0)
				goto nomem;
			if ((v[*n] = strdup(zone)) == NULL)
				goto nomem;
			(*n)++;
		}
	*out = v;
	return MUSTER_STATUS_SUCCESS;
nomem:
	for (z = 0; z < *n; z++)
		free(v[z]);
	free(v);
	*n = 0;
	*out = NULL;
	return gce_nomem(run);
}

static muster_status gce_resolve(void *state, const muster_host *host, muster_call *call)
{
	struct gce_conf *conf = state;
	struct gce_run run = { .host = host, .call = call, .conf = conf };
	struct gce_membervec *jobs;
	struct gce_instvec *zones = NULL;
	char **znames = NULL;
	size_t nzones = 0, j, z;
	long long start = clock_now_ms();
	muster_status st;

	if (conf->mode == GCE_MODE_TPU_VM) {
		if ((st = gce_http_setup(&run)) == MUSTER_STATUS_SUCCESS)
			st = gce_tpu_resolve(&run);
		gce_http_cleanup(&run);
		free(run.metadata);
		return st;
	}
	if ((jobs = calloc(conf->njobs, sizeof(*jobs))) == NULL)
		return gce_nomem(&run);

	st = gce_http_setup(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = gce_env(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = gce_auth(&run);
	for (j = 0; j < conf->njobs && st == MUSTER_STATUS_SUCCESS; j++)
		st = gce_members(&run, j, &jobs[j]);
	if (st == MUSTER_STATUS_SUCCESS)
		st = member_zones(&run, jobs, &znames, &nzones);
	if (st == MUSTER_STATUS_SUCCESS && nzones > 0 &&
	    (zones = calloc(nzones, sizeof(*zones))) == NULL)
		st = gce_nomem(&run);
	for (z = 0; z < nzones && st == MUSTER_STATUS_SUCCESS; z++)
		st = gce_instances(&run, znames[z], &zones[z]);
	if (st == MUSTER_STATUS_SUCCESS)
		st = gce_build(&run, jobs, znames, zones, nzones);
	if (st == MUSTER_STATUS_SUCCESS)
		host->log(conf->pc, MUSTER_LOG_DEBUG, "%ld requests, %ld ms", run.requests,
		          (long)(clock_now_ms() - start));

	for (z = 0; z < nzones; z++) {
		if (zones != NULL)
			gce_instvec_free(&zones[z]);
		free(znames[z]);
	}
	free(zones);
	free(znames);
	for (j = 0; j < conf->njobs; j++)
		gce_membervec_free(&jobs[j]);
	free(jobs);
	gce_http_cleanup(&run);
	if (run.token != NULL) {
		memset(run.token, 0, strlen(run.token));
		free(run.token);
	}
	free(run.metadata);
	free(run.project_buf);
	free(run.zone_buf);
	free(run.self_buf);
	return st;
}

static const muster_plugin gce_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE,
	"gce",
	PACKAGE_VERSION,
	gce_open,
	gce_resolve,
	gce_close,
};

MUSTER_PLUGIN_DEFINE(gce_plugin)
