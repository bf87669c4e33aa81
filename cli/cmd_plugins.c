/* muster plugins: one row per chain entry, in chain order. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

enum { COL_PLUGIN, COL_INSTANCE, COL_VERSION, COL_ABI, COL_FILE, COL_CONFIG, COL_WATCH, COL_STATE,
       NCOL };

/* How `muster watch` follows the entry: "watch", "config", "poll N ms";
 * NULL when its plugin did not load. */
static const char *watch_cell(const muster_ctx *ctx, size_t i, char *buf, size_t len)
{
	long every = 0;

	switch (muster_ctx_entry_watch(ctx, i, &every)) {
	case MUSTER_ENTRY_WATCHED: return "watch";
	case MUSTER_ENTRY_CONFIG: return "config";
	case MUSTER_ENTRY_POLLED: snprintf(buf, len, "poll %ld ms", every); return buf;
	default: return NULL;
	}
}

/* The state goes last: "failed: REASON" is free text of any length. */
static int add_entry(struct table *t, const muster_ctx *ctx, size_t i,
                     const muster_entry_info *e)
{
	const char *cells[NCOL];
	char abi[32], watch[48], *config = NULL, *state = NULL;
	size_t n;
	int rc = -1;

	cells[COL_PLUGIN] = e->plugin;
	cells[COL_INSTANCE] = e->instance;
	cells[COL_VERSION] = e->version;
	if (e->abi_major == 0 && e->abi_minor == 0)
		cells[COL_ABI] = NULL;
	else {
		snprintf(abi, sizeof abi, "%u.%u", e->abi_major, e->abi_minor);
		cells[COL_ABI] = abi;
	}
	cells[COL_FILE] = e->file != NULL ? e->file
	                  : e->state == MUSTER_PLUGIN_BUILTIN ? "built-in"
	                                                      : NULL;
	cells[COL_CONFIG] = NULL;
	if (e->config_file != NULL) {
		n = strlen(e->config_file) + 24;
		if ((config = malloc(n)) == NULL)
			goto out;
		snprintf(config, n, "%s:%d", e->config_file, e->config_line);
		cells[COL_CONFIG] = config;
	}
	cells[COL_WATCH] = watch_cell(ctx, i, watch, sizeof watch);
	switch (e->state) {
	case MUSTER_PLUGIN_LOADED:
		cells[COL_STATE] = "loaded";
		break;
	case MUSTER_PLUGIN_BUILTIN:
		cells[COL_STATE] = "built-in";
		break;
	case MUSTER_PLUGIN_FAILED: {
		const char *why = e->reason != NULL ? e->reason : "unknown reason";

		n = strlen(why) + sizeof "failed: ";
		if ((state = malloc(n)) == NULL)
			goto out;
		snprintf(state, n, "failed: %s", why);
		cells[COL_STATE] = state;
		break;
	}
	default:
		cells[COL_STATE] = "unknown";
		break;
	}
	rc = table_add(t, cells);
out:
	free(config);
	free(state);
	return rc;
}

int cmd_plugins(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const header[NCOL] = {
		"PLUGIN", "INSTANCE", "VERSION", "ABI", "FILE", "CONFIG", "WATCH", "STATE"
	};
	struct table *t;
	muster_ctx *ctx;
	size_t i, n;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		return cli_getopt_default(c, argv, "plugins");
	}
	if (optind < argc)
		return cli_usage_error("plugins: unexpected argument '%s'", argv[optind]);

	rc = cli_open(&ctx, g);
	if (rc != 0)
		return rc;
	t = table_new(NCOL);
	if (t == NULL || table_add(t, header) != 0) {
		rc = cli_fail(MUSTER_ENOMEM, NULL);
		goto out;
	}
	n = muster_ctx_entry_count(ctx);
	for (i = 0; i < n; i++) {
		muster_entry_info e;

		memset(&e, 0, sizeof e);
		rc = muster_ctx_entry_info(ctx, i, &e);
		if (rc != 0) {
			rc = cli_fail(rc, NULL);
			goto out;
		}
		if (add_entry(t, ctx, i, &e) != 0) {
			rc = cli_fail(MUSTER_ENOMEM, NULL);
			goto out;
		}
	}
	table_print(t);
out:
	table_free(t);
	muster_ctx_free(ctx);
	return out_finish(rc);
}
