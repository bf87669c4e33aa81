/* muster master [--task TYPE:ID] [--rpc-layer LAYER] */
#include <config.h>

#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

int cmd_master(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "rpc-layer", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	muster_error err = { 0, "" };
	const char *task = NULL, *rpc_layer = NULL;
	char *type = NULL, *s = NULL;
	long id = -1;
	muster_ctx *ctx;
	muster_result *res;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			task = optarg;
			break;
		case 'r':
			rpc_layer = optarg; /* "" is meaningful: no prefix */
			break;
		case 'h':
			return cli_command_usage(cli_find_command("master"), 0);
		default:
			return cli_getopt_error(c, argv, "master");
		}
	}
	if (optind < argc)
		return cli_usage_error("master: unexpected argument '%s'", argv[optind]);
	if (task != NULL && (rc = cli_parse_task(task, &type, &id)) != 0)
		return rc;

	rc = cli_open_resolve(&ctx, &res, g);
	if (rc == 0) {
		rc = muster_master(&s, res, type, id, rpc_layer, &err);
		if (rc != 0)
			rc = cli_fail(rc, &err);
		else
			out_line_free(s);
		muster_result_free(res);
		muster_ctx_free(ctx);
	}
	free(type);
	return out_finish(rc);
}
