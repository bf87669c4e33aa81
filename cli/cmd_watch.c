/* muster watch [--format json|tf_config|text] [--settle-ms N]
 *              [--metrics-port P [--metrics-host H]]
 * The current result, then one line per change, each flushed at once,
 * until SIGINT or SIGTERM (exit 0) or a write error.  With --metrics-port
 * the loop also serves a Prometheus page (watch_metrics.c). */
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
#include "lib/httpd.h"
#include "watch_metrics.h"

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

struct watch_opts {
	enum format format;
	long settle_ms;
	long metrics_port; /* -1: no page */
	const char *metrics_host;
};

static int parse(int argc, char **argv, struct watch_opts *o)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "settle-ms", required_argument, NULL, 's' },
		{ "metrics-port", required_argument, NULL, 'M' },
		{ "metrics-host", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") == 0)
				o->format = FORMAT_JSON;
			else if (strcmp(optarg, "tf_config") == 0)
				o->format = FORMAT_TF_CONFIG;
			else if (strcmp(optarg, "text") == 0)
				o->format = FORMAT_TEXT;
			else
				return cli_usage_error("watch: unknown format '%s'", optarg);
			break;
		case 's':
			if ((o->settle_ms = cli_parse_ms("watch: --settle-ms", optarg, 3600000)) < 0)
				return CLI_EXIT_USAGE;
			break;
		case 'M':
			/* 0 (any free port) or a count up to 65535. */
			o->metrics_port = strcmp(optarg, "0") == 0 ? 0 : cli_parse_count(optarg, 65535);
			if (o->metrics_port == 0 && strcmp(optarg, "0") != 0)
				return cli_usage_error("watch: --metrics-port must be a port from 0 to "
				                       "65535, not '%s'", optarg);
			break;
		case 'A':
			o->metrics_host = optarg;
			break;
		default:
			return cli_getopt_default(c, argv, "watch");
		}
	}
	if (optind < argc)
		return cli_usage_error("watch: unexpected argument '%s'", argv[optind]);
	if (o->metrics_host && o->metrics_port < 0)
		return cli_usage_error("watch: --metrics-host goes with --metrics-port");
	return -1;
}

/* Until a signal: every change printed, the metrics page (when `m`)
 * served in between. */
static int loop(muster_watch *w, enum format format, int sigfd, struct watch_metrics *m)
{
	struct httpd *page = m ? watch_metrics_httpd(m) : NULL;
	struct pollfd p[2 + 1 + HTTPD_MAX_CONNS];
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
			if (m)
				watch_metrics_changed(m);
			continue;
		}
		int timeout = -1;
		size_t n = 2;
		p[0] = (struct pollfd){ muster_watch_fd(w), POLLIN, 0 };
		p[1] = (struct pollfd){ sigfd, POLLIN, 0 };
		if (page) {
			httpd_poll(page, p + 2, &timeout);
			n += httpd_nfds(page);
		}
		if (poll(p, (nfds_t)n, timeout) < 0)
			continue;
		if (p[1].revents & POLLIN)
			return 0;
		if (page)
			httpd_service(page, p + 2, n - 2);
	}
}

int cmd_watch(const struct cli_global *g, int argc, char **argv)
{
	struct watch_opts o = { FORMAT_JSON, 100, -1, NULL };
	muster_watch_options wo = MUSTER_WATCH_OPTIONS_INIT;
	muster_error err = { 0, "" };
	struct watch_metrics *m = NULL;
	muster_ctx *ctx;
	muster_watch *w;
	sigset_t stop;
	int rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	wo.settle_ms = o.settle_ms;
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
	if (o.metrics_port >= 0) {
		if ((rc = watch_metrics_open(&m, ctx, o.metrics_host, (int)o.metrics_port)) != 0)
			goto out;
		if (g->verbosity >= 0)
			fprintf(stderr, "muster: metrics on http://%s/metrics\n",
			        httpd_address(watch_metrics_httpd(m)));
		wo.observe = watch_metrics_observe;
		wo.observe_data = m;
	}
	if ((rc = muster_watch_start(&w, ctx, &wo, &err)) != 0) {
		rc = cli_fail(rc, &err);
	} else {
		rc = loop(w, o.format, sigfd, m);
		muster_watch_stop(w);
	}
out:
	watch_metrics_free(m);
	muster_ctx_free(ctx);
	close(sigfd);
	return out_finish(rc);
}
