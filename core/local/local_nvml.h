/* NVML, loaded at run time (muster needs no driver to build or run), for
 * what the driver's /proc and sysfs do not tell: MIG devices and NVLinks.
 * Its start-up takes tens of milliseconds, so nothing loads it unless it
 * is needed. */
#ifndef MUSTER_CORE_LOCAL_NVML_H
#define MUSTER_CORE_LOCAL_NVML_H

#include "local_devices.h"

struct nvml;

/* NVML initialised, or NULL with `why` (for a message) filled. */
struct nvml *nvml_open(char *why, size_t size);
void nvml_close(struct nvml *n);

/* Every GPU NVML shows, in its order (PCI bus order), added to d: for a
 * machine whose /proc shows none (WSL, some containers).  -1 when out of
 * memory. */
int nvml_list(struct nvml *n, struct muster_devices *d);

/* The MIG devices of d's NVIDIA GPUs that are in MIG mode, into d->mig
 * (id and UUID "MIG-...", the parent's bus id).  -1 when out of memory. */
int nvml_mig(struct nvml *n, struct muster_devices *d);

/* LINK_NVL in d->links for each two NVIDIA GPUs that NCCL would join by
 * NVLink: a link from one to the other, or both linked to NVSwitches. */
void nvml_nvlinks(struct nvml *n, struct muster_devices *d);

#endif
