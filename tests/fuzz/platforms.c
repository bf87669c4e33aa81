/*
 * Fuzz target: a platform's environment as the platforms backend reads it
 * (plugins/platforms/: every variable through lib/env.h, Vertex AI's
 * CLUSTER_SPEC through the strict JSON reader, an MPI launcher's host
 * file, Volcano's host lists) and the cluster built from it through the
 * core's builder.  The first byte picks the platform (its position in
 * PF_PLATFORMS, modulo their number) and the port option (bit 7: 65530);
 * then parts cut at FUZZ_SEP, each NAME=VALUE, become the whole
 * environment; a part "@hostfile=TEXT" is written to a file that
 * OMPI_MCA_orte_default_hostfile names.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "platforms.h"

#define NPLATFORMS (sizeof((const char *[]){ PF_PLATFORMS(PF_FUZZ_NAME) }) / sizeof(char *))
#define PF_FUZZ_NAME(name, port) #name,

/* One NAME=VALUE part into the environment (or the host file). */
static void put(const uint8_t *part, size_t len)
{
	char *text = strndup((const char *)part, len), *eq;
	char path[512];

	if (text == NULL || (eq = strchr(text, '=')) == NULL || eq == text) {
		free(text);
		return;
	}
	*eq = '\0';
	if (strcmp(text, "@hostfile") == 0) {
		if (fuzz_tmpdir() != NULL) {
			snprintf(path, sizeof(path), "%s/hostfile", fuzz_tmpdir());
			if (fuzz_write_file(path, (const uint8_t *)eq + 1, strlen(eq + 1)) == 0)
				setenv("OMPI_MCA_orte_default_hostfile", path, 1);
		}
	} else if (strchr(text, '\0') == eq) {
		setenv(text, eq + 1, 1);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_conf conf = { .platform = 0, .port = 0, .port_base = 8888 };
	const uint8_t *part;
	struct fuzz_call fc;
	struct pf_run run;
	size_t len;
	muster_status st;

	if (size < 1 || size > PF_MAX_FILE)
		return 0;
	conf.platform = (int)((data[0] & 127) % NPLATFORMS);
	conf.port = data[0] & 128 ? 65530 : 0;
	data++, size--;
	clearenv();
	while ((part = fuzz_part(&data, &size, &len)) != NULL)
		put(part, len);
	if (fuzz_call_begin(&fc, NULL) != 0)
		return 0;
	pf_run_init(&run, &host_services, &fc.call, &conf);
	run.port = conf.port ? conf.port : pf_platforms[conf.platform].port;
	st = pf_platforms[conf.platform].resolve(&run);
	fuzz_call_end(&fc, st);
	return 0;
}
