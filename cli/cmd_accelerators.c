/* muster accelerators [--task TYPE:ID] */
#include <config.h>

#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

int cmd_accelerators(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	muster_error err = { 0, "" };
	const char *task = NULL;
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
		case 'h':
			return cli_command_usage(cli_find_command("accelerators"), 0);
		default:
			return cli_getopt_error(c, argv, "accelerators");
		}
	}
	if (optind < argc)
		return cli_usage_error("accelerators: unexpected argument '%s'", argv[optind]);
	if (task != NULL && (rc = cli_parse_task(task, &type, &id)) != 0)
		return rc;

	rc = cli_open_resolve(&ctx, &res, g);
	if (rc == 0) {
		/* No --task: job NULL asks for this process's own task. */
		rc = muster_result_accelerators_json(&s, res, type, id, &err);
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
