/* muster master [--task TYPE:ID] [--rpc-layer LAYER] */
#include <config.h>

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

static int print_master(char **out, const muster_result *res, const struct cli_request *req,
                        muster_error *err)
{
	int rc = muster_result_master_url(out, res, req->type, req->id, req->rpc_layer, err);
	if (rc == 0 && no_address(*out))
		warn_no_master(req->g, res);
	return rc;
}

int cmd_master(const struct cli_global *g, int argc, char **argv)
{
	static const struct cli_task_command cmd = { "master", CLI_TASK_RPC_LAYER, 0, print_master };
	return cli_task_command(&cmd, g, argc, argv);
}
