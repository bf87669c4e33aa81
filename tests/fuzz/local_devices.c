/*
 * Local device detection and topology on hostile trees and variables: the
 * parts are CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES,
 * then the files below in order (an NVIDIA driver's information file, two
 * KFD node property files, the GPU's numa_node and local_cpulist, two
 * NUMA nodes' cpulists, CPU 0's package id and CPUs 0 and 1's thread
 * siblings, the NIC's numa_node), written into a sysroot whose PCI links
 * (the GPU below a switch, a NIC beside it) are fixed.  The answer never
 * names more devices than the tree holds; every binding asked for is a
 * list or a clean error.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <muster/muster.h>

#include "fuzz.h"

#define GPU_REL "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:07:00.0"
#define NIC_REL "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:08:00.0"
#define GPU_DIR "/sys/" GPU_REL
#define NIC_DIR "/sys/" NIC_REL

static char root[64];
static const char *const files[] = {
	"/proc/driver/nvidia/gpus/0000:07:00.0/information",
	"/sys/class/kfd/kfd/topology/nodes/1/properties",
	"/sys/class/kfd/kfd/topology/nodes/2/properties",
	GPU_DIR "/numa_node",
	GPU_DIR "/local_cpulist",
	"/sys/devices/system/node/node0/cpulist",
	"/sys/devices/system/node/node1/cpulist",
	"/sys/devices/system/cpu/cpu0/topology/physical_package_id",
	"/sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
	"/sys/devices/system/cpu/cpu1/topology/thread_siblings_list",
	NIC_DIR "/numa_node",
};
#define NFILES (sizeof(files) / sizeof(files[0]))
static const char *const vars[] = {
	"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
};

static const char *const dirs[] = {
	"/proc", "/proc/driver", "/proc/driver/nvidia", "/proc/driver/nvidia/gpus",
	"/proc/driver/nvidia/gpus/0000:07:00.0", "/sys", "/sys/class", "/sys/class/kfd",
	"/sys/class/kfd/kfd", "/sys/class/kfd/kfd/topology", "/sys/class/kfd/kfd/topology/nodes",
	"/sys/class/kfd/kfd/topology/nodes/1", "/sys/class/kfd/kfd/topology/nodes/2",
	"/sys/devices", "/sys/devices/pci0000:00", "/sys/devices/pci0000:00/0000:00:01.0",
	"/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
	"/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", GPU_DIR,
	"/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0", NIC_DIR,
	NIC_DIR "/net", NIC_DIR "/net/eth0", "/sys/devices/system", "/sys/devices/system/node",
	"/sys/devices/system/node/node0", "/sys/devices/system/node/node1",
	"/sys/devices/system/cpu", "/sys/devices/system/cpu/cpu0",
	"/sys/devices/system/cpu/cpu0/topology", "/sys/devices/system/cpu/cpu1",
	"/sys/devices/system/cpu/cpu1/topology", "/sys/bus", "/sys/bus/pci",
	"/sys/bus/pci/devices", "/sys/class/net",
};
#define NDIRS (sizeof(dirs) / sizeof(dirs[0]))

/* The fixed links, as sysfs links them: where, and to what. */
static const char *const links[][2] = {
	{ "/sys/bus/pci/devices/0000:07:00.0", "../../../" GPU_REL },
	{ NIC_DIR "/net/eth0/device", "../../../0000:08:00.0" },
	{ "/sys/class/net/eth0", "../../" NIC_REL "/net/eth0" },
};
#define NLINKS (sizeof(links) / sizeof(links[0]))

static void path_of(char *path, size_t size, const char *p)
{
	snprintf(path, size, "%s%s", root, p);
}

/* The tree goes when the process ends. */
__attribute__((destructor)) static void remove_tree(void)
{
	char path[256];
	if (!root[0])
		return;
	for (size_t i = 0; i < NFILES; i++) {
		path_of(path, sizeof(path), files[i]);
		unlink(path);
	}
	for (size_t i = 0; i < NLINKS; i++) {
		path_of(path, sizeof(path), links[i][0]);
		unlink(path);
	}
	for (size_t i = NDIRS; i-- > 0;) {
		path_of(path, sizeof(path), dirs[i]);
		rmdir(path);
	}
	rmdir(root);
}

static void make_tree(void)
{
	char path[256];
	snprintf(root, sizeof(root), "%s/muster-fuzz-XXXXXX", "/tmp");
	if (!mkdtemp(root))
		abort();
	for (size_t i = 0; i < NDIRS; i++) {
		path_of(path, sizeof(path), dirs[i]);
		mkdir(path, 0700);
	}
	for (size_t i = 0; i < NLINKS; i++) {
		path_of(path, sizeof(path), links[i][0]);
		if (symlink(links[i][1], path) != 0)
			abort();
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

/* The topology of the same tree: JSON, and every binding mode. */
static void topology(void)
{
	muster_devices *d = NULL;
	muster_error err;
	char *json = NULL;

	if (muster_local_topology(&d, root, MUSTER_TOPOLOGY_NVLINK, &err) != 0)
		return;
	if (muster_topology_to_json(&json, d, &err) == 0 && json[0] != '{')
		abort();
	muster_free(json);
	size_t n = muster_devices_count(d), all[8];
	for (size_t i = 0; i < n && i < 8; i++)
		all[i] = i;
	for (int mode = MUSTER_BIND_NODE; mode <= MUSTER_BIND_EXCLUSIVE; mode++) {
		char *cpus = NULL;
		int rc = muster_devices_cpus(&cpus, d, all, n < 8 ? n : 8, mode, &err);
		/* A binding is a list of CPUs ("" only when no device was asked). */
		if (rc == 0 && (!cpus || (n > 0 && !cpus[0])))
			abort();
		if (rc != 0 && rc != MUSTER_ENOTFOUND && rc != MUSTER_ENOENT)
			abort();
		muster_free(cpus);
	}
	muster_devices_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	muster_devices *d = NULL;
	muster_error err;
	char *json = NULL, path[256];
	const uint8_t *p;
	size_t len, part = 0;

	if (!root[0])
		make_tree();
	for (size_t i = 0; i < 3; i++)
		unsetenv(vars[i]);
	for (size_t i = 0; i < NFILES; i++) {
		path_of(path, sizeof(path), files[i]);
		unlink(path);
	}
	while ((p = fuzz_part(&data, &size, &len)) != NULL && part < 3 + NFILES) {
		char *s = text(p, len);
		if (part < 3) {
			setenv(vars[part], s, 1);
		} else {
			path_of(path, sizeof(path), files[part - 3]);
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
	topology();
	return 0;
}
