/*
 * libvirt: the training cluster from the virtual machines of a libvirt
 * host (TF has no such resolver).
 *
 * Options (the entry's `config` group; muster.conf(5) has the long form):
 *   uri         libvirt URI, default qemu:///system, always opened read-only
 *   jobs        { JOB = "name glob" | ["glob", ...]; } — membership by
 *               domain name (fnmatch); absent: by metadata only
 *   inactive    "tryagain" (default) | "skip": a member defined but not
 *               running
 *   sources     ["lease", "agent", "arp"] (default, in this order)
 *   network, interface, family ("any": IPv4 preferred | "ipv4" | "ipv6")
 *   port        8470 (TF's), order "natural" (default) | "name"
 *   accelerators { KIND = ["PCI vendor ID", ...]; }
 *   self_domain, dmi_uuid_path, rpc_layer ("grpc")
 *   address_poll_ms  10000: how often a watch resolves again anyway, for
 *               address changes libvirt sends no event for (watch.c)
 *
 * A domain's own metadata element (namespace VIRT_NS, see domain.c) wins
 * over the globs: it names the job, and may give the index, the port and
 * the accelerators.
 *
 * Answers: notfound when there is no libvirt daemon at the default URI or
 * no domain is a member of any job; unavail when the connection or a call
 * fails (with libvirt's own message) or metadata is malformed; tryagain
 * while a member is not running (naming it; inactive = "skip" drops such
 * domains), a running member has no address yet, or a job has no running
 * domain; success otherwise, with MUSTER_MASTER_TASK.
 *
 * Thread safety: every resolve opens its own connection and keeps all it
 * learns in locals; the state is read-only after open().  The one shared
 * thing, libvirt's process-wide error handler, is swapped under a lock in
 * conn.c.  So: MUSTER_PLUGIN_THREADSAFE.  watch() (watch.c) keeps its own
 * connection and touches the state read-only too.
 */
#include <config.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "virt.h"

static const char *virt_state_name(int state)
{
	switch (state) {
	case VIR_DOMAIN_RUNNING: return "running";
	case VIR_DOMAIN_BLOCKED: return "blocked";
	case VIR_DOMAIN_PAUSED: return "paused";
	case VIR_DOMAIN_SHUTDOWN: return "shutting down";
	case VIR_DOMAIN_SHUTOFF: return "shut off";
	case VIR_DOMAIN_CRASHED: return "crashed";
	case VIR_DOMAIN_PMSUSPENDED: return "suspended by power management";
	default: return "in no state";
	}
}

long virt_member_job(const struct virt_conf *conf, const struct virt_domain *d)
{
	size_t j, g;

	if (conf->njobs == 0)
		return d->has_meta ? 0 : -1;
	if (d->has_meta) {
		for (j = 0; j < conf->njobs; j++)
			if (strcmp(conf->jobs[j].name, d->meta_job) == 0)
				return (long)j;
		return -1;
	}
	for (j = 0; j < conf->njobs; j++)
		for (g = 0; g < conf->jobs[j].nglobs; g++)
			if (fnmatch(conf->jobs[j].globs[g], d->name, 0) == 0)
				return (long)j;
	return -1;
}

/* Which job the domain belongs to: its index in run->jobs, or -1. */
static long job_of(struct virt_run *run, const struct virt_domain *d)
{
	const struct virt_conf *conf = run->conf;
	long j = virt_member_job(conf, d);
	size_t k;

	if (j < 0 && d->has_meta)
		run->host->log(conf->pc, MUSTER_LOG_DEBUG,
		               "domain %s: its metadata names job %s, which is not configured",
		               d->name, d->meta_job);
	if (j < 0 || conf->njobs > 0)
		return j; /* configured jobs: run->jobs is conf->jobs, in order */
	for (k = 0; k < run->njobs; k++)
		if (strcmp(run->jobs[k].name, d->meta_job) == 0)
			return (long)k;
	return -1;
}

/* Metadata-only mode: each job a member's metadata names, alphabetically. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static muster_status meta_jobs(struct virt_run *run, struct virt_domain *all, size_t n)
{
	size_t i, j, count = 0;

	if ((run->meta_jobs = calloc(n + 1, sizeof(char *))) == NULL)
		return virt_nomem(run);
	for (i = 0; i < n; i++) {
		if (!all[i].has_meta)
			continue;
		for (j = 0; j < count; j++)
			if (strcmp(run->meta_jobs[j], all[i].meta_job) == 0)
				break;
		if (j == count && (run->meta_jobs[count++] = strdup(all[i].meta_job)) == NULL)
			return virt_nomem(run);
	}
	qsort(run->meta_jobs, count, sizeof(char *), cmp_str);
	if ((run->jobs = calloc(count + 1, sizeof(*run->jobs))) == NULL)
		return virt_nomem(run);
	for (j = 0; j < count; j++)
		run->jobs[j].name = run->meta_jobs[j];
	run->njobs = count;
	return MUSTER_STATUS_SUCCESS;
}

static muster_status conf_jobs(struct virt_run *run)
{
	size_t j;

	if ((run->jobs = calloc(run->conf->njobs, sizeof(*run->jobs))) == NULL)
		return virt_nomem(run);
	for (j = 0; j < run->conf->njobs; j++) {
		run->jobs[j].name = run->conf->jobs[j].name;
		run->jobs[j].conf = &run->conf->jobs[j];
	}
	run->njobs = run->conf->njobs;
	return MUSTER_STATUS_SUCCESS;
}

static void describe_jobs(const struct virt_run *run, char *buf, size_t size)
{
	const struct virt_conf *conf = run->conf;
	size_t j, g, len;

	if (conf->njobs == 0) {
		snprintf(buf, size, "no domain has muster metadata (<task> in %s)", VIRT_NS);
		return;
	}
	snprintf(buf, size, "no domain matches");
	for (j = 0; j < conf->njobs; j++)
		for (g = 0; g < conf->jobs[j].nglobs; g++) {
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s \"%s\" (%s)",
			         j + g == 0 ? "" : ",", conf->jobs[j].globs[g], conf->jobs[j].name);
		}
	len = strlen(buf);
	snprintf(buf + len, size - len, " or names a configured job in its muster metadata");
}

static int cmp_uuid(const void *a, const void *b)
{
	return memcmp(a, b, VIR_UUID_BUFLEN);
}

/* The UUIDs of the running domains, sorted: one call instead of a state
 * query per domain (an RPC each on a real daemon). */
static muster_status running_set(struct virt_run *run, unsigned char **uuids, size_t *n)
{
	virDomainPtr *list = NULL;
	int count, i;

	run->calls++;
	count = virConnectListAllDomains(run->conn, &list, VIR_CONNECT_LIST_DOMAINS_RUNNING);
	if (count < 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s: cannot list running domains: %s", run->conf->uri,
		                     virt_last_error());
	*uuids = malloc((size_t)count * VIR_UUID_BUFLEN + 1);
	for (i = 0; i < count; i++) {
		if (*uuids != NULL && virDomainGetUUID(list[i], *uuids + (size_t)i * VIR_UUID_BUFLEN) < 0)
			memset(*uuids + (size_t)i * VIR_UUID_BUFLEN, 0, VIR_UUID_BUFLEN);
		virDomainFree(list[i]);
	}
	free(list);
	if (*uuids == NULL)
		return virt_nomem(run);
	qsort(*uuids, (size_t)count, VIR_UUID_BUFLEN, cmp_uuid);
	*n = (size_t)count;
	return MUSTER_STATUS_SUCCESS;
}

/* Lists every domain, reads each, keeps the members in run->doms. */
static muster_status collect(struct virt_run *run)
{
	const struct virt_conf *conf = run->conf;
	unsigned char *running = NULL;
	size_t nrunning = 0;
	virDomainPtr *list = NULL;
	struct virt_domain *all = NULL;
	muster_status st = MUSTER_STATUS_SUCCESS;
	int n, i;
	size_t kept = 0, k;

	run->calls++;
	if ((n = virConnectListAllDomains(run->conn, &list, 0)) < 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s: cannot list domains: %s", conf->uri, virt_last_error());
	if ((all = calloc((size_t)n + 1, sizeof(*all))) == NULL) {
		st = virt_nomem(run);
		goto out;
	}
	if ((st = running_set(run, &running, &nrunning)) != MUSTER_STATUS_SUCCESS)
		goto out;
	for (i = 0; i < n && st == MUSTER_STATUS_SUCCESS; i++) {
		struct virt_domain *d = &all[i];
		const char *name;
		unsigned char raw[VIR_UUID_BUFLEN];
		char *xml = NULL;
		int reason, failed;

		d->dom = list[i];
		list[i] = NULL;
		if ((name = virDomainGetName(d->dom)) == NULL || (d->name = strdup(name)) == NULL) {
			st = virt_nomem(run);
			break;
		}
		if (virDomainGetUUIDString(d->dom, d->uuid) < 0)
			d->uuid[0] = '\0';
		if (run->host->remaining_ms(run->call) <= 0) {
			run->host->fail(run->call, "the time budget ran out after reading %d of %d "
			                           "domains",
			                i, n);
			st = MUSTER_STATUS_UNAVAIL;
			break;
		}
		d->running = virDomainGetUUID(d->dom, raw) == 0 && nrunning > 0 &&
		             bsearch(raw, running, nrunning, VIR_UUID_BUFLEN, cmp_uuid) != NULL;
		d->state = VIR_DOMAIN_RUNNING;
		run->calls++;
		failed = (!d->running && (run->calls++, virDomainGetState(d->dom, &d->state, &reason,
		                                                            0) < 0)) ||
		         (xml = virDomainGetXMLDesc(d->dom, 0)) == NULL;
		if (failed) {
			if (virt_last_error_code() == VIR_ERR_NO_DOMAIN) {
				virt_domain_clear(d); /* undefined while we looked */
				continue;
			}
			run->host->fail(run->call, "domain %s: %s", d->name, virt_last_error());
			st = MUSTER_STATUS_UNAVAIL;
			break;
		}
		/* A domain that started after the running list was taken. */
		if (!d->running)
			d->running = d->state == VIR_DOMAIN_RUNNING;
		st = virt_domain_parse(run, d, xml);
		free(xml);
	}
	if (st != MUSTER_STATUS_SUCCESS)
		goto out;
	st = conf->njobs > 0 ? conf_jobs(run) : meta_jobs(run, all, (size_t)n);
	if (st != MUSTER_STATUS_SUCCESS)
		goto out;
	/* Keep the members, in place. */
	for (i = 0; i < n; i++) {
		long j = all[i].name != NULL ? job_of(run, &all[i]) : -1;

		if (j < 0) {
			virt_domain_clear(&all[i]);
			continue;
		}
		all[i].job = (size_t)j;
		if ((size_t)i != kept) {
			all[kept] = all[i];
			memset(&all[i], 0, sizeof(all[i]));
		}
		kept++;
	}
	run->doms = all;
	run->ndoms = kept;
	all = NULL;
out:
	free(running);
	if (all != NULL) {
		for (k = 0; k < (size_t)n; k++)
			virt_domain_clear(&all[k]);
		free(all);
	}
	if (list != NULL) {
		for (i = 0; i < n; i++)
			if (list[i] != NULL)
				virDomainFree(list[i]);
		free(list);
	}
	return st;
}

/* Members not running: tryagain naming the first, or dropped. */
static muster_status readiness(struct virt_run *run)
{
	const struct virt_conf *conf = run->conf;
	size_t i, kept = 0, down = 0, first = 0, j;
	char msg[512];

	if (run->ndoms == 0) {
		describe_jobs(run, msg, sizeof(msg));
		run->host->fail(run->call, "%s on %s", msg, conf->uri);
		return MUSTER_STATUS_NOTFOUND;
	}
	for (i = 0; i < run->ndoms; i++)
		if (!run->doms[i].running && down++ == 0)
			first = i;
	if (down > 0 && conf->inactive == VIRT_INACTIVE_TRYAGAIN) {
		const struct virt_domain *d = &run->doms[first];

		run->host->fail(run->call, "domain %s (job %s) is %s; %zu of %zu domains not running "
		                           "(inactive = \"skip\" leaves them out)",
		                d->name, run->jobs[d->job].name, virt_state_name(d->state), down,
		                run->ndoms);
		return MUSTER_STATUS_TRYAGAIN;
	}
	for (i = 0; i < run->ndoms; i++) {
		if (!run->doms[i].running) {
			run->host->log(conf->pc, MUSTER_LOG_INFO, "domain %s is %s: left out",
			               run->doms[i].name, virt_state_name(run->doms[i].state));
			virt_domain_clear(&run->doms[i]);
			continue;
		}
		if (i != kept) {
			run->doms[kept] = run->doms[i];
			memset(&run->doms[i], 0, sizeof(run->doms[i]));
		}
		kept++;
	}
	run->ndoms = kept;
	for (i = 0; i < run->ndoms; i++)
		run->jobs[run->doms[i].job].nmembers++;
	for (j = 0; j < run->njobs; j++)
		if (run->jobs[j].nmembers == 0)
			return plugin_answer(run->host, run->call, MUSTER_STATUS_TRYAGAIN,
			                     "no running domain of job %s yet", run->jobs[j].name);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status virt_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct virt_conf *conf = state;
	struct virt_run run = { .host = host, .call = call, .conf = conf };
	muster_status st;
	size_t i;

	st = virt_connect(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = collect(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = readiness(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		st = virt_assign(&run);
	for (i = 0; i < run.ndoms && st == MUSTER_STATUS_SUCCESS; i++) {
		struct virt_domain *d = &run.doms[i];

		if (host->remaining_ms(call) <= 0) {
			host->fail(call, "the time budget ran out after %zu of %zu addresses", i,
			           run.ndoms);
			st = MUSTER_STATUS_UNAVAIL;
			break;
		}
		st = virt_address(&run, d, d->meta_port > 0 ? d->meta_port : conf->port);
		if (st == MUSTER_STATUS_SUCCESS)
			st = virt_accelerators(&run, d);
	}
	if (st == MUSTER_STATUS_SUCCESS)
		st = virt_build(&run);
	if (st == MUSTER_STATUS_SUCCESS)
		host->log(conf->pc, MUSTER_LOG_DEBUG, "%s: %zu domains, %ld libvirt calls", conf->uri,
		          run.ndoms, run.calls);

	for (i = 0; i < run.ndoms; i++)
		virt_domain_clear(&run.doms[i]);
	free(run.doms);
	if (run.meta_jobs != NULL)
		for (i = 0; run.meta_jobs[i] != NULL; i++)
			free(run.meta_jobs[i]);
	free(run.meta_jobs);
	free(run.jobs);
	virt_nodedevs_free(&run);
	virt_disconnect(&run);
	return st;
}

static const muster_plugin virt_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE,
	"libvirt",
	PACKAGE_VERSION,
	virt_open,
	virt_resolve,
	virt_close,
	virt_watch,
};

MUSTER_PLUGIN_DEFINE(virt_plugin)
