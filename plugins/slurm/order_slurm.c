/*
 * Slurm's order (docs/ranks.md 1.2, 1.3): the hosts as the node list
 * writes them, expanded and never sorted (SLURM_NODEID indexes this
 * expansion, and Slurm lays tasks out in it), each with its count; the
 * tasks dealt onto them by the step's distribution (struct slots_deal),
 * or in an arbitrary step each to the host its task list names.  A host
 * the list names twice is refused: Slurm never writes one, and its node
 * id would be ambiguous.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/common/natural.h"
#include "slurm.h"

/* Whether every host comes after the one before it in `cmp`'s order:
 * then no two are the same. */
static int increasing(const struct slots *s, int (*cmp)(const char *, const char *))
{
	for (size_t i = 1; i < s->nhosts; i++)
		if (cmp(s->hosts[i - 1].name, s->hosts[i].name) >= 0)
			return 0;
	return 1;
}

/* No host listed twice; 0, or -1 after fail().  Slurm writes most lists
 * in increasing order (as strings, or as numbers: n[9-10]), which needs
 * no hashing of the 4,096 names of a large step. */
static int distinct(struct slots *s, const char *source, const muster_host *h,
                    muster_call *call)
{
	if (increasing(s, strcmp) || increasing(s, natural_cmp))
		return 0;
	for (size_t i = 0; i < s->nhosts; i++) {
		long at = slots_find(s, s->hosts[i].name);

		if (at == -2) {
			h->fail(call, "out of memory");
			return -1;
		}
		if (at != (long)i) {
			h->fail(call, "%s names host %.64s twice (hosts %ld and %zu of the list): a "
			        "Slurm node list has each node once", source, s->hosts[i].name, at + 1,
			        i + 1);
			return -1;
		}
	}
	return 0;
}

/* An arbitrary step: each rank's host, which must be one of the step's,
 * and as many ranks on each host as its count says (else the task list
 * is another step's, inherited).  0, or -1 after fail(). */
static int arbitrary_hosts(const struct slurm_conf *conf, const struct slurm_env *env,
                           struct slots *s, size_t **rank_host, const muster_host *h,
                           muster_call *call)
{
	const struct slurm_dist *d = &env->dist;
	long *tally = calloc(s->nhosts ? s->nhosts : 1, sizeof(*tally));
	char from[160];

	*rank_host = malloc((size_t)(s->total ? s->total : 1) * sizeof(**rank_host));
	if (tally == NULL || *rank_host == NULL) {
		free(tally);
		h->fail(call, "out of memory");
		return -1;
	}
	for (long r = 0; r < s->total; r++) {
		long at = slots_find(s, d->rank_hosts[r]);

		if (at < 0) {
			free(tally);
			if (at == -2)
				h->fail(call, "out of memory");
			else
				h->fail(call, "%s puts task %ld on %.64s, which is not a node of %s", d->from,
				        r, d->rank_hosts[r], env->names.nodelist);
			return -1;
		}
		(*rank_host)[r] = (size_t)at;
		tally[at]++;
	}
	for (size_t i = 0; i < s->nhosts; i++) {
		if (tally[i] != s->hosts[i].tasks) {
			slurm_counts_source(conf, env, from, sizeof(from));
			h->fail(call, "%s puts %ld of the first %ld tasks on %.64s but %s gives it %ld",
			        d->from, tally[i], s->total, s->hosts[i].name, from, s->hosts[i].tasks);
			free(tally);
			return -1;
		}
	}
	free(tally);
	return 0;
}

int slurm_slots(const struct slurm_conf *conf, const struct slurm_env *env, struct slots *s,
                size_t **rank_host, const muster_host *h, muster_call *call)
{
	size_t n = slurm_host_count(conf, env);
	struct slot_host *hosts = malloc((n ? n : 1) * sizeof(*hosts));

	if (hosts == NULL) {
		h->fail(call, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		slurm_host_at(conf, env, i, &hosts[i].name, &hosts[i].tasks);
	if (slots_adopt(s, hosts, n, LAYOUT_MAX_TASKS) != 0) {
		h->fail(call, "more than %ld tasks in the step", LAYOUT_MAX_TASKS);
		free(hosts);
		return -1;
	}
	if (distinct(s, conf->ntpn_map ? "tasks_per_node" : env->names.nodelist, h, call) != 0)
		return -1;
	if (env->dist.arbitrary)
		return arbitrary_hosts(conf, env, s, rank_host, h, call);
	return 0;
}

muster_status slurm_check_self(const struct slurm_conf *conf, const struct slurm_env *env,
                               const struct slots *s, const size_t *rank_host,
                               const muster_host *h, muster_call *call)
{
	char from[160], by[400];
	const char *name;
	size_t node;
	long local;

	if (slots_place(s, env->dist.plane, rank_host, env->rank, &node, &local) != 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL, "out of memory");
	name = s->hosts[node].name;
	slurm_counts_source(conf, env, from, sizeof(from));
	snprintf(by, sizeof(by), "as %s and %s lay out the tasks on %s", from, env->dist.text,
	         conf->ntpn_map ? "its hosts" : env->names.nodelist);
	if (env->nodename != NULL && strcmp(env->nodename, name) != 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "SLURMD_NODENAME is %.64s but task %ld (SLURM_PROCID) runs "
		                     "on %.64s, %s", env->nodename, env->rank, name, by);
	if (env->nodeid >= 0 && (size_t)env->nodeid != node)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_NODEID is %ld but task %ld (SLURM_PROCID) runs on "
		                     "node %zu (%.64s), %s", env->nodeid, env->rank, node, name,
		                     by);
	if (env->localid >= 0 && env->localid != local)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_LOCALID is %ld but task %ld (SLURM_PROCID) is task "
		                     "%ld of its node %.64s, %s", env->localid, env->rank, local,
		                     name, by);
	return MUSTER_STATUS_SUCCESS;
}
