/* muster tf-config --task TYPE:ID [--sparse] */
#include <config.h>

#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

int cmd_tf_config(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "sparse", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	muster_error err = { 0, "" };
	const char *task = NULL;
	char *type = NULL, *s = NULL;
	unsigned flags = 0;
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
		case 's':
			flags |= MUSTER_TF_CONFIG_SPARSE;
			break;
		case 'h':
			return cli_command_usage(cli_find_command("tf-config"), 0);
		default:
			return cli_getopt_error(c, argv, "tf-config");
		}
	}
	if (optind < argc)
		return cli_usage_error("tf-config: unexpected argument '%s'", argv[optind]);
	if (task == NULL)
		return cli_usage_error("tf-config: --task TYPE:ID is required");
	if ((rc = cli_parse_task(task, &type, &id)) != 0)
		return rc;

	rc = cli_open_resolve(&ctx, &res, g);
	if (rc == 0) {
		rc = muster_result_to_tf_config(&s, res, type, id, flags, &err);
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
