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
 * and its code is the status of the entry that ended it.  When it succeeds
 * past an entry that answered unavail or tryagain, each such entry is one
 * warning (notfound is "not my environment", no failure); with strict,
 * such an entry fails the chain at once.
 */
#include "config.h"

#include "chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/clock.h"
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
	}
}

static void run_entry(struct entry *e, struct answer *a)
{
	struct muster_call call;
	long long start;
	memset(a, 0, sizeof(*a));
	if (!e->plugin) {
		a->status = MUSTER_STATUS_UNAVAIL;
		snprintf(a->reason, sizeof(a->reason), "%s", e->load_error);
		return;
	}
	call_init(&call, &e->pc, e->set->timeout_ms);
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

int chain_resolve(struct muster_ctx *ctx, struct muster_result **out, muster_error *err)
{
	return chain_resolve_warned(ctx, out, err, NULL);
}

int chain_resolve_warned(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                         struct chain_warned *warned)
{
	struct failure *failures = NULL, **tail = &failures;
	struct muster_result *merged = NULL;
	char summary[sizeof(err->message)];
	size_t used = 0;
	int code = MUSTER_ENOTFOUND;
	summary[0] = '\0';

	for (size_t i = 0; i < ctx->nentries; i++) {
		struct entry *e = &ctx->entries[i];
		struct answer a;
		run_entry(e, &a);
		log_msg(&ctx->logger, MUSTER_LOG_INFO, "%s%s%s%s (%ld ms)", e->pc.prefix,
		        status_name(a.status), a.result ? "" : ": ", a.result ? "" : a.reason, a.ms);
		int last = i + 1 == ctx->nentries;
		int action = last ? ACTION_RETURN : e->set->actions[a.status];

		if (a.status != MUSTER_STATUS_SUCCESS) {
			note(summary, sizeof(summary), &used, e, &a);
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
		if (action == ACTION_RETURN)
			break;
	}
	release_failures(ctx, failures, merged != NULL, warned);
	if (merged && ctx->settings.local_accelerators) {
		int rc = local_fill(ctx, merged, err);
		if (rc != 0) {
			muster_result_free(merged);
			return rc;
		}
	}
	if (merged) {
		error_clear(err);
		*out = merged;
		return 0;
	}
	return error_set(err, code, "no backend could resolve the cluster: %s", summary);
}
