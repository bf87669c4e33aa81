/* muster watch [--format json|tf_config|text] [--settle-ms N]
 * The current result, then one line per change, each flushed at once,
 * until SIGINT or SIGTERM (exit 0) or a write error. */
#include <config.h>

#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli.h"

enum format { FORMAT_JSON, FORMAT_TF_CONFIG, FORMAT_TEXT };

/* text: "+JOB:INDEX=ADDRESS" added, "-" removed, "~" moved, "!" accelerators
 * changed, space-separated; "=" alone when only identity changed. */
static void print_text(const muster_change *c)
{
	static const char marks[] = "+-~!";
	int any = 0;
	for (int k = MUSTER_CHANGE_ADDED; k <= MUSTER_CHANGE_ACCELERATORS; k++) {
		const char *job, *addr;
		long index;
		for (size_t i = 0; muster_change_at(c, k, i, &job, &index, &addr) == 0; i++) {
			out_printf(any++ ? " %c" : "%c", marks[k]);
			out_text(job);
			out_printf(":%ld=", index);
			out_text(addr);
		}
	}
	out_puts(any ? "\n" : "=\n");
}

static int print_change(const muster_change *c, enum format format)
{
	muster_error err = { 0, "" };
	const muster_result *r = muster_change_result(c);
	char *s = NULL;
	int rc = 0;
	switch (format) {
	case FORMAT_JSON:
		rc = muster_change_to_json(&s, c, &err);
		break;
	case FORMAT_TF_CONFIG:
		rc = muster_result_to_tf_config(&s, r, NULL, -1, 0, &err);
		break;
	case FORMAT_TEXT:
		print_text(c);
		break;
	}
	if (rc != 0)
		return cli_fail(rc, &err);
	if (s)
		out_line_free(s);
	return fflush(stdout) == 0 ? 0 : CLI_EXIT_SOFTWARE;
}

static int parse(int argc, char **argv, enum format *format, long *settle_ms)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "settle-ms", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") == 0)
				*format = FORMAT_JSON;
			else if (strcmp(optarg, "tf_config") == 0)
				*format = FORMAT_TF_CONFIG;
			else if (strcmp(optarg, "text") == 0)
				*format = FORMAT_TEXT;
			else
				return cli_usage_error("watch: unknown format '%s'", optarg);
			break;
		case 's':
			if ((*settle_ms = cli_parse_ms("watch: --settle-ms", optarg, 3600000)) < 0)
				return CLI_EXIT_USAGE;
			break;
		case 'h':
			return cli_command_usage(cli_find_command("watch"), 0);
		default:
			return cli_getopt_error(c, argv, "watch");
		}
	}
	if (optind < argc)
		return cli_usage_error("watch: unexpected argument '%s'", argv[optind]);
	return -1;
}

/* Until a signal: every change printed. */
static int loop(muster_watch *w, enum format format, int sigfd)
{
	struct pollfd p[2] = { { muster_watch_fd(w), POLLIN, 0 }, { sigfd, POLLIN, 0 } };
	for (;;) {
		muster_error err = { 0, "" };
		muster_change *c;
		int got = muster_watch_next(w, 0, &c, &err);
		if (got < 0)
			return cli_fail(got, &err);
		if (got) {
			int rc = print_change(c, format);
			muster_change_free(c);
			if (rc)
				return rc;
			continue;
		}
		if (poll(p, 2, -1) > 0 && (p[1].revents & POLLIN))
			return 0;
	}
}

int cmd_watch(const struct cli_global *g, int argc, char **argv)
{
	enum format format = FORMAT_JSON;
	muster_watch_options wo = MUSTER_WATCH_OPTIONS_INIT;
	muster_error err = { 0, "" };
	muster_ctx *ctx;
	muster_watch *w;
	sigset_t stop;
	int rc = parse(argc, argv, &format, &wo.settle_ms);
	if (rc >= 0)
		return rc;
	/* Blocked before any thread starts, so every thread inherits it. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	int sigfd = signalfd(-1, &stop, SFD_CLOEXEC);
	if (sigfd < 0) {
		cli_error("watch: signalfd: %m");
		return CLI_EXIT_SOFTWARE;
	}
	if ((rc = cli_open(&ctx, g)) != 0) {
		close(sigfd);
		return rc;
	}
	if ((rc = muster_watch_start(&w, ctx, &wo, &err)) != 0) {
		rc = cli_fail(rc, &err);
	} else {
		rc = loop(w, format, sigfd);
		muster_watch_stop(w);
	}
	muster_ctx_free(ctx);
	close(sigfd);
	return out_finish(rc);
}
