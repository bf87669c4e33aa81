/*
 * A Cloud TPU slice on GKE, docs/platforms.md §13.1 (TPU VMs, which only
 * the metadata server describes, are the gce backend's).
 *
 * Detect: TPU_WORKER_ID with TPU_WORKER_HOSTNAMES (one process a host,
 * ordered by worker id) or TPU_PROCESS_ADDRESSES ("host:port" a process,
 * several a host under LeaderWorkerSet); one without the other: unavail.
 *
 * Multislice: MEGASCALE_NUM_SLICES slices of the same shape, this one
 * MEGASCALE_SLICE_ID; worker w of slice s is task s × (workers a slice)
 * + w.  Only this slice's hosts are given: slice 0's first is
 * MEGASCALE_COORDINATOR_ADDRESS's host, the others placeholders
 * ("tpu-slice-<s>-host-<h>.unknown.invalid", laid out as this slice is).
 *
 * Accelerators: TPU chips a host from TPU_CHIPS_PER_HOST_BOUNDS ("2,2,1"),
 * else TPU_TOPOLOGY ("4x4") over the slice's hosts, shared evenly by a
 * host's processes.  Port: the entry's (8482 in the shipped chain, JAX's
 * TPU coordinator port); the k-th process of a host at port + k.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "platforms.h"

/* One slice as this one is laid out: each worker's host. */
struct slice {
	struct env_list list;  /* the variable's items */
	const char **host;     /* per worker: its host (into list, or hosts_buf) */
	long *on_host;         /* per worker: the position of its host among the slice's */
	long *local;           /* per worker: its position on its host */
	long *per_host;        /* per host position: workers on it */
	long workers, hosts;
	int processes;         /* TPU_PROCESS_ADDRESSES: several a host */
	char *hosts_buf;
};

static void slice_free(struct slice *s)
{
	env_list_free(&s->list);
	free(s->host);
	free(s->on_host);
	free(s->local);
	free(s->per_host);
	free(s->hosts_buf);
}

/* The workers' hosts: 0, or -1 after fail(). */
static int read_slice(struct pf_run *run, struct slice *s)
{
	const char *var = s->processes ? "TPU_PROCESS_ADDRESSES" : "TPU_WORKER_HOSTNAMES";
	int rc = s->processes ? env_list(&run->env, var, ",", PF_MAX_TASKS, &s->list)
	                      : env_hosts(&run->env, var, ",", PF_MAX_TASKS, &s->list);
	char why[300];
	size_t w, h;

	if (rc <= 0) {
		run->host->fail(run->call, "%s", run->env.why);
		return -1;
	}
	s->workers = (long)s->list.n;
	s->host = calloc(s->list.n, sizeof(*s->host));
	s->on_host = calloc(s->list.n, sizeof(*s->on_host));
	s->local = calloc(s->list.n, sizeof(*s->local));
	s->per_host = calloc(s->list.n, sizeof(*s->per_host));
	s->hosts_buf = calloc(s->list.n, 256);
	if (!s->host || !s->on_host || !s->local || !s->per_host || !s->hosts_buf) {
		run->host->fail(run->call, "out of memory");
		return -1;
	}
	for (w = 0; w < s->list.n; w++) {
		const char *item = s->list.items[w];

		if (s->processes) {
			if (address_check(item, why, sizeof(why)) != 0) {
				run->host->fail(run->call, "%s item %zu: %s", var, w + 1, why);
				return -1;
			}
			snprintf(s->hosts_buf + 256 * w, 256, "%.*s", (int)(strrchr(item, ':') - item),
			         item);
			item = s->hosts_buf + 256 * w;
		}
		s->host[w] = item;
		for (h = 0; h < w && strcmp(s->host[h], item) != 0; h++)
			;
		s->on_host[w] = h < w ? s->on_host[h] : s->hosts++;
		s->local[w] = s->per_host[s->on_host[w]]++;
	}
	return 0;
}

/* A product of numbers separated by `seps` ("2,2,1", "4x4"): >0, or 0. */
static long product(const char *text, const char *seps)
{
	long p = 1, v;
	char buf[64], *save = NULL;

	if (text == NULL || text[0] == '\0' ||
	    snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return 0;
	for (char *t = strtok_r(buf, seps, &save); t != NULL; t = strtok_r(NULL, seps, &save)) {
		if (env_parse_int(t, 1, 1L << 16, &v) < 0 || p > (1L << 20) / v)
			return 0;
		p *= v;
	}
	return p;
}

/* TPU chips a host has, 0 when not known. */
static long chips_per_host(struct pf_run *run, const struct slice *s)
{
	long chips = product(env_str(&run->env, "TPU_CHIPS_PER_HOST_BOUNDS"), ",");
	long all = product(env_str(&run->env, "TPU_TOPOLOGY"), "x");

	if (chips > 0)
		return chips;
	return all > 0 && all % s->hosts == 0 ? all / s->hosts : 0;
}

/* The host of "host", "host:port", "[v6]" or "[v6]:port" (a bare IPv6
 * address, with several ':', is all host). */
static void host_part(char *out, size_t size, const char *value)
{
	const char *colon = strchr(value, ':');
	size_t n = strlen(value);

	if (value[0] == '[' && strchr(value, ']') != NULL)
		n = (size_t)(strchr(value, ']') - value) + 1;
	else if (colon != NULL && strchr(colon + 1, ':') == NULL)
		n = (size_t)(colon - value);
	snprintf(out, size, "%.*s", (int)n, value);
}

struct multislice {
	long slices, slice;
	char coordinator[256]; /* slice 0's first host; "" when not given */
};

static muster_status read_multislice(struct pf_run *run, struct multislice *m)
{
	struct env_reader *env = &run->env;
	const char *c;

	m->slices = 1;
	m->slice = 0;
	m->coordinator[0] = '\0';
	if (env_int(env, "MEGASCALE_NUM_SLICES", 1, 1L << 16, &m->slices) < 0)
		return pf_env_failed(run);
	if (m->slices > 1 &&
	    env_index(env, "MEGASCALE_SLICE_ID", m->slices, "MEGASCALE_NUM_SLICES", &m->slice) <= 0)
		return pf_env_failed(run);
	if ((c = env_str(env, "MEGASCALE_COORDINATOR_ADDRESS")) != NULL) {
		char why[240];

		host_part(m->coordinator, sizeof(m->coordinator), c);
		if (address_check_host(m->coordinator, why, sizeof(why)) != 0)
			return pf_unavail(run, "MEGASCALE_COORDINATOR_ADDRESS must be a host[:port], not "
			                       "\"%s\": %s", c, why);
	}
	if (m->slice != 0 && m->coordinator[0] == '\0')
		return pf_unavail(run, "MEGASCALE_COORDINATOR_ADDRESS is not set on slice %ld: the "
		                       "master (slice 0's first host) is unknown", m->slice);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status build(struct pf_run *run, const struct slice *s, const struct multislice *m,
                           long worker)
{
	long total = s->workers * m->slices, chips = chips_per_host(run, s), port = run->port;
	char host[300], stem[64], address[320];

	if (port + s->workers - 1 > 65535)
		return pf_unavail(run, "port %ld + %ld processes a host is past 65535", port,
		                  s->workers);
	if (muster_plugin_add_job_sized(run->host, run->call, "worker", total) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long t = 0; t < total; t++) {
		long slice = t / s->workers, w = t % s->workers, on = s->on_host[w];
		const char *name;

		if (slice == m->slice) {
			name = pf_host_form(host, sizeof(host), s->host[w]);
		} else if (slice == 0 && on == 0) {
			name = pf_host_form(host, sizeof(host), m->coordinator);
		} else {
			snprintf(stem, sizeof(stem), "tpu-slice-%ld-host", slice);
			pf_placeholder(host, sizeof(host), stem, on);
			name = host;
		}
		snprintf(address, sizeof(address), "%s:%ld", name, port + s->local[w]);
		if (run->host->add_task(run->call, "worker", t, address) != 0)
			return MUSTER_STATUS_UNAVAIL;
		if (chips > 0 && chips % s->per_host[on] == 0 &&
		    run->host->add_accelerator(run->call, "worker", t, "TPU",
		                               chips / s->per_host[on]) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	return pf_finish(run, "worker", m->slice * s->workers + worker,
	                 s->processes ? MUSTER_PLACEMENT_PROCESSES : MUSTER_PLACEMENT_NODES);
}

muster_status pf_tpu(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	struct slice s = { .processes = 0 };
	struct multislice m;
	int has_id = env_str(env, "TPU_WORKER_ID") != NULL;
	int has_hosts = env_str(env, "TPU_WORKER_HOSTNAMES") != NULL;
	long worker;
	muster_status st;

	s.processes = env_str(env, "TPU_PROCESS_ADDRESSES") != NULL;
	if (!has_id && !has_hosts && !s.processes)
		return pf_notfound(run, "none of TPU_WORKER_ID, TPU_WORKER_HOSTNAMES and "
		                        "TPU_PROCESS_ADDRESSES is set: not a TPU slice on GKE");
	if (!has_id)
		return pf_unavail(run, "TPU_WORKER_ID is not set, but %s is: GKE sets them together",
		                  s.processes ? "TPU_PROCESS_ADDRESSES" : "TPU_WORKER_HOSTNAMES");
	if (!has_hosts && !s.processes)
		return pf_unavail(run, "TPU_WORKER_ID is set but neither TPU_WORKER_HOSTNAMES nor "
		                       "TPU_PROCESS_ADDRESSES is: the slice's hosts are unknown");
	if (read_slice(run, &s) != 0)
		st = MUSTER_STATUS_UNAVAIL;
	else if (env_index(env, "TPU_WORKER_ID", s.workers,
	                   s.processes ? "TPU_PROCESS_ADDRESSES" : "TPU_WORKER_HOSTNAMES",
	                   &worker) <= 0)
		st = pf_env_failed(run);
	else if ((st = read_multislice(run, &m)) == MUSTER_STATUS_SUCCESS)
		st = build(run, &s, &m, worker);
	slice_free(&s);
	return st;
}
