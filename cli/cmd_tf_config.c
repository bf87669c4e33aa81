/* muster tf-config --task TYPE:ID [--sparse] */
#include <config.h>

#include "cli.h"

static int print_tf_config(char **out, const muster_result *res, const struct cli_request *req,
                           muster_error *err)
{
	return muster_result_to_tf_config(out, res, req->type, req->id, req->flags, err);
}

int cmd_tf_config(const struct cli_global *g, int argc, char **argv)
{
	static const struct cli_task_command cmd = { "tf-config", CLI_TASK_SPARSE, 1,
		                                     print_tf_config };
	return cli_task_command(&cmd, g, argc, argv);
}
