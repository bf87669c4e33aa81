/*
 * Fuzz target: LSB_MCPU_HOSTS ("host slots host slots ..."), as the lsf
 * backend reads it, and the cluster laid out on its compute slots through
 * the core's builder.  The first byte is the rank.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "lsf.h"
#include "plugins/common/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layout_job job = { "worker", 0 };
	struct layout l = { .source = "LSB_MCPU_HOSTS", .jobs = &job, .njobs = 1, .port_base = 8888,
	                    .rpc_layer = "grpc" };
	const char *first = NULL;
	struct fuzz_call fc;
	struct slots s;
	muster_status st = MUSTER_STATUS_UNAVAIL;
	char why[300], *text;

	if (size < 1 || size > ((size_t)1 << 20))
		return 0;
	l.rank = data[0];
	data++, size--;
	if (fuzz_call_begin_text(&fc, data, size, &text) != 0)
		return 0;
	slots_init(&s);
	if (lsf_mcpu_parse(text, &first, &s, why, sizeof(why)) == 0) {
		job.count = s.total;
		st = layout_build(&host_services, &fc.call, &l, &s);
	}
	slots_free(&s);
	free(text);
	fuzz_call_end(&fc, st);
	return 0;
}
