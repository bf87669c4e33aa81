/*
 * Fuzz target: a scheduler's host file as the pbs and lsf backends read it
 * (PBS_NODEFILE, LSB_DJOB_RANKFILE: one host per line, once per slot), and
 * the cluster laid out on its slots through the core's builder.  The first
 * byte picks the options: bit 0 leaves the first host out (LSF's launch
 * host), bits 1-3 the rank, bits 4-5 the GPUs per task, bit 6 a job `ps`
 * of one task before the workers, bit 7 a port_base near 65535.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "plugins/common/hostfile.h"
#include "plugins/common/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layout_job jobs[2] = { { "ps", 1 }, { "worker", 0 } };
	struct layout l = { .source = "PBS_NODEFILE", .jobs = jobs, .njobs = 2, .port_base = 8888,
	                    .rpc_layer = "grpc" };
	const char *first = NULL;
	struct fuzz_call fc;
	struct slots s;
	muster_status st = MUSTER_STATUS_UNAVAIL;
	char why[300], *text;
	uint8_t opt;

	if (size < 1 || size > ((size_t)1 << 20))
		return 0;
	opt = data[0];
	data++, size--;
	if (fuzz_call_begin_text(&fc, data, size, &text) != 0)
		return 0;
	slots_init(&s);
	if (hostfile_parse(text, size, opt & 1, &first, &s, why, sizeof(why)) == 0) {
		l.rank = (opt >> 1) & 7;
		l.gpus_per_task = (opt >> 4) & 3;
		l.port_base = (opt & 128) ? 65534 : 8888;
		if (opt & 64) {
			jobs[1].count = s.total - 1;
		} else {
			l.jobs = &jobs[1];
			l.njobs = 1;
			jobs[1].count = s.total;
		}
		st = layout_build(&host_services, &fc.call, &l, &s);
	}
	slots_free(&s);
	free(text);
	fuzz_call_end(&fc, st);
	return 0;
}
