/* muster tf-config --task TYPE:ID [--sparse] */
#include <config.h>

#include <getopt.h>

#include "cli.h"

static int emit_tf_config(char **out, const muster_result *res, const struct cli_request *req,
                          muster_error *err)
{
	return muster_result_to_tf_config(out, res, req->type, req->id, req->flags, err);
}

int cmd_tf_config(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "sparse", no_argument, NULL, 's' },
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
		case 's':
			req.flags |= MUSTER_TF_CONFIG_SPARSE;
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
	if ((rc = cli_parse_task(task, &req.type, &req.id)) != 0)
		return rc;
	return cli_print_resolved(g, emit_tf_config, &req);
}
