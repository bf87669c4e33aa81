/* Command-line helpers: getopt_long restarts, its help and errors, TYPE:ID,
 * --format table|json. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_getopt_reset(void)
{
	/* optind = 0 fully re-initialises getopt_long in glibc, musl and the
	 * BSDs (which then also set optreset); each command parses its own
	 * argument vector after the global options were parsed. */
	optind = 0;
	opterr = 0;
}

int cli_getopt_default(int c, char **argv, const char *cmd)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char what[64];

	if (c == 'h' && cmd != NULL)
		return cli_command_usage(cli_find_command(cmd), 0);
	what[0] = '\0';
	if (cmd != NULL)
		snprintf(what, sizeof what, "%s: ", cmd);
	if (c == ':') {
		if (strncmp(arg, "--", 2) == 0)
			return cli_usage_error("%soption '%s' requires an argument", what, arg);
		return cli_usage_error("%soption requires an argument -- '%c'", what, optopt);
	}
	if (strncmp(arg, "--", 2) == 0)
		return cli_usage_error("%sunrecognized option '%s'", what, arg);
	if (optopt > ' ' && optopt < 127)
		return cli_usage_error("%sinvalid option -- '%c'", what, optopt);
	return cli_usage_error("%sinvalid option '%s'", what, arg);
}

int cli_parse_table_format(const char *cmd, const char *arg, int *json)
{
	if (strcmp(arg, "json") != 0 && strcmp(arg, "table") != 0)
		return cli_usage_error("%s: unknown format '%s' (table or json)", cmd, arg);
	*json = strcmp(arg, "json") == 0;
	return 0;
}

int cli_parse_task(const char *arg, char **type, long *id)
{
	const char *colon = strrchr(arg, ':');
	const char *p;
	char *copy;
	size_t tlen;
	long v = 0;

	if (colon == NULL)
		return cli_usage_error("bad task '%s': expected TYPE:ID, e.g. worker:0", arg);
	tlen = (size_t)(colon - arg);
	if (tlen == 0)
		return cli_usage_error("bad task '%s': the task type is empty", arg);
	p = colon + 1;
	if (*p == '\0')
		return cli_usage_error("bad task '%s': the task index is missing", arg);
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return cli_usage_error("bad task '%s': the task index must be a "
			                       "non-negative decimal integer", arg);
		if (v > (LONG_MAX - (*p - '0')) / 10)
			return cli_usage_error("bad task '%s': the task index is too large", arg);
		v = v * 10 + (*p - '0');
	}
	copy = malloc(tlen + 1);
	if (copy == NULL) {
		cli_error("%s", muster_strerror(MUSTER_ENOMEM));
		return CLI_EXIT_SOFTWARE;
	}
	memcpy(copy, arg, tlen);
	copy[tlen] = '\0';
	*type = copy;
	*id = v;
	return 0;
}
