/* CUDA_VISIBLE_DEVICES and its AMD counterparts: which devices a runtime
 * shows, by index or UUID (an NVIDIA MIG device by its "MIG-" UUID), in
 * the order the variable names them. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "local_devices.h"

/* The device (among `cand`, n of them) an entry names, -1 for none. */
static long match(const char *entry, size_t len, struct device **cand, size_t n)
{
	size_t digits = strspn(entry, "0123456789");
	if (len == 0)
		return -1;
	if (digits >= len) {
		long v = strtol(entry, NULL, 10);
		return v >= 0 && (size_t)v < n ? v : -1;
	}
	long found = -1;
	for (size_t i = 0; i < n; i++) {
		if (cand[i]->uuid[0] && strncmp(cand[i]->uuid, entry, len) == 0) {
			if (found >= 0)
				return -1; /* an ambiguous prefix names no device */
			found = (long)i;
		}
	}
	return found;
}

/* The device an entry names: of `cand` (n of them), else a MIG device. */
static const struct device *named(const char *entry, size_t len, struct device **cand, size_t n,
                                  const struct muster_devices *mig)
{
	long m = match(entry, len, cand, n);
	if (m >= 0)
		return cand[m];
	if (!mig || len < 4 || strncmp(entry, "MIG-", 4) != 0)
		return NULL;
	struct device **all = malloc((mig->n ? mig->n : 1) * sizeof(*all));
	const struct device *found = NULL;
	if (all) {
		for (size_t i = 0; i < mig->n; i++)
			all[i] = &mig->dev[i];
		m = match(entry, len, all, mig->n);
		found = m >= 0 ? all[m] : NULL;
		free(all);
	}
	return found;
}

int devices_filter(struct muster_devices *d, const char *vendor, const char *spec)
{
	const struct muster_devices *mig = strcmp(vendor, "nvidia") == 0 ? d->mig : NULL;
	/* No more picks than devices: repeated entries cannot grow the list. */
	size_t n = 0, kept = 0, most = d->n + (mig ? mig->n : 0);
	struct device **cand = malloc((d->n ? d->n : 1) * sizeof(*cand));
	struct device *picked = malloc((most ? most : 1) * sizeof(*picked));
	if (!cand || !picked) {
		free(cand);
		free(picked);
		return -1;
	}
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->dev[i].vendor, vendor) == 0)
			cand[n++] = &d->dev[i];
	for (const char *p = spec; p && kept < n + (mig ? mig->n : 0);) {
		p += strspn(p, " ");
		size_t len = strcspn(p, ", ");
		const struct device *m = named(p, len, cand, n, mig);
		if (!m)
			break;
		picked[kept++] = *m;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	/* The vendor's devices are replaced by the picked ones, in their place
	 * (MIG devices can outnumber them). */
	if (vec_reserve(&d->dev, &d->cap, d->n - n + kept, sizeof(*d->dev)) < 0) {
		free(cand);
		free(picked);
		return -1;
	}
	size_t o = 0;
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->dev[i].vendor, vendor) != 0)
			d->dev[o++] = d->dev[i];
	for (size_t i = 0; i < kept; i++)
		d->dev[o++] = picked[i];
	d->n = o;
	free(cand);
	free(picked);
	return 0;
}
