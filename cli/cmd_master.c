/* muster master [--task TYPE:ID] [--rpc-layer LAYER] */
#include <config.h>

#include <getopt.h>
#include <string.h>

#include "cli.h"

/* "" or a bare "SCHEME://": TensorFlow's master() where it knows none. */
static int no_address(const char *url)
{
	const char *sep = strstr(url, "://");
	return url[0] == '\0' || (sep != NULL && sep[3] == '\0');
}

/* TensorFlow's answer is kept (the library stays drop-in for it), and this
 * line keeps it from being silent. */
static void warn_no_master(const struct cli_global *g, const muster_result *res)
{
	size_t jobs = muster_result_job_count(res);
	const char *source = muster_result_source(res);
	const char *why = "";

	if (jobs == 0)
		why = ", and the cluster is empty";
	else if (jobs == 1 && muster_result_task_count(res, muster_result_job_name(res, 0)) == 1)
		why = ", and the cluster has a single task (TensorFlow runs it in-process)";
	else if (muster_result_task_type(res) == NULL || muster_result_task_index(res) < 0)
		why = ", and this process's own task is unknown";
	cli_warn(g, "no master address is known: backend '%s' gave no master%s; printing what "
	         "TensorFlow's master() returns", source != NULL ? source : "?", why);
}

static int emit_master(char **out, const muster_result *res, const struct cli_request *req,
                       muster_error *err)
{
	int rc = muster_master(out, res, req->type, req->id, req->rpc_layer, err);
	if (rc == 0 && no_address(*out))
		warn_no_master(req->g, res);
	return rc;
}

int cmd_master(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "rpc-layer", required_argument, NULL, 'r' },
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
