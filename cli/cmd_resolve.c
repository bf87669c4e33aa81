/* muster resolve [--explain] [--format json|tf_config|text]
 * muster resolve [--explain] --exec [--] COMMAND [ARGS...] */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

enum format { FORMAT_JSON, FORMAT_TF_CONFIG, FORMAT_TEXT };

/* text: "JOB INDEX ADDRESS[ KIND=COUNT...]" per task, then what is known
 * of self identity, one "key: value" line each (documented in muster(1)).
 * Names and addresses come from backends: escaped, so that none can drive
 * the terminal. */
/* "KEY: VALUE" when the value is known. */
static void print_field(const char *key, const char *value)
{
	if (value != NULL) {
		out_printf("%s: ", key);
		out_text(value);
		out_puts("\n");
	}
}

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
			out_text(job);
			out_printf(" %ld ", index);
			out_text(addr);
			for (k = 0; (rc = muster_result_accelerator_at(res, job, index, k, &kind,
			                                               &count)) == 0;
			     k++)
			{
				out_puts(" ");
				out_text(kind);
				out_printf("=%ld", count);
			}
			if (rc != MUSTER_ENOENT)
				return cli_fail(rc, NULL);
			out_puts("\n");
		}
	}
	s = muster_result_task_type(res);
	self = muster_result_task_index(res);
	if (s != NULL) {
		out_puts("task: ");
		out_text(s);
		if (self >= 0)
			out_printf(" %ld", self);
		out_puts("\n");
	}
	print_field("rpc_layer", muster_result_rpc_layer(res));
	print_field("environment", muster_result_environment(res));
	print_field("source", muster_result_source(res));
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

/* setenv, or say why not; 0 or the exit status. */
static int set_env(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0) {
		cli_error("resolve --exec: cannot set %s: %s", name, strerror(errno));
		return CLI_EXIT_SOFTWARE;
	}
	return 0;
}

/*
 * --exec: hand the cluster to COMMAND through its environment, then become
 * it.  MUSTER_CLUSTER: the result as JSON; TF_CONFIG: this process's own
 * task's, when the backend knows which task it is; MUSTER_RESERVED_PORT and
 * TENSORFLOW_PORT: the port a backend reserved (spark).  The reserved port
 * stays bound until the last moment and is released right before exec: the
 * command then binds it (the window between the two is the only race left;
 * see muster(1)).  Returns only on failure.
 */
static int exec_with(muster_result *res, char **cmd)
{
	muster_error err = { 0, "" };
	const char *type = muster_result_task_type(res);
	long index = muster_result_task_index(res);
	int port = muster_result_reserved_port(res), rc, saved;
	char *s = NULL, buf[16];

	rc = muster_result_to_json(&s, res, &err);
	if (rc != 0)
		return cli_fail(rc, &err);
	rc = set_env("MUSTER_CLUSTER", s);
	muster_free(s);
	if (rc != 0)
		return rc;
	if (type != NULL && index >= 0) {
		s = NULL;
		rc = muster_result_to_tf_config(&s, res, type, index, 0, &err);
		if (rc != 0)
			return cli_fail(rc, &err);
		rc = set_env("TF_CONFIG", s);
		muster_free(s);
		if (rc != 0)
			return rc;
	}
	if (port > 0) {
		snprintf(buf, sizeof buf, "%d", port);
		if ((rc = set_env("MUSTER_RESERVED_PORT", buf)) != 0 ||
		    (rc = set_env("TENSORFLOW_PORT", buf)) != 0)
			return rc;
	}
	/* Nothing of ours may linger in the command: flush what we wrote. */
	fflush(stdout);
	muster_result_release_port(res);
	execvp(cmd[0], cmd);
	saved = errno;
	cli_error("resolve --exec: cannot run %s: %s", cmd[0], strerror(saved));
	return saved == ENOENT ? 127 : 126;
}

int cmd_resolve(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "exec", no_argument, NULL, 'x' },
		{ "explain", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum format format = FORMAT_JSON;
	int exec = 0, have_format = 0, explain = 0;
	muster_error err = { 0, "" };
	muster_ctx *ctx;
	muster_result *res;
	char *s = NULL;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			have_format = 1;
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
		case 'x':
			exec = 1;
			break;
		case 'e':
			explain = 1;
			break;
		default:
			return cli_getopt_default(c, argv, "resolve");
		}
	}
	if (exec && have_format)
		return cli_usage_error("resolve: --exec and --format do not go together");
	if (exec && optind >= argc)
		return cli_usage_error("resolve --exec: no command given");
	if (!exec && optind < argc)
		return cli_usage_error("resolve: unexpected argument '%s'", argv[optind]);

	rc = explain ? cli_open_resolve_explain(&ctx, &res, g) : cli_open_resolve(&ctx, &res, g);
	if (rc != 0)
		return rc;
	if (exec) {
		rc = exec_with(res, argv + optind);
		muster_result_free(res);
		muster_ctx_free(ctx);
		return out_finish(rc);
	}
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
