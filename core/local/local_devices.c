/* muster_local_devices(): the readers in turn, then the visible-devices
 * filters, as the frameworks' own runtimes apply them. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "emit/jsonw.h"
#include "lib/env.h"
#include "lib/vec.h"
#include "local_devices.h"

int devices_add(struct muster_devices *d, const char *kind, const char *vendor, const char *id,
                const char *uuid)
{
	if (vec_reserve(&d->dev, &d->cap, d->n + 1, sizeof(*d->dev)) < 0)
		return -1;
	struct device *v = &d->dev[d->n++];
	*v = (struct device){ .minor = -1, .numa = -1 };
	snprintf(v->kind, sizeof(v->kind), "%s", kind);
	snprintf(v->vendor, sizeof(v->vendor), "%s", vendor);
	snprintf(v->id, sizeof(v->id), "%s", id);
	snprintf(v->uuid, sizeof(v->uuid), "%s", uuid ? uuid : "");
	return 0;
}

int local_read(const char *root, const char *path, char *buf, size_t size)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s%s", root, path);
	FILE *f = fopen(full, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

MUSTER_API int muster_local_devices(muster_devices **out, const char *sysroot, muster_error *err)
{
	if (!out)
		return error_set(err, MUSTER_EINVAL, "muster_local_devices: NULL argument");
	*out = NULL;
	if (!sysroot)
		sysroot = env_get("MUSTER_SYSROOT");
	int real = !sysroot || !*sysroot;
	const char *root = real ? "" : sysroot;
	struct muster_devices *d = calloc(1, sizeof(*d));
	/* getenv(), not env_get(): the filters are the runtimes', which read
	 * them so even in a setuid program. */
	const char *cuda = getenv("CUDA_VISIBLE_DEVICES");
	const char *rocr = getenv("ROCR_VISIBLE_DEVICES");
	const char *hip = getenv("HIP_VISIBLE_DEVICES");

	int rc = 0;

	if (!d || (d->root = strdup(root)) == NULL || local_nvidia(d, root, real) < 0 ||
	    local_amd(d, root) < 0 || local_accel_class(d, root) < 0 || local_tpu(d, root) < 0)
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	else if (cuda)
		rc = local_nvidia_mig(d, cuda, err);
	if (rc == 0 && ((cuda && devices_filter(d, "nvidia", cuda) < 0) ||
	                (rocr && devices_filter(d, "amd", rocr) < 0) ||
	                (hip && devices_filter(d, "amd", hip) < 0)))
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	if (rc != 0) {
		muster_devices_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

MUSTER_API void muster_devices_free(muster_devices *d)
{
	if (d) {
		devices_release(d);
		free(d->dev);
		free(d);
	}
}

MUSTER_API size_t muster_devices_count(const muster_devices *d)
{
	return d ? d->n : 0;
}

MUSTER_API int muster_devices_at(const muster_devices *d, size_t i, const char **kind,
                                 const char **vendor, const char **id)
{
	if (!d || i >= d->n)
		return MUSTER_ENOENT;
	if (kind)
		*kind = d->dev[i].kind;
	if (vendor)
		*vendor = d->dev[i].vendor;
	if (id)
		*id = d->dev[i].id;
	return 0;
}

static int kind_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

MUSTER_API int muster_devices_to_json(char **out, const muster_devices *d, muster_error *err)
{
	if (!out || !d)
		return error_set(err, MUSTER_EINVAL, "muster_devices_to_json: NULL argument");
	const char **kinds = malloc((d->n ? d->n : 1) * sizeof(*kinds));
	if (!kinds)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	for (size_t i = 0; i < d->n; i++)
		kinds[i] = d->dev[i].kind;
	qsort(kinds, d->n, sizeof(*kinds), kind_cmp);
	struct jsonw w;
	jsonw_init(&w);
	jsonw_char(&w, '{');
	for (size_t i = 0; i < d->n;) {
		size_t j = i;
		while (j < d->n && strcmp(kinds[j], kinds[i]) == 0)
			j++;
		if (i)
			jsonw_char(&w, ',');
		jsonw_string(&w, kinds[i]);
		jsonw_char(&w, ':');
		jsonw_long(&w, (long)(j - i));
		i = j;
	}
	jsonw_char(&w, '}');
	free(kinds);
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
