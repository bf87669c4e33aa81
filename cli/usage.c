/* Help texts and usage errors. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char exit_codes[] =
	"Exit status:\n"
	"  0   success\n"
	"  1   the chain answered notfound (no backend recognised this environment)\n"
	"  2   the chain answered unavail (a backend failed or was unreachable)\n"
	"  3   the chain answered tryagain (the cluster is not ready yet)\n"
	"  4   configuration or plugin error\n"
	"  5   no such job or task, or merged backends disagree\n"
	"  64  usage error (bad command line)\n"
	"  70  internal error (out of memory, write error, other)\n";

int cli_usage(int to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;
	size_t i;

	fputs("Usage: muster [-c FILE] [-v] COMMAND [options]\n"
	      "\n"
	      "Tell a process of a distributed training job who is in its cluster.\n"
	      "\n"
	      "Options (before the command):\n"
	      "  -c, --config FILE  read FILE instead of $MUSTER_CONF or the default\n"
	      "                     configuration (" MUSTER_DEFAULT_CONFIG ")\n"
	      "  -v, --verbose      log informational messages; twice, debug messages\n"
	      "  -q, --quiet        log no warnings, only errors\n"
	      "  -h, --help         print this help and exit\n"
	      "  -V, --version      print the version and exit\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < cli_command_count; i++)
		fprintf(f, "  %s\n      %s\n", cli_commands[i].synopsis, cli_commands[i].summary);
	fputs("\n"
	      "TYPE:ID names a task: a job name and a non-negative task index (worker:0).\n"
	      "'muster COMMAND --help' describes a command.\n"
	      "\n", f);
	fputs(exit_codes, f);
	fputs("\nSee muster(1) and muster.conf(5).\n", f);
	if (to_stderr)
		return CLI_EXIT_USAGE;
	return out_finish(CLI_EXIT_OK);
}

int cli_command_usage(const struct cli_command *cmd, int to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;

	fprintf(f, "Usage: muster [-c FILE] [-v] %s\n\n%c%s.\n", cmd->synopsis,
	        cmd->summary[0] >= 'a' && cmd->summary[0] <= 'z' ? cmd->summary[0] - 'a' + 'A'
	                                                       : cmd->summary[0],
	        cmd->summary + 1);
	fputs("\nOptions:\n", f);
	fputs(cmd->options, f);
	fputs("\n", f);
	fputs(exit_codes, f);
	if (to_stderr)
		return CLI_EXIT_USAGE;
	return out_finish(CLI_EXIT_OK);
}

const struct cli_command *cli_find_command(const char *name)
{
	size_t i;

	for (i = 0; i < cli_command_count; i++)
		if (strcmp(cli_commands[i].name, name) == 0)
			return &cli_commands[i];
	return NULL;
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("muster: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'muster --help' for more information.\n", stderr);
	return CLI_EXIT_USAGE;
}
