/*
 * gce: are we on Google Compute Engine, and the metadata server's answers.
 *
 * Off GCE the answer must come without waiting on the network:
 *  1. the DMI product name (/sys/class/dmi/id/product_name, the
 *     `dmi_product_name` option): "Google Compute Engine" (or any
 *     "Google..."): on GCE, and a metadata server that does not answer is
 *     a failure (unavail); anything else: not on GCE, and the metadata
 *     server is never contacted — unless $GCE_METADATA_HOST redirects it
 *     (emulators, tests), which makes it case 2;
 *  2. no DMI file (not Linux, a sandbox): the first metadata request is a
 *     probe bounded by metadata_timeout_ms (1 s); no answer: not on GCE.
 * Not on GCE and the config lacks what only the metadata server knows
 * (project, zone): notfound.  With project, zone and file credentials
 * configured, the cluster can be listed from anywhere (a launcher on a
 * laptop); self identity is then unknown unless `self_instance` says.
 *
 * Project, zone and the own name never change for an instance's life: the
 * first answers are cached in the state (under its mutex).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "lib/env.h"

muster_status gce_metadata_get(struct gce_run *run, const char *path, long timeout_ms,
                               struct pbuf *out)
{
	char *url = plugin_asprintf("%s/computeMetadata/v1/%s", run->metadata, path);
	char what[160];
	muster_status st;
	long code;

	if (url == NULL)
		return gce_nomem(run);
	snprintf(what, sizeof(what), "metadata server (%s)", path);
	st = gce_http(run, what, "GET", url, NULL, GCE_REQ_METADATA, timeout_ms, out, &code);
	free(url);
	return st;
}

/* A short metadata value, trimmed; NULL after fail(). */
static char *metadata_value(struct gce_run *run, const char *path)
{
	struct pbuf b;
	char *v = NULL;
	size_t n, i;

	pbuf_init(&b, GCE_MAX_SMALL);
	if (gce_metadata_get(run, path, run->conf->metadata_timeout_ms, &b) ==
	    MUSTER_STATUS_SUCCESS) {
		n = b.len;
		while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == ' '))
			n--;
		for (i = 0; i < n && b.data[i] >= 0x20 && b.data[i] < 0x7f; i++)
			;
		if (n == 0 || i < n)
			run->host->fail(run->call, "metadata server (%s): the answer is %s", path,
			                n == 0 ? "empty" : "not a printable value");
		else if ((v = strndup(b.data, n)) == NULL)
			gce_nomem(run);
	}
	pbuf_free(&b);
	return v;
}

/* 1: Google, 0: another machine, -1: unknown; `name` gets what it says. */
static int dmi_says(const struct gce_conf *conf, char *name, size_t size)
{
	char *data;
	size_t len, n;

	name[0] = '\0';
	if (plugin_read_file(conf->dmi_path, GCE_MAX_FILE, &data, &len) != 0)
		return -1;
	n = len;
	while (n > 0 && (data[n - 1] == '\n' || data[n - 1] == ' '))
		n--;
	snprintf(name, size, "%.*s", (int)(n < 80 ? n : 80), data);
	free(data);
	return strncmp(name, "Google", 6) == 0 ? 1 : 0;
}

/* The cached value of `slot`, or the metadata server's (then cached). */
static muster_status cached(struct gce_run *run, char **slot, const char *path,
                            int from_zone_url, char **out)
{
	struct gce_cache *c = &run->conf->cache;
	char *v;

	pthread_mutex_lock(&c->lock);
	v = *slot != NULL ? strdup(*slot) : NULL;
	pthread_mutex_unlock(&c->lock);
	if (v != NULL) {
		*out = v;
		return MUSTER_STATUS_SUCCESS;
	}
	if ((v = metadata_value(run, path)) == NULL)
		return MUSTER_STATUS_UNAVAIL;
	if (from_zone_url) { /* "projects/NUMBER/zones/ZONE" */
		char *z = strdup(gce_basename(v));

		free(v);
		if ((v = z) == NULL)
			return gce_nomem(run);
	}
	pthread_mutex_lock(&c->lock);
	if (*slot == NULL)
		*slot = strdup(v); /* out of memory: simply not cached */
	pthread_mutex_unlock(&c->lock);
	*out = v;
	return MUSTER_STATUS_SUCCESS;
}

static int needs_zone(const struct gce_conf *conf)
{
	size_t j, k;

	if (conf->zone != NULL)
		return 0;
	for (j = 0; j < conf->njobs; j++)
		for (k = 0; k < conf->jobs[j].ngroups; k++)
			if (conf->jobs[j].groups[k].zone == NULL)
				return 1;
	return 0;
}

muster_status gce_metadata_setup(struct gce_run *run, char *product, size_t size)
{
	const char *mh = env_get("GCE_METADATA_HOST");
	int dmi = dmi_says(run->conf, product, size);

	run->on_gce = dmi;
	if (mh != NULL && mh[0] != '\0') {
		/* Redirected: whatever the DMI name, ask (briefly) before
		 * deciding this is not GCE. */
		if (dmi == 0)
			run->on_gce = -1;
		run->metadata = strncmp(mh, "http://", 7) == 0 ? strdup(mh)
		                                               : plugin_asprintf("http://%s", mh);
	} else
		run->metadata = plugin_asprintf("http://%s", GCE_DEFAULT_METADATA);
	return run->metadata == NULL ? gce_nomem(run) : MUSTER_STATUS_SUCCESS;
}

muster_status gce_env(struct gce_run *run)
{
	const struct gce_conf *conf = run->conf;
	char product[96];
	int need_zone = needs_zone(conf);
	muster_status st;

	if ((st = gce_metadata_setup(run, product, sizeof(product))) != MUSTER_STATUS_SUCCESS)
		return st;
	run->project = conf->project;
	run->zone = conf->zone;
	if (run->on_gce == 0 && (conf->project == NULL || need_zone)) {
		run->host->fail(run->call,
		                "not on Google Compute Engine (%s says \"%s\"), and %s%s%s is not "
		                "configured",
		                conf->dmi_path, product, conf->project == NULL ? "project" : "",
		                conf->project == NULL && need_zone ? " or " : "",
		                need_zone ? "zone" : "");
		return MUSTER_STATUS_NOTFOUND;
	}
	if (conf->project == NULL) {
		st = cached(run, &run->conf->cache.project, "project/project-id", 0, &run->project_buf);
		if (st != MUSTER_STATUS_SUCCESS)
			/* No DMI answer and no metadata server: not GCE. */
			return run->on_gce < 0 ? MUSTER_STATUS_NOTFOUND : st;
		run->on_gce = 1;
		run->project = run->project_buf;
	}
	if (need_zone) {
		st = cached(run, &run->conf->cache.zone, "instance/zone", 1, &run->zone_buf);
		if (st != MUSTER_STATUS_SUCCESS)
			return run->on_gce < 0 ? MUSTER_STATUS_NOTFOUND : st;
		run->on_gce = 1;
		run->zone = run->zone_buf;
	}
	run->host->log(conf->pc, MUSTER_LOG_DEBUG, "project %s, zone %s%s", run->project,
	               run->zone != NULL ? run->zone : "(per group)",
	               run->on_gce > 0 ? ", on GCE" : run->on_gce == 0 ? ", not on GCE" : "");
	return MUSTER_STATUS_SUCCESS;
}

const char *gce_self(struct gce_run *run)
{
	struct gce_cache *c = &run->conf->cache;
	int absent;

	if (run->conf->self_instance != NULL)
		return run->conf->self_instance;
	if (run->self_buf != NULL)
		return run->self_buf;
	if (run->on_gce == 0)
		return NULL;
	pthread_mutex_lock(&c->lock);
	absent = c->self_absent;
	pthread_mutex_unlock(&c->lock);
	if (absent)
		return NULL;
	if (cached(run, &c->self, "instance/name", 0, &run->self_buf) != MUSTER_STATUS_SUCCESS) {
		/* Not an error: the cluster is known, only "who am I" is not. */
		run->host->log(run->conf->pc, MUSTER_LOG_INFO,
		               "own instance name unknown (metadata server did not say)");
		if (run->on_gce < 0) { /* no DMI file, no metadata server: never ask again */
			pthread_mutex_lock(&c->lock);
			c->self_absent = 1;
			pthread_mutex_unlock(&c->lock);
		}
		return NULL;
	}
	return run->self_buf;
}
