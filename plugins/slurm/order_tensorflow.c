/*
 * TensorFlow's Slurm layout (`order = "tensorflow"`): hosts in string
 * order, a host listed twice kept once with its last count (TF's dict),
 * tasks in block, the own task at position SLURM_PROCID.  Kept for
 * TensorFlow programs that compare cluster specs with SlurmClusterResolver's;
 * it ignores Slurm's node order and task distribution, so a task may be
 * listed on a host it does not run on (docs/ranks.md 1.2).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "slurm.h"

struct slot {
	const char *host;
	long count;
	size_t pos; /* in the host list: the later of two mentions wins */
};

static int by_host(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;
	int c = strcmp(a->host, b->host);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* Host -> tasks, sorted, a host listed twice kept once with its last
 * count, into `out` in that order; 0, or -1 after fail(). */
int slurm_tf_slots(const struct slurm_conf *conf, const struct slurm_env *env,
                   struct slots *out, const muster_host *h, muster_call *call)
{
	size_t total = slurm_host_count(conf, env), n = 0;
	struct slot *s = malloc((total ? total : 1) * sizeof(*s));
	struct slot_host *hosts = malloc((total ? total : 1) * sizeof(*hosts));

	if (!s || !hosts) {
		h->fail(call, "out of memory");
		free(s);
		free(hosts);
		return -1;
	}
	for (size_t i = 0; i < total; i++) {
		s[i].pos = i;
		slurm_host_at(conf, env, i, &s[i].host, &s[i].count);
	}
	/* Expanded host lists usually come sorted already: then no sort. */
	size_t sorted = 1;
	while (sorted < total && by_host(&s[sorted - 1], &s[sorted]) < 0)
		sorted++;
	if (sorted < total)
		qsort(s, total, sizeof(*s), by_host);
	for (size_t i = 0; i < total; i++) {
		if (n && strcmp(hosts[n - 1].name, s[i].host) == 0)
			n--;
		hosts[n].name = s[i].host;
		hosts[n++].tasks = s[i].count;
	}
	free(s);
	/* Distinct now: the slots need no hash of them. */
	if (slots_adopt(out, hosts, n, LAYOUT_MAX_TASKS) != 0) {
		h->fail(call, "more than %ld tasks in the step", LAYOUT_MAX_TASKS);
		free(hosts);
		return -1;
	}
	return 0;
}

