/* muster_devices_cpus(): the CPUs a process driving some devices should
 * run on, as torchrun's --numa-binding chooses them (torch/numa/
 * binding.py): the devices' NUMA nodes, their packages, or an exclusive
 * share of a node's physical cores per device.  Only CPUs this process may
 * run on count, as there. */
#include <config.h> /* _GNU_SOURCE: the CPU_*_S macros */

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "local_cpus.h"
#include "local_devices.h"

static const char *label(const struct device *v, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s%s%s%s", v->kind, v->id, v->bus[0] ? " (" : "", v->bus,
	         v->bus[0] ? ")" : "");
	return buf;
}

/* The CPUs this process may run on. */
static int allowed_cpus(struct cpus *s)
{
	cpu_set_t *set = CPU_ALLOC(CPUS_MAX);
	size_t size = CPU_ALLOC_SIZE(CPUS_MAX);
	int rc = set && sched_getaffinity(0, size, set) == 0 ? 0 : -1;
	memset(s, 0, sizeof(*s));
	for (long c = 0; rc == 0 && c < CPUS_MAX; c++)
		if (CPU_ISSET_S((size_t)c, size, set))
			cpus_add(s, c);
	if (set)
		CPU_FREE(set);
	return rc;
}

/* A physical core: its first CPU, and those of its CPUs that count. */
struct core {
	long key;
	struct cpus cpus;
};

static int core_cmp(const void *a, const void *b)
{
	long x = ((const struct core *)a)->key, y = ((const struct core *)b)->key;
	return (x > y) - (x < y);
}

/* Device i's share of its node's cores (of `usable`, those it may use),
 * divided among the devices of its kind on the node in list order: the
 * first ones get one core more when they do not divide evenly. */
static int exclusive_share(struct cpus *share, const struct muster_devices *d, size_t i,
                           const struct cpus *usable, muster_error *err)
{
	const struct device *v = &d->dev[i];
	size_t peers = 0, rank = 0, ncores = 0;
	for (size_t j = 0; j < d->n; j++) {
		const struct device *w = &d->dev[j];
		if (strcmp(w->kind, v->kind) != 0 || !w->cpus || strcmp(w->cpus, v->cpus) != 0)
			continue;
		rank = j == i ? peers : rank;
		peers++;
	}
	struct core *cores = malloc((size_t)(cpus_count(usable) + 1) * sizeof(*cores));
	if (!cores)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	for (long c = cpus_next(usable, 0); c >= 0; c = cpus_next(usable, c + 1)) {
		char path[96];
		struct cpus siblings;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list",
		         c);
		long key = cpus_read(&siblings, d->root, path) == 0 && cpus_has(&siblings, c)
		                   ? cpus_next(&siblings, 0)
		                   : c;
		size_t k = 0;
		while (k < ncores && cores[k].key != key)
			k++;
		if (k == ncores) {
			cores[ncores].key = key;
			memset(&cores[ncores++].cpus, 0, sizeof(cores[0].cpus));
		}
		cpus_add(&cores[k].cpus, c);
	}
	qsort(cores, ncores, sizeof(*cores), core_cmp);
	size_t each = ncores / peers, extra = ncores % peers;
	if (each == 0) {
		char name[128];
		free(cores);
		return error_set(err, MUSTER_ENOENT,
		                 "--numa-binding exclusive: the CPUs near %s, %s, hold %zu physical "
		                 "core%s this process may run on, too few for the %zu %ss there",
		                 label(v, name, sizeof(name)), v->cpus, ncores, ncores == 1 ? "" : "s",
		                 peers, v->kind);
	}
	size_t first = rank * each + (rank < extra ? rank : extra);
	size_t last = first + each + (rank < extra ? 1 : 0);
	memset(share, 0, sizeof(*share));
	for (size_t k = first; k < last; k++)
		cpus_or(share, &cores[k].cpus);
	free(cores);
	return 0;
}

static int parse_list(struct cpus *s, const char *list)
{
	return list ? cpus_parse(s, list) : -1;
}

MUSTER_API int muster_devices_cpus(char **out, const muster_devices *d, const size_t *devices,
                                   size_t n, int mode, muster_error *err)
{
	static const char *const modes[] = { NULL, "node", "socket", "exclusive" };
	struct cpus allowed, all, one;
	char name[128], *have = NULL;
	int rc = 0;

	if (!out || !d || (!devices && n > 0) || mode < MUSTER_BIND_NODE ||
	    mode > MUSTER_BIND_EXCLUSIVE)
		return error_set(err, MUSTER_EINVAL, "muster_devices_cpus: bad argument");
	*out = NULL;
	for (size_t k = 0; k < n; k++)
		if (devices[k] >= d->n)
			return error_set(err, MUSTER_EINVAL, "muster_devices_cpus: no device %zu",
			                 devices[k]);
	if (allowed_cpus(&allowed) != 0)
		return error_set(err, MUSTER_EUNAVAIL, "sched_getaffinity failed");
	memset(&all, 0, sizeof(all));
	for (size_t k = 0; k < n && rc == 0; k++) {
		const struct device *v = &d->dev[devices[k]];
		const char *list = mode == MUSTER_BIND_SOCKET ? v->socket_cpus : v->cpus;
		if (!v->cpus || parse_list(&one, list) != 0) {
			rc = error_set(err, MUSTER_ENOTFOUND, "no %s information for %s in sysfs",
			               mode == MUSTER_BIND_SOCKET && v->cpus ? "CPU package" : "NUMA",
			               label(v, name, sizeof(name)));
			break;
		}
		cpus_and(&one, &allowed);
		if (mode == MUSTER_BIND_EXCLUSIVE && cpus_next(&one, 0) >= 0) {
			struct cpus usable = one;
			rc = exclusive_share(&one, d, devices[k], &usable, err);
		}
		if (rc == 0 && cpus_next(&one, 0) < 0) {
			have = cpus_format(&allowed);
			rc = error_set(err, MUSTER_ENOENT,
			               "--numa-binding %s: the CPUs near %s are %s, and this process may "
			               "run on none of them (only on %s)", modes[mode],
			               label(v, name, sizeof(name)), list, have ? have : "?");
		}
		cpus_or(&all, &one);
	}
	if (rc == 0 && (*out = cpus_format(&all)) == NULL)
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	free(have);
	return rc;
}
