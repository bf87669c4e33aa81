/* This machine's accelerators: one list filled by a reader per source
 * (NVIDIA, AMD, the accel class, TPU), then filtered by the
 * visible-devices variables. */
#ifndef MUSTER_CORE_LOCAL_DEVICES_H
#define MUSTER_CORE_LOCAL_DEVICES_H

#include <stddef.h>

#include <muster/muster.h>

struct device {
	char kind[8];
	char vendor[16];
	char id[96];   /* what the vendor's visible-devices variable takes */
	char uuid[96]; /* "" when unknown */
};

struct muster_devices {
	struct device *dev;
	size_t n, cap;
};

/* Appends a device; -1 when out of memory. */
int devices_add(struct muster_devices *d, const char *kind, const char *vendor, const char *id,
                const char *uuid);

/* Readers: `root` stands for "/" ("" on the real machine).  Each adds
 * what it finds; -1 only when out of memory. */
int local_nvidia(struct muster_devices *d, const char *root, int use_nvml);
int local_amd(struct muster_devices *d, const char *root);
int local_accel_class(struct muster_devices *d, const char *root);
int local_tpu(struct muster_devices *d, const char *root);

/* Reads a small file under root into buf (trailing newline removed); -1
 * when it cannot be read. */
int local_read(const char *root, const char *path, char *buf, size_t size);

/* Keeps, of `vendor`'s devices, those `spec` (a visible-devices value)
 * names, in its order: indices count among the devices left so far, UUIDs
 * match exactly or by prefix; the first entry that names none ends the
 * list, as CUDA does.  -1 when out of memory. */
int devices_filter(struct muster_devices *d, const char *vendor, const char *spec);

/* local_accelerators = true: when the own task of `r` (a result not yet
 * handed out) is in its cluster and has no accelerators, it gets this
 * machine's devices, counted by kind: counted once per context, at the
 * first resolve that needs them (NVML and the sysfs scans are too slow for
 * every poll of a watch).  0, or an error code. */
struct muster_ctx;
int local_fill(struct muster_ctx *ctx, struct muster_result *r, muster_error *err);

#endif
