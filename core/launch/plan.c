/*
 * muster_launch_plan(): units → nodes → ranks, once.
 *
 * Units are the training tasks, master first (plan_units.c).  Under nodes
 * placement each unit is its own node, even when two share an address.
 * Under processes placement the nodes are the distinct hosts: first those
 * of the scheduler's node order that hold a unit, in that order, then the
 * others in the order their first unit comes.  Then one pass gives every
 * unit its first global rank (the processes of the units before it) and
 * its first local rank (those of the units before it on its node), which
 * is all any output needs: RANK = rank0 + i, LOCAL_RANK = local0 + i.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "launch.h"
#include "model/nameindex.h"

/* Copies the host of `address` (as written) into *text; its length. */
static size_t copy_host(char **text, const char *address)
{
	size_t len = launch_host_length(address);
	memcpy(*text, address, len);
	(*text)[len] = '\0';
	*text += len + 1;
	return len;
}

/* Room for every host the units may name: their addresses' bytes.  Pages
 * never written are never touched, so the bound costs nothing. */
static int alloc_text(struct muster_plan *p)
{
	size_t bytes = 0;
	for (size_t i = 0; i < p->nunits; i++)
		bytes += strlen(p->unit[i].address) + 1;
	return (p->text = malloc(bytes)) ? 0 : -1;
}

static int nodes_are_units(struct muster_plan *p)
{
	char *text;
	if (alloc_text(p) < 0 || !(p->node = malloc(p->nunits * sizeof(*p->node))))
		return -1;
	text = p->text;
	for (size_t i = 0; i < p->nunits; i++) {
		p->node[i] = (struct plan_node){ .host = text, .first_unit = i };
		copy_host(&text, p->unit[i].address);
		p->unit[i].node = (uint32_t)i;
	}
	p->nnodes = p->nunits;
	return 0;
}

/* Distinct hosts in first-appearance order: hosts[k], each unit's k in
 * its node field for now.  Units of one host mostly come together (block
 * layouts), so a unit is first compared with the one before it. */
static int distinct_hosts(struct muster_plan *p, struct name_index *ix, const char ***hosts,
                          size_t *n)
{
	char *text = p->text;
	const char *prev = NULL;
	size_t prev_len = 0;
	uint32_t k = 0;
	*n = 0;
	if (!(*hosts = malloc(p->nunits * sizeof(**hosts))))
		return -1;
	for (size_t i = 0; i < p->nunits; i++) {
		const char *a = p->unit[i].address;
		size_t len = launch_host_length(a);
		if (!prev || len != prev_len || memcmp(a, prev, len) != 0) {
			char *host = text;
			copy_host(&text, a);
			if (!name_index_get(ix, host, &k)) {
				k = (uint32_t)*n;
				if (name_index_put(ix, host, k) < 0)
					return -1;
				(*hosts)[(*n)++] = host;
			} else {
				text = host; /* seen before: the copy is not kept */
			}
			prev = a;
			prev_len = len;
		}
		p->unit[i].node = k;
	}
	return 0;
}

static int nodes_are_hosts(struct muster_plan *p)
{
	struct name_index ix = { NULL, 0, 0 };
	const char **hosts = NULL;
	uint32_t *order = NULL, next = 0, k;
	size_t n;
	int rc = -1;

	if (alloc_text(p) < 0 || distinct_hosts(p, &ix, &hosts, &n) < 0 ||
	    !(order = malloc(n * sizeof(*order))) || !(p->node = malloc(n * sizeof(*p->node))))
		goto done;
	memset(order, 0xff, n * sizeof(*order));
	/* The scheduler's order first, for the hosts it names that hold a unit. */
	for (size_t i = 0; i < p->r->nnode_order; i++)
		if (name_index_get(&ix, p->r->node_order[i], &k) && order[k] == UINT32_MAX)
			order[k] = next++;
	for (k = 0; k < n; k++)
		if (order[k] == UINT32_MAX)
			order[k] = next++;
	for (k = 0; k < n; k++)
		p->node[order[k]] = (struct plan_node){ .host = hosts[k], .first_unit = SIZE_MAX };
	for (size_t i = 0; i < p->nunits; i++)
		p->unit[i].node = order[p->unit[i].node];
	p->nnodes = n;
	rc = 0;
done:
	name_index_release(&ix);
	free(hosts);
	free(order);
	return rc;
}

/* Prefix sums: every unit's first global and local rank. */
static int number(struct muster_plan *p, muster_error *err)
{
	long world = 0;
	p->equal_counts = 1;
	for (size_t i = 0; i < p->nunits; i++) {
		struct plan_unit *u = &p->unit[i];
		struct plan_node *node = &p->node[u->node];
		if (u->nproc > LONG_MAX - world)
			return error_set(err, MUSTER_EINVAL, "the launch has more than %ld processes",
			                 LONG_MAX);
		u->rank0 = world;
		world += u->nproc;
		u->local0 = node->nproc;
		node->nproc += u->nproc;
		if (node->first_unit == SIZE_MAX)
			node->first_unit = i;
		p->equal_counts &= u->nproc == p->unit[0].nproc;
	}
	p->world = world;
	p->one_unit_per_node = p->nnodes == p->nunits;
	return 0;
}

/* The launch's own unit: its task, else this process's own. */
static void find_self(struct muster_plan *p)
{
	const char *type = p->task_type ? p->task_type : p->r->task_type;
	long id = p->task_id >= 0 ? p->task_id : p->r->task_index;
	const struct job *job = type ? model_job(p->r, type) : NULL;

	p->self = SIZE_MAX;
	if (p->env_code)
		return;
	p->env_code = MUSTER_ENOENT;
	if (!type || id < 0) {
		snprintf(p->env_why, sizeof(p->env_why), "no task given, and this process's own task "
		         "is unknown (source %s)", p->r->source ? p->r->source : "?");
		return;
	}
	if (!job) {
		snprintf(p->env_why, sizeof(p->env_why), "No such job in cluster: '%.256s'", type);
		return;
	}
	if (!model_address(job, id)) {
		snprintf(p->env_why, sizeof(p->env_why), "No task with index %ld in job '%.256s'", id,
		         type);
		return;
	}
	for (size_t i = 0; i < p->nunits; i++)
		if (p->unit[i].job == job && p->unit[i].index == id) {
			p->self = i;
			p->env_code = 0;
			return;
		}
	snprintf(p->env_why, sizeof(p->env_why),
	         "task %.256s:%ld is not a training task of a %s launch (jobs %.200s)", type, id,
	         p->framework ? p->framework : "", p->jobs ? p->jobs : "other than ps and evaluator");
}

static int master(struct muster_plan *p, muster_error *err)
{
	const char *address = p->unit[0].address;
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
	p->tf_nproc = l->nproc_per_node;
	if (p->tensorflow && l->nproc_per_node == MUSTER_NPROC_GPU &&
	    (p->tf_nproc = launch_local_gpus(l)) <= 0)
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
	if ((rc = copy_launch(p, l, err)) != 0)
		goto fail;
	if (p->tensorflow) { /* TF_CONFIG names the cluster itself: no units */
		*out = p;
		return 0;
	}
	if ((rc = plan_units(p, l, err)) != 0)
		goto fail;
	find_self(p);
	if ((rc = plan_counts(p, l, err)) != 0)
		goto fail;
	if ((p->placement == MUSTER_PLACEMENT_PROCESSES ? nodes_are_hosts(p) : nodes_are_units(p)) <
	    0) {
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = number(p, err)) != 0 || (rc = master(p, err)) != 0)
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
	free(p->unit);
	free(p->node);
	free(p->text);
	free(p);
}

const struct plan_unit *plan_self(const struct muster_plan *p)
{
	return p && p->self != SIZE_MAX ? &p->unit[p->self] : NULL;
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
	if (host)
		*host = p->node[i].host;
	if (nproc)
		*nproc = p->node[i].nproc;
	return 0;
}

MUSTER_API long muster_plan_node_rank(const muster_plan *p)
{
	return plan_self(p) ? (long)plan_self(p)->node : -1;
}

MUSTER_API long muster_plan_first_rank(const muster_plan *p)
{
	return plan_self(p) ? plan_self(p)->rank0 : -1;
}

MUSTER_API long muster_plan_first_local_rank(const muster_plan *p)
{
	return plan_self(p) ? plan_self(p)->local0 : -1;
}

MUSTER_API long muster_plan_nproc(const muster_plan *p)
{
	if (p && p->tensorflow)
		return p->tf_nproc;
	return plan_self(p) ? plan_self(p)->nproc : -1;
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
