/* Opening the context and resolving, with the error reporting every
 * command shares. */
#include <config.h>

#include <stddef.h>

#include "cli.h"

int cli_open(muster_ctx **ctx, const struct cli_global *g)
{
	return cli_open_flags(ctx, g, 0);
}

int cli_open_flags(muster_ctx **ctx, const struct cli_global *g, unsigned flags)
{
	muster_options opts;
	muster_error err = { 0, "" };
	int rc;

	cli_options(&opts, g);
	opts.flags = flags;
	*ctx = NULL;
	rc = muster_ctx_open(ctx, g->config, &opts, &err);
	if (rc != 0) {
		*ctx = NULL;
		return cli_fail(rc, &err);
	}
	return 0;
}

int cli_open_resolve(muster_ctx **ctx, muster_result **res, const struct cli_global *g)
{
	muster_error err = { 0, "" };
	int rc;

	*res = NULL;
	rc = cli_open(ctx, g);
	if (rc != 0)
		return rc;
	rc = muster_resolve(res, *ctx, &err);
	if (rc != 0) {
		*res = NULL;
		muster_ctx_free(*ctx);
		*ctx = NULL;
		return cli_fail(rc, &err);
	}
	return 0;
}
