/* muster run --elastic: this node's workers follow the cluster.  A watch
 * delivers each settled change; when it alters this node's launch (world
 * size, group rank, master, membership) the running generation is
 * stopped (SIGTERM to its process group, SIGKILL RUN_GRACE_S seconds
 * later, all reaped) and the next one starts with new ranks and a restart
 * count.  Below --min-nodes, or past --max-nodes, the node waits. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

struct elastic {
	const struct cli_global *g;
	struct cli_launch *cl;
	const struct run_elastic_opts *o;
	long gpus_per_proc;
	struct run_sup sup;
	struct run_plan plan;
	char *key;         /* the running generation's launch; NULL: none runs */
	char note[640];    /* why the node waits, as printed last */
	long generations;  /* started so far */
};

/* A line on stderr at `level`, shown as the library's messages are (-q:
 * none, -v: info too); locked against the watch thread's lines. */
static void say(const struct cli_global *g, int level, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void say(const struct cli_global *g, int level, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (g->verbosity < 0 || (level >= MUSTER_LOG_INFO && g->verbosity < 1))
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	cli_log(level, message, NULL);
}

static void end_generation(struct elastic *e)
{
	run_sup_stop(&e->sup);
	run_sup_end(&e->sup);
	run_free_env(&e->plan);
	free(e->key);
	e->key = NULL;
}

/* The launch's variables, the trimmed world and the restart counts. */
static int start_generation(struct elastic *e, struct node_launch *n)
{
	char mine[48], torch[48], *set[8];
	size_t k = 0;

	for (size_t i = 0; n->set[i] != NULL; i++)
		set[k++] = n->set[i];
	snprintf(mine, sizeof(mine), "MUSTER_RESTART_COUNT=%ld", e->generations);
	set[k++] = mine;
	if (strcmp(e->cl->l.framework, "pytorch") == 0) {
		snprintf(torch, sizeof(torch), "TORCHELASTIC_RESTART_COUNT=%ld", e->generations);
		set[k++] = torch;
	}
	set[k] = NULL;
	const char *note = muster_plan_note(n->plan);
	if (note != NULL && e->generations == 0)
		say(e->g, MUSTER_LOG_NOTICE, "run: %s", note);
	/* A node's process count may change with the cluster (its GPUs). */
	long nproc = muster_plan_nproc(n->plan);
	if (nproc != e->plan.n) {
		struct run_worker *w = calloc((size_t)nproc, sizeof(*w));
		if (w == NULL) {
			cli_error("%s", muster_strerror(MUSTER_ENOMEM));
			return CLI_EXIT_SOFTWARE;
		}
		free(e->plan.w);
		e->plan.w = w;
		e->plan.n = nproc;
	}
	for (long i = 0; i < e->plan.n; i++)
		e->plan.w[i] = (struct run_worker){ .out = { -1, -1 }, .err = { -1, -1 } };
	int rc = cli_launch_network(n->plan, e->cl, e->g);
	if (rc == 0)
		rc = run_build_env(&e->plan, n->plan, e->cl->command, e->gpus_per_proc, set);
	if (rc != 0) {
		run_free_env(&e->plan);
		return rc;
	}
	e->key = n->key;
	n->key = NULL;
	e->generations++;
	if ((rc = run_sup_start(&e->sup, &e->plan)) != 0)
		end_generation(e);
	return rc;
}

/* One change of the watch; 0, or the status that ends the run. */
static int on_change(struct elastic *e, muster_watch *w)
{
	muster_error err = { 0, "" };
	struct node_launch n;
	muster_change *c;
	int rc = muster_watch_next(w, 0, &c, &err);

	if (rc < 0) { /* the watch keeps its last good result: go on */
		cli_fail(rc, &err);
		return 0;
	}
	if (rc == 0)
		return 0;
	rc = run_node_decide(&n, muster_change_result(c), e->cl, e->o->min_nodes, e->o->max_nodes);
	if (rc == 0 && n.part == NODE_TRAINS && e->key && strcmp(n.key, e->key) == 0) {
		say(e->g, MUSTER_LOG_INFO, "run: the cluster changed, this node's launch did not: "
		    "the workers keep running");
	} else if (rc == 0) {
		if (e->key) {
			say(e->g, MUSTER_LOG_NOTICE, "run: the launch changed: stopping the workers "
			    "(SIGTERM, SIGKILL %d s later)", RUN_GRACE_S);
			end_generation(e);
		}
		if (n.part != NODE_TRAINS && strcmp(n.note, e->note) != 0) {
			say(e->g, MUSTER_LOG_NOTICE, "run: %s", n.note);
			snprintf(e->note, sizeof(e->note), "%s", n.note);
		} else if (n.part == NODE_TRAINS && !e->sup.signalled) {
			e->note[0] = '\0';
			say(e->g, MUSTER_LOG_NOTICE, "run: %ld node%s train, this one is node %ld: "
			    "starting the workers (restart %ld)", n.trained, n.trained == 1 ? "" : "s",
			    n.group_rank, e->generations);
			rc = start_generation(e, &n);
		}
	}
	run_node_free(&n);
	muster_change_free(c);
	return rc;
}

/* Until the workers end on their own, fail, or a signal ends the run. */
static int loop(struct elastic *e, muster_watch *w)
{
	for (;;) {
		/* After a failure or a signal the run winds down: no new launch. */
		int follow = e->sup.failure < 0 && !e->sup.signalled;
		int ready = run_sup_poll(&e->sup, follow ? muster_watch_fd(w) : -1);
		if (ready < 0) {
			cli_error("run: poll: %m");
			return CLI_EXIT_SOFTWARE;
		}
		if (e->key && e->sup.keeper == 0)
			return run_sup_status(&e->sup);
		if (!e->key && (e->sup.failure >= 0 || e->sup.signalled))
			return run_sup_status(&e->sup);
		/* The same poll may have brought a failure or a signal too: the
		 * change is left alone, or it would restart or forget them. */
		if (ready && e->sup.failure < 0 && !e->sup.signalled) {
			int rc = on_change(e, w);
			if (rc != 0)
				return rc;
		}
	}
}

int run_elastic(const struct cli_global *g, struct cli_launch *cl,
                const struct run_elastic_opts *o, long gpus_per_proc, int numa, int tee,
                char **argv)
{
	struct elastic e = { .g = g, .cl = cl, .o = o, .gpus_per_proc = gpus_per_proc,
		             .plan = { NULL, 0, argv, tee, NULL, g->verbosity < 0, numa,
		                       g->verbosity > 0, 0 } };
	muster_watch_options wo = MUSTER_WATCH_OPTIONS_INIT;
	muster_error err = { 0, "" };
	muster_ctx *ctx = NULL;
	muster_watch *w = NULL;
	int rc;

	if ((rc = run_sup_open(&e.sup)) != 0) /* before the watch's threads start */
		return rc;
	wo.settle_ms = o->settle_ms;
	if ((rc = cli_open(&ctx, g)) == 0 && (rc = muster_watch_start(&w, ctx, &wo, &err)) != 0)
		rc = cli_fail(rc, &err);
	if (rc == 0)
		rc = loop(&e, w);
	if (e.key)
		end_generation(&e);
	muster_watch_stop(w);
	muster_ctx_free(ctx);
	run_sup_close(&e.sup);
	free(e.plan.w);
	return rc;
}
