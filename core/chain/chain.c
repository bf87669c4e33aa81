/*
 * The chain, entry by entry:
 *  - success: `return` gives this answer (united with anything merged so
 *    far); `merge` adds it to the union and goes on; `continue` drops it
 *    and goes on.
 *  - notfound, unavail, tryagain: `return` ends the chain with that status;
 *    `continue` and `merge` go on.
 *  - the last entry's answer is final, whatever its actions say.
 *  - once something has been merged, the chain succeeds with it whatever
 *    later entries answer (NSS's rule for merged data).
 * When the chain fails, the error lists every entry's answer and reason,
 * those that failed before those that found nothing of theirs, and its
 * code is the status of the entry that ended it.  When it succeeds
 * past an entry that answered unavail or tryagain, each such entry is one
 * warning (notfound is "not my environment", no failure); with strict,
 * such an entry fails the chain at once.
 * An entry whose plugin detects its environment (MUSTER_PLUGIN_DETECTS)
 * answers notfound without running while MUSTER_NO_DETECT is set.  An
 * explaining resolve records every entry's answer and noted inputs.
 */
#include <config.h>

#include "chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "gate.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/error.h"
#include "local/local_devices.h"
#include "model/merge.h"

struct answer {
	int status;
	struct muster_result *result;
	char reason[1024];
	long ms;
};

static int status_code(int status)
{
	switch (status) {
	case MUSTER_STATUS_NOTFOUND: return MUSTER_ENOTFOUND;
	case MUSTER_STATUS_TRYAGAIN: return MUSTER_ETRYAGAIN;
	default: return MUSTER_EUNAVAIL;
	}
}

/* What an entry answering tryagain built — the members that are ready,
 * and those it reported pending — kept for whoever asked for the
 * explanation (`muster status`), never as an answer.  Anything wrong with
 * it (a refused builder call, a check that fails) leaves none. */
static void keep_partial(struct muster_call *call, const struct entry *e)
{
	const struct muster_result *r = call->builder.r;
	/* An entry asked after the chain ended answers for the record only. */
	if (!call->notes || call->notes->after || call->build_failed || !r ||
	    (!r->njobs && !r->npending))
		return;
	if (builder_set_string(&call->builder, &call->builder.r->source, e->set->name) == 0) {
		struct muster_result *partial = builder_finish(&call->builder);
		if (partial)
			explain_partial(call->notes, partial);
	}
}

/* Turns what the plugin built into a result, or says why not. */
static void collect(struct answer *a, struct muster_call *call, const struct entry *e)
{
	if (a->status == MUSTER_STATUS_SUCCESS && !call->build_failed &&
	    builder_set_string(&call->builder, &call->builder.r->source, e->set->name) == 0)
		a->result = builder_finish(&call->builder);
	if (a->status == MUSTER_STATUS_SUCCESS && !a->result) {
		a->status = MUSTER_STATUS_UNAVAIL;
		snprintf(a->reason, sizeof(a->reason), "%s",
		         call->build_failed ? call->reason : call->builder.reason);
	} else if (a->status != MUSTER_STATUS_SUCCESS) {
		snprintf(a->reason, sizeof(a->reason), "%s",
		         call->reason[0] ? call->reason : "(no reason given)");
		if (a->status == MUSTER_STATUS_TRYAGAIN)
			keep_partial(call, e);
	}
}

/* MUSTER_NO_DETECT set to anything but "" and "0": entries that detect
 * their environment stand aside, for a user working by hand inside an
 * allocation (Lightning's issue 20056, JAX's "deactivate"). */
static int detection_off(void)
{
	const char *v = env_get("MUSTER_NO_DETECT");
	return v && v[0] && strcmp(v, "0") != 0;
}

/* An entry with a `detect` list: notfound, without its plugin, when
 * detection is off or nothing of the list is there; loaded now if that
 * was put off.  1 when it should run. */
static int detected(struct muster_ctx *ctx, struct entry *e, struct answer *a, int no_detect,
                    struct explain_notes *notes)
{
	if (no_detect) {
		a->status = MUSTER_STATUS_NOTFOUND;
		snprintf(a->reason, sizeof(a->reason), "MUSTER_NO_DETECT is set");
		return 0;
	}
	if (!gate_open(e->set->detect, notes, a->reason, sizeof(a->reason))) {
		a->status = MUSTER_STATUS_NOTFOUND;
		return 0;
	}
	ctx_load_deferred(ctx, e);
	return 1;
}

static void run_entry(struct muster_ctx *ctx, struct entry *e, struct answer *a, int no_detect,
                      struct explain_notes *notes)
{
	struct muster_call call;
	long long start;
	memset(a, 0, sizeof(*a));
	if (e->set->detect && !detected(ctx, e, a, no_detect, notes))
		return;
	if (!e->plugin) {
		a->status = MUSTER_STATUS_UNAVAIL;
		snprintf(a->reason, sizeof(a->reason), "%s", e->load_error);
		return;
	}
	if (no_detect && (e->plugin->desc->flags & MUSTER_PLUGIN_DETECTS)) {
		a->status = MUSTER_STATUS_NOTFOUND;
		snprintf(a->reason, sizeof(a->reason), "MUSTER_NO_DETECT is set");
		return;
	}
	call_init(&call, &e->pc, e->set->timeout_ms);
	call.notes = notes;
	if (builder_init(&call.builder) < 0) {
		a->status = MUSTER_STATUS_UNAVAIL;
		snprintf(a->reason, sizeof(a->reason), "out of memory");
		return;
	}
	start = clock_now_ms();
	if (e->serialise)
		pthread_mutex_lock(&e->lock);
	a->status = (int)e->plugin->desc->resolve(e->state, &host_services, &call);
	if (e->serialise)
		pthread_mutex_unlock(&e->lock);
	a->ms = (long)(clock_now_ms() - start);

	if (a->status < MUSTER_STATUS_SUCCESS || a->status > MUSTER_STATUS_TRYAGAIN) {
		snprintf(a->reason, sizeof(a->reason), "answered an invalid status %d", a->status);
		a->status = MUSTER_STATUS_UNAVAIL;
	} else if (a->ms > e->set->timeout_ms) {
		/* Too late is as good as no answer: the budget is a promise to
		 * the host, and a late cluster may already be stale. */
		snprintf(a->reason, sizeof(a->reason), "no answer within its %ld ms budget (took %ld ms)%s%.600s",
		         e->set->timeout_ms, a->ms, call.reason[0] ? ": " : "", call.reason);
		a->status = MUSTER_STATUS_UNAVAIL;
	} else {
		collect(a, &call, e);
	}
	builder_discard(&call.builder);
}

static void note(char *summary, size_t len, size_t *used, const struct entry *e,
                 const struct answer *a)
{
	if (*used >= len)
		return;
	int n = snprintf(summary + *used, len - *used, "%s%s%s: %s (%s:%d)", *used ? "; " : "",
	                 e->pc.prefix, status_name(a->status), a->reason,
	                 e->set->file ? e->set->file : "?", e->set->line);
	if (n > 0)
		*used += (size_t)n;
}

/* A backend that failed, held until the chain's outcome is known: a failed
 * chain's error lists it already. */
struct failure {
	struct failure *next;
	const char *key; /* the entry and status, without the reason: in line's block */
	char line[];
};

static void hold_failure(struct muster_ctx *ctx, struct failure ***tail, const struct entry *e,
                         const struct answer *a)
{
	/* One that did not load was reported when the context opened. */
	if (!e->plugin)
		return;
	char line[sizeof(a->reason) + 512], key[512];
	const char *file = e->set->file ? e->set->file : "?";
	snprintf(line, sizeof(line), "%s%s: %s (%s:%d)", e->pc.prefix, status_name(a->status),
	         a->reason, file, e->set->line);
	snprintf(key, sizeof(key), "%s%s (%s:%d)", e->pc.prefix, status_name(a->status), file,
	         e->set->line);
	size_t n = strlen(line) + 1;
	struct failure *f = malloc(sizeof(*f) + n + strlen(key) + 1);
	if (!f) {
		log_msg(&ctx->logger, MUSTER_LOG_WARNING, "%s", line); /* now rather than never */
		return;
	}
	memcpy(f->line, line, n);
	f->key = strcpy(f->line + n, key);
	f->next = NULL;
	**tail = f;
	*tail = &f->next;
}

/* Whether `key` is one of the lines of `keys`. */
static int said_before(const char *keys, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = keys; p && (p = strstr(p, key)) != NULL; p += n)
		if ((p == keys || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

/* The held failures' keys, joined, for the next resolve's comparison. */
static char *join_failures(const struct failure *f)
{
	size_t len = 1;
	for (const struct failure *g = f; g; g = g->next)
		len += strlen(g->key) + 1;
	char *keys = f ? malloc(len) : NULL, *p = keys;
	for (; keys && f; f = f->next)
		p += sprintf(p, "%s\n", f->key);
	return keys;
}

/* Warns about each held failure when `warn` (once, with `warned`), and
 * frees them. */
static void release_failures(const struct muster_ctx *ctx, struct failure *f, int warn,
                             struct chain_warned *warned)
{
	char *now = warned && warn ? join_failures(f) : NULL;
	while (f) {
		struct failure *next = f->next;
		if (warn && !(warned && said_before(warned->keys, f->key)))
			log_msg(&ctx->logger, MUSTER_LOG_WARNING, "%s", f->line);
		free(f);
		f = next;
	}
	if (warned && warn) {
		free(warned->keys);
		warned->keys = now;
	}
}

void chain_warned_clear(struct chain_warned *warned)
{
	free(warned->keys);
	warned->keys = NULL;
}

/* The entry's record in `x` (NULL: none kept), or NULL. */
static struct explain_notes *explain_entry(struct muster_explain *x, const struct entry *e)
{
	return x ? explain_add(x, e->set->name, e->set->plugin) : NULL;
}

static void explain_outcome(struct explain_notes *n, const struct answer *a)
{
	if (n)
		explain_answer(n, a->status == MUSTER_STATUS_SUCCESS ? MUSTER_OK : status_code(a->status),
		               a->status == MUSTER_STATUS_SUCCESS ? NULL : a->reason, a->ms);
}

/* An entry that only reads its environment: safe and cheap to ask once
 * more (no server is contacted, nothing is registered). */
static int detector(const struct entry *e)
{
	return e->set->detect || (e->plugin && (e->plugin->desc->flags & MUSTER_PLUGIN_DETECTS));
}

/* For an explanation, the detectors after the entry that ended the chain
 * are asked too, so that it shows which other environments matched (a
 * torchrun worker inside a Slurm step inside a pod); their answers are
 * recorded as coming after, and dropped. */
static void explain_later(struct muster_ctx *ctx, struct muster_explain *x, size_t from,
                          int no_detect)
{
	for (size_t i = from; i < ctx->nentries; i++) {
		struct entry *e = &ctx->entries[i];
		struct explain_notes *notes;
		struct answer a;
		if (!detector(e) || !(notes = explain_entry(x, e)))
			continue;
		notes->after = 1;
		run_entry(ctx, e, &a, no_detect, notes);
		explain_outcome(notes, &a);
		muster_result_free(a.result);
	}
}

static int chain_run(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                     struct chain_warned *warned, struct muster_explain *x)
{
	struct failure *failures = NULL, **tail = &failures;
	struct muster_result *merged = NULL;
	/* Failures first, then what found nothing of its own: in a long chain
	 * of detectors the one that failed must not be cut off the message. */
	char failed[sizeof(err->message)], absent[sizeof(err->message)];
	size_t failed_len = 0, absent_len = 0;
	int code = MUSTER_ENOTFOUND, no_detect = detection_off();
	size_t i;
	failed[0] = absent[0] = '\0';

	for (i = 0; i < ctx->nentries; i++) {
		struct entry *e = &ctx->entries[i];
		struct explain_notes *notes = explain_entry(x, e);
		struct answer a;
		run_entry(ctx, e, &a, no_detect, notes);
		explain_outcome(notes, &a);
		log_msg(&ctx->logger, MUSTER_LOG_INFO, "%s%s%s%s (%ld ms)", e->pc.prefix,
		        status_name(a.status), a.result ? "" : ": ", a.result ? "" : a.reason, a.ms);
		int last = i + 1 == ctx->nentries;
		int action = last ? ACTION_RETURN : e->set->actions[a.status];

		if (a.status != MUSTER_STATUS_SUCCESS) {
			if (a.status == MUSTER_STATUS_NOTFOUND)
				note(absent, sizeof(absent), &absent_len, e, &a);
			else
				note(failed, sizeof(failed), &failed_len, e, &a);
			code = status_code(a.status);
			if (a.status != MUSTER_STATUS_NOTFOUND && ctx->settings.strict) {
				release_failures(ctx, failures, 0, NULL);
				muster_result_free(merged);
				return error_set(err, code, "%s%s: %s (%s:%d); with strict = true a backend "
				                 "that fails fails the chain", e->pc.prefix,
				                 status_name(a.status), a.reason,
				                 e->set->file ? e->set->file : "?", e->set->line);
			}
			if (a.status != MUSTER_STATUS_NOTFOUND)
				hold_failure(ctx, &tail, e, &a);
			if (action == ACTION_RETURN)
				break;
			continue;
		}
		if (action == ACTION_CONTINUE) {
			muster_result_free(a.result);
			continue;
		}
		if (merged) {
			struct muster_result *so_far = merged;
			int rc = merge_results(&merged, so_far, a.result, err);
			if (rc < 0) {
				release_failures(ctx, failures, 0, NULL);
				return rc;
			}
		} else {
			merged = a.result;
		}
		if (notes)
			notes->used = 1;
		if (action == ACTION_RETURN)
			break;
	}
	release_failures(ctx, failures, merged != NULL, warned);
	if (x)
		explain_later(ctx, x, i + 1, no_detect);
	if (merged && ctx->settings.local_accelerators) {
		int rc = local_fill(ctx, merged, err);
		if (rc != 0) {
			muster_result_free(merged);
			return rc;
		}
	}
	if (merged) {
		/* The config's word on the launch's port travels with its answer. */
		merged->master_port = ctx->settings.master_port;
		merged->no_interface = ctx->settings.no_interface;
		error_clear(err);
		*out = merged;
		return 0;
	}
	return error_set(err, code, "no backend could resolve the cluster: %s%s%s", failed,
	                 failed_len && absent_len ? "; " : "", absent);
}

int chain_resolve(struct muster_ctx *ctx, struct muster_result **out, muster_error *err)
{
	return chain_run(ctx, out, err, NULL, NULL);
}

int chain_resolve_warned(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                         struct chain_warned *warned)
{
	return chain_run(ctx, out, err, warned, NULL);
}

int chain_resolve_explain(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                          struct muster_explain *x)
{
	return chain_run(ctx, out, err, NULL, x);
}
