/* NVIDIA GPUs: NVML, loaded at run time so that muster needs no driver to
 * build or run, else the driver's /proc/driver/nvidia/gpus. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "local_devices.h"

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_uuid_fn)(void *, char *, unsigned);

/* 1: NVML answered (devices added), 0: no NVML, -1: out of memory. */
static int from_nvml(struct muster_devices *d)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return 0;
	nvml_void_fn init = (nvml_void_fn)dlsym(lib, "nvmlInit_v2");
	nvml_void_fn shutdown = (nvml_void_fn)dlsym(lib, "nvmlShutdown");
	nvml_count_fn count = (nvml_count_fn)dlsym(lib, "nvmlDeviceGetCount_v2");
	nvml_handle_fn handle = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	nvml_uuid_fn uuid = (nvml_uuid_fn)dlsym(lib, "nvmlDeviceGetUUID");
	unsigned n = 0;
	int rc = 0;

	if (init && shutdown && count && handle && uuid && init() == 0) {
		if (count(&n) == 0) {
			rc = 1;
			for (unsigned i = 0; i < n && rc == 1; i++) {
				char id[16], u[96] = "";
				void *h = NULL;
				if (handle(i, &h) != 0 || uuid(h, u, sizeof(u)) != 0)
					u[0] = '\0';
				snprintf(id, sizeof(id), "%u", i);
				if (devices_add(d, "GPU", "nvidia", id, u) < 0)
					rc = -1;
			}
		}
		shutdown();
	}
	dlclose(lib);
	return rc;
}

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

static void uuid_of(const char *root, const char *bus, char *uuid, size_t size)
{
	char path[512], info[4096];
	uuid[0] = '\0';
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bus);
	if (local_read(root, path, info, sizeof(info)) != 0)
		return;
	const char *p = strstr(info, "GPU UUID:");
	if (p) {
		p += strlen("GPU UUID:");
		p += strspn(p, " \t");
		snprintf(uuid, size, "%.*s", (int)strcspn(p, " \t\n"), p);
	}
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
		char id[24], uuid[96];
		if (is_bridge(root, names[i]))
			continue;
		uuid_of(root, names[i], uuid, sizeof(uuid));
		snprintf(id, sizeof(id), "%ld", index++);
		rc = devices_add(d, "GPU", "nvidia", id, uuid);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int local_nvidia(struct muster_devices *d, const char *root, int use_nvml)
{
	int rc = use_nvml ? from_nvml(d) : 0;
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	return from_proc(d, root);
}
