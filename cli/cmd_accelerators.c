/* muster accelerators [--task TYPE:ID] */
#include <config.h>

#include <getopt.h>

#include "cli.h"

/* No --task: job NULL asks for this process's own task. */
static int emit_accelerators(char **out, const muster_result *res, const struct cli_request *req,
                             muster_error *err)
{
	return muster_result_accelerators_json(out, res, req->type, req->id, err);
}

int cmd_accelerators(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_request req = { NULL, -1, NULL, 0, g };
	const char *task = NULL;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			task = optarg;
			break;
		case 'h':
			return cli_command_usage(cli_find_command("accelerators"), 0);
		default:
			return cli_getopt_error(c, argv, "accelerators");
		}
	}
	if (optind < argc)
		return cli_usage_error("accelerators: unexpected argument '%s'", argv[optind]);
	if (task != NULL && (rc = cli_parse_task(task, &req.type, &req.id)) != 0)
		return rc;
	return cli_print_resolved(g, emit_accelerators, &req);
}
