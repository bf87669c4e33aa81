/*
 * gce: the answer — each job's members found among the zones' RUNNING
 * instances, ordered, indexed, with addresses, accelerators and the own
 * task.
 *
 * Order inside a job: groups in the order configured, and inside a group
 *   natural  instance names, digit runs as numbers (w-9 before w-10);
 *   name     instance names as plain strings;
 *   ip       the "ip:port" strings as plain strings — TF's order (its
 *            UnionClusterResolver then concatenates groups the same way).
 * A member missing from instances.list stopped between the two calls: it
 * is left out (logged).  So is an instance whose address is not HOST:PORT
 * (lib/address.h), with the reason at info level.  A job left with no
 * instance: tryagain.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "plugins/common/natural.h"
#include "lib/address.h"

struct task {
	const struct gce_member *m;
	const struct gce_inst *in;
	char *addr;
};

static int tie(const struct task *a, const struct task *b)
{
	return strcmp(a->m->zone, b->m->zone);
}

static int by_natural(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	int c;

	if (a->m->group != b->m->group)
		return a->m->group < b->m->group ? -1 : 1;
	return (c = natural_cmp(a->m->name, b->m->name)) != 0 ? c : tie(a, b);
}

static int by_name(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	int c;

	if (a->m->group != b->m->group)
		return a->m->group < b->m->group ? -1 : 1;
	return (c = strcmp(a->m->name, b->m->name)) != 0 ? c : tie(a, b);
}

static int by_ip(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	int c;

	if (a->m->group != b->m->group)
		return a->m->group < b->m->group ? -1 : 1;
	return (c = strcmp(a->addr, b->addr)) != 0 ? c : tie(a, b);
}

static int inst_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gce_inst *)a)->name, ((const struct gce_inst *)b)->name);
}

static const struct gce_inst *find(const struct gce_member *m, char *const *znames,
                                   const struct gce_instvec *zones, size_t nzones)
{
	struct gce_inst key;
	size_t z;

	memset(&key, 0, sizeof(key));
	key.name = m->name;
	for (z = 0; z < nzones; z++)
		if (strcmp(znames[z], m->zone) == 0)
			break;
	if (z == nzones || zones[z].n == 0)
		return NULL;
	return bsearch(&key, zones[z].v, zones[z].n, sizeof(key), inst_cmp);
}

static void free_tasks(struct task *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(t[i].addr);
	free(t);
}

/* The job's tasks, ordered; *n 0 when none is running. */
static muster_status job_tasks(struct gce_run *run, size_t j, const struct gce_membervec *mv,
                               char *const *znames, const struct gce_instvec *zones,
                               size_t nzones, struct task **out, size_t *n)
{
	const struct gce_conf *conf = run->conf;
	struct task *t = calloc(mv->n ? mv->n : 1, sizeof(*t));
	size_t i, k = 0;
	char why[400];

	*out = NULL;
	*n = 0;
	if (t == NULL)
		return gce_nomem(run);
	for (i = 0; i < mv->n; i++) {
		const struct gce_member *m = &mv->v[i];
		const struct gce_inst *in = find(m, znames, zones, nzones);

		if (in == NULL) {
			run->host->log(conf->pc, MUSTER_LOG_NOTICE,
			               "job %s: instance %s (zone %s) is no longer RUNNING; left out",
			               conf->jobs[j].name, m->name, m->zone);
			continue;
		}
		if (in->ip == NULL) {
			run->host->fail(run->call, "job %s: instance %s (zone %s) has no %s address on "
			                           "network interface %ld",
			                conf->jobs[j].name, m->name, m->zone,
			                conf->address == GCE_ADDR_EXTERNAL ? "external" : "internal",
			                conf->interface);
			free_tasks(t, k);
			return MUSTER_STATUS_UNAVAIL;
		}
		t[k].m = m;
		t[k].in = in;
		t[k].addr = strchr(in->ip, ':') != NULL ? plugin_asprintf("[%s]:%ld", in->ip, conf->port)
		                                        : plugin_asprintf("%s:%ld", in->ip, conf->port);
		if (t[k].addr == NULL) {
			free_tasks(t, k);
			return gce_nomem(run);
		}
		if (address_check(t[k].addr, why, sizeof(why)) < 0) {
			run->host->log(conf->pc, MUSTER_LOG_INFO, "job %s: instance %s (zone %s) is left out: %s",
			               conf->jobs[j].name, m->name, m->zone, why);
			free(t[k].addr);
			continue;
		}
		k++;
	}
	if (k > 1)
		qsort(t, k, sizeof(*t),
		      conf->order == GCE_ORDER_IP ? by_ip
		      : conf->order == GCE_ORDER_NAME ? by_name : by_natural);
	*out = t;
	*n = k;
	return MUSTER_STATUS_SUCCESS;
}

static void group_list(const struct gce_job *job, char *buf, size_t size)
{
	size_t k, o = 0;

	buf[0] = '\0';
	for (k = 0; k < job->ngroups && o + 1 < size; k++) {
		int w = snprintf(buf + o, size - o, "%s%s%s%s", k ? ", " : "",
		                 job->groups[k].zone ? job->groups[k].zone : "",
		                 job->groups[k].zone ? "/" : "", job->groups[k].name);

		if (w < 0)
			break;
		o += (size_t)w;
	}
}

muster_status gce_build(struct gce_run *run, struct gce_membervec *jobs, char *const *znames,
                        struct gce_instvec *zones, size_t nzones)
{
	const struct gce_conf *conf = run->conf;
	const muster_host *h = run->host;
	struct task **tasks = calloc(conf->njobs, sizeof(*tasks));
	size_t *ntasks = calloc(conf->njobs, sizeof(*ntasks));
	muster_status st = MUSTER_STATUS_SUCCESS;
	const char *self = NULL;
	int self_found = 0;
	size_t j, i;

	if (tasks == NULL || ntasks == NULL) {
		free(tasks);
		free(ntasks);
		return gce_nomem(run);
	}
	for (j = 0; j < conf->njobs && st == MUSTER_STATUS_SUCCESS; j++) {
		st = job_tasks(run, j, &jobs[j], znames, zones, nzones, &tasks[j], &ntasks[j]);
		if (st == MUSTER_STATUS_SUCCESS && ntasks[j] == 0) {
			char groups[400];

			group_list(&conf->jobs[j], groups, sizeof(groups));
			h->fail(run->call, "job %s: no RUNNING instance in instance group%s %s yet",
			        conf->jobs[j].name, conf->jobs[j].ngroups > 1 ? "s" : "", groups);
			st = MUSTER_STATUS_TRYAGAIN;
		}
	}
	if (st == MUSTER_STATUS_SUCCESS)
		self = gce_self(run);
	for (j = 0; j < conf->njobs && st == MUSTER_STATUS_SUCCESS; j++) {
		const char *job = conf->jobs[j].name;

		if (h->add_job(run->call, job) < 0) {
			st = MUSTER_STATUS_UNAVAIL;
			break;
		}
		for (i = 0; i < ntasks[j] && st == MUSTER_STATUS_SUCCESS; i++) {
			const struct task *t = &tasks[j][i];

			if (h->add_task(run->call, job, (long)i, t->addr) < 0 ||
			    (t->in->gpus > 0 &&
			     h->add_accelerator(run->call, job, (long)i, "GPU", t->in->gpus) < 0) ||
			    (t->in->tpus > 0 &&
			     h->add_accelerator(run->call, job, (long)i, "TPU", t->in->tpus) < 0)) {
				st = MUSTER_STATUS_UNAVAIL;
				break;
			}
			if (!self_found && self != NULL && strcmp(t->m->name, self) == 0) {
				self_found = 1;
				if (h->set_task(run->call, job, (long)i) < 0)
					st = MUSTER_STATUS_UNAVAIL;
				h->log(conf->pc, MUSTER_LOG_DEBUG, "this process is instance %s: task %s:%zu",
				       self, job, i);
			}
		}
	}
	if (st == MUSTER_STATUS_SUCCESS &&
	    (h->set_rpc_layer(run->call, conf->rpc_layer) < 0 ||
	     h->set_master_rule(run->call, MUSTER_MASTER_TASK) < 0))
		st = MUSTER_STATUS_UNAVAIL;
	for (j = 0; j < conf->njobs; j++)
		free_tasks(tasks[j], ntasks[j]);
	free(tasks);
	free(ntasks);
	return st;
}
