/* NVML through dlopen(): the few calls muster makes, declared here with
 * the layouts of nvml.h (NVML keeps them stable across drivers). */
#include <config.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local_nvml.h"

typedef void *nvml_dev;
/* nvmlPciInfo_t (v2/v3); the unversioned v1 layout is a prefix of it. */
struct nvml_pci {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};
enum { NVML_SUCCESS = 0, NVML_MIG_ENABLED = 1, NVML_FEATURE_ENABLED = 1,
       NVML_NVLINK_CAP_P2P_SUPPORTED = 0, NVML_NVLINK_MAX_LINKS = 18 };

struct nvml {
	void *lib;
	int (*shutdown)(void);
	int (*count)(unsigned *);
	int (*by_index)(unsigned, nvml_dev *);
	int (*by_bus)(const char *, nvml_dev *);
	int (*uuid)(nvml_dev, char *, unsigned);
	int (*pci)(nvml_dev, struct nvml_pci *);
	int (*mig_mode)(nvml_dev, unsigned *, unsigned *);
	int (*mig_max)(nvml_dev, unsigned *);
	int (*mig_at)(nvml_dev, unsigned, nvml_dev *);
	int (*link_cap)(nvml_dev, unsigned, int, unsigned *);
	int (*link_state)(nvml_dev, unsigned, int *);
	int (*link_remote)(nvml_dev, unsigned, struct nvml_pci *);
};

struct nvml *nvml_open(char *why, size_t size)
{
	struct nvml *n = calloc(1, sizeof(*n));
	int (*init)(void) = NULL;
	const char *(*error_string)(int) = NULL;
	int rc;

	if (!n) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		snprintf(why, size, "%s", dlerror());
		free(n);
		return NULL;
	}
	/* A function pointer from dlsym()'s void *, as POSIX allows. */
#define SYM(field, name) (*(void **)&(field) = dlsym(n->lib, name))
	SYM(init, "nvmlInit_v2");
	SYM(error_string, "nvmlErrorString");
	SYM(n->shutdown, "nvmlShutdown");
	SYM(n->count, "nvmlDeviceGetCount_v2");
	SYM(n->by_index, "nvmlDeviceGetHandleByIndex_v2");
	SYM(n->by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
	SYM(n->uuid, "nvmlDeviceGetUUID");
	SYM(n->pci, "nvmlDeviceGetPciInfo_v3");
	SYM(n->mig_mode, "nvmlDeviceGetMigMode");
	SYM(n->mig_max, "nvmlDeviceGetMaxMigDeviceCount");
	SYM(n->mig_at, "nvmlDeviceGetMigDeviceHandleByIndex");
	SYM(n->link_cap, "nvmlDeviceGetNvLinkCapability");
	SYM(n->link_state, "nvmlDeviceGetNvLinkState");
	SYM(n->link_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
#undef SYM
	if (!init || !n->shutdown) {
		snprintf(why, size, "libnvidia-ml.so.1 lacks nvmlInit_v2");
	} else if ((rc = init()) != NVML_SUCCESS) {
		snprintf(why, size, "nvmlInit_v2: %s", error_string ? error_string(rc) : "failed");
	} else {
		return n;
	}
	dlclose(n->lib);
	free(n);
	return NULL;
}

void nvml_close(struct nvml *n)
{
	if (n) {
		n->shutdown();
		dlclose(n->lib);
		free(n);
	}
}

/* The bus id as sysfs writes it (NVML's has an 8-digit domain). */
static void bus_of(const struct nvml_pci *p, char *bus, size_t size)
{
	snprintf(bus, size, "%04x:%02x:%02x.0", p->domain & 0xffffu, p->bus & 0xffu,
	         p->device & 0x1fu);
}

int nvml_list(struct nvml *n, struct muster_devices *d)
{
	unsigned count = 0;
	if (!n->count || !n->by_index || n->count(&count) != NVML_SUCCESS)
		return 0;
	for (unsigned i = 0; i < count; i++) {
		char id[16], uuid[96] = "";
		struct nvml_pci pci;
		nvml_dev h = NULL;
		int ok = n->by_index(i, &h) == NVML_SUCCESS;
		if (!ok || !n->uuid || n->uuid(h, uuid, sizeof(uuid)) != NVML_SUCCESS)
			uuid[0] = '\0';
		snprintf(id, sizeof(id), "%u", i);
		if (devices_add(d, "GPU", "nvidia", id, uuid) < 0)
			return -1;
		if (ok && n->pci && n->pci(h, &pci) == NVML_SUCCESS)
			bus_of(&pci, d->dev[d->n - 1].bus, sizeof(d->dev[0].bus));
	}
	return 0;
}

static nvml_dev handle_of(struct nvml *n, const struct device *v)
{
	nvml_dev h = NULL;
	if (!v->bus[0] || !n->by_bus || n->by_bus(v->bus, &h) != NVML_SUCCESS)
		return NULL;
	return h;
}

int nvml_mig(struct nvml *n, struct muster_devices *d)
{
	if (!n->mig_mode || !n->mig_max || !n->mig_at || !n->uuid)
		return 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct device *v = &d->dev[i];
		unsigned current = 0, pending = 0, max = 0;
		nvml_dev h = strcmp(v->vendor, "nvidia") == 0 ? handle_of(n, v) : NULL;
		if (!h || n->mig_mode(h, &current, &pending) != NVML_SUCCESS ||
		    current != NVML_MIG_ENABLED || n->mig_max(h, &max) != NVML_SUCCESS)
			continue;
		/* Slots without a MIG device answer NVML_ERROR_NOT_FOUND. */
		for (unsigned j = 0; j < max; j++) {
			char uuid[96];
			nvml_dev m = NULL;
			if (n->mig_at(h, j, &m) != NVML_SUCCESS ||
			    n->uuid(m, uuid, sizeof(uuid)) != NVML_SUCCESS)
				continue;
			if (devices_add(d->mig, "GPU", "nvidia", uuid, uuid) < 0)
				return -1;
			memcpy(d->mig->dev[d->mig->n - 1].bus, v->bus, sizeof(v->bus));
		}
	}
	return 0;
}

/* The device of d at `bus`, -1 for none. */
static long device_at(const struct muster_devices *d, const char *bus)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->dev[i].bus, bus) == 0)
			return (long)i;
	return -1;
}

/* NCCL reads the class of an NVLink's far end from sysfs: a GPU's is
 * 0x03xxxx; anything else, or nothing readable, counts as an NVSwitch. */
static int is_gpu_bus(const char *bus)
{
	char path[96], cls[32];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", bus);
	return local_read("", path, cls, sizeof(cls)) == 0 && strncmp(cls, "0x03", 4) == 0;
}

void nvml_nvlinks(struct nvml *n, struct muster_devices *d)
{
	unsigned char *on_switch = calloc(d->n ? d->n : 1, 1);
	if (!on_switch || !n->link_cap || !n->link_state || !n->link_remote) {
		free(on_switch);
		return;
	}
	d->nvlink_checked = 1;
	for (size_t i = 0; i < d->n; i++) {
		nvml_dev h = strcmp(d->dev[i].vendor, "nvidia") == 0 ? handle_of(n, &d->dev[i]) : NULL;
		for (unsigned l = 0; h && l < NVML_NVLINK_MAX_LINKS; l++) {
			unsigned p2p = 0;
			int active = 0;
			struct nvml_pci far;
			char bus[16];
			if (n->link_cap(h, l, NVML_NVLINK_CAP_P2P_SUPPORTED, &p2p) != NVML_SUCCESS || !p2p ||
			    n->link_state(h, l, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED ||
			    n->link_remote(h, l, &far) != NVML_SUCCESS)
				continue;
			bus_of(&far, bus, sizeof(bus));
			long j = device_at(d, bus);
			if (j >= 0 && d->links[i * d->n + (size_t)j] != LINK_SELF)
				d->links[i * d->n + (size_t)j] = d->links[(size_t)j * d->n + i] = LINK_NVL;
			else if (j < 0 && !is_gpu_bus(bus))
				on_switch[i] = 1;
		}
	}
	/* Two MIG devices of one GPU stay one device ("X"). */
	for (size_t i = 0; i < d->n; i++)
		for (size_t j = 0; j < d->n; j++)
			if (on_switch[i] && on_switch[j] && d->links[i * d->n + j] != LINK_SELF)
				d->links[i * d->n + j] = LINK_NVL;
	free(on_switch);
}
