/* The interface variables of env and run: the plan's network probe
 * (unless --no-ifname), and at -v what it chose or why nothing. */
#include <config.h>

#include <stdio.h>

#include "cli.h"

int cli_launch_network(muster_plan *plan, const struct cli_launch *cl, const struct cli_global *g)
{
	muster_error err = { 0, "" };
	int rc;

	if (cl->no_ifname)
		return 0;
	if ((rc = muster_plan_probe_network(plan, CLI_NET_TIMEOUT_MS, &err)) != 0)
		return cli_fail(rc, &err);
	const char *note = muster_plan_network_note(plan);
	if (note != NULL && g->verbosity >= 1) {
		char line[800];
		snprintf(line, sizeof(line), "%s: %s", cl->command, note);
		cli_log(MUSTER_LOG_INFO, line, NULL);
	}
	return 0;
}
