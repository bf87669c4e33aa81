/* muster hostfile --for openmpi|mpich|horovod|deepspeed [--jobs J,...]
 *                 [--nproc-per-node N|gpu] */
#include <config.h>

#include <getopt.h>

#include "cli.h"

int cmd_hostfile(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LAUNCH_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_launch cl;
	muster_error err = { 0, "" };
	muster_ctx *ctx;
	muster_result *res;
	muster_plan *plan = NULL;
	char *text = NULL;
	int c, rc;

	cli_launch_init(&cl, "hostfile");
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (c == CLI_OPT_TASK)
			return cli_usage_error("hostfile: --task does not apply (a hostfile lists "
			                       "every node)");
		if (cli_launch_option(&cl, c, optarg) == 0)
			continue;
		return cli_getopt_default(c, argv, "hostfile");
	}
	if (optind < argc)
		return cli_usage_error("hostfile: unexpected argument '%s'", argv[optind]);
	if ((rc = cli_launch_finish(&cl, "openmpi mpich horovod deepspeed")) != 0 ||
	    (rc = cli_open_resolve(&ctx, &res, g)) != 0) {
		cli_launch_free(&cl);
		return rc;
	}
	if ((rc = cli_launch_plan(&plan, res, &cl, g)) == 0) {
		if ((rc = muster_plan_hostfile(&text, plan, NULL, &err)) != 0)
			rc = cli_fail(rc, &err);
		else
			out_puts(text);
	}
	muster_free(text);
	muster_plan_free(plan);
	muster_result_free(res);
	muster_ctx_free(ctx);
	cli_launch_free(&cl);
	return out_finish(rc);
}
