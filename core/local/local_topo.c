/* muster_local_topology(): where each device sits, from sysfs: its NUMA
 * node and that node's CPUs, its package's CPUs, the network interface
 * nearest it, the PCI path level between each two devices, and (through
 * NVML, when asked) the NVLinks between NVIDIA GPUs. */
#include <config.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/vec.h"
#include "local_cpus.h"
#include "local_devices.h"
#include "local_nvml.h"
#include "local_pcipath.h"

const char *link_name(int level)
{
	static const char *const names[] = { NULL, "X", "NVL", "PIX", "PXB", "PHB", "SYS" };
	return level > 0 && level < (int)(sizeof(names) / sizeof(names[0])) ? names[level] : NULL;
}

void devices_release(struct muster_devices *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->dev[i].cpus);
		free(d->dev[i].socket_cpus);
	}
	if (d->mig) {
		free(d->mig->dev);
		free(d->mig);
	}
	free(d->links);
	free(d->root);
}

/* The machine's NUMA nodes: each one's CPUs and the package of its first. */
struct node {
	long id, package; /* package -1: unknown */
	struct cpus cpus;
};

static long read_long(const char *root, const char *path, long min, long max, long fallback)
{
	char text[32], *end;
	if (local_read(root, path, text, sizeof(text)) != 0)
		return fallback;
	long v = strtol(text, &end, 10);
	return end != text && *end == '\0' && v >= min && v <= max ? v : fallback;
}

static long package_of(const char *root, long cpu)
{
	char path[96];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id",
	         cpu);
	return cpu < 0 ? -1 : read_long(root, path, 0, INT_MAX, -1);
}

/* NULL when out of memory; *count 0 on a machine that shows no node. */
static struct node *read_nodes(const char *root, size_t *count)
{
	size_t n;
	long *ids = local_numbered(root, "/sys/devices/system/node", "node", &n);
	struct node *nodes = ids ? malloc((n ? n : 1) * sizeof(*nodes)) : NULL;
	*count = 0;
	for (size_t i = 0; nodes && i < n; i++) {
		char path[96];
		struct node *v = &nodes[*count];
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld/cpulist", ids[i]);
		if (cpus_read(&v->cpus, root, path) != 0)
			continue;
		v->id = ids[i];
		v->package = package_of(root, cpus_next(&v->cpus, 0));
		(*count)++;
	}
	free(ids);
	return nodes;
}

static const struct node *node_by_id(const struct node *nodes, size_t n, long id)
{
	for (size_t i = 0; i < n; i++)
		if (nodes[i].id == id)
			return &nodes[i];
	return NULL;
}

/* A device's node, its CPUs (the node's, else the device's own
 * local_cpulist: a machine without NUMA gives every device all of them)
 * and its package's CPUs (those of the nodes whose first CPU is in the
 * package of the device's first).  -1 when out of memory. */
static int place(struct device *v, const char *root, const struct node *nodes, size_t nn)
{
	char path[128];
	struct cpus own;
	const struct node *node = NULL;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", v->bus);
	v->numa = read_long(root, path, -1, INT_MAX, -1);
	if (v->numa >= 0 && (node = node_by_id(nodes, nn, v->numa)) != NULL) {
		own = node->cpus;
	} else {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist", v->bus);
		if (cpus_read(&own, root, path) != 0 || cpus_next(&own, 0) < 0)
			return 0;
	}
	if ((v->cpus = cpus_format(&own)) == NULL)
		return -1;
	long package = node ? node->package : package_of(root, cpus_next(&own, 0));
	if (package < 0 || nn == 0)
		return 0;
	struct cpus socket;
	memset(&socket, 0, sizeof(socket));
	for (size_t i = 0; i < nn; i++)
		if (nodes[i].package == package)
			cpus_or(&socket, &nodes[i].cpus);
	return (v->socket_cpus = cpus_format(&socket)) == NULL ? -1 : 0;
}

struct nic {
	char name[32];
	char *path;
};

/* The network interfaces that sit on PCI, with their paths. */
static struct nic *read_nics(const char *root, const char *rroot, size_t *count)
{
	char dir[PATH_MAX];
	size_t cap = 0;
	struct nic *nics = NULL;
	*count = 0;
	if (vec_reserve(&nics, &cap, 1, sizeof(*nics)) < 0)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/sys/class/net", root);
	DIR *d = nics ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		char link[128];
		size_t len = strlen(e->d_name);
		/* Names a table can show: printable, no blank, short. */
		if (e->d_name[0] == '.' || len >= sizeof(nics->name) ||
		    strspn(e->d_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                      "0123456789._-:@") != len)
			continue;
		snprintf(link, sizeof(link), "/sys/class/net/%s/device", e->d_name);
		char *path = pci_path(root, rroot, link);
		if (!path)
			continue;
		if (vec_reserve(&nics, &cap, *count + 1, sizeof(*nics)) < 0) {
			free(path);
			break;
		}
		memcpy(nics[*count].name, e->d_name, len + 1);
		nics[(*count)++].path = path;
	}
	if (d)
		closedir(d);
	return nics;
}

/* The interface sharing the longest PCI path with the device; ties go to
 * the nearer level, then to the first name. */
static void nearest_nic(struct device *v, const char *path, const struct nic *nics, size_t n,
                        const char *root)
{
	size_t best_shared = 0;
	for (size_t i = 0; i < n; i++) {
		char numa_path[128];
		size_t shared = pci_shared(path, nics[i].path);
		snprintf(numa_path, sizeof(numa_path), "/sys/class/net/%s/device/numa_node",
		         nics[i].name);
		int level = pci_level(path, v->numa, nics[i].path,
		                      read_long(root, numa_path, -1, INT_MAX, -1));
		if (v->nic[0] && (shared < best_shared ||
		                  (shared == best_shared && (level > v->nic_link ||
		                                             (level == v->nic_link &&
		                                              strcmp(nics[i].name, v->nic) > 0)))))
			continue;
		best_shared = shared;
		v->nic_link = level;
		memcpy(v->nic, nics[i].name, sizeof(v->nic));
	}
}

/* Fills the topology of d's devices: -1 when out of memory. */
static int fill(struct muster_devices *d)
{
	char rroot[PATH_MAX] = "";
	const char *root = d->root;
	size_t nn, nnics = 0;
	int rc = 0;

	/* Paths are compared below the sysroot's own resolved name. */
	if (root[0] && (!realpath(root, rroot) || strcmp(rroot, "/") == 0))
		rroot[0] = '\0';
	struct node *nodes = read_nodes(root, &nn);
	struct nic *nics = nodes ? read_nics(root, rroot, &nnics) : NULL;
	char **paths = calloc(d->n ? d->n : 1, sizeof(*paths));
	d->links = calloc(d->n ? d->n * d->n : 1, 1);
	if (!nodes || !nics || !paths || !d->links)
		rc = -1;
	for (size_t i = 0; i < d->n && rc == 0; i++) {
		struct device *v = &d->dev[i];
		char link[64];
		if (!v->bus[0])
			continue;
		rc = place(v, root, nodes, nn);
		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", v->bus);
		if (rc == 0 && (paths[i] = pci_path(root, rroot, link)) != NULL)
			nearest_nic(v, paths[i], nics, nnics, root);
	}
	for (size_t i = 0; i < d->n && rc == 0; i++)
		for (size_t j = 0; j < d->n; j++)
			d->links[i * d->n + j] =
				i == j ? LINK_SELF
				: paths[i] && paths[j]
					? (unsigned char)pci_level(paths[i], d->dev[i].numa, paths[j],
				                                   d->dev[j].numa)
					: LINK_UNKNOWN;
	for (size_t i = 0; paths && i < d->n; i++)
		free(paths[i]);
	for (size_t i = 0; i < nnics; i++)
		free(nics[i].path);
	free(paths);
	free(nics);
	free(nodes);
	return rc;
}

MUSTER_API int muster_local_topology(muster_devices **out, const char *sysroot, unsigned flags,
                                     muster_error *err)
{
	int rc = muster_local_devices(out, sysroot, err);
	if (rc != 0)
		return rc;
	muster_devices *d = *out;
	if (fill(d) < 0) {
		muster_devices_free(d);
		*out = NULL;
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	/* NVLinks only NVML knows; it is not used under a sysroot. */
	int nvidia = 0;
	for (size_t i = 0; i < d->n; i++)
		nvidia |= strcmp(d->dev[i].vendor, "nvidia") == 0;
	if ((flags & MUSTER_TOPOLOGY_NVLINK) && nvidia && !d->root[0]) {
		char why[256];
		struct nvml *n = nvml_open(why, sizeof(why));
		if (n)
			nvml_nvlinks(n, d);
		nvml_close(n);
	}
	return 0;
}

MUSTER_API int muster_devices_topology_at(const muster_devices *d, size_t i,
                                          muster_device_topology *out)
{
	if (!d || !out || i >= d->n || out->size < sizeof(size_t))
		return d && i >= d->n ? MUSTER_ENOENT : MUSTER_EINVAL;
	const struct device *v = &d->dev[i];
	muster_device_topology t = {
		.size = out->size < sizeof(t) ? out->size : sizeof(t),
		.pci_bus_id = v->bus[0] ? v->bus : NULL,
		.uuid = v->uuid[0] ? v->uuid : NULL,
		.numa_node = v->numa,
		.cpus = v->cpus,
		.socket_cpus = v->socket_cpus,
		.nic = v->nic[0] ? v->nic : NULL,
		.nic_link = v->nic[0] ? link_name(v->nic_link) : NULL,
	};
	memcpy(out, &t, t.size); /* only the fields the caller's struct has */
	return 0;
}

MUSTER_API const char *muster_devices_link(const muster_devices *d, size_t i, size_t j)
{
	if (!d || !d->links || i >= d->n || j >= d->n)
		return NULL;
	return link_name(d->links[i * d->n + j]);
}

MUSTER_API int muster_devices_nvlink_checked(const muster_devices *d)
{
	return d ? d->nvlink_checked : 0;
}
