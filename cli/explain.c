/* --explain (resolve, env): why the chain answered as it did, on stderr,
 * so that stdout keeps the command's own answer.  One line per entry run
 * and one per input its plugin noted, each "muster: explain: ...";
 * muster(1) shows the format.  Values come from the environment and
 * files: escaped, so that none can drive the terminal (secrets are
 * already redacted by the library). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *answer_name(int code)
{
	switch (code) {
	case MUSTER_OK:
		return "success";
	case MUSTER_ENOTFOUND:
		return "notfound";
	case MUSTER_EUNAVAIL:
		return "unavail";
	case MUSTER_ETRYAGAIN:
		return "tryagain";
	default:
		return muster_strerror(code);
	}
}

/* "muster: explain: " + the caller's text; end it with line_end(). */
static void line_start(void)
{
	fputs("muster: explain: ", stderr);
}

static void line_end(void)
{
	fputc('\n', stderr);
}

/* Backslashes kept, as in every message: a JSON value reads as JSON. */
static void escaped(const char *s)
{
	cli_put_escaped(stderr, s, 0);
}

/* A variable, or a file when the name is a path. */
static void print_input(const char *name, const char *value)
{
	int file = name[0] == '/';

	line_start();
	fputs(file ? "    file " : "    ", stderr);
	escaped(name);
	if (value == NULL) {
		fputs(file ? " was not read" : " is not set", stderr);
	} else {
		fputs(" = ", stderr);
		escaped(value);
	}
	line_end();
}

/* Record entry `k`, the chain's entry `pos`. */
static void print_entry(const muster_explain *x, size_t k, size_t pos,
                        const muster_explain_entry *e)
{
	const char *name, *value;

	line_start();
	fprintf(stderr, "%zu ", pos + 1);
	escaped(e->instance);
	fputs(" (", stderr);
	escaped(e->plugin);
	fprintf(stderr, ")%s: %s, %ld ms", e->after ? ", asked after the chain ended" : "",
	        answer_name(e->code), e->ms);
	if (e->code == MUSTER_OK)
		fputs(e->after  ? ": would have answered"
		      : e->used ? ": answered"
		                : ": not used (on_success = continue)",
		      stderr);
	else if (e->reason != NULL) {
		/* The core's reason for an entry that MUSTER_NO_DETECT turned off
		 * (muster(3)): say what it means. */
		fputs(strcmp(e->reason, "MUSTER_NO_DETECT is set") == 0 ? ": switched off: " : ": ",
		      stderr);
		escaped(e->reason);
	}
	line_end();
	for (size_t j = 0; muster_explain_input_at(x, k, j, &name, &value) == 0; j++)
		print_input(name, value);
	if (e->dropped > 0) {
		line_start();
		fprintf(stderr, "    (%zu more inputs not kept)", e->dropped);
		line_end();
	}
}

/* The configuration and MUSTER_NO_DETECT, which decide before any entry. */
static void print_head(const muster_ctx *ctx)
{
	const char *off = getenv("MUSTER_NO_DETECT");

	line_start();
	fputs("configuration ", stderr);
	escaped(muster_ctx_config_path(ctx));
	if (off == NULL) {
		fputs("; MUSTER_NO_DETECT is not set", stderr);
	} else {
		fputs("; MUSTER_NO_DETECT = ", stderr);
		escaped(off);
		if (off[0] != '\0' && strcmp(off, "0") != 0)
			fputs(" (entries that detect their environment stand aside)", stderr);
	}
	line_end();
}

/* The record keeps chain order (the entries run, then the detectors asked
 * after), and entry names are unique: one walk pairs each chain entry
 * with its record, if any.  1 with *e filled and *k past it, else 0. */
static int recorded(const muster_explain *x, size_t *k, const char *instance,
                    muster_explain_entry *e)
{
	muster_explain_entry init = MUSTER_EXPLAIN_ENTRY_INIT;

	*e = init;
	if (muster_explain_entry_at(x, *k, e) != 0 || strcmp(e->instance, instance) != 0)
		return 0;
	++*k;
	return 1;
}

/* Each entry the chain has: its record in chain order (`not_run` 0), or
 * the names of those without one on one line (`not_run` 1). */
static void walk_chain(const muster_ctx *ctx, const muster_explain *x, int not_run)
{
	size_t n = muster_ctx_entry_count(ctx), k = 0, missing = 0;

	for (size_t i = 0; i < n; i++) {
		muster_entry_info info;
		muster_explain_entry e;
		size_t at = k;

		memset(&info, 0, sizeof(info));
		if (muster_ctx_entry_info(ctx, i, &info) != 0)
			continue;
		if (recorded(x, &k, info.instance, &e)) {
			if (!not_run)
				print_entry(x, at, i, &e);
		} else if (not_run) {
			if (missing++ == 0) {
				line_start();
				fputs("not run: ", stderr);
			} else {
				fputs(", ", stderr);
			}
			escaped(info.instance);
		}
	}
	if (missing > 0)
		line_end();
}

static void print_explain(const muster_ctx *ctx, const muster_explain *x, const muster_result *res)
{
	print_head(ctx);
	walk_chain(ctx, x, 0);
	walk_chain(ctx, x, 1);
	line_start();
	if (res != NULL) {
		fputs("answer: ", stderr);
		escaped(muster_result_source(res));
	} else {
		fputs("no answer", stderr);
	}
	line_end();
	fflush(stderr);
}

int cli_open_resolve_explain(muster_ctx **ctx, muster_result **res, const struct cli_global *g)
{
	muster_error err = { 0, "" };
	muster_explain *x = NULL;
	int rc;

	*res = NULL;
	if ((rc = cli_open(ctx, g)) != 0)
		return rc;
	rc = muster_resolve_explain(res, &x, *ctx, &err);
	if (x != NULL)
		print_explain(*ctx, x, rc == 0 ? *res : NULL);
	muster_explain_free(x);
	if (rc != 0) {
		*res = NULL;
		muster_ctx_free(*ctx);
		*ctx = NULL;
		return cli_fail(rc, &err);
	}
	return 0;
}
