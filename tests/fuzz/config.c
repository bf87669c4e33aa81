/*
 * Fuzz target: muster.conf — libconfig, the drop-ins and every check of
 * settings_load (strict, as `muster check` loads); then each `static`
 * entry opened (its options checked through the core's config view,
 * unread keys listed as unknown) and resolved,
 * as muster_ctx_open and a resolve do.  The input is cut at FUZZ_SEP into
 * the main file and up to two drop-ins, written to a private directory.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "call.h"
#include "config/cfgview.h"
#include "fuzz.h"
#include "config/settings.h"

static void run_static(const struct entry_settings *e, struct unknowns *unknown)
{
	struct fuzz_call fc;
	struct cfg_reads reads;
	void *state = NULL;
	int rc;

	if (fuzz_call_begin(&fc, e->config) != 0)
		return;
	cfgview_begin_open(e->config, &reads);
	rc = static_plugin.open(&host_services, &fc.pc, &state);
	cfgview_end_open(e->config);
	if (rc == 0)
		cfgview_check_unread(e->config, &reads, unknown);
	cfgview_reads_free(&reads);
	if (rc == 0) {
		fuzz_call_end(&fc, static_plugin.resolve(state, &host_services, &fc.call));
		static_plugin.close(state);
	} else {
		fuzz_call_end(&fc, MUSTER_STATUS_UNAVAIL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dropins[] = { "10-a.conf", "20-b.conf" };
	const char *dir = fuzz_tmpdir();
	char path[512], dpath[600];
	const uint8_t *part;
	size_t len, i;
	struct settings s;
	struct logger lg = { NULL, NULL, -1 };
	muster_error err;

	if (dir == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/muster.conf", dir);
	snprintf(dpath, sizeof(dpath), "%s.d", path);
	mkdir(dpath, 0700);
	part = fuzz_part(&data, &size, &len);
	if (fuzz_write_file(path, part, len) != 0)
		return 0;
	for (i = 0; i < sizeof(dropins) / sizeof(*dropins); i++) {
		snprintf(dpath, sizeof(dpath), "%s.d/%s", path, dropins[i]);
		if ((part = fuzz_part(&data, &size, &len)) == NULL)
			unlink(dpath);
		else if (fuzz_write_file(dpath, part, len) != 0)
			return 0;
	}
	/* Strict, as `muster check` loads: every unknown name is listed too. */
	if (settings_load(&s, path, 1, &lg, &err) == 0) {
		for (i = 0; i < s.nentries; i++)
			if (strcmp(s.entries[i].plugin, "static") == 0)
				run_static(&s.entries[i], &s.unknown);
		unknowns_finish(&s.unknown, &err);
	}
	settings_release(&s);
	return 0;
}
