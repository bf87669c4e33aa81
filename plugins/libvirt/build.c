/*
 * libvirt: task indices, self identity and the builder calls.
 *
 * Indices inside a job: a domain's metadata index is its task index
 * (gaps make a sparse job; two domains with one index are an error naming
 * both); the other domains take the lowest free indices in natural name
 * order (tf-worker-10 after tf-worker-9; order = "name" compares plain
 * strings).
 *
 * A domain whose address is not HOST:PORT (lib/address.h; the guest agent
 * reports what the guest says) is left out, with the reason at info level;
 * its index stays empty, as indices are given before addresses are asked.
 *
 * Self identity: the domain named by self_domain (name or UUID), else the
 * domain whose UUID is this machine's DMI product UUID (dmi_uuid_path; a
 * guest's SMBIOS system UUID is its domain UUID), else the domain named as
 * this machine's host name (or its first label).
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "plugins/common/natural.h"
#include "lib/address.h"
#include "virt.h"

/* Sort key: job, then explicit index, then name. */
static int cmp_common(const struct virt_domain *a, const struct virt_domain *b, int natural)
{
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	if ((a->meta_index >= 0) != (b->meta_index >= 0))
		return a->meta_index >= 0 ? -1 : 1;
	if (a->meta_index != b->meta_index)
		return a->meta_index < b->meta_index ? -1 : 1;
	return natural ? natural_cmp(a->name, b->name) : strcmp(a->name, b->name);
}

static int by_natural(const void *pa, const void *pb)
{
	return cmp_common(pa, pb, 1);
}

static int by_name(const void *pa, const void *pb)
{
	return cmp_common(pa, pb, 0);
}

static int long_cmp(const void *pa, const void *pb)
{
	long a = *(const long *)pa, b = *(const long *)pb;

	return a < b ? -1 : a > b;
}

muster_status virt_assign(struct virt_run *run)
{
	size_t i, start, end;

	if (run->ndoms == 0)
		return MUSTER_STATUS_SUCCESS;
	qsort(run->doms, run->ndoms, sizeof(*run->doms),
	      run->conf->order == VIRT_ORDER_NAME ? by_name : by_natural);
	for (start = 0; start < run->ndoms; start = end) {
		const char *job = run->jobs[run->doms[start].job].name;
		long *used, next = 0;
		size_t nused = 0, u = 0;

		for (end = start; end < run->ndoms && run->doms[end].job == run->doms[start].job; end++)
			;
		/* Explicit indices come first, sorted; duplicates are an error. */
		for (i = start; i < end && run->doms[i].meta_index >= 0; i++) {
			if (i > start && run->doms[i].meta_index == run->doms[i - 1].meta_index) {
				run->host->fail(run->call,
				                "job %s: domains %s and %s both have index %ld in their "
				                "muster metadata",
				                job, run->doms[i - 1].name, run->doms[i].name,
				                run->doms[i].meta_index);
				return MUSTER_STATUS_UNAVAIL;
			}
			run->doms[i].index = run->doms[i].meta_index;
			nused++;
		}
		if ((used = calloc(nused + 1, sizeof(long))) == NULL)
			return virt_nomem(run);
		for (i = 0; i < nused; i++)
			used[i] = run->doms[start + i].meta_index;
		qsort(used, nused, sizeof(long), long_cmp);
		for (i = start + nused; i < end; i++) {
			while (u < nused && used[u] < next)
				u++;
			while (u < nused && used[u] == next) {
				next++;
				u++;
			}
			run->doms[i].index = next++;
		}
		free(used);
	}
	return MUSTER_STATUS_SUCCESS;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* This machine's DMI product UUID; "" when unreadable. */
static void dmi_uuid(const struct virt_run *run, char *buf, size_t size)
{
	int fd = open(run->conf->dmi_uuid_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0) {
		char eb[128];

		run->host->log(run->conf->pc, MUSTER_LOG_DEBUG, "no DMI product UUID from %s: %s",
		               run->conf->dmi_uuid_path, strerror_r(errno, eb, sizeof(eb)));
		return;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	trim(buf);
}

static const struct virt_domain *find_self(struct virt_run *run, const char **how)
{
	const struct virt_conf *conf = run->conf;
	char uuid[128], host[256];
	size_t i;

	if (conf->self_domain != NULL) {
		*how = "self_domain";
		for (i = 0; i < run->ndoms; i++)
			if (strcmp(run->doms[i].name, conf->self_domain) == 0 ||
			    strcasecmp(run->doms[i].uuid, conf->self_domain) == 0)
				return &run->doms[i];
		return NULL;
	}
	dmi_uuid(run, uuid, sizeof(uuid));
	if (uuid[0] != '\0') {
		*how = "DMI product UUID";
		for (i = 0; i < run->ndoms; i++)
			if (strcasecmp(run->doms[i].uuid, uuid) == 0)
				return &run->doms[i];
	}
	if (gethostname(host, sizeof(host)) == 0) {
		char *dot;

		host[sizeof(host) - 1] = '\0';
		*how = "host name";
		for (i = 0; i < run->ndoms; i++)
			if (strcmp(run->doms[i].name, host) == 0)
				return &run->doms[i];
		if ((dot = strchr(host, '.')) != NULL) {
			*dot = '\0';
			for (i = 0; i < run->ndoms; i++)
				if (strcmp(run->doms[i].name, host) == 0)
					return &run->doms[i];
		}
	}
	return NULL;
}

muster_status virt_build(struct virt_run *run)
{
	const muster_host *h = run->host;
	const struct virt_domain *self;
	const char *how = NULL;
	size_t j, i, k;

	for (j = 0; j < run->njobs; j++)
		if (h->add_job(run->call, run->jobs[j].name) < 0)
			return MUSTER_STATUS_UNAVAIL;
	for (i = 0; i < run->ndoms; i++) {
		const struct virt_domain *d = &run->doms[i];
		const char *job = run->jobs[d->job].name;
		char why[400];

		if (address_check(d->address, why, sizeof(why)) < 0) {
			h->log(run->conf->pc, MUSTER_LOG_INFO, "job %s: domain %s is left out: %s", job,
			       d->name, why);
			continue;
		}
		if (h->add_task(run->call, job, d->index, d->address) < 0)
			return MUSTER_STATUS_UNAVAIL;
		for (k = 0; k < d->naccel; k++)
			if (h->add_accelerator(run->call, job, d->index, d->accel[k].kind,
			                       d->accel[k].count) < 0)
				return MUSTER_STATUS_UNAVAIL;
	}
	/* A domain left out is no task, not even this machine's. */
	if ((self = find_self(run, &how)) != NULL && address_check(self->address, NULL, 0) == 0) {
		if (h->set_task(run->call, run->jobs[self->job].name, self->index) < 0)
			return MUSTER_STATUS_UNAVAIL;
		h->log(run->conf->pc, MUSTER_LOG_DEBUG, "this machine is domain %s (by %s): task %s:%ld",
		       self->name, how, run->jobs[self->job].name, self->index);
	}
	if (h->set_rpc_layer(run->call, run->conf->rpc_layer) < 0 ||
	    h->set_master_rule(run->call, MUSTER_MASTER_TASK) < 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}
