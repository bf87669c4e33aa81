/* muster status: the result's tasks grouped into nodes, one per host.
 * Hosts are found through a small hash table, so a cluster of tens of
 * thousands of tasks groups in one pass. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/vec.h"
#include "status.h"

const char *status_word(int code)
{
	switch (code) {
	case 0: return "success";
	case MUSTER_ENOTFOUND: return "notfound";
	case MUSTER_EUNAVAIL: return "unavail";
	case MUSTER_ETRYAGAIN: return "tryagain";
	default: return "error";
	}
}

/* Host name → node, open addressing; `slots` a power of two. */
struct hosts {
	uint32_t *slot; /* 1 + node position, 0: empty */
	size_t slots;
};

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The host of "HOST:PORT" (an IPv6 one keeps its brackets): its length. */
static size_t host_length(const char *address)
{
	const char *colon = strrchr(address, ':');
	return colon ? (size_t)(colon - address) : strlen(address);
}

static long port_of(const char *address)
{
	const char *colon = strrchr(address, ':');
	char *end;
	long port = colon ? strtol(colon + 1, &end, 10) : -1;
	return colon && colon[1] && *end == '\0' ? port : -1;
}

static int grow(struct hosts *h, const struct status_view *v);

/* The node of `host` (`n` bytes), added at the end when new; NULL when
 * out of memory. */
static struct status_node *node_of(struct status_view *v, struct hosts *h, const char *host,
                                   size_t n, size_t *cap)
{
	if (4 * (v->nnodes + 1) > 3 * h->slots && grow(h, v) < 0)
		return NULL;
	size_t mask = h->slots - 1, i = hash(host, n) & mask;
	for (; h->slot[i]; i = (i + 1) & mask) {
		struct status_node *node = &v->nodes[h->slot[i] - 1];
		if (strncmp(node->host, host, n) == 0 && node->host[n] == '\0')
			return node;
	}
	if (vec_reserve(&v->nodes, cap, v->nnodes + 1, sizeof(*v->nodes)) < 0)
		return NULL;
	struct status_node *node = &v->nodes[v->nnodes];
	memset(node, 0, sizeof(*node));
	if (!(node->host = strndup(host, n)))
		return NULL;
	h->slot[i] = (uint32_t)++v->nnodes;
	return node;
}

static int grow(struct hosts *h, const struct status_view *v)
{
	size_t slots = h->slots ? 2 * h->slots : 64;
	uint32_t *slot = calloc(slots, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t k = 0; k < v->nnodes; k++) {
		const char *host = v->nodes[k].host;
		size_t i = hash(host, strlen(host)) & (slots - 1);
		while (slot[i])
			i = (i + 1) & (slots - 1);
		slot[i] = (uint32_t)(k + 1);
	}
	free(h->slot);
	h->slot = slot;
	h->slots = slots;
	return 0;
}

static int add_accels(struct status_node *node, const muster_result *res, const char *job,
                      long index)
{
	const char *kind;
	long count;
	for (size_t k = 0; muster_result_accelerator_at(res, job, index, k, &kind, &count) == 0; k++) {
		size_t i = 0;
		while (i < node->naccels && strcmp(node->accels[i].kind, kind) != 0)
			i++;
		if (i == node->naccels) {
			if (vec_reserve(&node->accels, &node->accels_cap, i + 1, sizeof(*node->accels)) < 0)
				return -1;
			node->accels[node->naccels++] = (struct status_accel){ kind, 0 };
		}
		node->accels[i].count += count;
	}
	return 0;
}

static int add_task(struct status_node *node, const muster_result *res, const char *job,
                    long index, const char *address)
{
	const char *self_job = muster_result_task_type(res);
	int self = self_job && strcmp(self_job, job) == 0 &&
	           muster_result_task_index(res) == index;
	if (vec_reserve(&node->tasks, &node->cap, node->ntasks + 1, sizeof(*node->tasks)) < 0)
		return -1;
	node->tasks[node->ntasks++] =
		(struct status_task){ job, index, address, port_of(address), self };
	node->self |= self;
	return add_accels(node, res, job, index);
}

/* Nodes the node order named but no task is on are dropped. */
static void drop_empty(struct status_view *v)
{
	size_t kept = 0;
	for (size_t i = 0; i < v->nnodes; i++) {
		if (v->nodes[i].ntasks == 0) {
			free(v->nodes[i].host);
			continue;
		}
		v->nodes[kept++] = v->nodes[i];
	}
	v->nnodes = kept;
}

int status_view_init(struct status_view *v, int code, const char *message,
                     const muster_result *res, const muster_explain *x)
{
	struct hosts h = { NULL, 0 };
	size_t cap = 0;
	const char *host;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->code = code;
	v->message = message;
	v->res = res;
	v->x = x;
	for (size_t i = 0; res && rc == 0 && (host = muster_result_node_order(res, i)); i++)
		rc = node_of(v, &h, host, strlen(host), &cap) ? 0 : -1;
	for (size_t j = 0; res && rc == 0 && j < muster_result_job_count(res); j++) {
		const char *job = muster_result_job_name(res, j), *address;
		long index;
		for (size_t t = 0; rc == 0 && muster_result_task_at(res, job, t, &index, &address) == 0;
		     t++) {
			struct status_node *node = node_of(v, &h, address, host_length(address), &cap);
			rc = node ? add_task(node, res, job, index, address) : -1;
			v->ntasks++;
		}
	}
	free(h.slot);
	drop_empty(v);
	return rc;
}

void status_view_release(struct status_view *v)
{
	for (size_t i = 0; i < v->nnodes; i++) {
		free(v->nodes[i].host);
		free(v->nodes[i].tasks);
		free(v->nodes[i].accels);
	}
	free(v->nodes);
	memset(v, 0, sizeof(*v));
}
