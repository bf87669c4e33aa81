/* This machine's accelerators: one list filled by a reader per source
 * (NVIDIA, AMD, the accel class, TPU), then filtered by the
 * visible-devices variables; muster_local_topology() then adds where
 * each device sits (local_topo.c). */
#ifndef MUSTER_CORE_LOCAL_DEVICES_H
#define MUSTER_CORE_LOCAL_DEVICES_H

#include <stddef.h>

#include <muster/muster.h>

struct device {
	char kind[8];
	char vendor[16];
	char id[96];   /* what the vendor's visible-devices variable takes */
	char uuid[96]; /* "" when unknown */
	char bus[16];  /* PCI bus id as sysfs names it, "0000:07:00.0"; "" unknown */
	int minor;     /* NVIDIA: the driver's device minor (/dev/nvidiaN); -1 */
	/* Filled by muster_local_topology() (local_topo.c): */
	long numa;         /* NUMA node; -1 when none or unknown */
	char *cpus;        /* the CPUs of that node, as a list; NULL unknown */
	char *socket_cpus; /* the CPUs of the nodes of its package; NULL unknown */
	char nic[32];      /* the nearest network interface; "" none */
	int nic_link;      /* LINK_*: the PCI path level to it */
};

/* Link levels between two devices, in NCCL's order (nearest first). */
enum { LINK_UNKNOWN, LINK_SELF, LINK_NVL, LINK_PIX, LINK_PXB, LINK_PHB, LINK_SYS };
/* "X", "NVL", "PIX", ...; NULL for LINK_UNKNOWN. */
const char *link_name(int level);

struct muster_devices {
	struct device *dev;
	size_t n, cap;
	char *root;                 /* what stands for "/" ("" on the machine) */
	struct muster_devices *mig; /* NVIDIA MIG devices, when asked for */
	unsigned char *links;       /* n x n LINK_* levels; NULL before topology */
	int nvlink_checked;         /* NVML was asked for NVLinks */
};

/* Appends a device; -1 when out of memory. */
int devices_add(struct muster_devices *d, const char *kind, const char *vendor, const char *id,
                const char *uuid);

/* Frees what muster_devices_free() frees beside the array itself. */
void devices_release(struct muster_devices *d);

/* Readers: `root` stands for "/" ("" on the real machine).  Each adds
 * what it finds; -1 only when out of memory. */
int local_nvidia(struct muster_devices *d, const char *root, int use_nvml);
/* The MIG devices that `spec` (CUDA_VISIBLE_DEVICES) may name, into d->mig:
 * read through NVML, and only when the spec names a MIG device and the
 * driver shows GPU instances.  0, or an error code (err filled). */
int local_nvidia_mig(struct muster_devices *d, const char *spec, muster_error *err);
int local_amd(struct muster_devices *d, const char *root);
int local_accel_class(struct muster_devices *d, const char *root);
int local_tpu(struct muster_devices *d, const char *root);

/* The numbered entries "PREFIXN" of a directory under root, ascending;
 * *count of them.  NULL only when out of memory. */
long *local_numbered(const char *root, const char *dir, const char *prefix, size_t *count);

/* Reads a small file under root into buf (trailing newline removed); -1
 * when it cannot be read. */
int local_read(const char *root, const char *path, char *buf, size_t size);

/* Keeps, of `vendor`'s devices, those `spec` (a visible-devices value)
 * names, in its order: indices count among the devices left so far, UUIDs
 * match exactly or by prefix (a "MIG-" entry among d->mig); the first entry
 * that names none ends the list, as CUDA does.  -1 when out of memory. */
int devices_filter(struct muster_devices *d, const char *vendor, const char *spec);

/* local_accelerators = true: when the own task of `r` (a result not yet
 * handed out) is in its cluster and has no accelerators, it gets this
 * machine's devices, counted by kind: counted once per context, at the
 * first resolve that needs them (NVML and the sysfs scans are too slow for
 * every poll of a watch).  0, or an error code. */
struct muster_ctx;
int local_fill(struct muster_ctx *ctx, struct muster_result *r, muster_error *err);

#endif
