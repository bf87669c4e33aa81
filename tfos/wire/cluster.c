/*
 * protocol.h's cluster template and ClusterSpec.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reason.h"
#include "protocol.h"

/* ---- template ---- */

static bool has_master(const struct res_template *t)
{
	return t->master_node && t->master_node[0];
}

int res_template_check(const struct res_template *t, char *err, size_t errlen)
{
	if (t->cluster_size <= 0)
		return reason_fail(err, errlen, "cluster_size must be positive");
	if (t->num_ps < 0)
		return reason_fail(err, errlen, "num_ps must not be negative");
	if (has_master(t) && strcmp(t->master_node, "chief") != 0 &&
	    strcmp(t->master_node, "master") != 0)
		return reason_fail(err, errlen, "master_node must be \"\", \"chief\" or \"master\", not \"%s\"",
		                   t->master_node);
	int64_t special = (has_master(t) ? 1 : 0) + (t->eval_node ? 1 : 0);
	if (t->num_ps > t->cluster_size - special)
		return reason_fail(err, errlen,
		                   "num_ps (%" PRId64 ") plus master and evaluator nodes (%" PRId64
		                   ") exceed cluster_size (%" PRId64 ")",
		                   t->num_ps, special, t->cluster_size);
	int64_t workers = t->cluster_size - t->num_ps - special;
	if (workers + (has_master(t) ? 1 : 0) <= 0)
		return reason_fail(err, errlen, "the template has no master node and no worker");
	return 0;
}

int res_template_role(const struct res_template *t, int64_t executor_id, const char **job_name,
                      int64_t *task_index, char *err, size_t errlen)
{
	if (res_template_check(t, err, errlen) != 0)
		return -1;
	if (executor_id < 0 || executor_id >= t->cluster_size) {
		*job_name = "default";
		*task_index = -1;
		return 0;
	}
	int64_t id = executor_id;
	if (id < t->num_ps) {
		*job_name = "ps";
		*task_index = id;
		return 0;
	}
	id -= t->num_ps;
	if (has_master(t)) {
		if (id == 0) {
			*job_name = t->master_node;
			*task_index = 0;
			return 0;
		}
		id--;
	}
	if (t->eval_node) {
		if (id == 0) {
			*job_name = "evaluator";
			*task_index = 0;
			return 0;
		}
		id--;
	}
	*job_name = "worker";
	*task_index = id;
	return 0;
}

/* ---- cluster spec ---- */

struct entry {
	struct res_node node;
	size_t arrival;
};

static int by_executor_id(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->node.executor_id != b->node.executor_id)
		return a->node.executor_id < b->node.executor_id ? -1 : 1;
	return a->arrival < b->arrival ? -1 : a->arrival > b->arrival;
}

void res_cluster_free(struct res_cluster *c)
{
	for (size_t j = 0; j < c->njobs; j++) {
		for (size_t i = 0; i < c->jobs[j].ntasks; i++)
			free(c->jobs[j].addrs[i]);
		free(c->jobs[j].addrs);
		free(c->jobs[j].executor_ids);
		free(c->jobs[j].name);
	}
	free(c->jobs);
	c->jobs = NULL;
	c->njobs = 0;
}

static char *format_addr(const char *host, int64_t port)
{
	bool v6 = strchr(host, ':') && host[0] != '[';
	size_t n = strlen(host) + 32;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, v6 ? "[%s]:%" PRId64 : "%s:%" PRId64, host, port);
	return s;
}

static struct res_cluster_job *job_for(struct res_cluster *c, const char *name)
{
	for (size_t j = 0; j < c->njobs; j++)
		if (strcmp(c->jobs[j].name, name) == 0)
			return &c->jobs[j];
	struct res_cluster_job *jobs = realloc(c->jobs, (c->njobs + 1) * sizeof(*jobs));
	if (!jobs)
		return NULL;
	c->jobs = jobs;
	struct res_cluster_job *job = &jobs[c->njobs];
	memset(job, 0, sizeof(*job));
	job->name = strdup(name);
	if (!job->name)
		return NULL;
	c->njobs++;
	return job;
}

static int add_task(struct res_cluster_job *job, const struct res_node *n)
{
	char *addr = format_addr(n->host, n->port);
	char **addrs = addr ? realloc(job->addrs, (job->ntasks + 1) * sizeof(*addrs)) : NULL;
	if (!addrs) {
		free(addr);
		return -1;
	}
	job->addrs = addrs;
	int64_t *ids = realloc(job->executor_ids, (job->ntasks + 1) * sizeof(*ids));
	if (!ids) {
		free(addr);
		return -1;
	}
	job->executor_ids = ids;
	job->addrs[job->ntasks] = addr;
	job->executor_ids[job->ntasks] = n->executor_id;
	job->ntasks++;
	return 0;
}

int res_cluster_from_qinfo(const pv *list, struct res_cluster *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!list || (list->type != PV_LIST && list->type != PV_TUPLE))
		return reason_fail(err, errlen, "reservations are not a list");
	size_t n = pv_len(list);
	struct entry *e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return reason_fail(err, errlen, "out of memory");
	char why[160];
	for (size_t i = 0; i < n; i++) {
		e[i].arrival = i;
		if (res_node_from_pv(pv_seq_at(list, i), &e[i].node, why, sizeof(why)) != 0) {
			free(e);
			return reason_fail(err, errlen, "reservation %zu: %s", i, why);
		}
	}
	qsort(e, n, sizeof(*e), by_executor_id);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i && e[i].node.executor_id == e[i - 1].node.executor_id) {
			rc = reason_fail(err, errlen, "duplicate executor id %" PRId64 " (hosts %s and %s)",
			                 e[i].node.executor_id, e[i - 1].node.host, e[i].node.host);
			break;
		}
		struct res_cluster_job *job = job_for(out, e[i].node.job_name);
		if (!job || add_task(job, &e[i].node) != 0)
			rc = reason_fail(err, errlen, "out of memory");
	}
	free(e);
	if (rc != 0)
		res_cluster_free(out);
	return rc;
}

/* ---- JSON, as Python's json.dumps writes it (ensure_ascii, ", ", ": ") ---- */

struct sb {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_put(struct sb *b, const char *p, size_t n)
{
	if (b->oom)
		return;
	if (b->cap - b->len <= n) {
		size_t ncap = b->cap ? b->cap : 128;
		while (ncap - b->len <= n)
			ncap *= 2;
		char *s = realloc(b->s, ncap);
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = ncap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sb *b, const char *p) { sb_put(b, p, strlen(p)); }

static void sb_u(struct sb *b, unsigned cp)
{
	char u[8];
	snprintf(u, sizeof(u), "\\u%04x", cp & 0xffff);
	sb_put(b, u, 6);
}

/* Decode one UTF-8 sequence at p (n bytes left); U+FFFD for bad input. */
static unsigned utf8_next(const unsigned char *p, size_t n, size_t *used)
{
	unsigned c = p[0];
	size_t k = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
	if (k == 0 || k > n) {
		*used = 1;
		return 0xfffd;
	}
	unsigned cp = c & (0xff >> (k + 1));
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*used = 1;
			return 0xfffd;
		}
		cp = cp << 6 | (p[i] & 0x3f);
	}
	*used = k;
	return cp > 0x10ffff ? 0xfffd : cp;
}

static void sb_json_str(struct sb *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	sb_put(b, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c >= 0x80) {
			size_t used;
			unsigned cp = utf8_next(p + i, n - i, &used);
			i += used;
			if (cp >= 0x10000) {
				cp -= 0x10000;
				sb_u(b, 0xd800 | (cp >> 10));
				sb_u(b, 0xdc00 | (cp & 0x3ff));
			} else {
				sb_u(b, cp);
			}
			continue;
		}
		i++;
		switch (c) {
		case '"': sb_str(b, "\\\""); break;
		case '\\': sb_str(b, "\\\\"); break;
		case '\n': sb_str(b, "\\n"); break;
		case '\r': sb_str(b, "\\r"); break;
		case '\t': sb_str(b, "\\t"); break;
		case '\b': sb_str(b, "\\b"); break;
		case '\f': sb_str(b, "\\f"); break;
		default:
			if (c < 0x20) {
				sb_u(b, c);
			} else {
				char ch = (char)c;
				sb_put(b, &ch, 1);
			}
		}
	}
	sb_put(b, "\"", 1);
}

static void sb_cluster(struct sb *b, const struct res_cluster *c)
{
	sb_str(b, "{");
	for (size_t j = 0; j < c->njobs; j++) {
		if (j)
			sb_str(b, ", ");
		sb_json_str(b, c->jobs[j].name);
		sb_str(b, ": [");
		for (size_t i = 0; i < c->jobs[j].ntasks; i++) {
			if (i)
				sb_str(b, ", ");
			sb_json_str(b, c->jobs[j].addrs[i]);
		}
		sb_str(b, "]");
	}
	sb_str(b, "}");
}

static char *sb_done(struct sb *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	return b->s;
}

char *res_cluster_json(const struct res_cluster *c)
{
	struct sb b = {0};
	sb_cluster(&b, c);
	return sb_done(&b);
}

/* ---- QINFO lookups ---- */

const pv *res_qinfo_find(const pv *list, const char *host, int64_t executor_id)
{
	for (size_t i = 0; i < pv_len(list); i++) {
		const pv *d = pv_seq_at(list, i);
		int64_t id;
		if (d && pv_get_int(pv_dict_get_str(d, "executor_id"), &id) && id == executor_id &&
		    pv_is_str(pv_dict_get_str(d, "host"), host))
			return d;
	}
	return NULL;
}

size_t res_qinfo_missing(const pv *list, int64_t cluster_size, int64_t *missing, size_t cap)
{
	if (cluster_size <= 0)
		return 0;
	size_t n = (size_t)cluster_size;
	bool *seen = calloc(n, sizeof(*seen));
	if (!seen)
		return 0;
	for (size_t i = 0; i < pv_len(list); i++) {
		int64_t id;
		if (pv_get_int(pv_dict_get_str(pv_seq_at(list, i), "executor_id"), &id) && id >= 0 &&
		    id < cluster_size)
			seen[id] = true;
	}
	size_t count = 0;
	for (size_t id = 0; id < n; id++) {
		if (!seen[id]) {
			if (count < cap && missing)
				missing[count] = (int64_t)id;
			count++;
		}
	}
	free(seen);
	return count;
}
