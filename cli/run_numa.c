/* muster run --numa-binding: each worker's CPUs, chosen before any fork
 * from the GPUs it drives, and set in the worker right before its exec.
 * A worker's GPUs are its --gpus-per-proc slice, else the visible GPU at
 * its local rank (in PCI bus order, as the devices of accelerators
 * --local), which is the one that torch.cuda's device LOCAL_RANK names. */
#include <config.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* The list (as the library writes it, "0-3,8"; never empty) as a CPU set
 * of *size bytes; NULL when out of memory. */
static cpu_set_t *set_of(const char *list, size_t *size)
{
	/* The last number is the highest CPU: the list is in order. */
	const char *last = list + strlen(list);
	while (last > list && last[-1] >= '0' && last[-1] <= '9')
		last--;
	size_t count = (size_t)strtol(last, NULL, 10) + 1;
	cpu_set_t *set = CPU_ALLOC(count);
	if (!set)
		return NULL;
	*size = CPU_ALLOC_SIZE(count);
	CPU_ZERO_S(*size, set);
	for (char *p = (char *)list; *p;) {
		long lo = strtol(p, &p, 10), hi = *p == '-' ? strtol(p + 1, &p, 10) : lo;
		for (long c = lo; c <= hi; c++)
			CPU_SET_S((size_t)c, *size, set);
		p += *p == ',';
	}
	return set;
}

/* "GPU 0 (NUMA node 1)", "GPUs 0,1 (NUMA nodes 0, 1)" for messages. */
static void describe(char *buf, size_t size, const muster_devices *d, const size_t *gpu, long k)
{
	size_t o = (size_t)snprintf(buf, size, "GPU%s ", k > 1 ? "s" : "");
	for (long j = 0; j < k && o < size; j++) {
		const char *id;
		muster_devices_at(d, gpu[j], NULL, NULL, &id);
		o += (size_t)snprintf(buf + o, size - o, "%s%s", j ? "," : "", id);
	}
	for (long j = 0; j < k && o < size; j++) {
		muster_device_topology t = MUSTER_DEVICE_TOPOLOGY_INIT;
		muster_devices_topology_at(d, gpu[j], &t);
		o += (size_t)snprintf(buf + o, size - o, j ? ", %ld" : " (NUMA node %ld", t.numa_node);
	}
	if (o < size)
		snprintf(buf + o, size - o, ")");
}

int run_numa_plan(struct run_plan *p, const muster_devices *d, long gpus_per_proc,
                  const char *command)
{
	static const char *const modes[] = { "", "node", "socket", "exclusive" };
	long k = gpus_per_proc > 0 ? gpus_per_proc : 1, ngpus = 0, unpinned = 0;
	size_t *gpu = malloc((size_t)k * sizeof(*gpu)), *all = NULL, n = muster_devices_count(d);
	char why[1024] = "";
	const char *kind;

	if (!gpu || (all = malloc((n ? n : 1) * sizeof(*all))) == NULL) {
		free(gpu);
		cli_error("%s", muster_strerror(MUSTER_ENOMEM));
		return CLI_EXIT_SOFTWARE;
	}
	for (size_t i = 0; muster_devices_at(d, i, &kind, NULL, NULL) == 0; i++)
		if (strcmp(kind, "GPU") == 0)
			all[ngpus++] = i;
	for (long i = 0; i < p->n; i++) {
		muster_error err = { 0, "" };
		char *list = NULL, what[256];
		long local = p->first_local + i; /* the worker's LOCAL_RANK */
		if ((local + 1) * k > ngpus) {
			if (!why[0])
				snprintf(why, sizeof(why), "%s: --numa-binding: %s", command,
				         ngpus ? "local ranks past the GPUs have no GPU of their own"
				               : "no GPU on this machine");
			unpinned++;
			continue;
		}
		memcpy(gpu, all + local * k, (size_t)k * sizeof(*gpu));
		int rc = muster_devices_cpus(&list, d, gpu, (size_t)k, p->numa, &err);
		if (rc == MUSTER_ENOTFOUND) {
			if (!why[0])
				snprintf(why, sizeof(why), "%s: --numa-binding: %s", command, err.message);
			unpinned++;
			continue;
		}
		if (rc != 0) {
			free(gpu);
			free(all);
			cli_error("%s: %s", command, err.message);
			return rc == MUSTER_ENOENT ? CLI_EXIT_NOENT : CLI_EXIT_SOFTWARE;
		}
		p->w[i].cpus = set_of(list, &p->w[i].cpus_size);
		if (p->w[i].cpus && p->verbose) {
			char line[1400];
			describe(what, sizeof(what), d, gpu, k);
			snprintf(line, sizeof(line), "%s: --numa-binding %s: local rank %ld, %s: CPUs %s",
			         command, modes[p->numa], local, what, list);
			cli_log(MUSTER_LOG_INFO, line, NULL);
		}
		muster_free(list);
		if (!p->w[i].cpus) {
			free(gpu);
			free(all);
			cli_error("%s", muster_strerror(MUSTER_ENOMEM));
			return CLI_EXIT_SOFTWARE;
		}
	}
	if (unpinned && !p->quiet) {
		char line[1200];
		snprintf(line, sizeof(line), "%s: %ld of %ld workers run unpinned", why, unpinned, p->n);
		cli_log(MUSTER_LOG_WARNING, line, NULL);
	}
	free(gpu);
	free(all);
	return 0;
}

int run_pin(const struct run_worker *w)
{
	return w->cpus ? sched_setaffinity(0, w->cpus_size, w->cpus) : 0;
}
