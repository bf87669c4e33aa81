/*
 * Fuzz target: batch/v1 Job objects as the kubernetes backend's
 * mode = "indexed_job" reads them (jobspec.c) — a Job's size, completion
 * mode, subdomain, a JobSet's labels, and a pod's accelerators counted from
 * the template's containers (pod.c's count).  The input is one JSON
 * document: a Job, or a JobList whose items are each read.  The first byte
 * picks whether the entry counts accelerators.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "fuzz.h"
#include "k8s.h"

static char *gpu_names[] = { (char *)"nvidia.com/gpu", (char *)"amd.com/gpu" };
static char *tpu_names[] = { (char *)"google.com/tpu" };
static struct k8s_accel_kind kinds[] = {
	{ (char *)"GPU", gpu_names, 2 },
	{ (char *)"TPU", tpu_names, 1 },
};

static void read_one(const struct k8s_conf *conf, const cJSON *job)
{
	struct k8s_jobspec j;
	char why[400];

	k8s_jobspec_read(conf, job, &j, why, sizeof(why));
	k8s_jobspec_free(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct k8s_conf conf;
	const cJSON *items, *item;
	cJSON *root;

	if (size < 1)
		return 0;
	memset(&conf, 0, sizeof(conf));
	if (data[0] & 1) {
		conf.kinds = kinds;
		conf.nkinds = 2;
		conf.nresources = 3;
	}
	if ((root = cJSON_ParseWithLength((const char *)data + 1, size - 1)) == NULL)
		return 0;
	items = cJSON_GetObjectItemCaseSensitive(root, "items");
	if (cJSON_IsArray(items)) {
		cJSON_ArrayForEach(item, items)
			read_one(&conf, item);
	} else {
		read_one(&conf, root);
	}
	cJSON_Delete(root);
	return 0;
}
