/* muster resolve [--format json|tf_config|text] */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

enum format { FORMAT_JSON, FORMAT_TF_CONFIG, FORMAT_TEXT };

/* text: "JOB INDEX ADDRESS[ KIND=COUNT...]" per task, then what is known
 * of self identity, one "key: value" line each (documented in muster(1)). */
static int print_text(const muster_result *res)
{
	size_t nj = muster_result_job_count(res), i, j, k;
	const char *s;
	long self;

	for (i = 0; i < nj; i++) {
		const char *job = muster_result_job_name(res, i);
		size_t nt = muster_result_task_count(res, job);

		for (j = 0; j < nt; j++) {
			const char *addr, *kind;
			long index, count;
			int rc = muster_result_task_at(res, job, j, &index, &addr);

			if (rc != 0)
				return cli_fail(rc, NULL);
			out_printf("%s %ld %s", job, index, addr);
			for (k = 0; (rc = muster_result_accelerator_at(res, job, index, k, &kind,
			                                               &count)) == 0;
			     k++)
				out_printf(" %s=%ld", kind, count);
			if (rc != MUSTER_ENOENT)
				return cli_fail(rc, NULL);
			out_puts("\n");
		}
	}
	s = muster_result_task_type(res);
	self = muster_result_task_index(res);
	if (s != NULL && self >= 0)
		out_printf("task: %s %ld\n", s, self);
	else if (s != NULL)
		out_printf("task: %s\n", s);
	if ((s = muster_result_rpc_layer(res)) != NULL)
		out_printf("rpc_layer: %s\n", s);
	if ((s = muster_result_environment(res)) != NULL)
		out_printf("environment: %s\n", s);
	if ((s = muster_result_source(res)) != NULL)
		out_printf("source: %s\n", s);
	return 0;
}

static int print_own_tf_config(const muster_result *res)
{
	muster_error err = { 0, "" };
	const char *type = muster_result_task_type(res);
	long index = muster_result_task_index(res);
	char *s = NULL;
	int rc;

	if (type == NULL || index < 0) {
		cli_error("resolve --format tf_config: the backend that answered (%s) does not "
		          "say which task this process is; use 'muster tf-config --task TYPE:ID'",
		          muster_result_source(res) != NULL ? muster_result_source(res) : "?");
		return CLI_EXIT_USAGE;
	}
	rc = muster_result_to_tf_config(&s, res, type, index, 0, &err);
	if (rc != 0)
		return cli_fail(rc, &err);
	out_line_free(s);
	return 0;
}

int cmd_resolve(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum format format = FORMAT_JSON;
	muster_error err = { 0, "" };
	muster_ctx *ctx;
	muster_result *res;
	char *s = NULL;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") == 0)
				format = FORMAT_JSON;
			else if (strcmp(optarg, "tf_config") == 0 || strcmp(optarg, "tf-config") == 0)
				format = FORMAT_TF_CONFIG;
			else if (strcmp(optarg, "text") == 0)
				format = FORMAT_TEXT;
			else
				return cli_usage_error("resolve: unknown format '%s' "
				                       "(json, tf_config or text)", optarg);
			break;
		case 'h':
			return cli_command_usage(cli_find_command("resolve"), 0);
		default:
			return cli_getopt_error(c, argv, "resolve");
		}
	}
	if (optind < argc)
		return cli_usage_error("resolve: unexpected argument '%s'", argv[optind]);

	rc = cli_open_resolve(&ctx, &res, g);
	if (rc != 0)
		return rc;
	switch (format) {
	case FORMAT_JSON:
		rc = muster_result_to_json(&s, res, &err);
		if (rc != 0)
			rc = cli_fail(rc, &err);
		else
			out_line_free(s);
		break;
	case FORMAT_TF_CONFIG:
		rc = print_own_tf_config(res);
		break;
	case FORMAT_TEXT:
		rc = print_text(res);
		break;
	}
	muster_result_free(res);
	muster_ctx_free(ctx);
	return out_finish(rc);
}
