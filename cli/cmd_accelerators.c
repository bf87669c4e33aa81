/* muster accelerators [--task TYPE:ID] | --local [--sysroot DIR] */
#include <config.h>

#include "cli.h"

/* No --task: job NULL asks for this process's own task. */
static int print_accelerators(char **out, const muster_result *res, const struct cli_request *req,
                              muster_error *err)
{
	return muster_result_accelerators_json(out, res, req->type, req->id, err);
}

int cmd_accelerators(const struct cli_global *g, int argc, char **argv)
{
	static const struct cli_task_command cmd = { "accelerators", CLI_TASK_LOCAL, 0, print_accelerators };
	return cli_task_command(&cmd, g, argc, argv);
}
