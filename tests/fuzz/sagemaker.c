/*
 * Fuzz target: SageMaker's cluster descriptions as the sagemaker backend
 * reads them — SM_HOSTS (a JSON list) with SM_CURRENT_HOST, or
 * resourceconfig.json — and the cluster built from them through the
 * core's builder.  The first byte picks the form: even, the input is
 * SM_HOSTS, FUZZ_SEP, SM_CURRENT_HOST; odd, it is resourceconfig.json.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "sagemaker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sm_conf conf = { 2223, NULL, NULL };
	struct sm_hosts h = { 0 };
	struct fuzz_call fc;
	const uint8_t *hosts, *current = NULL;
	size_t hosts_len = 0, current_len = 0;
	muster_status st = MUSTER_STATUS_UNAVAIL;
	char why[300] = "", *text;
	int file;

	if (size < 1 || size > SM_MAX_INPUT)
		return 0;
	file = data[0] & 1;
	data++, size--;
	hosts = fuzz_part(&data, &size, &hosts_len);
	if (!file && (current = fuzz_part(&data, &size, &current_len)) == NULL)
		return 0;
	if (fuzz_call_begin(&fc, NULL) != 0)
		return 0;
	/* The variable or the file's text, every byte of it (a file may hold a
	 * NUL), then a NUL, as the reader needs. */
	if ((text = malloc(hosts_len + 1)) != NULL) {
		memcpy(text, hosts, hosts_len);
		text[hosts_len] = '\0';
	}
	if (text != NULL && file) {
		if (sm_parse_resource_config(text, hosts_len, &h, why, sizeof(why)) == 0)
			st = sm_build(&host_services, &fc.call, &conf, &h, "hosts", "current_host");
	} else if (text != NULL && sm_parse_hosts(text, hosts_len, &h, why, sizeof(why)) == 0 &&
	           (h.current = strndup((const char *)current, current_len)) != NULL) {
		st = sm_build(&host_services, &fc.call, &conf, &h, "SM_HOSTS", "SM_CURRENT_HOST");
	}
	free(text);
	sm_hosts_free(&h);
	fuzz_call_end(&fc, st);
	return 0;
}
