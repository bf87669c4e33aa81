/* muster env --for FRAMEWORK [--task TYPE:ID] [--jobs J,...]
 *            [--nproc-per-node N|gpu] [--format sh|json|dotenv] [--no-ifname]
 *            [--explain] */
#include <config.h>

#include <getopt.h>
#include <string.h>

#include "cli.h"

enum env_format { ENV_SH, ENV_JSON, ENV_DOTENV };

/* POSIX sh single quotes: nothing inside is special but the quote itself,
 * which closes, is escaped, and reopens. */
static void put_sh(const char *s)
{
	out_puts("'");
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			out_puts("'\\''");
		else
			out_printf("%c", *s);
	}
	out_puts("'");
}

static int print_env(char **env, enum env_format format)
{
	for (size_t i = 0; env[i] != NULL; i++) {
		const char *eq = strchr(env[i], '=');
		if (format == ENV_DOTENV && strchr(eq + 1, '\n') != NULL) {
			cli_error("env --format dotenv: the value of %.*s has a newline, which dotenv "
			          "cannot carry; use --format sh or json", (int)(eq - env[i]), env[i]);
			return CLI_EXIT_SOFTWARE;
		}
	}
	if (format == ENV_JSON)
		out_puts("{");
	for (size_t i = 0; env[i] != NULL; i++) {
		const char *eq = strchr(env[i], '=');
		int nlen = (int)(eq - env[i]);
		switch (format) {
		case ENV_SH:
			out_printf("export %.*s=", nlen, env[i]);
			put_sh(eq + 1);
			out_puts("\n");
			break;
		case ENV_DOTENV:
			out_printf("%s\n", env[i]);
			break;
		case ENV_JSON:
			out_printf("%s\"%.*s\":", i ? "," : "", nlen, env[i]);
			cli_put_json(stdout, eq + 1);
			break;
		}
	}
	if (format == ENV_JSON)
		out_puts("}\n");
	return 0;
}

int cmd_env(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LAUNCH_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		{ "no-ifname", no_argument, NULL, CLI_OPT_NO_IFNAME },
		{ "explain", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum env_format format = ENV_SH;
	struct cli_launch cl;
	muster_error err = { 0, "" };
	muster_ctx *ctx;
	muster_result *res;
	muster_plan *plan = NULL;
	char **env = NULL;
	int c, rc, explain = 0;

	cli_launch_init(&cl, "env");
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (cli_launch_option(&cl, c, optarg) == 0)
			continue;
		switch (c) {
		case 'f':
			if (strcmp(optarg, "sh") == 0)
				format = ENV_SH;
			else if (strcmp(optarg, "json") == 0)
				format = ENV_JSON;
			else if (strcmp(optarg, "dotenv") == 0)
				format = ENV_DOTENV;
			else
				return cli_usage_error("env: unknown format '%s' (sh, json or dotenv)",
				                       optarg);
			break;
		case CLI_OPT_NO_IFNAME:
			cl.no_ifname = 1;
			break;
		case 'e':
			explain = 1;
			break;
		default:
			return cli_getopt_default(c, argv, "env");
		}
	}
	if (optind < argc)
		return cli_usage_error("env: unexpected argument '%s'", argv[optind]);
	if ((rc = cli_launch_finish(&cl, "tensorflow pytorch jax")) != 0 ||
	    (rc = explain ? cli_open_resolve_explain(&ctx, &res, g)
	                  : cli_open_resolve(&ctx, &res, g)) != 0) {
		cli_launch_free(&cl);
		return rc;
	}
	if ((rc = cli_launch_plan(&plan, res, &cl, g)) == 0 &&
	    (rc = cli_launch_network(plan, &cl, g)) == 0) {
		rc = muster_plan_env(&env, plan, 0, NULL, &err);
		rc = rc != 0 ? cli_fail(rc, &err) : print_env(env, format);
	}
	muster_free(env);
	muster_plan_free(plan);
	muster_result_free(res);
	muster_ctx_free(ctx);
	cli_launch_free(&cl);
	return out_finish(rc);
}
