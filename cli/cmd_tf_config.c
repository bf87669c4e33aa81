/* muster tf-config --task TYPE:ID [--sparse] */
#include <config.h>

#include <getopt.h>

#include "cli.h"

static int tf_config_option(struct cli_request *req, int c, const char *arg)
{
	(void)c; /* --sparse is its only option */
	(void)arg;
	req->flags |= MUSTER_TF_CONFIG_SPARSE;
	return 0;
}

static int print_tf_config(char **out, const muster_result *res, const struct cli_request *req,
                           muster_error *err)
{
	return muster_result_to_tf_config(out, res, req->type, req->id, req->flags, err);
}

int cmd_tf_config(const struct cli_global *g, int argc, char **argv)
{
	static const struct option options[] = { { "sparse", no_argument, NULL, 's' },
		                                 { NULL, 0, NULL, 0 } };
	static const struct cli_task_command cmd = { "tf-config", options, tf_config_option, 1,
		                                     print_tf_config };
	return cli_task_command(&cmd, g, argc, argv);
}
