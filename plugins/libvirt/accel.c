/*
 * libvirt: a domain's accelerators, from its passthrough devices.
 *
 * Each PCI hostdev and mediated device (vGPU) is looked up as a node
 * device (pci_DDDD_BB_SS_F, mdev_UUID; an mdev is classified by its parent
 * PCI device, else by its type id: nvidia-* is NVIDIA's).  A device whose
 * node device is known is classified by its PCI vendor ID with the
 * `accelerators` table (default GPU: NVIDIA 0x10de, AMD 0x1002; TPU: Google
 * 0x1ae0), else as a GPU when its PCI class is a display controller (0x03),
 * else it is not an accelerator (a passed-through NIC or NVMe drive).
 *
 * Devices whose node device is unknown (a remote host that hides them, a
 * driver without node devices): the domain's metadata <accelerator>
 * elements count for them when present, else each counts as one GPU.  A
 * domain with no passthrough device at all reports the accelerators its
 * metadata declares (an emulated or otherwise attached device).
 *
 * Node-device answers are cached for the resolve: many domains share
 * parents and types.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virt.h"
#include "lib/vec.h"

static struct virt_nodedev *lookup(struct virt_run *run, const char *name)
{
	struct virt_nodedev *n;
	virNodeDevicePtr dev;
	size_t i;

	for (i = 0; i < run->nnodedevs; i++)
		if (strcmp(run->nodedevs[i].name, name) == 0)
			return &run->nodedevs[i];
	if (vec_reserve(&run->nodedevs, &run->capnodedevs, run->nnodedevs + 1,
	                sizeof(*run->nodedevs)) < 0)
		return NULL;
	n = &run->nodedevs[run->nnodedevs];
	memset(n, 0, sizeof(*n));
	if ((n->name = strdup(name)) == NULL)
		return NULL;
	run->nnodedevs++;
	run->calls++;
	if ((dev = virNodeDeviceLookupByName(run->conn, name)) != NULL) {
		char *xml = virNodeDeviceGetXMLDesc(dev, 0);

		run->calls++;
		if (xml != NULL && virt_nodedev_parse(xml, n) == 0)
			n->found = 1;
		free(xml);
		virNodeDeviceFree(dev);
	}
	if (!n->found)
		run->host->log(run->conf->pc, MUSTER_LOG_DEBUG, "node device %s: %s", name,
		               virt_last_error());
	return n;
}

/* The kind of a device with this vendor and class; NULL: not an accelerator. */
static const char *classify(const struct virt_conf *conf, unsigned vendor, unsigned pclass)
{
	size_t k, v;

	for (k = 0; k < conf->nkinds; k++)
		for (v = 0; v < conf->kinds[k].nvendors; v++)
			if (conf->kinds[k].vendors[v] == vendor)
				return conf->kinds[k].kind;
	if ((pclass >> 16) == 0x03)
		return "GPU";
	return NULL;
}

static int add(struct virt_accel *acc, size_t *n, const char *kind, long count)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(acc[i].kind, kind) == 0) {
			acc[i].count += count;
			return 0;
		}
	if (*n == VIRT_MAX_KINDS)
		return -1;
	snprintf(acc[*n].kind, sizeof(acc[*n].kind), "%s", kind);
	acc[*n].count = count;
	(*n)++;
	return 0;
}

/* Classifies one device: 1 with *kind (NULL: not an accelerator), 0 when
 * its node device is unknown, -1 out of memory. */
static int device_kind(struct virt_run *run, const struct virt_hostdev *h, const char **kind)
{
	struct virt_nodedev *n, *p;
	const char *parent, *mtype;

	if (h->nodedev[0] == '\0')
		return 0;
	if ((n = lookup(run, h->nodedev)) == NULL)
		return -1;
	if (!n->found)
		return 0;
	if (!h->mdev) {
		*kind = classify(run->conf, n->vendor, n->pclass);
		return 1;
	}
	/* The strings outlive `n`, which the parent's lookup may move. */
	parent = n->parent;
	mtype = n->mdev_type;
	if (parent != NULL && strncmp(parent, "pci_", 4) == 0) {
		if ((p = lookup(run, parent)) == NULL)
			return -1;
		if (p->found) {
			*kind = classify(run->conf, p->vendor, p->pclass);
			return 1;
		}
	}
	if (mtype != NULL && strncmp(mtype, "nvidia-", 7) == 0) {
		*kind = classify(run->conf, 0x10de, 0x030000);
		return 1;
	}
	if (mtype != NULL && strncmp(mtype, "i915-", 5) == 0) {
		*kind = classify(run->conf, 0x8086, 0x030000);
		return 1;
	}
	return 0;
}

muster_status virt_accelerators(struct virt_run *run, struct virt_domain *d)
{
	size_t i, unknown = 0;

	d->naccel = 0;
	for (i = 0; i < d->nhostdevs; i++) {
		const char *kind = NULL;
		int rc = device_kind(run, &d->hostdevs[i], &kind);

		if (rc < 0)
			return virt_nomem(run);
		if (rc == 0) {
			unknown++;
			continue;
		}
		if (kind != NULL && add(d->accel, &d->naccel, kind, 1) < 0)
			break;
	}
	if (unknown > 0 || d->nhostdevs == 0) {
		if (d->meta_has_accel) {
			for (i = 0; i < d->nmeta_accel; i++)
				if (d->meta_accel[i].count > 0 &&
				    add(d->accel, &d->naccel, d->meta_accel[i].kind, d->meta_accel[i].count) < 0)
					break;
		} else if (unknown > 0) {
			add(d->accel, &d->naccel, "GPU", (long)unknown);
		}
	}
	return MUSTER_STATUS_SUCCESS;
}

void virt_nodedevs_free(struct virt_run *run)
{
	size_t i;

	for (i = 0; i < run->nnodedevs; i++) {
		free(run->nodedevs[i].name);
		free(run->nodedevs[i].parent);
		free(run->nodedevs[i].mdev_type);
	}
	free(run->nodedevs);
	run->nodedevs = NULL;
	run->nnodedevs = run->capnodedevs = 0;
}
