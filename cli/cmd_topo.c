/* muster topo [--format table|json] [--sysroot DIR]: where this machine's
 * accelerators sit (topo_table.c prints the table). */
#include <config.h>

#include <getopt.h>
#include <string.h>

#include "cli.h"

int cmd_topo(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "sysroot", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	muster_error err = { 0, "" };
	muster_devices *d = NULL;
	const char *sysroot = NULL;
	int json = 0, c, rc;
	char *s = NULL;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (cli_parse_table_format("topo", optarg, &json) != 0)
				return CLI_EXIT_USAGE;
			break;
		case 'R':
			sysroot = optarg;
			break;
		default:
			return cli_getopt_default(c, argv, "topo");
		}
	}
	if (optind < argc)
		return cli_usage_error("topo: unexpected argument '%s'", argv[optind]);
	rc = muster_local_topology(&d, sysroot, MUSTER_TOPOLOGY_NVLINK, &err);
	if (rc != 0)
		rc = cli_fail(rc, &err);
	else if (json && (rc = muster_topology_to_json(&s, d, &err)) != 0)
		rc = cli_fail(rc, &err);
	else if (json)
		out_line_free(s);
	else
		rc = topo_print_table(g, d);
	muster_devices_free(d);
	return out_finish(rc);
}
