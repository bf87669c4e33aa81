/* muster check: open the context (which reads and validates the
 * configuration and its drop-ins, and loads the plugins), resolve nothing.
 * It opens as strict: what a resolve would warn about and go past (an
 * unknown key or plugin, a plugin that cannot be loaded) is an error. */
#include <config.h>

#include <getopt.h>

#include "cli.h"

int cmd_check(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	muster_ctx *ctx;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		return cli_getopt_default(c, argv, "check");
	}
	if (optind < argc)
		return cli_usage_error("check: unexpected argument '%s'", argv[optind]);

	rc = cli_open_flags(&ctx, g, MUSTER_CTX_STRICT);
	if (rc != 0)
		return rc;
	out_printf("%s: OK\n", muster_ctx_config_path(ctx));
	muster_ctx_free(ctx);
	return out_finish(CLI_EXIT_OK);
}
