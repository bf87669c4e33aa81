/* What the server says: progress lines, and what is missing when it ends
 * early.  Executors are named by id, the way TensorFlowOnSpark users find
 * them in the Spark UI. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/error.h"
#include "server.h"

void report_progress(struct muster_reserve *s, bool force)
{
	long have = (long)s->reg.len;
	long long now = clock_now_ms();

	/* On a change, at most once a second (a thousand executors register
	 * within one); unchanged, every RESERVE_PROGRESS_MS. */
	if (!force && (have == s->last_logged ? now - s->last_log_ms < RESERVE_PROGRESS_MS
	                                      : now - s->last_log_ms < 1000))
		return;
	if (have < s->size)
		log_msg(&s->log, MUSTER_LOG_NOTICE, "waiting for %ld of %ld reservations",
		        s->size - have, s->size);
	else if (s->reg.fetched < s->reg.len)
		log_msg(&s->log, MUSTER_LOG_NOTICE,
		        "all %ld reservations received; waiting for %zu of them to fetch the list",
		        have, s->reg.len - s->reg.fetched);
	else
		log_msg(&s->log, MUSTER_LOG_NOTICE, "reservation complete: %ld executors", have);
	s->last_logged = have;
	s->last_log_ms = now;
}

/* Append " (ids 1, 4, 9)" for the missing executor ids of one kind; at
 * most a screenful of them. */
static void append_ids(char *buf, size_t cap, const struct muster_reserve *s, int which)
{
	size_t n = muster_reserve_missing_count(s, which), i, used = strlen(buf);

	if (n == 0)
		return;
	for (i = 0; i < n && used + 24 < cap; i++) {
		if (i == 32) {
			snprintf(buf + used, cap - used, ", ... %zu more", n - i);
			used = strlen(buf);
			break;
		}
		snprintf(buf + used, cap - used, "%s%ld", i == 0 ? " (ids " : ", ",
		         muster_reserve_missing_at(s, which, i));
		used = strlen(buf);
	}
	if (used + 2 < cap)
		snprintf(buf + used, cap - used, ")");
}

int report_unfinished(const struct muster_reserve *s, int code, const char *why,
                      muster_error *err)
{
	char unreg[480] = "", unfetched[480] = "";
	long have = (long)s->reg.len;

	if (have < s->size) {
		snprintf(unreg, sizeof unreg, "%ld of %ld executors never registered",
		         s->size - have, s->size);
		append_ids(unreg, sizeof unreg, s, MUSTER_RESERVE_UNREGISTERED);
	}
	if (s->reg.fetched < s->reg.len) {
		snprintf(unfetched, sizeof unfetched, "%zu registered but never fetched the complete list",
		         s->reg.len - s->reg.fetched);
		append_ids(unfetched, sizeof unfetched, s, MUSTER_RESERVE_UNFETCHED);
	}
	return error_set(err, code, "reserve: %s: %s%s%s", why, unreg,
	                 unreg[0] != '\0' && unfetched[0] != '\0' ? "; " : "", unfetched);
}
