/* muster accelerators [--task TYPE:ID] | --local [--sysroot DIR] */
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
		{ "local", no_argument, NULL, 'l' },
		{ "sysroot", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_request req = { NULL, -1, NULL, 0, g };
	const char *task = NULL, *sysroot = NULL;
	int c, rc, local = 0;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			task = optarg;
			break;
		case 'l':
			local = 1;
			break;
		case 'r':
			sysroot = optarg;
			break;
		case 'h':
			return cli_command_usage(cli_find_command("accelerators"), 0);
		default:
			return cli_getopt_error(c, argv, "accelerators");
		}
	}
	if (optind < argc)
		return cli_usage_error("accelerators: unexpected argument '%s'", argv[optind]);
	if (local && task != NULL)
		return cli_usage_error("accelerators: --local and --task do not go together");
	if (sysroot != NULL && !local)
		return cli_usage_error("accelerators: --sysroot goes with --local");
	if (local)
		return cli_print_local_devices(sysroot);
	if (task != NULL && (rc = cli_parse_task(task, &req.type, &req.id)) != 0)
		return rc;
	return cli_print_resolved(g, emit_accelerators, &req);
}
