/*
 * muster_launch_plan(): units → nodes → ranks, once.
 *
 * Units are the training tasks, master first (plan_units.c).  Under nodes
 * placement each unit is its own node, even when two share an address.
 * Under processes placement the nodes are the distinct hosts: first those
 * of the scheduler's node order that hold a unit, in that order, then the
 * others in the order their first unit comes.  One pass over the units
 * sums the world and each node's processes; at the own unit it notes the
 * sums so far, its first global rank (the processes of the units before
 * it) and its first local rank (those of the units before it on its node).
 * That is all any output needs: RANK = rank0 + i, LOCAL_RANK = local0 + i.
 */
#include <config.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "lib/error.h"
#include "lib/vec.h"
#include "model/nameindex.h"

/* The distinct hosts of a processes-placement pass, in first-appearance
 * order, their copies in p->text. */
struct hosts {
	struct name_index ix;
	struct plan_node *node;
	size_t n, cap;
	const char *prev; /* the last unit's address, whose host is k */
	size_t prev_len;
	uint32_t k;
};

/* Whether `address` is on `host` (`len` bytes, no NUL among them); read
 * no further than `address`'s end, and inline: it runs for every unit. */
static inline int same_host(const char *address, const char *host, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (address[i] != host[i])
			return 0;
	return address[len] == ':';
}

/* The host of `address` as a number in `h` (h->k), a new one when unseen;
 * -1 when out of memory.  Units of one host mostly come together (block
 * layouts), so a unit is first compared with the one before it. */
static int host_number(struct muster_plan *p, struct hosts *h, const char *address)
{
	char key[320];
	uint32_t k;
	/* "HOST:" then the port's digits is that HOST's address: checked
	 * addresses hold no other ':' past a host (an IPv6 one is bracketed). */
	if (h->prev && same_host(address, h->prev, h->prev_len))
		return 0;
	size_t len = launch_host_length(address);
	h->prev = address;
	h->prev_len = len;
	if (len >= sizeof(key)) /* the address check keeps hosts far shorter */
		return -1;
	memcpy(key, address, len);
	key[len] = '\0';
	uint32_t hash = name_index_hash(key, len);
	if (name_index_get_hashed(&h->ix, key, hash, &k)) {
		h->k = k;
		return 0;
	}
	const char *copy = arena_strndup(&p->text, address, len);
	if (!copy || vec_reserve(&h->node, &h->cap, h->n + 1, sizeof(*h->node)) < 0 ||
	    name_index_put_hashed(&h->ix, copy, hash, (uint32_t)h->n) < 0)
		return -1;
	h->node[h->n] = (struct plan_node){ copy, 0 };
	h->k = (uint32_t)h->n++;
	return 0;
}

/* The nodes in the scheduler's order: the hosts it names first, then the
 * rest; the own unit's node follows its host. */
static int order_nodes(struct muster_plan *p, struct hosts *h, uint32_t self_k)
{
	uint32_t *order = malloc((h->n ? h->n : 1) * sizeof(*order)), next = 0, k;
	if (!order || !(p->node = malloc((h->n ? h->n : 1) * sizeof(*p->node)))) {
		free(order);
		return -1;
	}
	memset(order, 0xff, h->n * sizeof(*order));
	for (size_t i = 0; i < p->r->nnode_order; i++)
		if (name_index_get(&h->ix, p->r->node_order[i], &k) && order[k] == UINT32_MAX)
			order[k] = next++;
	for (k = 0; k < h->n; k++)
		if (order[k] == UINT32_MAX)
			order[k] = next++;
	for (k = 0; k < h->n; k++)
		p->node[order[k]] = h->node[k];
	p->nnodes = h->n;
	if (p->self != SIZE_MAX) {
		p->self_node = order[self_k];
		p->self_node_nproc = h->node[self_k].nproc;
	}
	free(order);
	return 0;
}

/* The one pass: every unit's processes summed into the world and its
 * node, the own unit's first ranks noted on the way. */
static int number(struct muster_plan *p, muster_error *err)
{
	struct hosts h = { .ix = { NULL, 0, 0 } };
	int processes = p->placement == MUSTER_PLACEMENT_PROCESSES, others_assumed = 0, rc = 0;
	long world = 0, first = -1;
	uint32_t self_k = 0;

	p->equal_counts = 1;
	for (size_t i = 0; i < p->nseg && rc == 0; i++) {
		const struct plan_seg *s = &p->segs[i];
		for (size_t pos = s->first; pos < s->first + s->count; pos++) {
			size_t unit = s->unit + (pos - s->first);
			int assumed = 0;
			long n = p->nproc;
			if (n == MUSTER_NPROC_GPU &&
			    (rc = plan_unit_nproc(p, s->job, pos, &n, &assumed, err)) != 0)
				break;
			if (n > LONG_MAX - world) {
				rc = error_set(err, MUSTER_EINVAL, "the launch has more than %ld processes",
				               LONG_MAX);
				break;
			}
			others_assumed |= assumed && unit != p->self;
			p->equal_counts &= first < 0 || n == first;
			first = n;
			if (processes && host_number(p, &h, s->job->address[pos]) < 0) {
				rc = error_set(err, MUSTER_ENOMEM, "out of memory");
				break;
			}
			if (unit == p->self) {
				p->self_rank0 = world;
				p->self_nproc = n;
				p->self_local0 = processes ? h.node[h.k].nproc : 0;
				self_k = h.k;
			}
			world += n;
			if (processes)
				h.node[h.k].nproc += n;
		}
	}
	if (rc == 0 && processes && order_nodes(p, &h, self_k) < 0)
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	name_index_release(&h.ix);
	free(h.node);
	if (rc != 0)
		return rc;
	if (!processes) {
		p->nnodes = p->nunits;
		p->self_node = p->self;
		p->self_node_nproc = p->self_nproc;
	}
	p->world = world;
	p->one_unit_per_node = p->nnodes == p->nunits;
	if (others_assumed)
		snprintf(p->note, sizeof(p->note),
		         "assuming every %s the backend gives no GPU count for has %ld GPU%s, as this "
		         "machine does", processes ? "task" : "node", p->local_gpus,
		         p->local_gpus == 1 ? "" : "s");
	return 0;
}

static int master(struct muster_plan *p, muster_error *err)
{
	const char *address = p->segs[0].job->address[p->segs[0].first];
	char port[6];
	if (launch_split_address(address, p->master_host, sizeof(p->master_host), port) != 0)
		return error_set(err, MUSTER_ENOENT, "the master task's address '%s' is not HOST:PORT",
		                 address);
	return plan_master_port(p->r, port, &p->master_port, err);
}

/* The frameworks a plan is made for: an environment's or a hostfile's. */
static int known_framework(const char *f)
{
	static const char *const known[] = { "tensorflow", "pytorch", "jax",      "openmpi",
		                             "mpich",      "horovod", "deepspeed" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(f, known[i]) == 0)
			return 1;
	return 0;
}

static int copy_launch(struct muster_plan *p, const muster_launch *l, muster_error *err)
{
	if (l->framework && !known_framework(l->framework))
		return error_set(err, MUSTER_EINVAL, "unknown framework '%s' (tensorflow, pytorch or "
		                 "jax; openmpi, mpich, horovod or deepspeed)", l->framework);
	p->tensorflow = l->framework && strcmp(l->framework, "tensorflow") == 0;
	p->task_id = l->task_id;
	p->nproc = p->tf_nproc = l->nproc_per_node;
	p->local_gpus = launch_local_gpus(l);
	if (p->tensorflow && l->nproc_per_node == MUSTER_NPROC_GPU &&
	    (p->tf_nproc = p->local_gpus) <= 0)
		return error_set(err, MUSTER_ENOENT, "--nproc-per-node gpu: this machine shows no GPU "
		                 "(visible-devices variables applied)");
	if ((l->framework && !(p->framework = strdup(l->framework))) ||
	    (l->task_type && !(p->task_copy = strdup(l->task_type))) ||
	    (l->jobs && !(p->jobs = strdup(l->jobs))))
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	p->task_type = p->task_copy;
	return 0;
}

MUSTER_API int muster_launch_plan(muster_plan **out, const muster_result *r,
                                  const muster_launch *l, muster_error *err)
{
	if (!out || !r || !l)
		return error_set(err, MUSTER_EINVAL, "muster_launch_plan: NULL argument");
	*out = NULL;
	int rc = launch_check(l, err);
	if (rc != 0)
		return rc;
	struct muster_plan *p = calloc(1, sizeof(*p));
	if (!p)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	p->r = model_ref((muster_result *)r);
	p->placement = r->placement;
	p->self = SIZE_MAX;
	arena_init(&p->text);
	arena_init(&p->lazy_text);
	if ((rc = copy_launch(p, l, err)) != 0)
		goto fail;
	if (p->tensorflow) { /* TF_CONFIG names the cluster itself: no units */
		*out = p;
		return 0;
	}
	if ((rc = plan_units(p, l, err)) != 0 || (rc = number(p, err)) != 0 ||
	    (rc = master(p, err)) != 0)
		goto fail;
	error_clear(err);
	*out = p;
	return 0;
fail:
	muster_plan_free(p);
	return rc;
}

MUSTER_API void muster_plan_free(muster_plan *p)
{
	if (!p)
		return;
	muster_result_free(p->r);
	free(p->framework);
	free(p->task_copy);
	free(p->jobs);
	if (p->segs != p->seg)
		free(p->segs);
	free(p->node);
	arena_release(&p->text);
	free(p->lazy);
	arena_release(&p->lazy_text);
	plan_net_free(p);
	free(p);
}

/* A nodes-placement plan lists its nodes only when asked (a hostfile, an
 * accessor): `env` needs the own node alone, and a list of 32,768 hosts
 * would be most of its cost.  Built on the first call, under a lock,
 * since the plan may be read from several threads. */
static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

static int list_unit(void *data, const struct job *job, size_t pos, size_t unit)
{
	struct muster_plan *p = data;
	const char *address = job->address[pos];
	int assumed;
	long n = 0;
	const char *host = arena_strndup(&p->lazy_text, address, launch_host_length(address));
	if (!host)
		return -1;
	plan_unit_nproc(p, job, pos, &n, &assumed, NULL); /* checked by number() */
	p->lazy[unit] = (struct plan_node){ host, n };
	return 0;
}

const struct plan_node *plan_lazy_nodes(const struct muster_plan *cp)
{
	struct muster_plan *p = (struct muster_plan *)cp; /* a cache, not a change */
	const struct plan_node *nodes;
	pthread_mutex_lock(&lazy_lock);
	if (!p->lazy && (p->lazy = malloc((p->nunits ? p->nunits : 1) * sizeof(*p->lazy))) &&
	    plan_each_unit(p, list_unit, p) != 0) {
		free(p->lazy);
		p->lazy = NULL;
		arena_release(&p->lazy_text);
		arena_init(&p->lazy_text);
	}
	nodes = p->lazy;
	pthread_mutex_unlock(&lazy_lock);
	return nodes;
}

/* The nodes in order, NULL when out of memory. */
static const struct plan_node *nodes_of(const muster_plan *p)
{
	return p->placement == MUSTER_PLACEMENT_PROCESSES ? p->node : plan_lazy_nodes(p);
}

MUSTER_API long muster_plan_world_size(const muster_plan *p)
{
	return p && !p->tensorflow ? p->world : -1;
}

MUSTER_API size_t muster_plan_node_count(const muster_plan *p)
{
	return p ? p->nnodes : 0;
}

MUSTER_API int muster_plan_node_at(const muster_plan *p, size_t i, const char **host,
                                   long *nproc)
{
	if (!p)
		return MUSTER_EINVAL;
	if (i >= p->nnodes)
		return MUSTER_ENOENT;
	const struct plan_node *node = nodes_of(p);
	if (!node)
		return MUSTER_ENOMEM;
	if (host)
		*host = node[i].host;
	if (nproc)
		*nproc = node[i].nproc;
	return 0;
}

/* The own unit's numbers, -1 when there is none. */
static long own(const muster_plan *p, long value)
{
	return p && !p->tensorflow && p->self != SIZE_MAX ? value : -1;
}

MUSTER_API long muster_plan_node_rank(const muster_plan *p)
{
	return own(p, p ? (long)p->self_node : 0);
}

MUSTER_API long muster_plan_first_rank(const muster_plan *p)
{
	return own(p, p ? p->self_rank0 : 0);
}

MUSTER_API long muster_plan_first_local_rank(const muster_plan *p)
{
	return own(p, p ? p->self_local0 : 0);
}

MUSTER_API long muster_plan_nproc(const muster_plan *p)
{
	if (p && p->tensorflow)
		return p->tf_nproc;
	return own(p, p ? p->self_nproc : 0);
}

MUSTER_API const char *muster_plan_master_host(const muster_plan *p)
{
	return p && !p->tensorflow ? p->master_host : NULL;
}

MUSTER_API int muster_plan_master_port(const muster_plan *p)
{
	return p && !p->tensorflow ? p->master_port : -1;
}

MUSTER_API const char *muster_plan_note(const muster_plan *p)
{
	return p && p->note[0] ? p->note : NULL;
}
