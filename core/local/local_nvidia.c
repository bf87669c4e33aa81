/* NVIDIA GPUs: the driver's /proc/driver/nvidia/gpus, which has the count,
 * the bus ids and the UUIDs at a fraction of NVML's start-up; NVML only
 * where /proc shows none, and for MIG devices, which only it can name. */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/vec.h"
#include "local_devices.h"
#include "local_nvml.h"
#include "local_pcipath.h"

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An NVSwitch (PCI class 0x0680, bridge) is listed by some drivers too. */
static int is_bridge(const char *root, const char *bus)
{
	char path[512], cls[32];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", bus);
	return local_read(root, path, cls, sizeof(cls)) == 0 && strncmp(cls, "0x0680", 6) == 0;
}

/* The value of a "Key:  value" line of the information file, up to the
 * first blank; "" when absent. */
static void field(const char *info, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	out[0] = '\0';
	for (const char *p = info; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0)
			continue;
		p += klen;
		p += strspn(p, " \t");
		snprintf(out, size, "%.*s", (int)strcspn(p, " \t\n"), p);
		return;
	}
}

/* The UUID and device minor the driver shows for the GPU at `bus`. */
static void describe(const char *root, struct device *v, const char *bus)
{
	char path[512], info[4096], minor[16];
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bus);
	if (local_read(root, path, info, sizeof(info)) != 0)
		return;
	field(info, "GPU UUID:", v->uuid, sizeof(v->uuid));
	field(info, "Device Minor:", minor, sizeof(minor));
	if (minor[0] && strspn(minor, "0123456789") == strlen(minor) && strlen(minor) < 8)
		v->minor = atoi(minor);
}

/* One directory per GPU, named by PCI bus id: NVML's order is bus order. */
static int from_proc(struct muster_devices *d, const char *root)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus", root);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL && rc == 0) {
		if (e->d_name[0] == '.')
			continue;
		if (vec_reserve(&names, &cap, n + 1, sizeof(*names)) < 0) {
			rc = -1;
			break;
		}
		if ((names[n] = strdup(e->d_name)) == NULL)
			rc = -1;
		else
			n++;
	}
	closedir(dir);
	if (rc == 0)
		qsort(names, n, sizeof(*names), name_cmp);
	long index = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char id[24];
		if (is_bridge(root, names[i]))
			continue;
		snprintf(id, sizeof(id), "%ld", index++);
		if ((rc = devices_add(d, "GPU", "nvidia", id, NULL)) < 0)
			break;
		struct device *v = &d->dev[d->n - 1];
		if (pci_is_function(names[i], strlen(names[i])))
			snprintf(v->bus, sizeof(v->bus), "%s", names[i]);
		describe(root, v, names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int local_nvidia(struct muster_devices *d, const char *root, int use_nvml)
{
	size_t before = d->n;
	if (from_proc(d, root) < 0)
		return -1;
	if (d->n > before || !use_nvml)
		return 0;
	char why[256];
	struct nvml *n = nvml_open(why, sizeof(why));
	int rc = n ? nvml_list(n, d) : 0;
	nvml_close(n);
	return rc;
}

/* Whether the driver shows a GPU instance on any GPU:
 * /proc/driver/nvidia/capabilities/gpuMINOR/mig/giN exists only for those. */
static int has_gpu_instances(const struct muster_devices *d)
{
	for (size_t i = 0; i < d->n; i++) {
		char path[4096];
		if (strcmp(d->dev[i].vendor, "nvidia") != 0 || d->dev[i].minor < 0)
			continue;
		snprintf(path, sizeof(path), "%s/proc/driver/nvidia/capabilities/gpu%d/mig", d->root,
		         d->dev[i].minor);
		DIR *dir = opendir(path);
		struct dirent *e;
		int found = 0;
		while (dir && !found && (e = readdir(dir)) != NULL)
			found = strncmp(e->d_name, "gi", 2) == 0;
		if (dir)
			closedir(dir);
		if (found)
			return 1;
	}
	return 0;
}

/* Whether an entry of a CUDA_VISIBLE_DEVICES value names a MIG device. */
static int names_mig(const char *spec)
{
	for (const char *p = spec; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
		if (strncmp(p + strspn(p, " "), "MIG-", 4) == 0)
			return 1;
	return 0;
}

int local_nvidia_mig(struct muster_devices *d, const char *spec, muster_error *err)
{
	if (!names_mig(spec) || !has_gpu_instances(d))
		return 0; /* no MIG device to name: the entry names none */
	if (d->root[0])
		return error_set(err, MUSTER_EUNAVAIL,
		                 "CUDA_VISIBLE_DEVICES names MIG devices, which only NVML lists, and "
		                 "NVML is not used under a sysroot (%s)", d->root);
	char why[256];
	struct nvml *n = nvml_open(why, sizeof(why));
	if (!n)
		return error_set(err, MUSTER_EUNAVAIL,
		                 "CUDA_VISIBLE_DEVICES names MIG devices, which only NVML lists: %s",
		                 why);
	int rc = (d->mig = calloc(1, sizeof(*d->mig))) == NULL || nvml_mig(n, d) < 0;
	nvml_close(n);
	return rc ? error_set(err, MUSTER_ENOMEM, "out of memory") : 0;
}
