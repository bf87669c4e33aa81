/*
 * gce, mode = "tpu_vm": the workers of this Cloud TPU VM's slice
 * (docs/platforms.md §13.2), from the metadata server, through the client
 * the instance groups use.  A TPU VM has no environment variables of its
 * own; its instance attributes say it all:
 *
 *   agent-worker-number       this worker's index in the slice
 *   worker-network-endpoints  the slice's workers in worker order, a comma
 *                             list whose items are "name:id:address" (the
 *                             address is what follows the second ':') or
 *                             a host name
 *   accelerator-type          "v4-32", "v5litepod-16", ...
 *   tpu-env                   "KEY: 'value'" lines: CHIPS_PER_HOST_BOUNDS,
 *                             and MEGASCALE_* on a multislice
 *
 * Off GCE (the DMI product name) the answer is notfound without the
 * network; on GCE a metadata server without agent-worker-number (404) is
 * notfound too: a VM that is no TPU worker.  With TPU_SKIP_MDS_QUERY set
 * (GKE sets it on TPU nodes) the pod's own variables describe the slice:
 * notfound.  agent-worker-number without worker-network-endpoints is
 * unavail, as is any value that does not parse, named.
 *
 * Multislice, as JAX reads it: MEGASCALE_COORDINATOR_ADDRESS,
 * MEGASCALE_NUM_SLICES and MEGASCALE_SLICE_ID from the environment, else
 * from tpu-env; with a coordinator, worker w of slice s is task s × (the
 * slice's workers) + w, slice 0's first worker is the coordinator's host
 * and the other slices' hosts, which this slice's metadata does not give,
 * are placeholders under .invalid ("tpu-slice-<s>-host-<w>.unknown.invalid").
 *
 * Accelerators: TPU chips a worker has, from CHIPS_PER_HOST_BOUNDS (the
 * environment's TPU_CHIPS_PER_HOST_BOUNDS first, as libtpu reads it),
 * else from the accelerator type (v2, v3, v4, v5p name TensorCores, two a
 * chip; v5litepod, v5e, v6e name chips) shared evenly by the slice's
 * workers.  Placement: nodes, one a worker; port `port` (8482, JAX's TPU
 * coordinator port).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "lib/address.h"
#include "lib/env.h"

#define TPU_MAX_WORKERS (1L << 16) /* far above any slice */
#define TPU_MAX_SLICES (1L << 16)

/* What one attribute answered: 1 with *value (trimmed, the caller's to
 * free), 0 absent (404), -1 after fail(). */
static int attribute(struct gce_run *run, const char *key, char **value)
{
	char path[128], what[160];
	struct pbuf b;
	long code = 0;
	muster_status st;
	int rc = -1;

	*value = NULL;
	snprintf(path, sizeof(path), "instance/attributes/%s", key);
	snprintf(what, sizeof(what), "metadata server (%s)", path);
	pbuf_init(&b, GCE_MAX_SMALL);
	{
		char *url = plugin_asprintf("%s/computeMetadata/v1/%s", run->metadata, path);

		if (url == NULL) {
			pbuf_free(&b);
			gce_nomem(run);
			return -1;
		}
		st = gce_http(run, what, "GET", url, NULL, GCE_REQ_METADATA | GCE_REQ_RAW,
		              run->conf->metadata_timeout_ms, &b, &code);
		if (st == MUSTER_STATUS_SUCCESS && code != 200 && code != 404)
			gce_http_fail(run, what, "GET", url, code, &b);
		free(url);
	}
	if (st != MUSTER_STATUS_SUCCESS || (code != 200 && code != 404))
		goto out;
	rc = 0;
	if (code == 200) {
		size_t n = b.len;

		while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == ' ' || b.data[n - 1] == '\r'))
			n--;
		if ((*value = strndup(b.data ? b.data : "", n)) == NULL) {
			gce_nomem(run);
			rc = -1;
			goto out;
		}
		rc = 1;
	}
	muster_plugin_note_input(run->host, run->call, path, *value);
out:
	pbuf_free(&b);
	return rc;
}

int gce_tpu_endpoints(const char *text, char ***hosts, size_t *n, char *why, size_t size)
{
	char *copy = strdup(text), *save = NULL, *item, reason[200];
	size_t cap = 0;

	*hosts = NULL;
	*n = 0;
	if (copy == NULL) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	/* strtok_r would join ",," into one separator: walk by hand. */
	for (item = copy; item != NULL; item = save) {
		char *end, *host;

		if ((save = strchr(item, ',')) != NULL)
			*save++ = '\0';
		item += strspn(item, " \t\r\n");
		end = item + strlen(item);
		while (end > item && strchr(" \t\r\n", end[-1]))
			*--end = '\0';
		host = item;
		if (*item == '\0') {
			snprintf(why, size, "item %zu is empty", *n + 1);
			goto fail;
		}
		/* "name:id:address": the address follows the second ':' (it may
		 * be IPv6); a host name, the other form, has none. */
		if (strchr(item, ':') != NULL) {
			char *second = strchr(strchr(item, ':') + 1, ':');

			if (second == NULL) {
				snprintf(why, size, "item %zu (\"%.60s\") is neither a host nor "
				         "name:id:address", *n + 1, item);
				goto fail;
			}
			host = second + 1;
		}
		if (address_check_host(host, reason, sizeof(reason)) != 0) {
			snprintf(why, size, "item %zu: \"%.60s\" is no host: %s", *n + 1, host, reason);
			goto fail;
		}
		if ((long)*n >= TPU_MAX_WORKERS) {
			snprintf(why, size, "more than %ld workers", TPU_MAX_WORKERS);
			goto fail;
		}
		if (*n == cap) {
			char **grown = realloc(*hosts, (cap = cap ? 2 * cap : 8) * sizeof(**hosts));

			if (grown == NULL) {
				snprintf(why, size, "out of memory");
				goto fail;
			}
			*hosts = grown;
		}
		if (((*hosts)[*n] = strdup(host)) == NULL) {
			snprintf(why, size, "out of memory");
			goto fail;
		}
		(*n)++;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	gce_tpu_endpoints_free(*hosts, *n);
	*hosts = NULL;
	*n = 0;
	return -1;
}

void gce_tpu_endpoints_free(char **hosts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(hosts[i]);
	free(hosts);
}

int gce_tpu_env_value(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *line = text; line != NULL && *line;) {
		const char *end = strchr(line, '\n'), *p = line, *v, *ve;

		if (end == NULL)
			end = line + strlen(line);
		p += strspn(p, " \t");
		if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0) {
			v = p + klen;
			v += strspn(v, " \t");
			if (v < end && *v == ':') {
				v++;
				v += strspn(v, " \t");
				ve = end;
				while (ve > v && strchr(" \t\r'\"", ve[-1]))
					ve--;
				while (v < ve && (*v == '\'' || *v == '"'))
					v++;
				snprintf(out, size, "%.*s", (int)(ve - v), v);
				return 1;
			}
		}
		line = *end ? end + 1 : NULL;
	}
	return 0;
}

long gce_tpu_chips(const char *bounds)
{
	long chips = 1, v;
	char buf[64], *save = NULL;
	int parts = 0;

	if (bounds == NULL || snprintf(buf, sizeof(buf), "%s", bounds) >= (int)sizeof(buf))
		return 0;
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (env_parse_int(t, 1, 1L << 16, &v) < 0 || chips > (1L << 20) / v)
			return 0;
		chips *= v;
		parts++;
	}
	return parts > 0 ? chips : 0;
}

long gce_tpu_type_chips(const char *type)
{
	/* The number after the generation: TensorCores (two a chip) up to
	 * v4 and for v5p, chips for the lite pods. */
	static const struct {
		const char *prefix;
		int per_chip;
	} gens[] = { { "v2-", 2 }, { "v3-", 2 }, { "v4-", 2 }, { "v5p-", 2 },
		     { "v5litepod-", 1 }, { "v5e-", 1 }, { "v6e-", 1 } };
	long n;

	if (type == NULL)
		return 0;
	for (size_t g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		size_t k = strlen(gens[g].prefix);

		if (strncmp(type, gens[g].prefix, k) == 0 && env_parse_int(type + k, 1, 1L << 20, &n) == 0)
			return n % gens[g].per_chip == 0 ? n / gens[g].per_chip : 0;
	}
	return 0;
}

static void note(void *data, const char *name, const char *value)
{
	const struct gce_run *run = data;

	muster_plugin_note_input(run->host, run->call, name, value);
}

/* A multislice's shape: the environment's MEGASCALE_* first, else
 * tpu-env's, as JAX reads them. */
struct multislice {
	long slices, slice;
	char coordinator[256]; /* slice 0's first host; "": a single slice */
};

static const char *megascale(struct env_reader *env, const char *tpu_env, const char *key,
                             char *buf, size_t size)
{
	const char *v = env_str(env, key);

	if (v != NULL)
		return v;
	return tpu_env != NULL && gce_tpu_env_value(tpu_env, key, buf, size) ? buf : NULL;
}

static muster_status read_multislice(struct gce_run *run, struct env_reader *env,
                                     const char *tpu_env, struct multislice *m)
{
	char cbuf[300], nbuf[32], sbuf[32], why[240];
	const char *c = megascale(env, tpu_env, "MEGASCALE_COORDINATOR_ADDRESS", cbuf, sizeof(cbuf));
	const char *n, *s, *colon;

	m->slices = 1;
	m->slice = 0;
	m->coordinator[0] = '\0';
	if (c == NULL)
		return MUSTER_STATUS_SUCCESS;
	/* host, host:port, [v6] or [v6]:port */
	colon = c[0] == '[' ? strchr(c, ']') : strchr(c, ':');
	if (c[0] == '[' && colon != NULL)
		snprintf(m->coordinator, sizeof(m->coordinator), "%.*s", (int)(colon - c - 1), c + 1);
	else if (colon != NULL && strchr(colon + 1, ':') == NULL)
		snprintf(m->coordinator, sizeof(m->coordinator), "%.*s", (int)(colon - c), c);
	else
		snprintf(m->coordinator, sizeof(m->coordinator), "%s", c);
	if (address_check_host(m->coordinator, why, sizeof(why)) != 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "MEGASCALE_COORDINATOR_ADDRESS must be a host[:port], not "
		                     "\"%.80s\": %s", c, why);
	n = megascale(env, tpu_env, "MEGASCALE_NUM_SLICES", nbuf, sizeof(nbuf));
	s = megascale(env, tpu_env, "MEGASCALE_SLICE_ID", sbuf, sizeof(sbuf));
	if (n == NULL || s == NULL)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "MEGASCALE_COORDINATOR_ADDRESS is set, but %s is not (in the "
		                     "environment or the tpu-env attribute): a multislice gives "
		                     "all three",
		                     n == NULL ? "MEGASCALE_NUM_SLICES" : "MEGASCALE_SLICE_ID");
	if (env_parse_int(n, 1, TPU_MAX_SLICES, &m->slices) < 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "MEGASCALE_NUM_SLICES must be an integer from 1 to %ld, not "
		                     "\"%.40s\"", TPU_MAX_SLICES, n);
	if (env_parse_int(s, 0, m->slices - 1, &m->slice) < 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "MEGASCALE_SLICE_ID must be an index below %ld "
		                     "(MEGASCALE_NUM_SLICES), not \"%.40s\"", m->slices, s);
	return MUSTER_STATUS_SUCCESS;
}

/* TPU chips a worker has; 0 when nothing says. */
static long chips_per_worker(struct gce_run *run, struct env_reader *env, const char *tpu_env,
                             const char *type, size_t workers)
{
	char bounds[64];
	const char *b = env_str(env, "TPU_CHIPS_PER_HOST_BOUNDS");
	long all;

	if (b == NULL && tpu_env != NULL &&
	    gce_tpu_env_value(tpu_env, "CHIPS_PER_HOST_BOUNDS", bounds, sizeof(bounds)))
		b = bounds;
	if (b != NULL && gce_tpu_chips(b) > 0)
		return gce_tpu_chips(b);
	all = gce_tpu_type_chips(type);
	if (all > 0 && all % (long)workers == 0)
		return all / (long)workers;
	run->host->log(run->conf->pc, MUSTER_LOG_INFO,
	               "TPU chips per worker unknown (no CHIPS_PER_HOST_BOUNDS, accelerator type "
	               "\"%s\"): no accelerators in the answer", type ? type : "");
	return 0;
}

static muster_status build(struct gce_run *run, char *const *hosts, size_t workers, long own,
                           const struct multislice *m, long chips)
{
	const muster_host *h = run->host;
	long port = run->conf->port, total = (long)workers * m->slices;
	char address[400];

	if (muster_plugin_add_job_sized(h, run->call, "worker", total) < 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long t = 0; t < total; t++) {
		long slice = t / (long)workers, w = t % (long)workers;
		char host[300];

		if (slice == m->slice)
			snprintf(host, sizeof(host), "%s", hosts[w]);
		else if (slice == 0 && w == 0)
			snprintf(host, sizeof(host), "%s", m->coordinator);
		else
			snprintf(host, sizeof(host), "tpu-slice-%ld-host-%ld.unknown.invalid", slice, w);
		if (strchr(host, ':') != NULL)
			snprintf(address, sizeof(address), "[%s]:%ld", host, port);
		else
			snprintf(address, sizeof(address), "%s:%ld", host, port);
		if (h->add_task(run->call, "worker", t, address) < 0 ||
		    (chips > 0 && h->add_accelerator(run->call, "worker", t, "TPU", chips) < 0))
			return MUSTER_STATUS_UNAVAIL;
	}
	if (h->set_task(run->call, "worker", m->slice * (long)workers + own) < 0 ||
	    h->set_rpc_layer(run->call, run->conf->rpc_layer) < 0 ||
	    h->set_master_rule(run->call, MUSTER_MASTER_TASK) < 0 ||
	    muster_plugin_set_placement(h, run->call, MUSTER_PLACEMENT_NODES) < 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

muster_status gce_tpu_resolve(struct gce_run *run)
{
	struct env_reader env = { note, run, "" };
	char product[96], why[300], **hosts = NULL;
	char *number = NULL, *endpoints = NULL, *type = NULL, *tpu_env = NULL;
	size_t workers = 0;
	struct multislice m;
	muster_status st;
	long own;
	int rc;

	if (env_str(&env, "TPU_SKIP_MDS_QUERY") != NULL)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_NOTFOUND,
		                     "TPU_SKIP_MDS_QUERY is set: a TPU on GKE, whose pod "
		                     "variables describe the slice");
	if ((st = gce_metadata_setup(run, product, sizeof(product))) != MUSTER_STATUS_SUCCESS)
		return st;
	if (run->on_gce == 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_NOTFOUND,
		                     "not on Google Compute Engine (%s says \"%s\"): no TPU VM",
		                     run->conf->dmi_path, product);
	if ((rc = attribute(run, "agent-worker-number", &number)) <= 0) {
		/* No DMI answer and no metadata server: not GCE. */
		if (rc == 0)
			run->host->fail(run->call, "the metadata server has no agent-worker-number: "
			                           "not a TPU VM");
		return rc == 0 || run->on_gce < 0 ? MUSTER_STATUS_NOTFOUND : MUSTER_STATUS_UNAVAIL;
	}
	st = MUSTER_STATUS_UNAVAIL;
	if ((rc = attribute(run, "worker-network-endpoints", &endpoints)) == 0)
		run->host->fail(run->call, "the metadata server has agent-worker-number (%s) but no "
		                           "worker-network-endpoints: a TPU VM has both", number);
	if (rc <= 0 || attribute(run, "accelerator-type", &type) < 0 ||
	    attribute(run, "tpu-env", &tpu_env) < 0)
		goto out;
	if (gce_tpu_endpoints(endpoints, &hosts, &workers, why, sizeof(why)) != 0) {
		run->host->fail(run->call, "metadata worker-network-endpoints (\"%.80s\"): %s",
		                endpoints, why);
		goto out;
	}
	if (env_parse_int(number, 0, (long)workers - 1, &own) < 0) {
		run->host->fail(run->call, "metadata agent-worker-number must be an index below %zu "
		                           "(the workers of worker-network-endpoints), not \"%.40s\"",
		                workers, number);
		goto out;
	}
	if ((st = read_multislice(run, &env, tpu_env, &m)) == MUSTER_STATUS_SUCCESS)
		st = build(run, hosts, workers, own, &m,
		           chips_per_worker(run, &env, tpu_env, type, workers));
out:
	gce_tpu_endpoints_free(hosts, workers);
	free(number);
	free(endpoints);
	free(type);
	free(tpu_env);
	return st;
}
