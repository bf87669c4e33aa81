/*
 * Fuzz target: a TPU VM's instance attributes as the gce backend's
 * mode = "tpu_vm" reads them (tpu.c) — worker-network-endpoints into the
 * slice's hosts, tpu-env's "KEY: 'value'" lines and the chip counts of
 * CHIPS_PER_HOST_BOUNDS and of an accelerator type.  The input is cut at
 * FUZZ_SEP into worker-network-endpoints, tpu-env and accelerator-type.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gce.h"

/* A part as a C string (cut at a NUL, as an answer's text is). */
static char *part(const uint8_t **data, size_t *size)
{
	size_t len;
	const uint8_t *p = fuzz_part(data, size, &len);

	return p != NULL ? strndup((const char *)p, len) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "CHIPS_PER_HOST_BOUNDS", "MEGASCALE_NUM_SLICES",
		                            "MEGASCALE_SLICE_ID", "MEGASCALE_COORDINATOR_ADDRESS" };
	char *endpoints = part(&data, &size), *tpu_env = part(&data, &size);
	char *type = part(&data, &size), **hosts, why[300], value[300];
	size_t n;

	if (endpoints != NULL && gce_tpu_endpoints(endpoints, &hosts, &n, why, sizeof(why)) == 0)
		gce_tpu_endpoints_free(hosts, n);
	for (size_t k = 0; tpu_env != NULL && k < sizeof(keys) / sizeof(keys[0]); k++)
		if (gce_tpu_env_value(tpu_env, keys[k], value, sizeof(value)))
			gce_tpu_chips(value);
	gce_tpu_type_chips(type);
	free(endpoints);
	free(tpu_env);
	free(type);
	return 0;
}
