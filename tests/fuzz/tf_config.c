/*
 * Fuzz target: TF_CONFIG, as the tf_config backend reads it — the strict
 * syntax check and the tree (lib/strict_json*.c), and every
 * check of tfc_build through the core's builder (what a resolve() does
 * after reading the variable).  The first byte picks the entry's
 * overrides (task_type, task_id, rpc_layer), as muster.conf may give them.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "tf_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tfc_conf conf = { .task_id = -1 };
	struct fuzz_call fc;
	struct tfc_run run;
	struct sjson_doc doc = {0};
	muster_status st;
	char *text;

	if (size < 1 || size > TFC_MAX_INPUT)
		return 0;
	if (data[0] & 1)
		conf.task_type = (char *)"worker";
	if (data[0] & 2)
		conf.task_id = 1;
	if (data[0] & 4)
		conf.rpc_layer = (char *)((data[0] & 8) ? "" : "grpc");
	data++, size--;
	if (fuzz_call_begin_text(&fc, data, size, &text) != 0)
		return 0;
	conf.pc = &fc.pc;
	run.host = &host_services;
	run.call = &fc.call;
	run.conf = &conf;
	run.src = "TF_CONFIG";
	st = tfc_parse(&run, text, size, &doc);
	free(text);
	if (st == MUSTER_STATUS_SUCCESS)
		st = tfc_build(&run, doc.root);
	sjson_free(&doc);
	fuzz_call_end(&fc, st);
	return 0;
}
