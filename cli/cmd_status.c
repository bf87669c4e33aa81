/* muster status [--format table|json] [--watch [--settle-ms N]]
 *
 * The resolved cluster as a person reads it: a row per node (host) with
 * its tasks, ports and accelerators, which task this process is, which
 * backend answered, and the members a backend reported not ready.  A
 * chain that answers tryagain shows what its entry had built (the explain
 * record's partial view); one that found nothing shows each entry's
 * answer.  Exit status as `muster resolve`.
 *
 * --watch redraws on each change the watch delivers (muster_watch_*).
 * While the chain does not answer — at the start, or when the watch's
 * observer says a re-run failed — it resolves again every second, so
 * that a cluster on its way up shows its progress.  A frame is drawn in
 * memory first and shown only when it differs from the last.  On a
 * terminal that takes escapes each frame replaces the last; elsewhere
 * frames follow each other (JSON: one line each).  SIGWINCH redraws at
 * the new width; SIGINT or SIGTERM end it, exit status 0.
 */
#include <config.h>

#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli.h"
#include "status.h"

/* While the chain does not answer, --watch resolves again this often. */
#define STATUS_RETRY_MS 1000

struct status_opts {
	int json, watch;
	long settle_ms;
};

/* One resolve as a frame's inputs: the answer or a tryagain's partial
 * view, and the explanation that holds the latter. */
struct resolved {
	int code;
	muster_error err;
	muster_result *res;
	muster_explain *x;
	const muster_result *shown; /* res, or the last partial view in x */
	char why[1200];             /* the title of a partial view: its entry's answer */
};

static void resolved_release(struct resolved *r)
{
	muster_result_free(r->res);
	muster_explain_free(r->x);
	memset(r, 0, sizeof(*r));
}

/* Resolves; 0, or -1 when not even the explanation could be made (the
 * error printed). */
static int resolve(muster_ctx *ctx, struct resolved *r)
{
	memset(r, 0, sizeof(*r));
	r->code = muster_resolve_explain(&r->res, &r->x, ctx, &r->err);
	if (!r->x) {
		cli_fail(r->code, &r->err);
		return -1;
	}
	r->shown = r->res;
	snprintf(r->why, sizeof(r->why), "%s", r->err.message);
	for (size_t i = muster_explain_entry_count(r->x); !r->shown && i-- > 0;) {
		muster_explain_entry e = MUSTER_EXPLAIN_ENTRY_INIT;
		if ((r->shown = muster_explain_partial(r->x, i)) != NULL &&
		    muster_explain_entry_at(r->x, i, &e) == 0)
			snprintf(r->why, sizeof(r->why), "%s (%s) answered tryagain: %s", e.instance,
			         e.plugin, e.reason ? e.reason : "");
	}
	return 0;
}

/* The frame of `res` (the explanation `x` when there is one to show) into
 * a string, the caller's to free; NULL when out of memory. */
static char *draw(const struct status_opts *o, int code, const char *message,
                  const muster_result *res, const muster_explain *x)
{
	struct status_view v;
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	int rc = f ? status_view_init(&v, code, message, res, x) : -1;

	if (f)
		out_capture(f);
	if (rc == 0)
		rc = o->json ? status_print_json(&v) : status_print_table(&v, cli_term_width(),
		                                                          cli_term_color());
	out_capture(NULL);
	status_view_release(&v);
	if (!f || fclose(f) != 0 || rc != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static char *draw_resolved(const struct status_opts *o, const struct resolved *r)
{
	/* A watch's frames have no explanation, so that one from either
	 * source looks the same; only a chain that found nothing shows it. */
	const muster_explain *x = !o->watch || !r->shown ? r->x : NULL;
	return draw(o, r->code, r->code ? r->why : NULL, r->shown, x);
}

static int once(const struct cli_global *g, const struct status_opts *o)
{
	struct resolved r;
	muster_ctx *ctx;
	char *frame;
	int rc = cli_open(&ctx, g);

	if (rc != 0)
		return rc;
	if (resolve(ctx, &r) < 0) {
		muster_ctx_free(ctx);
		return out_finish(CLI_EXIT_SOFTWARE);
	}
	if ((frame = draw_resolved(o, &r)) != NULL) {
		out_puts(frame);
		free(frame);
		rc = r.code ? cli_fail(r.code, &r.err) : 0;
	} else {
		rc = cli_fail(MUSTER_ENOMEM, NULL);
	}
	resolved_release(&r);
	muster_ctx_free(ctx);
	return out_finish(rc);
}

/* --watch: the frame on screen and how to replace it. */
struct screen {
	const struct status_opts *o;
	char *last;   /* the frame shown */
	int frames;
};

/* Shows `frame` (taken) unless it is the one shown; 0, or the exit
 * status of a write error. */
static int show(struct screen *sc, char *frame, int force)
{
	if (!frame)
		return cli_fail(MUSTER_ENOMEM, NULL);
	if (!force && sc->last && strcmp(sc->last, frame) == 0) {
		free(frame);
		return 0;
	}
	if (!sc->o->json && cli_term_capable())
		out_puts("\033[H\033[2J"); /* home, clear: the new frame replaces the last */
	else if (!sc->o->json && sc->frames)
		out_puts("\n");
	out_puts(frame);
	sc->frames++;
	free(sc->last);
	sc->last = frame;
	return fflush(stdout) == 0 ? 0 : CLI_EXIT_SOFTWARE;
}

/* The watch's observer, on the watch's threads: a re-run that failed
 * wakes the loop, which then shows what the chain says now. */
static void observe(const muster_watch_event *ev, void *data)
{
	if (ev->kind == MUSTER_WATCH_RESOLVED && ev->code != 0) {
		uint64_t one = 1;
		if (write(*(int *)data, &one, sizeof(one)) < 0) {
			/* a full eventfd already holds a wake-up */
		}
	}
}

struct loop {
	muster_ctx *ctx;
	muster_watch *w;
	int sigfd, failed_fd;
	struct screen sc;
	struct resolved now;   /* the last resolve's, while it is shown */
	muster_change *change; /* the last change's, while it is shown */
	int answering;         /* the frame shown is an answer, not a failure */
};

static int redraw_resolve(struct loop *l, int force)
{
	resolved_release(&l->now);
	if (resolve(l->ctx, &l->now) < 0)
		return CLI_EXIT_SOFTWARE;
	l->answering = l->now.code == 0;
	if (!l->answering) {
		muster_change_free(l->change);
		l->change = NULL;
	}
	return show(&l->sc, draw_resolved(l->sc.o, &l->now), force);
}

static int redraw_change(struct loop *l, int force)
{
	const muster_result *r = muster_change_result(l->change);
	l->answering = 1;
	return show(&l->sc, draw(l->sc.o, 0, NULL, r, NULL), force);
}

static int watch_loop(struct loop *l)
{
	int rc = redraw_resolve(l, 0);
	while (rc == 0) {
		struct pollfd p[3] = { { muster_watch_fd(l->w), POLLIN, 0 },
		                       { l->sigfd, POLLIN, 0 },
		                       { l->failed_fd, POLLIN, 0 } };
		int n = poll(p, 3, l->answering ? -1 : STATUS_RETRY_MS);
		if (n < 0)
			continue; /* EINTR: the signals come through sigfd */
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(l->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
			    si.ssi_signo == SIGWINCH) {
				rc = l->change && l->answering ? redraw_change(l, 1) : redraw_resolve(l, 1);
				continue;
			}
			return 0;
		}
		muster_error err = { 0, "" };
		muster_change *c = NULL;
		int got = muster_watch_next(l->w, 0, &c, &err);
		if (got < 0)
			return cli_fail(got, &err);
		if (got) {
			muster_change_free(l->change);
			l->change = c;
			rc = redraw_change(l, 0);
			continue;
		}
		if (p[2].revents & POLLIN) {
			uint64_t v;
			if (read(l->failed_fd, &v, sizeof(v)) < 0) {
				/* drained already */
			}
			rc = redraw_resolve(l, 0);
		} else if (n == 0 && !l->answering) {
			rc = redraw_resolve(l, 0);
		}
	}
	return rc;
}

static int watch(const struct cli_global *g, const struct status_opts *o)
{
	muster_watch_options wo = MUSTER_WATCH_OPTIONS_INIT;
	muster_error err = { 0, "" };
	struct loop l;
	sigset_t sigs;
	int rc;

	memset(&l, 0, sizeof(l));
	l.sc.o = o;
	/* Blocked before any thread starts, so every thread inherits it. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGWINCH);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	l.sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	l.failed_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l.sigfd < 0 || l.failed_fd < 0) {
		cli_error("status: cannot make a signalfd or eventfd: %m");
		rc = CLI_EXIT_SOFTWARE;
		goto out;
	}
	if ((rc = cli_open(&l.ctx, g)) != 0)
		goto out;
	wo.settle_ms = o->settle_ms;
	wo.observe = observe;
	wo.observe_data = &l.failed_fd;
	if ((rc = muster_watch_start(&l.w, l.ctx, &wo, &err)) != 0) {
		rc = cli_fail(rc, &err);
		goto out;
	}
	rc = watch_loop(&l);
	muster_watch_stop(l.w);
out:
	muster_change_free(l.change);
	resolved_release(&l.now);
	free(l.sc.last);
	muster_ctx_free(l.ctx);
	if (l.sigfd >= 0)
		close(l.sigfd);
	if (l.failed_fd >= 0)
		close(l.failed_fd);
	return out_finish(rc);
}

int cmd_status(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "watch", no_argument, NULL, 'w' },
		{ "settle-ms", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct status_opts o = { 0, 0, 100 };
	int c, settle = 0;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (cli_parse_table_format("status", optarg, &o.json) != 0)
				return CLI_EXIT_USAGE;
			break;
		case 'w':
			o.watch = 1;
			break;
		case 's':
			if ((o.settle_ms = cli_parse_ms("status: --settle-ms", optarg, 3600000)) < 0)
				return CLI_EXIT_USAGE;
			settle = 1;
			break;
		default:
			return cli_getopt_default(c, argv, "status");
		}
	}
	if (optind < argc)
		return cli_usage_error("status: unexpected argument '%s'", argv[optind]);
	if (settle && !o.watch)
		return cli_usage_error("status: --settle-ms goes with --watch");
	return o.watch ? watch(g, &o) : once(g, &o);
}
