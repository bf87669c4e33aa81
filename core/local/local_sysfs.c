/* AMD GPUs (the KFD topology), accel-class devices (Habana, Intel NPUs)
 * and TPUs (/dev/accelN on TPU VMs, else VFIO groups of Google devices). */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local_devices.h"
#include "local_pcipath.h"

long *local_numbered(const char *root, const char *dir, const char *prefix, size_t *count)
{
	char path[4096];
	size_t plen = strlen(prefix), n = 0, cap = 16;
	long *v = malloc(cap * sizeof(*v));
	*count = 0;
	snprintf(path, sizeof(path), "%s%s", root, dir);
	DIR *d = opendir(path);
	if (!d || !v) {
		if (d)
			closedir(d);
		return v;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *num = e->d_name + plen;
		if (strncmp(e->d_name, prefix, plen) != 0 || !*num ||
		    strspn(num, "0123456789") != strlen(num) || strlen(num) > 9)
			continue;
		if (n == cap) {
			long *grown = realloc(v, 2 * cap * sizeof(*v));
			if (!grown)
				break;
			v = grown;
			cap *= 2;
		}
		v[n++] = strtol(num, NULL, 10);
	}
	closedir(d);
	for (size_t i = 1; i < n; i++) /* insertion sort: a handful of entries */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			long t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*count = n;
	return v;
}

/* The PCI function a sysfs link (under root) points to, into the last
 * device's bus id; nothing when it points to none. */
static void bus_from_link(struct muster_devices *d, const char *root, const char *link)
{
	char path[4096], target[4096];
	snprintf(path, sizeof(path), "%s%s", root, link);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	const char *name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	if (pci_is_function(name, strlen(name)))
		snprintf(d->dev[d->n - 1].bus, sizeof(d->dev[0].bus), "%s", name);
}

/* "key value" lines: the value of `key`, -1 when absent. */
static long long property(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	return -1;
}

/* KFD lists CPUs and GPUs as nodes; a GPU has SIMDs.  ROCr numbers the
 * GPUs in node order and names them "GPU-" and the unique id in hex. */
int local_amd(struct muster_devices *d, const char *root)
{
	size_t n;
	long *nodes = local_numbered(root, "/sys/class/kfd/kfd/topology/nodes", "", &n);
	long index = 0;
	int rc = nodes ? 0 : -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char path[256], props[8192], id[24], uuid[40] = "";
		snprintf(path, sizeof(path), "/sys/class/kfd/kfd/topology/nodes/%ld/properties",
		         nodes[i]);
		if (local_read(root, path, props, sizeof(props)) != 0 ||
		    property(props, "simd_count") <= 0)
			continue;
		long long unique = property(props, "unique_id");
		if (unique > 0)
			snprintf(uuid, sizeof(uuid), "GPU-%016llx", (unsigned long long)unique);
		snprintf(id, sizeof(id), "%ld", index++);
		if ((rc = devices_add(d, "GPU", "amd", id, uuid)) < 0)
			break;
		/* location_id is the bus number and devfn, as the kernel packs them. */
		long long loc = property(props, "location_id"), dom = property(props, "domain");
		if (loc >= 0 && loc <= 0xffff)
			snprintf(d->dev[d->n - 1].bus, sizeof(d->dev[0].bus), "%04llx:%02llx:%02llx.%llx",
			         dom > 0 && dom <= 0xffff ? dom : 0, loc >> 8, (loc >> 3) & 0x1f, loc & 7);
	}
	free(nodes);
	return rc;
}

int local_accel_class(struct muster_devices *d, const char *root)
{
	size_t n;
	long *acc = local_numbered(root, "/sys/class/accel", "accel", &n);
	int rc = acc ? 0 : -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char path[128], vendor[32], id[24];
		snprintf(path, sizeof(path), "/sys/class/accel/accel%ld/device/vendor", acc[i]);
		if (local_read(root, path, vendor, sizeof(vendor)) != 0)
			vendor[0] = '\0';
		snprintf(id, sizeof(id), "%ld", acc[i]);
		if (strcmp(vendor, "0x1da3") == 0)
			rc = devices_add(d, "HPU", "habana", id, NULL);
		else
			rc = devices_add(d, "NPU", strcmp(vendor, "0x8086") == 0 ? "intel" : "other", id,
			                 NULL);
		snprintf(path, sizeof(path), "/sys/class/accel/accel%ld/device", acc[i]);
		if (rc == 0)
			bus_from_link(d, root, path);
	}
	free(acc);
	return rc;
}

/* A VFIO group is a TPU when a device in it is Google's (vendor 0x1ae0);
 * /dev/vfio/vfio, the container node, is no group.  `bus` gets its name. */
static int google_group(const char *root, long group, char *bus, size_t size)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/sys/kernel/iommu_groups/%ld/devices", root, group);
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while (d && !found && (e = readdir(d)) != NULL) {
		char path[512], vendor[32];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%ld/devices/%s/vendor", group,
		         e->d_name);
		found = local_read(root, path, vendor, sizeof(vendor)) == 0 &&
		        strcmp(vendor, "0x1ae0") == 0;
		if (found && pci_is_function(e->d_name, strlen(e->d_name)))
			snprintf(bus, size, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

int local_tpu(struct muster_devices *d, const char *root)
{
	size_t n;
	long *acc = local_numbered(root, "/dev", "accel", &n);
	int rc = acc ? 0 : -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char id[24], path[128];
		snprintf(id, sizeof(id), "%ld", acc[i]);
		rc = devices_add(d, "TPU", "google", id, NULL);
		snprintf(path, sizeof(path), "/sys/class/accel/accel%ld/device", acc[i]);
		if (rc == 0)
			bus_from_link(d, root, path);
	}
	free(acc);
	if (rc != 0 || n > 0)
		return rc;
	long *groups = local_numbered(root, "/dev/vfio", "", &n);
	rc = groups ? 0 : -1;
	for (size_t i = 0, index = 0; i < n && rc == 0; i++) {
		char id[24], bus[16] = "";
		if (!google_group(root, groups[i], bus, sizeof(bus)))
			continue;
		snprintf(id, sizeof(id), "%zu", index++);
		if ((rc = devices_add(d, "TPU", "google", id, NULL)) == 0)
			memcpy(d->dev[d->n - 1].bus, bus, sizeof(bus));
	}
	free(groups);
	return rc;
}
