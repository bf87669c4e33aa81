/* The one path of the commands that print one thing about a task: parse
 * --task and the command's own options, resolve, print one line. */
#include <config.h>

#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

/* -1 to go on and resolve, else the exit status (--help, a usage error). */
static int parse(const struct cli_task_command *cmd, struct cli_request *req, int argc,
                 char **argv)
{
	static const struct {
		struct option opt;
		unsigned bit;
	} extra[] = {
		{ { "rpc-layer", required_argument, NULL, 'r' }, CLI_TASK_RPC_LAYER },
		{ { "sparse", no_argument, NULL, 's' }, CLI_TASK_SPARSE },
		{ { "local", no_argument, NULL, 'l' }, CLI_TASK_LOCAL },
		{ { "sysroot", required_argument, NULL, 'R' }, CLI_TASK_LOCAL },
	};
	struct option longopts[2 + sizeof extra / sizeof extra[0] + 1] = {
		{ "task", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
	};
	const char *task = NULL;
	size_t n = 2;
	int c, rc;

	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		if (cmd->options & extra[i].bit)
			longopts[n++] = extra[i].opt;
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			task = optarg;
			break;
		case 'r':
			req->rpc_layer = optarg; /* "" is meaningful: no prefix */
			break;
		case 's':
			req->flags |= MUSTER_TF_CONFIG_SPARSE;
			break;
		case 'l':
			req->local = 1;
			break;
		case 'R':
			req->sysroot = optarg;
			break;
		default:
			return cli_getopt_default(c, argv, cmd->name);
		}
	}
	if (optind < argc)
		return cli_usage_error("%s: unexpected argument '%s'", cmd->name, argv[optind]);
	if (req->local && task != NULL)
		return cli_usage_error("%s: --local and --task do not go together", cmd->name);
	if (req->sysroot != NULL && !req->local)
		return cli_usage_error("%s: --sysroot goes with --local", cmd->name);
	if (task == NULL && cmd->task_required)
		return cli_usage_error("%s: --task TYPE:ID is required", cmd->name);
	if (task != NULL && (rc = cli_parse_task(task, &req->type, &req->id)) != 0)
		return rc;
	return -1;
}

static int print_resolved(const struct cli_task_command *cmd, const struct cli_request *req)
{
	muster_error err = { 0, "" };
	muster_ctx *ctx;
	muster_result *res;
	char *s = NULL;
	int rc = cli_open_resolve(&ctx, &res, req->g);

	if (rc != 0)
		return rc;
	rc = cmd->print(&s, res, req, &err);
	if (rc != 0)
		rc = cli_fail(rc, &err);
	else
		out_line_free(s);
	muster_result_free(res);
	muster_ctx_free(ctx);
	return rc;
}

int cli_task_command(const struct cli_task_command *cmd, const struct cli_global *g, int argc,
                     char **argv)
{
	struct cli_request req = { NULL, -1, NULL, 0, g, 0, NULL };
	int rc = parse(cmd, &req, argc, argv);

	if (rc < 0 && req.local)
		rc = cli_print_local_devices(req.sysroot);
	else if (rc < 0)
		rc = out_finish(print_resolved(cmd, &req));
	free(req.type);
	return rc;
}
