/*
 * Local device detection on hostile trees and variables: the parts are
 * CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, an
 * NVIDIA driver's information file and two KFD node property files, read
 * from a sysroot written for each input.  The answer never names more
 * devices than the tree holds.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <muster/muster.h>

#include "fuzz.h"

static char root[64];
static const char *const files[] = {
	"/proc/driver/nvidia/gpus/0000:07:00.0/information",
	"/sys/class/kfd/kfd/topology/nodes/1/properties",
	"/sys/class/kfd/kfd/topology/nodes/2/properties",
};
static const char *const vars[] = {
	"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
};

static const char *const dirs[] = {
	"/proc", "/proc/driver", "/proc/driver/nvidia", "/proc/driver/nvidia/gpus",
	"/proc/driver/nvidia/gpus/0000:07:00.0", "/sys", "/sys/class", "/sys/class/kfd",
	"/sys/class/kfd/kfd", "/sys/class/kfd/kfd/topology", "/sys/class/kfd/kfd/topology/nodes",
	"/sys/class/kfd/kfd/topology/nodes/1", "/sys/class/kfd/kfd/topology/nodes/2",
};
#define NDIRS (sizeof(dirs) / sizeof(dirs[0]))

/* The tree goes when the process ends. */
__attribute__((destructor)) static void remove_tree(void)
{
	char path[256];
	if (!root[0])
		return;
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", root, files[i]);
		unlink(path);
	}
	for (size_t i = NDIRS; i-- > 0;) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		rmdir(path);
	}
	rmdir(root);
}

static void make_dirs(void)
{
	char path[256];
	snprintf(root, sizeof(root), "%s/muster-fuzz-XXXXXX", "/tmp");
	if (!mkdtemp(root))
		abort();
	for (size_t i = 0; i < NDIRS; i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		mkdir(path, 0700);
	}
}

/* A part as a NUL-terminated string (cut at an embedded NUL, as getenv
 * and a file reader would see it). */
static char *text(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	muster_devices *d = NULL;
	muster_error err;
	char *json = NULL, path[256];
	const uint8_t *p;
	size_t len, part = 0;

	if (!root[0])
		make_dirs();
	for (size_t i = 0; i < 3; i++)
		unsetenv(vars[i]);
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", root, files[i]);
		unlink(path);
	}
	while ((p = fuzz_part(&data, &size, &len)) != NULL && part < 6) {
		char *s = text(p, len);
		if (part < 3) {
			setenv(vars[part], s, 1);
		} else {
			snprintf(path, sizeof(path), "%s%s", root, files[part - 3]);
			FILE *f = fopen(path, "w");
			if (f) {
				fwrite(p, 1, len, f);
				fclose(f);
			}
		}
		free(s);
		part++;
	}
	if (muster_local_devices(&d, root, &err) != 0)
		return 0;
	if (muster_devices_count(d) > 3)
		abort();
	if (muster_devices_to_json(&json, d, &err) == 0 && json[0] != '{')
		abort();
	muster_free(json);
	muster_devices_free(d);
	return 0;
}
