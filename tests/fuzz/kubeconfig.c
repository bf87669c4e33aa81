/*
 * Fuzz target: a kubeconfig, as the kubernetes backend reads it (libyaml,
 * then the current context's cluster, user and namespace, the -data key
 * material decoded).  The input is written to a file the parser reads.
 * The first byte picks whether the entry names the context.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "k8s.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct k8s_conf conf;
	struct k8s_run run;
	struct fuzz_call fc;
	const char *dir = fuzz_tmpdir();
	char path[512];

	if (dir == NULL || size < 1 || size > K8S_MAX_FILE)
		return 0;
	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	memset(&conf, 0, sizeof(conf));
	if (data[0] & 1)
		conf.context = (char *)"fuzz";
	if (fuzz_write_file(path, data + 1, size - 1) != 0 || fuzz_call_begin(&fc, NULL) != 0)
		return 0;
	conf.pc = &fc.pc;
	memset(&run, 0, sizeof(run));
	run.host = &host_services;
	run.call = &fc.call;
	run.conf = &conf;
	k8s_kubeconfig(&run, path, 1);
	k8s_conn_clear(&run.conn);
	fuzz_call_end(&fc, MUSTER_STATUS_UNAVAIL);
	return 0;
}
