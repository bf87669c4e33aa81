/* muster accelerators --local [--sysroot DIR]: this machine's devices. */
#include <config.h>

#include "cli.h"

int cli_print_local_devices(const char *sysroot)
{
	muster_error err = { 0, "" };
	muster_devices *d = NULL;
	char *s = NULL;
	int rc = muster_local_devices(&d, sysroot, &err);

	if (rc == 0)
		rc = muster_devices_to_json(&s, d, &err);
	if (rc != 0)
		rc = cli_fail(rc, &err);
	else
		out_line_free(s);
	muster_devices_free(d);
	return out_finish(rc);
}
