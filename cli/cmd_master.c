/* muster master [--task TYPE:ID] [--rpc-layer LAYER] */
#include <config.h>

#include <getopt.h>

#include "cli.h"

static int emit_master(char **out, const muster_result *res, const struct cli_request *req,
                       muster_error *err)
{
	return muster_master(out, res, req->type, req->id, req->rpc_layer, err);
}

int cmd_master(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "rpc-layer", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_request req = { NULL, -1, NULL, 0 };
	const char *task = NULL;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			task = optarg;
			break;
		case 'r':
			req.rpc_layer = optarg; /* "" is meaningful: no prefix */
			break;
		case 'h':
			return cli_command_usage(cli_find_command("master"), 0);
		default:
			return cli_getopt_error(c, argv, "master");
		}
	}
	if (optind < argc)
		return cli_usage_error("master: unexpected argument '%s'", argv[optind]);
	if (task != NULL && (rc = cli_parse_task(task, &req.type, &req.id)) != 0)
		return rc;
	return cli_print_resolved(g, emit_master, &req);
}
