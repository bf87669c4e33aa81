/*
 * muster [-c FILE] [-v] COMMAND [options]
 *
 * Global options come before the command (POSIXLY_CORRECT-style: parsing
 * stops at the first operand); each command parses its own options.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct cli_command cli_commands[] = {
	{ "resolve", "resolve [--format json|tf_config|text]",
	  "resolve the cluster and print it",
	  "  --format FORMAT  json (default): the whole result as JSON;\n"
	  "                   tf_config: the TF_CONFIG of this process's own task;\n"
	  "                   text: one line per task, JOB INDEX ADDRESS [KIND=COUNT...],\n"
	  "                   then 'task: TYPE INDEX', 'rpc_layer: L', 'environment: E'\n"
	  "                   and 'source: INSTANCE' lines for what is known\n"
	  "  -h, --help       print this help and exit\n",
	  cmd_resolve },
	{ "master", "master [--task TYPE:ID] [--rpc-layer LAYER]",
	  "print the master URL (may be an empty line)",
	  "  --task TYPE:ID     the task whose address is wanted (default: the rule of\n"
	  "                     the backend that answered)\n"
	  "  --rpc-layer LAYER  the URL's scheme instead of the backend's rpc layer\n"
	  "  -h, --help         print this help and exit\n",
	  cmd_master },
	{ "accelerators", "accelerators [--task TYPE:ID]",
	  "print a task's accelerators as JSON",
	  "  --task TYPE:ID  the task (default: this process's own task)\n"
	  "  -h, --help      print this help and exit\n",
	  cmd_accelerators },
	{ "tf-config", "tf-config --task TYPE:ID [--sparse]",
	  "print the TF_CONFIG that task should get",
	  "  --task TYPE:ID  the task (required)\n"
	  "  --sparse        Kubeflow's dynamic-worker (sparse) form\n"
	  "  -h, --help      print this help and exit\n",
	  cmd_tf_config },
	{ "plugins", "plugins",
	  "list the chain's entries and the state of their plugins",
	  "  -h, --help  print this help and exit\n", cmd_plugins },
	{ "check", "check",
	  "validate the configuration and load the plugins",
	  "  -h, --help  print this help and exit\n", cmd_check },
};
const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

static int version(void)
{
	out_printf("muster %s (libmuster %s)\n", MUSTER_VERSION, muster_version());
	return out_finish(CLI_EXIT_OK);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_global g = { NULL, 0 };
	const struct cli_command *cmd;
	int c;

	if (argc < 1)
		return cli_usage_error("no arguments at all");

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:c:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (optarg[0] == '\0')
				return cli_usage_error("-c/--config: the file name is empty");
			g.config = optarg;
			break;
		case 'v':
			g.verbosity++;
			break;
		case 'h':
			return cli_usage(0);
		case 'V':
			return version();
		default:
			return cli_getopt_error(c, argv, NULL);
		}
	}

	if (optind >= argc)
		return cli_usage_error("no command given");
	cmd = cli_find_command(argv[optind]);
	if (cmd == NULL)
		return cli_usage_error("unknown command '%s'", argv[optind]);
	return cmd->run(&g, argc - optind, argv + optind);
}
